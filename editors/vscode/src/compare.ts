// compare.ts: the "Run Comparison" tree view in the Explorer (issue 28): what
// changed between the baseline run and the current one, as the server's
// `inductor/compare` answers it (server/lsp/Compare.cpp); nothing is computed here.
//
//   Changes: 02:31:04 → 02:31:47                 (view title: baseline → current)
//   ▾ New graph breaks, recompiles, failures (2)
//       Unsupported Tensor.item() call…          graph break · model.py:48
//   ▾ Gone graph breaks, recompiles, failures
//   ▾ New lines (3)
//     ▸ h = F.silu(h)                            model.py:47 · 0 → 8 kernels · – → 35.1 µs/step
//         triton_poi_fused_silu_3                added
//   ▾ Gone lines / Changed lines
//
// The view shows in the Explorer once the traces hold several runs (or when
// asked for). Clicking an event or a line opens it (a gone line: the baseline's line, in
// the file as it is now), when the file is on this machine.
//
//   inductorLs.compare           palette (commands.ts, starts the server if
//                                need be): focus the view and ask again
//   inductorLs.refreshCompare    view title: ask again
//   (view title also: inductorLs.selectBaseline, inductorLs.selectRun)
//
// The view asks again when the server says the index changed (`inductor/status`
// after indexing, also once the baseline's index is built) or sends
// `workspace/codeLens/refresh` (what compares with the baseline changed), and
// after a run or baseline is chosen. While hidden it only remembers to.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { type CompareEvent, type CompareLine, type CompareResult, compareRequest, runsRequest } from './protocol';

export const viewId = 'inductorLs.compare';

type Group = 'eventsNew' | 'eventsGone' | 'linesNew' | 'linesGone' | 'linesChanged';

export type CompareNode =
  | { kind: 'group'; group: Group; label: string; children: CompareNode[] }
  | { kind: 'event'; event: CompareEvent; parent: CompareNode }
  | { kind: 'line'; line: CompareLine; parent: CompareNode }
  | { kind: 'kernel'; name: string; change: 'added' | 'removed' | 'changed' | 'same'; parent: CompareNode }
  | { kind: 'message'; text: string };

const groupLabels: Record<Group, string> = {
  eventsNew: 'New graph breaks, recompiles, failures',
  eventsGone: 'Gone graph breaks, recompiles, failures',
  linesNew: 'New lines',
  linesGone: 'Gone lines',
  linesChanged: 'Changed lines',
};

// A line's kernels before and after as its code lens counts them (once per graph of each compile: the
// lens's `(+2)` is this difference), with the compiles when they differ (a recompile counts its kernels
// again, and a new or gone line's compiles go without saying): `12 → 20 kernels (1 → 2 compiles)`.
export function kernelCounts(l: CompareLine): string {
  const compiles =
    l.compilesBefore > 0 && l.compilesAfter > 0 && l.compilesBefore !== l.compilesAfter
      ? ` (${l.compilesBefore} → ${l.compilesAfter} compiles)`
      : '';
  return `${l.kernelCountBefore} → ${l.kernelCountAfter} kernels${compiles}`;
}

function base(path: string): string {
  return path.split('/').pop() ?? path;
}

// Two run ids "2026-11-27 02:31:04" of one day: their times; else whole.
export function shortIds(a: string, b: string): [string, string] {
  const day = /^(\d{4}-\d\d-\d\d) (\S+)$/;
  const ma = day.exec(a);
  const mb = day.exec(b);
  return ma && mb && ma[1] === mb[1] ? [ma[2], mb[2]] : [a, b];
}

function micros(us: number | null, basis: CompareResult['basisBefore']): string {
  if (us === null || basis === 'none') return '–';
  const text = us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
  return basis === 'perStep' ? `${text}/step` : text;
}

