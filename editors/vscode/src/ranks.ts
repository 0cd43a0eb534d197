// ranks.ts: the "Rank Divergences" tree view in the Explorer (issue 29):
// where the ranks of a distributed run compiled differently, each divergence
// once, on the user line that caused it, as the server's `inductor/ranks`
// answers it (server/features/Ranks.cpp). The same divergences are diagnostics on those
// lines (through the language client); this view lists them all in one place,
// cache differences included (they have no diagnostic).
//
//   recompile · rank 2 of 4   [0/1] model.py:25        (tooltip: recompiled on rank 2 only (1 of 4): temp == 1.0)
//
//   inductorLs.showRanks      palette (commands.ts): show the view and ask again
//   inductorLs.refreshRanks   view title: ask again
//
// Shown once the run has several ranks (or when asked for); refreshed like the
// Compiled Frames view, after every `inductor/status` that ends indexing.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { type RankDivergence, type RanksResult, ranksRequest } from './protocol';

export const viewId = 'inductorLs.ranks';

export type RanksNode = { kind: 'divergence'; divergence: RankDivergence } | { kind: 'message'; text: string };

// "2", "1, 3", "0–511, 513–1023": ascending, runs of three or more as ranges, at most `most` pieces then
// "…" (as the server's rankRanges, index/model/Ranks.h).
export function rankRanges(ranks: number[], most = 8): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const pieces: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    if (pieces.length === most) return `${pieces.join(', ')}, …`;
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    if (j >= i + 2) {
      pieces.push(`${sorted[i]}–${sorted[j]}`);
      i = j + 1;
    } else {
      pieces.push(`${sorted[i]}`);
      i++;
    }
  }
  return pieces.join(', ');
}

// "2 (1 of 4)", "1, 3 (2 of 4)", "0–511, 513–1023 (1023 of 1024)".
export function describeRanks(d: Pick<RankDivergence, 'ranks' | 'of'>): string {
  return `${rankRanges(d.ranks)} (${d.ranks.length} of ${d.of})`;
}

function icon(kind: RankDivergence['kind']): vscode.ThemeIcon {
  switch (kind) {
    case 'collective schedule':
    case 'failure':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
    case 'different code':
    case 'cache':
      return new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground'));
    default:
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  }
}

export class RanksProvider implements vscode.TreeDataProvider<RanksNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RanksNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private answer: RanksResult | undefined;
  private error: string | undefined;
  private pending: Promise<void> | undefined;

  constructor(private readonly client: LanguageClient) {}

  dispose(): void {
    this.changed.dispose();
  }

  /// The server's last answer (for tests).
  get result(): RanksResult | undefined {
    return this.answer;
  }

  refresh(): Promise<void> {
    const run = async () => {
      try {
        this.answer = await this.client.sendRequest(ranksRequest, {});
        this.error = undefined;
      } catch (e) {
        this.answer = undefined;
        this.error = e instanceof Error ? e.message : String(e);
      }
      if ((this.answer?.count ?? 0) > 1) await vscode.commands.executeCommand('setContext', 'inductorLs.hasRanks', true);
      this.changed.fire(undefined);
    };
    this.pending = (this.pending ?? Promise.resolve()).then(run, run);
    return this.pending;
  }

  getChildren(node?: RanksNode): RanksNode[] {
    if (node) return [];
    const r = this.answer;
    if (!r) return [{ kind: 'message', text: this.error ? `The ranks could not be compared: ${this.error}` : 'Indexing…' }];
    if (r.count < 2) return [{ kind: 'message', text: 'Not a distributed run (one rank or none): nothing to compare' }];
    if (r.divergences.length === 0) return [{ kind: 'message', text: `All ${r.count} ranks agree` }];
    return r.divergences.map((divergence) => ({ kind: 'divergence', divergence }));
  }

  getTreeItem(node: RanksNode): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    const d = node.divergence;
    // Short enough for the Explorer's width: what and who in the label, where in the description, the
    // reason in the tooltip.
    const where = d.file && d.line !== null ? `${d.file.split('/').pop()}:${d.line}` : 'no model line';
    const rankWord = d.ranks.length === 1 ? 'rank' : 'ranks';
    const item = new vscode.TreeItem(`${d.kind} · ${rankWord} ${rankRanges(d.ranks, 3)} of ${d.of}`, vscode.TreeItemCollapsibleState.None);
    item.description = `[${d.compileId}] ${where}`;
    item.iconPath = icon(d.kind);
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${d.kind}** on ${rankWord} ${describeRanks(d)}, compile [${d.compileId}]\n\n`);
    if (d.file) md.appendMarkdown(`${d.file}:${d.line ?? '?'}\n\n`);
    md.appendCodeblock(d.message, 'text');
    if (d.detail) md.appendCodeblock(d.detail, 'text');
    item.tooltip = md;
    item.contextValue = 'rankDivergence';
    if (d.file && d.line !== null && fs.existsSync(d.file)) {
      const at = new vscode.Position(Math.max(0, d.line - 1), 0);
      item.command = {
        command: 'vscode.open',
        title: 'Open',
        arguments: [vscode.Uri.file(d.file), { selection: new vscode.Range(at, at), preview: true }],
      };
    }
    return item;
  }
}

export function activate(context: InductorContext, client: LanguageClient): RanksProvider {
  const provider = new RanksProvider(client);
  // Hidden again until this client's run has several ranks (or the view is asked for).
  void vscode.commands.executeCommand('setContext', 'inductorLs.hasRanks', false);
  const view = vscode.window.createTreeView(viewId, { treeDataProvider: provider });
  context.subscriptions.push(
    provider,
    view,
    context.onDidChangeStatus((status) => {
      if (!status.indexing) void provider.refresh();
    }),
    vscode.commands.registerCommand('inductorLs.refreshRanks', async () => {
      await provider.refresh();
      return provider.result;
    }),
  );
  return provider;
}
