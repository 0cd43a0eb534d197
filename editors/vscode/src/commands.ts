// commands.ts: the palette commands, each a thin wrapper over one server
// request, plus `inductor.showLocations`, the client-side command carried by
// the server's code lenses. No command computes anything the server does not
// answer ("editors add no features the server lacks").
//
//   inductorLs.showKernels   textDocument/references at the cursor → peek view
//   inductorLs.goToOrigin    textDocument/definition at the cursor → go/peek
//   inductorLs.reindex       workspace/executeCommand `inductor.reindex`
//   inductorLs.openArtifact  inductor/listArtifacts → quick pick → open
//   inductor.showLocations   [uri, position, locations] (LSP): one location → go
//                            there; several → editor.action.showReferences (peek)
//   inductor.showLaunchSites [uri, position] (LSP): a model line's lens; its
//                            locations come from inductor/launchSites, then as
//                            inductor.showLocations
//   inductorLs.selectRun, inductorLs.selectBaseline  runs.ts: inductor/runs →
//                            quick pick → inductor.selectRun / inductor.selectBaseline
//   inductorLs.compare, inductorLs.showRanks  focus the views of compare.ts,
//                            ranks.ts and ask the server again
//   inductorLs.showLowered   lowered.ts: inductor/lowered at the cursor → the
//                            IR (PTX by default) beside, its lines highlighted
//   inductorLs.openLocation  [uri, line] → open at a line (the command links
//                            that client.ts makes of hover links VS Code does
//                            not open itself)
// They are registered once, when the extension loads, and the first one run
// starts the server if nothing has (see activation.ts).

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
import {
  type Artifact,
  executeCommandParams,
  listArtifactsRequest,
  openLocationCommand,
  launchSitesRequest,
  reindexCommand,
  type ShowLaunchSitesArguments,
  showLaunchSitesCommand,
  type ShowLocationsArguments,
  showLocationsCommand,
} from './protocol';
import * as lowered from './lowered';
import * as runs from './runs';

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
  await client.sendRequest(ExecuteCommandRequest.type, executeCommandParams(reindexCommand));
}

interface ArtifactPick extends vscode.QuickPickItem {
  artifact?: Artifact;
}

const kindNames: Record<string, string> = {
  outputCode: 'output code',
  wrapperCode: 'wrapper code',
  kernel: 'kernel source',
  graph: 'graph',
};

async function openArtifact(client: LanguageClient): Promise<void> {
  const artifacts = uniqueByUri(await client.sendRequest(listArtifactsRequest, {}));
  if (artifacts.length === 0) {
    void vscode.window.showInformationMessage('Inductor: the index holds no artifacts.');
    return;
  }
  // Grouped by compile id (ranks together), in the server's order; kernel
  // sources that belong to no single compile come last.
  const groups = new Map<string, Artifact[]>();
  const shared = 'kernel sources';
  for (const a of artifacts) {
    const key = a.compileId === null ? (a.compile === null ? shared : a.compile) : `compile ${a.compileId}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const keys = [...groups.keys()].sort((x, y) => Number(x === shared) - Number(y === shared));
  const items: ArtifactPick[] = [];
  for (const key of keys) {
    items.push({ label: key, kind: vscode.QuickPickItemKind.Separator });
    for (const a of groups.get(key) ?? []) {
      items.push({
        label: a.label,
        description: kindNames[a.kind] ?? a.kind,
        detail: a.uri.startsWith('file:') ? vscode.Uri.parse(a.uri).fsPath : a.title,
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

// One entry per URI: ranks that wrote the same cache file share it. The
// entry says which compiles it holds.
export function uniqueByUri(artifacts: Artifact[]): Artifact[] {
  const byUri = new Map<string, Artifact>();
  for (const a of artifacts) {
    const seen = byUri.get(a.uri);
    if (!seen) {
      byUri.set(a.uri, { ...a });
    } else if (a.compile && seen.compile && !seen.compile.split(', ').includes(a.compile)) {
      seen.compile = `${seen.compile}, ${a.compile}`;
      seen.label = `${seen.label} (also ${a.compile})`;
    }
  }
  return [...byUri.values()];
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
  if (converted.length === 1) {
    // One target: go there, as Go to Definition does with one result.
    const [only] = converted;
    await vscode.window.showTextDocument(only.uri, { selection: only.range, preview: true });
    return;
  }
  await vscode.commands.executeCommand(
    'editor.action.showReferences',
    p2c.asUri(uri),
    p2c.asPosition(position),
    converted,
  );
}

async function showLaunchSites(client: LanguageClient, uri: string, position: LspPosition): Promise<void> {
  const sites = (await client.sendRequest(launchSitesRequest, { textDocument: { uri }, position })) ?? [];
  if (sites.length === 0) {
    // The file changed since the lens was made and the line no longer produced kernels.
    void vscode.window.showInformationMessage('Inductor: no kernels were generated from this line.');
    return;
  }
  await showLocations(client, uri, position, sites);
}

// Runs a command body, reporting failures instead of letting them vanish.
// Resolves to what the body did (undefined after a failure), for tests and other extensions.
function guarded<A extends unknown[], R>(name: string, body: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R | undefined> => {
    try {
      return await body(...args);
    } catch (e) {
      void vscode.window.showErrorMessage(`Inductor: ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  };
}