// A line's GPU time in a row, short enough for the Explorer's width: its change when both runs timed it alike
// (`+35.0 µs`), else the one run's time; the whole before → after is in the tooltip.
function timeShort(l: CompareLine, r: CompareResult | undefined): string {
  const basisBefore = r?.basisBefore ?? 'none';
  const basisAfter = r?.basisAfter ?? 'none';
  if (l.gpuTimeBeforeUs !== null && l.gpuTimeAfterUs !== null && basisBefore === basisAfter && basisAfter !== 'none') {
    const delta = l.gpuTimeAfterUs - l.gpuTimeBeforeUs;
    return `${delta < 0 ? '−' : '+'}${micros(Math.abs(delta), basisAfter)}`;
  }
  if (l.gpuTimeAfterUs !== null && basisAfter !== 'none') return micros(l.gpuTimeAfterUs, basisAfter);
  if (l.gpuTimeBeforeUs !== null && basisBefore !== 'none') return micros(l.gpuTimeBeforeUs, basisBefore);
  return '';
}

export class CompareProvider implements vscode.TreeDataProvider<CompareNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CompareNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private answer: CompareResult | undefined;
  private error: string | undefined;
  private roots: CompareNode[] = [];
  private pending: Promise<void> | undefined;
  // Set while the view is hidden and the index changed: asked again when shown.
  stale = true;
  view: vscode.TreeView<CompareNode> | undefined;

  constructor(private readonly client: LanguageClient) {}

  dispose(): void {
    this.changed.dispose();
  }

  /// The server's last answer (for tests).
  get result(): CompareResult | undefined {
    return this.answer;
  }

  /// "Changes: BASELINE → CURRENT", or what the view shows without a baseline.
  get title(): string {
    const r = this.answer;
    if (!r?.baseline) return 'Run Comparison';
    const [b, c] = shortIds(r.baseline.id, r.current.id);
    return `Changes: ${b} → ${c}`;
  }

  /// Asks the server again; resolves once the tree has the answer.
  refresh(): Promise<void> {
    const run = async () => {
      this.stale = false;
      try {
        this.answer = await this.client.sendRequest(compareRequest, {});
        this.error = undefined;
      } catch (e) {
        this.answer = undefined;
        this.error = e instanceof Error ? e.message : String(e);
      }
      this.roots = this.build();
      if (this.view) {
        this.view.title = this.title;
        const r = this.answer;
        this.view.description = r?.baseline ? undefined : r ? `run ${r.current.id}` : undefined;
        this.view.message = undefined;
      }
      this.changed.fire(undefined);
    };
    // One request at a time; a refresh asked meanwhile runs after it.
    this.pending = (this.pending ?? Promise.resolve()).then(run, run);
    return this.pending;
  }

  /// Refreshes now when the view is visible, else when it is shown.
  invalidate(): void {
    this.stale = true;
    if (this.view?.visible) void this.refresh();
  }

  private build(): CompareNode[] {
    const r = this.answer;
    if (!r) return [{ kind: 'message', text: this.error ? `The comparison failed: ${this.error}` : 'Indexing…' }];
    if (!r.baseline) return [{ kind: 'message', text: r.reason || 'No baseline run to compare with' }];
    const groups: CompareNode[] = [];
    const add = (group: Group, make: (parent: CompareNode) => CompareNode[]) => {
      const node: CompareNode = { kind: 'group', group, label: groupLabels[group], children: [] };
      node.children = make(node);
      if (node.children.length > 0) groups.push(node);
    };
    for (const change of ['new', 'gone'] as const)
      add(change === 'new' ? 'eventsNew' : 'eventsGone', (parent) =>
        r.events.filter((e) => e.change === change).map((event) => ({ kind: 'event', event, parent })),
      );
    for (const change of ['new', 'gone', 'changed'] as const)
      add(change === 'new' ? 'linesNew' : change === 'gone' ? 'linesGone' : 'linesChanged', (parent) =>
        r.lines.filter((l) => l.change === change).map((line) => ({ kind: 'line', line, parent })),
      );
    if (groups.length === 0)
      return [{ kind: 'message', text: `Nothing changed since run ${r.baseline.id}` }];
    return groups;
  }

  getParent(node: CompareNode): CompareNode | undefined {
    return 'parent' in node ? node.parent : undefined;
  }

  getChildren(node?: CompareNode): CompareNode[] {
    if (!node) return this.roots.length > 0 ? this.roots : this.build();
    if (node.kind === 'group') return node.children;
    if (node.kind === 'line') {
      const l = node.line;
      const before = new Set(l.kernelsBefore);
      const after = new Set(l.kernelsAfter);
      const changedCode = new Set(l.kernelsChanged);
      const names = [...new Set([...l.kernelsAfter, ...l.kernelsBefore])];
      return names.map((name) => ({
        kind: 'kernel',
        name,
        change: !before.has(name) ? 'added' : !after.has(name) ? 'removed' : changedCode.has(name) ? 'changed' : 'same',
        parent: node,
      }));
    }
    return [];
  }

  private open(file: string, line: number): vscode.Command | undefined {
    // Only files on this machine: a path recorded elsewhere and not mapped opens nothing useful.
    if (!file || !fs.existsSync(file)) return undefined;
    const at = new vscode.Position(Math.max(0, line - 1), 0);
    return {
      command: 'vscode.open',
      title: 'Open',
      arguments: [vscode.Uri.file(file), { selection: new vscode.Range(at, at), preview: true }],
    };
  }

  getTreeItem(node: CompareNode): vscode.TreeItem {
    const r = this.answer;
    switch (node.kind) {
      case 'group': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.group}`;
        item.description = String(node.children.length);
        item.iconPath = new vscode.ThemeIcon(
          node.group === 'eventsNew' || node.group === 'linesNew'
            ? 'diff-added'
            : node.group === 'linesChanged'
              ? 'diff-modified'
              : 'diff-removed',
        );
        return item;
      }
      case 'event': {
        const e = node.event;
        const item = new vscode.TreeItem(e.message.split('\n')[0], vscode.TreeItemCollapsibleState.None);
        item.description = `${e.kind} · ${e.file ? `${base(e.file)}:${e.line}` : 'no model line'}`;
        item.iconPath =
          e.change === 'gone'
            ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
            : e.kind === 'failure'
              ? new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'))
              : e.kind === 'recompile'
                ? new vscode.ThemeIcon('refresh', new vscode.ThemeColor('problemsInfoIcon.foreground'))
                : new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${e.kind}**, ${e.change === 'new' ? 'new since' : 'gone since'} run ${r?.baseline?.id ?? ''}\n\n`);
        if (e.file) md.appendMarkdown(`${e.file}:${e.line}\n\n`);
        if (e.code) md.appendCodeblock(e.code.trim(), 'python');
        md.appendCodeblock(e.message, 'text');
        item.tooltip = md;
        item.command = this.open(e.file, e.line);
        item.contextValue = 'compareEvent';
        return item;
      }
      case 'line': {
        const l = node.line;
        const item = new vscode.TreeItem(
          l.text.trim() || `line ${l.line}`,
          l.kernelsBefore.length + l.kernelsAfter.length > 0
            ? vscode.TreeItemCollapsibleState.Collapsed
            : vscode.TreeItemCollapsibleState.None,
        );
        const before = micros(l.gpuTimeBeforeUs, r?.basisBefore ?? 'none');
        const after = micros(l.gpuTimeAfterUs, r?.basisAfter ?? 'none');
        const time = timeShort(l, r);
        item.description =
          `${base(l.file)}:${l.line} · ${l.kernelCountBefore} → ${l.kernelCountAfter} kernels` + (time ? ` · ${time}` : '');
        item.iconPath = new vscode.ThemeIcon(
          l.change === 'new' ? 'diff-added' : l.change === 'gone' ? 'diff-removed' : 'diff-modified',
        );
        const md = new vscode.MarkdownString();
        md.appendMarkdown(
          `**${l.change}** since run ${r?.baseline?.id ?? ''} · ${l.file}:${l.line}` +
            (l.change === 'gone' ? ' (its line in the baseline run; no longer in the file)' : '') +
            '\n\n',
        );
        md.appendCodeblock(l.text, 'python');
        md.appendMarkdown(
          `Kernels: ${kernelCounts(l)}` +
            (l.kernelsChanged.length > 0 ? ` (${l.kernelsChanged.length} with other code)` : '') +
            `\n\nGPU time: ${before} → ${after}`,
        );
        item.tooltip = md;
        item.command = this.open(l.file, l.line);
        item.contextValue = 'compareLine';
        return item;
      }
      case 'kernel': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
        item.description = node.change === 'same' ? 'unchanged' : node.change === 'changed' ? 'other code' : node.change;
        item.iconPath = new vscode.ThemeIcon(
          node.change === 'added'
            ? 'add'
            : node.change === 'removed'
              ? 'remove'
              : node.change === 'changed'
                ? 'diff-modified'
                : 'symbol-function',
        );
        return item;
      }
      case 'message':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }
}

