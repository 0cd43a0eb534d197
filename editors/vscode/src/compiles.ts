// compiles.ts: the "Compiled Frames" tree view in the Explorer: files →
// functions → compiles → events, attempts and artifacts, as the server's
// custom request `inductor/compiles` returns them (server/features/Compiles.cpp): the
// server groups the frames by file and function with the user's names (a
// `torch_dynamo_resume_in_f_at_N` frame under `f`, marked "resumed at line
// N"). Labels stay short to fit the Explorer's width (a file's base name, a
// function's name, a compile id); the counts go in the description and the
// details in the tooltip. Diagnostics of the same events are in the Problems
// panel through the language client itself.
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
  type CompiledFunction,
  type CompilesResult,
  type FrameCompile,
  compilesRequest,
  type ShowCompilesArguments,
  showCompilesCommand,
} from './protocol';

export const viewId = 'inductorLs.compiles';

type Node =
  | { kind: 'file'; file: string; path: string | null; functions: Node[]; index: number }
  | { kind: 'function'; fn: CompiledFunction; index: number; parent?: Node }
  | { kind: 'compile'; compile: FrameCompile; frame: CompiledFrame; parent: Node }
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

  /// Functions by file, as the server grouped them (older servers: one
  /// function per frame).
  private functions(): CompiledFunction[] {
    const r = this.result;
    if (!r) return [];
    if (r.functions) return r.functions;
    return r.frames.map((f, i) => ({
      file: null,
      path: null,
      function: f.name || f.function,
      location: f.location,
      status: f.status,
      summary: f.summary,
      frames: [i],
    }));
  }

  /// Asks the server again; resolves once the tree has the answer.
  refresh(): Promise<void> {
    this.pending = (async () => {
      try {
        this.result = await this.client.sendRequest(compilesRequest, {});
      } catch {
        this.result = undefined;
      }
      // Files in the order the server lists their functions.
      const files = new Map<string, Node & { kind: 'file' }>();
      for (const [index, fn] of this.functions().entries()) {
        const key = fn.path ?? '';
        let file = files.get(key);
        if (!file) {
          file = { kind: 'file', file: fn.file ?? '(no file)', path: fn.path, functions: [], index: files.size };
          files.set(key, file);
        }
        file.functions.push({ kind: 'function', fn, index, parent: file });
      }
      this.roots = [...files.values()];
      await vscode.commands.executeCommand('setContext', 'inductorLs.hasCompiles', this.roots.length > 0);
      this.changed.fire(undefined);
    })();
    return this.pending;
  }

  /// The node of the function `fn` defined at `line` (1-based) of `uri`.
  framesAt(uri: string, line: number, fn: string): Node[] {
    return this.roots
      .flatMap((n) => (n.kind === 'file' ? n.functions : []))
      .filter(
        (n) =>
          n.kind === 'function' &&
          n.fn.function === fn &&
          n.fn.location?.uri === uri &&
          n.fn.location.range.start.line === line - 1,
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
      case 'file':
        return node.functions;
      case 'function': {
        const frames = this.result?.frames ?? [];
        return node.fn.frames.flatMap((i) =>
          (frames[i]?.compiles ?? []).map((compile) => ({ kind: 'compile', compile, frame: frames[i], parent: node }) as Node),
        );
      }
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
      case 'file': {
        const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `file:${node.path ?? ''}`;
        item.iconPath = vscode.ThemeIcon.File;
        if (node.path) {
          item.resourceUri = vscode.Uri.file(node.path);
          item.description = vscode.workspace.asRelativePath(node.path.replace(/\/[^/]*$/, ''), false);
          item.tooltip = node.path;
        }
        item.contextValue = 'file';
        return item;
      }
      case 'function': {
        const f = node.fn;
        const item = new vscode.TreeItem(f.function || '(unknown function)', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `function:${node.index}`;
        // The counts without the compile ids (in the tooltip): the Explorer is narrow.
        item.description = f.summary.replace(/^\[[^\]]*\] /, '');
        item.iconPath = statusIcon(f.status);
        item.contextValue = 'frame';
        item.tooltip = f.location
          ? `${f.function} — ${p2c.asUri(f.location.uri).fsPath}:${f.location.range.start.line + 1}\n${f.summary}`
          : `${f.function}\n${f.summary}`;
        item.command = open(f.location);
        return item;
      }
      case 'compile': {
        const c = node.compile;
        const resumed = node.frame.resumes ? ` ↳ line ${node.frame.resumes.line}` : '';
        const item = new vscode.TreeItem(
          `${c.label}${resumed}`,
          c.events.length + c.artifacts.length + (c.attempts.length > 1 ? c.attempts.length : 0) > 0
            ? vscode.TreeItemCollapsibleState.Collapsed
            : vscode.TreeItemCollapsibleState.None,
        );
        item.description = c.summary;
        item.iconPath = statusIcon(c.status);
        item.contextValue = 'compile';
        const tooltip = new vscode.MarkdownString();
        tooltip.appendMarkdown(`**${c.label}** ${c.status}\n\n`);
        if (node.frame.resumes)
          tooltip.appendMarkdown(
            `Resumes \`${node.frame.resumes.function}\` after its graph break at line ${node.frame.resumes.line}\n\n`,
          );
        tooltip.appendMarkdown(`${c.summary}\n\n`);
        if (c.failType) tooltip.appendCodeblock(`${c.failType}: ${c.failReason ?? ''}`, 'text');
        for (const r of c.recompileReasons) tooltip.appendCodeblock(r, 'text');
        item.tooltip = tooltip;
        return item;
      }
      case 'event': {
        const e = node.event;
        const item = new vscode.TreeItem(e.message, vscode.TreeItemCollapsibleState.None);
        item.description = e.kind;
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
      // `?.`: the arguments come from the server unchecked.
      (...[uri, , selection]: ShowCompilesArguments) => reveal(uri, selection?.line, selection?.function),
    ),
  );
  return provider;
}