async function openLocation(client: LanguageClient, uri: string, line: number): Promise<void> {
  const at = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(client.protocol2CodeConverter.asUri(uri), {
    selection: new vscode.Range(at, at),
    preview: true,
  });
}

export function activate(
  extension: vscode.ExtensionContext,
  ensureClient: () => Promise<LanguageClient | undefined>,
): void {
  const register = <A extends unknown[], R = void>(
    id: string,
    name: string,
    body: (client: LanguageClient, ...args: A) => Promise<R>,
  ) =>
    extension.subscriptions.push(
      vscode.commands.registerCommand(
        id,
        guarded(name, async (...args: A) => {
          const client = await ensureClient();
          if (!client) {
            void vscode.window.showErrorMessage(
              `Inductor: ${name}: inductor-ls is not running; see the "Inductor Language Server" output channel.`,
            );
            return undefined;
          }
          return body(client, ...args);
        }),
      ),
    );
  lowered.activate(extension);
  register('inductorLs.showKernels', 'Show Generated Kernels', showKernels);
  register('inductorLs.goToOrigin', 'Go to Origin', goToOrigin);
  register('inductorLs.reindex', 'Reindex Traces', reindex);
  register('inductorLs.openArtifact', 'Open Trace Artifact', openArtifact);
  register(openLocationCommand, 'Open Location', (client, uri: string, line: number) =>
    openLocation(client, uri, line),
  );
  register(showLocationsCommand, 'Show Locations', (client, ...[uri, position, locations]: ShowLocationsArguments) =>
    showLocations(client, uri, position, locations ?? []),
  );
  // A run chosen: the server reindexes and says so with inductor/status, which the views follow.
  register('inductorLs.selectRun', 'Select Run', (client) => runs.selectRun(client));
  register('inductorLs.selectBaseline', 'Select Baseline Run', async (client) => {
    const id = await runs.selectBaseline(client);
    // "none" or a baseline already built sends no inductor/status: ask the comparison again now.
    if (id !== undefined) await vscode.commands.executeCommand('inductorLs.refreshCompare').then(undefined, () => undefined);
    return id;
  });
  // The views live as long as a client (compare.ts, ranks.ts): these start one if need be, then ask the view's
  // own refresh, which resolves to the server's answer.
  register('inductorLs.compare', 'Compare with Baseline Run', async () => {
    await vscode.commands.executeCommand('setContext', 'inductorLs.severalRuns', true);
    await vscode.commands.executeCommand('inductorLs.compare.focus');
    return vscode.commands.executeCommand('inductorLs.refreshCompare');
  });
  register('inductorLs.showRanks', 'Show Rank Divergences', async () => {
    await vscode.commands.executeCommand('setContext', 'inductorLs.hasRanks', true);
    await vscode.commands.executeCommand('inductorLs.ranks.focus');
    return vscode.commands.executeCommand('inductorLs.refreshRanks');
  });
  register('inductorLs.showLowered', 'Show Lowered IR', (client, stage?: string) => lowered.showLowered(client, stage));
  register(showLaunchSitesCommand, 'Show Launch Sites', (client, ...[uri, position]: ShowLaunchSitesArguments) =>
    showLaunchSites(client, uri, position),
  );
}