// Fires when vscode-languageclient's code lens providers are told to refresh
// (the server's `workspace/codeLens/refresh`): the library handles the request
// and fires each provider's onDidChangeCodeLenses; a second handler of the
// request would replace the library's (one handler per method).
export function onCodeLensRefresh(client: LanguageClient, listener: () => void): vscode.Disposable {
  const subscriptions: vscode.Disposable[] = [];
  const feature = client.getFeature('textDocument/codeLens') as unknown as
    | { getAllProviders?: () => Iterable<{ provider?: vscode.CodeLensProvider }> }
    | undefined;
  for (const p of feature?.getAllProviders?.() ?? []) {
    const event = p.provider?.onDidChangeCodeLenses;
    if (event) subscriptions.push(event(listener));
  }
  return vscode.Disposable.from(...subscriptions);
}

// The view is in the Explorer only when there is something to compare (several runs in the traces), or
// once asked for (inductorLs.compare); a hidden view is never visible, so this asks `inductor/runs` itself.
async function showWhenSeveralRuns(client: LanguageClient): Promise<void> {
  try {
    const { runs } = await client.sendRequest(runsRequest, {});
    if (runs.length > 1) await vscode.commands.executeCommand('setContext', 'inductorLs.severalRuns', true);
  } catch {
    // Not ready yet: the next status asks again.
  }
}

export function activate(context: InductorContext, client: LanguageClient): CompareProvider {
  const provider = new CompareProvider(client);
  void vscode.commands.executeCommand('setContext', 'inductorLs.severalRuns', false);
  const view = vscode.window.createTreeView(viewId, { treeDataProvider: provider, showCollapseAll: true });
  provider.view = view;
  let lensRefresh: vscode.Disposable | undefined;
  context.subscriptions.push(
    provider,
    view,
    { dispose: () => lensRefresh?.dispose() },
    view.onDidChangeVisibility((e) => {
      if (e.visible && provider.stale) void provider.refresh();
    }),
    context.onDidChangeStatus((status) => {
      if (status.indexing) return;
      provider.invalidate();
      if (!view.visible) void showWhenSeveralRuns(client);
    }),
    // The code lens providers exist once the client has started (registered from the server's capabilities).
    client.onDidChangeState(() => {
      lensRefresh?.dispose();
      lensRefresh = onCodeLensRefresh(client, () => provider.invalidate());
    }),
    // Resolves to the server's answer (inductorLs.compare, commands.ts, returns it).
    vscode.commands.registerCommand('inductorLs.refreshCompare', async () => {
      await provider.refresh();
      return provider.result;
    }),
  );
  return provider;
}
