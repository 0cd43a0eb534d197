// compiles.ts: the "Compiled Frames" tree view in the Explorer: frames →
// compiles → events, attempts and artifacts, as the server's custom request
// `inductor/compiles` returns them (server/Compiles.cpp). Diagnostics of the
// same events are in the Problems panel through the language client itself.
//
//   inductorLs.compiles          the view (shown when the index holds compiles)
//   inductorLs.showCompiles      palette: focus the view
//   inductorLs.refreshCompiles   view title: ask the server again
//   inductor.showCompiles        the client-side command of the server's code
//                                lens on a compiled function's def line:
//                                [uri, position, {function, line, compileIds}]
//                                → reveal that function's frames in the view
//
// The tree is rebuilt from the server after every `inductor/status`
// notification (the index changed); nothing is computed here.

import * as vscode from 'vscode';
import type { LanguageClient, Location as LspLocation } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import {
  type CompileEvent,
  type CompiledFrame,
  type CompilesResult,
  type FrameCompile,
  compilesRequest,
  showCompilesCommand,
} from './protocol';

export const viewId = 'inductorLs.compiles';

type Node =
  | { kind: 'frame'; frame: CompiledFrame; index: number }
  | { kind: 'compile'; compile: FrameCompile; parent: Node }
  | { kind: 'event'; event: CompileEvent; parent: Node }
  | { kind: 'attempt'; text: string; parent: Node }
  | { kind: 'artifact'; uri: string; title: string; parent: Node }
  | { kind: 'empty'; text: string };

function statusIcon(status: string): vscode.ThemeIcon {
  switch (status) {
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
    case 'not compiled':
    case 'graph break':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    case 'recompiled':
      return new vscode.ThemeIcon('refresh', new vscode.ThemeColor('problemsInfoIcon.foreground'));
    default:
      return new vscode.ThemeIcon('pass');
  }
}

function eventIcon(severity: number): vscode.ThemeIcon {
  if (severity === 1) return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  if (severity === 2) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  return new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground'));
}

const eventKind: Record<string, string> = {
  graphBreak: 'graph break',
  recompile: 'recompile',
  failure: 'failure',
  specialization: 'specialization',
};

