// artifacts.ts: the "Inductor Traces" view in the Explorer, a tree of
// everything the server indexed:
//   trace log (or "debug directories and cache" for compiles found only in
//   files) → compile (`[0/0] forward`, by rank) → output code and graphs →
//   kernels (of output code: from textDocument/documentSymbol, one entry per
//   kernel with its launches).
// Its data is the server's `inductor/listArtifacts` (grouped by `trace` and
// `compileIndex`) and documentSymbol: nothing is computed here. It refreshes
// when a build ends (the `inductor/status` notification). The view shows
// while a server runs (context key `inductorLs.active`, set by extension.ts),
// beside the other views of this extension in the Explorer.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { DocumentSymbolRequest, type LanguageClient, SymbolKind } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { type Artifact, listArtifactsRequest } from './protocol';

export const viewId = 'inductorLs.artifacts';

type Node =
  | { kind: 'trace'; label: string; description?: string; tooltip: string; compiles: CompileNode[] }
  | CompileNode
  | { kind: 'artifact'; artifact: Artifact }
  | { kind: 'kernel'; name: string; detail: string; uri: string; line: number; launches: number }
  | { kind: 'message'; label: string };
interface CompileNode {
  kind: 'compile';
  label: string;
  artifacts: Artifact[];
}

const artifactNames: Record<string, string> = {
  outputCode: 'output code',
  wrapperCode: 'wrapper code',
  kernel: 'kernel source',
};

// What an artifact is, in its compile: "output code", "post-grad graph", a
// debug file name.
function artifactLabel(a: Artifact): string {
  if (a.kind !== 'graph') return artifactNames[a.kind] ?? a.kind;
  const name = a.graphName ?? '';
  if (name.startsWith('fx_graph_')) return name;
  if (/post_grad/.test(name)) return `post-grad graph (${name})`;
  if (/pre_grad|dynamo_output/.test(name)) return `pre-grad graph (${name})`;
  return name || 'graph';
}

function whereIs(a: Artifact): string {
  return a.uri.startsWith('file:') ? path.basename(vscode.Uri.parse(a.uri).fsPath) : 'in the log';
}

// The tree's top two levels from the server's list.
export function buildTree(list: Artifact[]): Node[] {
  const traces = new Map<string, Map<number, CompileNode>>();
  const kernelFiles: Artifact[] = [];
  const fileOnly = 'debug directories and cache';
  for (const a of list) {
    if (a.compileIndex === null || a.compileIndex === undefined) {
      kernelFiles.push(a);
      continue;
    }
    const traceKey = a.trace ?? fileOnly;
    let compiles = traces.get(traceKey);
    if (!compiles) traces.set(traceKey, (compiles = new Map()));
    let compile = compiles.get(a.compileIndex);
    if (!compile) compiles.set(a.compileIndex, (compile = { kind: 'compile', label: a.compile ?? 'compile', artifacts: [] }));
    // Output code first, then graphs, each once per URI.
    if (!compile.artifacts.some((x) => x.uri === a.uri)) compile.artifacts.push(a);
  }
  const order = (a: Artifact) => (a.kind === 'graph' ? 1 : 0);
  const nodes: Node[] = [];
  for (const [trace, compiles] of traces) {
    const list = [...compiles.values()];
    for (const c of list) c.artifacts.sort((x, y) => order(x) - order(y));
    nodes.push({
      kind: 'trace',
      label: trace === fileOnly ? fileOnly : path.basename(trace),
      description: `${list.length} ${list.length === 1 ? 'compile' : 'compiles'}`,
      tooltip: trace,
      compiles: list,
    });
  }
  if (kernelFiles.length > 0)
    nodes.push({
      kind: 'trace',
      label: 'kernel files (Inductor cache)',
      description: `${kernelFiles.length}`,
      tooltip: 'Triton kernel files of the cache, shared by the compiles that use them',
      compiles: [{ kind: 'compile', label: 'kernels', artifacts: kernelFiles }],
    });
  return nodes;
}

class ArtifactTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Promise<Node[]> | undefined;

  constructor(private readonly client: LanguageClient) {}

  refresh(): void {
    this.roots = undefined;
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'trace': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon('file-text');
        item.contextValue = 'trace';
        return item;
      }
      case 'compile': {
        const item = new vscode.TreeItem(node.label, node.label === 'kernels' ? Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('symbol-module');
        item.contextValue = 'compile';
        return item;
      }
      case 'artifact': {
        const a = node.artifact;
        const code = a.kind === 'outputCode' || a.kind === 'wrapperCode';
        const item = new vscode.TreeItem(
          node.artifact.compileIndex === null ? a.title : artifactLabel(a),
          code ? Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.description = whereIs(a);
        item.tooltip = `${a.label}\n${a.uri.startsWith('file:') ? vscode.Uri.parse(a.uri).fsPath : a.uri}`;
        item.iconPath = new vscode.ThemeIcon(a.kind === 'graph' ? 'type-hierarchy' : 'file-code');
        item.resourceUri = a.uri.startsWith('file:') ? vscode.Uri.parse(a.uri) : undefined;
        item.command = {
          command: 'vscode.open',
          title: 'Open',
          arguments: [this.client.protocol2CodeConverter.asUri(a.uri)],
        };
        item.contextValue = a.kind;
        return item;
      }
      case 'kernel': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
        item.description = `${node.detail}${node.launches > 0 ? ` · ${node.launches} ${node.launches === 1 ? 'launch' : 'launches'}` : ''}`;
        item.iconPath = new vscode.ThemeIcon('symbol-function');
        const at = new vscode.Position(node.line, 0);
        item.command = {
          command: 'vscode.open',
          title: 'Open',
          arguments: [this.client.protocol2CodeConverter.asUri(node.uri), { selection: new vscode.Range(at, at) }],
        };
        item.contextValue = 'kernel';
        return item;
      }
      case 'message':
        return new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      this.roots ??= this.client
        .sendRequest(listArtifactsRequest, {})
        .then((list) => {
          // Empty: the view shows its welcome text (package.json viewsWelcome).
          return buildTree(list);
        })
        .catch((e) => [{ kind: 'message', label: `inductor-ls: ${e instanceof Error ? e.message : String(e)}` }]);
      return this.roots;
    }
    switch (node.kind) {
      case 'trace':
        return node.compiles.length === 1 && node.compiles[0].label === 'kernels' ? node.compiles[0].artifacts.map((artifact) => ({ kind: 'artifact', artifact })) : node.compiles;
      case 'compile':
        return node.artifacts.map((artifact) => ({ kind: 'artifact', artifact }));
      case 'artifact':
        return this.kernelsOf(node.artifact);
      default:
        return [];
    }
  }

  // Kernels of an output code, from its document symbols: each kernel
  // definition with the number of its launches, and extern kernels (launched
  // without a definition here) by name.
  private async kernelsOf(a: Artifact): Promise<Node[]> {
    const symbols = await this.client.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: a.uri } });
    const out: Node[] = [];
    if (!symbols) return out;
    const launches = new Map<string, { count: number; line: number }>();
    const definitions: { name: string; detail: string; line: number }[] = [];
    for (const s of symbols) {
      if (!('selectionRange' in s)) continue; // Only hierarchical symbols are asked for.
      if (s.kind === SymbolKind.Function) definitions.push({ name: s.name, detail: s.detail ?? '', line: s.selectionRange.start.line });
      for (const c of s.children ?? []) {
        if (c.kind !== SymbolKind.Event) continue;
        const name = c.name.replace(/:\d+$/, '');
        const seen = launches.get(name);
        if (seen) seen.count++;
        else launches.set(name, { count: 1, line: c.selectionRange.start.line });
      }
    }
    for (const d of definitions)
      out.push({ kind: 'kernel', name: d.name, detail: d.detail, uri: a.uri, line: d.line, launches: launches.get(d.name)?.count ?? 0 });
    for (const [name, l] of launches)
      if (!definitions.some((d) => d.name === name))
        out.push({ kind: 'kernel', name, detail: 'extern kernel', uri: a.uri, line: l.line, launches: l.count });
    return out;
  }
}

export function activate(context: InductorContext, client: LanguageClient): void {
  const tree = new ArtifactTree(client);
  const view = vscode.window.createTreeView(viewId, { treeDataProvider: tree, showCollapseAll: true });
  let lastKey = '';
  context.subscriptions.push(
    tree,
    view,
    vscode.commands.registerCommand('inductorLs.refreshArtifacts', () => tree.refresh()),
    context.onDidChangeStatus((status) => {
      if (status.indexing !== false) return;
      // A new index: the counts changed (a reindex that found the same keeps the tree).
      const key = JSON.stringify([status.traces, status.compiles, status.kernels, status.launches]);
      if (key !== lastKey) tree.refresh();
      lastKey = key;
    }),
  );
}
