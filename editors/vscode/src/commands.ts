// commands.ts: the palette commands, each a thin wrapper over one server
// request, plus `inductor.showLocations`, the client-side command carried by
// the server's code lenses. No command computes anything the server does not
// answer ("editors add no features the server lacks").
//
//   inductorLs.showKernels   textDocument/references at the cursor → peek view
//   inductorLs.goToOrigin    textDocument/definition at the cursor → go/peek
//   inductorLs.reindex       workspace/executeCommand `inductor.reindex`
//   inductorLs.openArtifact  inductor/listArtifacts → quick pick → open
//   inductor.showLocations   [uri, position, locations] (LSP) → editor.action.showReferences

import * as vscode from 'vscode';
import {
  DefinitionRequest,
  ExecuteCommandRequest,
  type LanguageClient,
  type Location as LspLocation,
  type LocationLink as LspLocationLink,
  type Position as LspPosition,
  ReferencesRequest,
} from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import {
  type Artifact,
  listArtifactsRequest,
  reindexCommand,
  showLocationsCommand,
} from './protocol';

function cursor(client: LanguageClient) {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  return {
    editor,
    params: client.code2ProtocolConverter.asTextDocumentPositionParams(
      editor.document,
      editor.selection.active,
    ),
  };
}

async function showKernels(client: LanguageClient): Promise<void> {
  const at = cursor(client);
  if (!at) return;
  const result = await client.sendRequest(ReferencesRequest.type, {
    ...at.params,
    context: { includeDeclaration: false },
  });
  const locations = (await client.protocol2CodeConverter.asReferences(result)) ?? [];
  if (locations.length === 0) {
    void vscode.window.showInformationMessage('Inductor: no kernels were generated from this line.');
    return;
  }
  await vscode.commands.executeCommand(
    'editor.action.showReferences',
    at.editor.document.uri,
    at.editor.selection.active,
    locations,
  );
}

async function goToOrigin(client: LanguageClient): Promise<void> {
  const at = cursor(client);
  if (!at) return;
  const result = await client.sendRequest(DefinitionRequest.type, at.params);
  const converted = (await client.protocol2CodeConverter.asDefinitionResult(result)) ?? [];
  const locations = (Array.isArray(converted) ? converted : [converted]).map((l) =>
    'targetUri' in l ? new vscode.Location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : l,
  );
  await vscode.commands.executeCommand(
    'editor.action.goToLocations',
    at.editor.document.uri,
    at.editor.selection.active,
    locations,
    'gotoAndPeek',
    'Inductor: no origin is known for this position.',
  );
}

async function reindex(client: LanguageClient): Promise<void> {
  await client.sendRequest(ExecuteCommandRequest.type, { command: reindexCommand, arguments: [] });
}

interface ArtifactPick extends vscode.QuickPickItem {
  artifact?: Artifact;
}

async function openArtifact(client: LanguageClient): Promise<void> {
  const artifacts = await client.sendRequest(listArtifactsRequest, {});
  if (artifacts.length === 0) {
    void vscode.window.showInformationMessage('Inductor: the index holds no artifacts.');
    return;
  }
  // Group by compile (and rank), in the server's order within a group; kernel
  // sources that belong to no single compile come last.
  const groups = new Map<string, Artifact[]>();
  const shared = 'kernel sources';
  for (const a of artifacts) {
    const compile = a.compileId === null ? shared : `compile ${a.compileId}`;
    const key = a.rank !== undefined && a.rank !== null ? `rank ${a.rank} · ${compile}` : compile;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const keys = [...groups.keys()].sort((x, y) => Number(x.endsWith(shared)) - Number(y.endsWith(shared)));
  const items: ArtifactPick[] = [];
  for (const key of keys) {
    const members = groups.get(key) ?? [];
    items.push({ label: key, kind: vscode.QuickPickItemKind.Separator });
    for (const a of members) {
      items.push({
        label: a.title,
        description: [a.graphKind, a.kind].filter(Boolean).join(' · '),
        detail: a.uri.startsWith('file:') ? vscode.Uri.parse(a.uri).fsPath : a.uri,
        artifact: a,
      });
    }
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Inductor: Open Trace Artifact',
    placeHolder: 'Output code, wrapper code, kernels and graphs, by compile id',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked?.artifact) return;
  const doc = await vscode.workspace.openTextDocument(client.protocol2CodeConverter.asUri(picked.artifact.uri));
  await vscode.window.showTextDocument(doc, { preview: false });
}

async function showLocations(
  client: LanguageClient,
  uri: string,
  position: LspPosition,
  locations: (LspLocation | LspLocationLink)[],
): Promise<void> {
  const p2c = client.protocol2CodeConverter;
  const converted = locations.map((l) =>
    'targetUri' in l
      ? new vscode.Location(p2c.asUri(l.targetUri), p2c.asRange(l.targetSelectionRange ?? l.targetRange))
      : p2c.asLocation(l),
  );
  await vscode.commands.executeCommand(
    'editor.action.showReferences',
    p2c.asUri(uri),
    p2c.asPosition(position),
    converted,
  );
}

// Runs a command body, reporting failures instead of letting them vanish.
function guarded<A extends unknown[]>(name: string, body: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (e) {
      void vscode.window.showErrorMessage(`Inductor: ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

export function activate(context: InductorContext, client: LanguageClient): void {
  const register = <A extends unknown[]>(id: string, name: string, body: (...args: A) => Promise<void>) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(name, body)));
  register('inductorLs.showKernels', 'Show Generated Kernels', () => showKernels(client));
  register('inductorLs.goToOrigin', 'Go to Origin', () => goToOrigin(client));
  register('inductorLs.reindex', 'Reindex Traces', () => reindex(client));
  register('inductorLs.openArtifact', 'Open Trace Artifact', () => openArtifact(client));
  register(showLocationsCommand, 'Show Locations', (uri: string, position: LspPosition, locations: LspLocation[]) =>
    showLocations(client, uri, position, locations ?? []),
  );
}