export class CompilesProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private result: CompilesResult | undefined;
  private roots: Node[] = [];
  private pending: Promise<void> | undefined;

  constructor(private readonly client: LanguageClient) {}

  dispose(): void {
    this.changed.dispose();
  }

  /// The frames as the server last answered (for tests and the lens command).
  get frames(): readonly CompiledFrame[] {
    return this.result?.frames ?? [];
  }

  /// Asks the server again; resolves once the tree has the answer.
  refresh(): Promise<void> {
    this.pending = (async () => {
      try {
        this.result = await this.client.sendRequest(compilesRequest, {});
      } catch {
        this.result = undefined;
      }
      this.roots = (this.result?.frames ?? []).map((frame, index) => ({ kind: 'frame', frame, index }) as Node);
      await vscode.commands.executeCommand('setContext', 'inductorLs.hasCompiles', this.roots.length > 0);
      this.changed.fire(undefined);
    })();
    return this.pending;
  }

  /// The root node of each frame of a function defined at `line` (1-based) of `uri`.
  framesAt(uri: string, line: number, fn: string): Node[] {
    return this.roots.filter(
      (n) =>
        n.kind === 'frame' &&
        n.frame.function === fn &&
        n.frame.location?.uri === uri &&
        n.frame.location.range.start.line === line - 1,
    );
  }

  getParent(node: Node): Node | undefined {
    return 'parent' in node ? node.parent : undefined;
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      if (this.roots.length === 0)
        return [{ kind: 'empty', text: this.result ? 'No torch.compile compiles in the traces' : 'Indexing…' }];
      return this.roots;
    }
    switch (node.kind) {
      case 'frame':
        return node.frame.compiles.map((compile) => ({ kind: 'compile', compile, parent: node }) as Node);
      case 'compile': {
        const c = node.compile;
        const children: Node[] = c.events.map((event) => ({ kind: 'event', event, parent: node }) as Node);
        if (c.attempts.length > 1)
          for (const a of c.attempts)
            children.push({
              kind: 'attempt',
              text: `attempt ${a.attempt}${a.restartReason ? ` restarted: ${a.restartReason}` : ''}`,
              parent: node,
            });
        for (const a of c.artifacts) children.push({ kind: 'artifact', uri: a.uri, title: a.title, parent: node });
        return children;
      }
      default:
        return [];
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const p2c = this.client.protocol2CodeConverter;
    const open = (location: LspLocation | null | undefined): vscode.Command | undefined =>
      location
        ? {
            command: 'vscode.open',
            title: 'Open',
            arguments: [p2c.asUri(location.uri), { selection: p2c.asRange(location.range) }],
          }
        : undefined;
    switch (node.kind) {
      case 'frame': {
        const f = node.frame;
        const item = new vscode.TreeItem(f.function || '(unknown function)', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `frame:${node.index}`;
        item.description = f.summary;
        item.iconPath = statusIcon(f.status);
        item.contextValue = 'frame';
        item.tooltip = f.location
          ? `${f.function} — ${p2c.asUri(f.location.uri).fsPath}:${f.location.range.start.line + 1}`
          : f.function;
        item.command = open(f.location);
        return item;
      }
      case 'compile': {
        const c = node.compile;
        const item = new vscode.TreeItem(
          c.label,
          c.events.length + c.artifacts.length + (c.attempts.length > 1 ? c.attempts.length : 0) > 0
            ? vscode.TreeItemCollapsibleState.Collapsed
            : vscode.TreeItemCollapsibleState.None,
        );
        item.description = c.summary;
        item.iconPath = statusIcon(c.status);
        item.contextValue = 'compile';
        const tooltip = new vscode.MarkdownString();
        tooltip.appendMarkdown(`**${c.label}** ${c.status}\n\n`);
        if (c.failType) tooltip.appendCodeblock(`${c.failType}: ${c.failReason ?? ''}`, 'text');
        for (const r of c.recompileReasons) tooltip.appendCodeblock(r, 'text');
        item.tooltip = tooltip;
        return item;
      }
      case 'event': {
        const e = node.event;
        const item = new vscode.TreeItem(e.message, vscode.TreeItemCollapsibleState.None);
        item.description = eventKind[e.kind] ?? e.kind;
        item.iconPath = eventIcon(e.severity);
        item.tooltip = e.location
          ? `${p2c.asUri(e.location.uri).fsPath}:${e.location.range.start.line + 1}`
          : 'No model line is known for this event';
        item.command = open(e.location);
        return item;
      }
      case 'attempt':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      case 'artifact': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('file-code');
        item.command = { command: 'vscode.open', title: 'Open', arguments: [p2c.asUri(node.uri)] };
        return item;
      }
      case 'empty':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }
}

export function activate(context: InductorContext, client: LanguageClient): CompilesProvider {
  const provider = new CompilesProvider(client);
  const view = vscode.window.createTreeView(viewId, { treeDataProvider: provider, showCollapseAll: true });
  const reveal = async (uri?: string, line?: number, fn?: string) => {
    await provider.refresh();
    await vscode.commands.executeCommand(`${viewId}.focus`);
    if (uri === undefined || line === undefined || fn === undefined) return;
    const frames = provider.framesAt(uri, line, fn);
    for (const [i, frame] of frames.entries())
      await view.reveal(frame, { select: i === 0, focus: i === 0, expand: true });
  };
  context.subscriptions.push(
    provider,
    view,
    context.onDidChangeStatus((status) => {
      if (!status.indexing) void provider.refresh();
    }),
    vscode.commands.registerCommand('inductorLs.showCompiles', () => reveal()),
    vscode.commands.registerCommand('inductorLs.refreshCompiles', () => provider.refresh()),
    vscode.commands.registerCommand(
      showCompilesCommand,
      (uri: string, _position: unknown, target?: { function?: string; line?: number }) =>
        reveal(uri, target?.line, target?.function),
    ),
  );
  return provider;
}
