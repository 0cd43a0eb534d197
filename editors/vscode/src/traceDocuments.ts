// traceDocuments.ts: read-only documents for artifacts that exist only inside a
// trace log, URI scheme `inductor-trace:` (e.g.
// `inductor-trace:/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py`).
// Their text comes from the server's `inductor/artifactContent` request; the
// response's `languageId` becomes the document language. Once open, the
// document is synced to the server like any other (the document selector
// includes the scheme), so hover, definition and code lenses work inside it.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { artifactContentRequest, traceScheme } from './protocol';

class TraceContentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  // Language of each artifact, by URI string, from the last response.
  readonly languages = new Map<string, string>();

  constructor(private readonly client: LanguageClient) {}

  async provideTextDocumentContent(
    uri: vscode.Uri,
    token: vscode.CancellationToken,
  ): Promise<string> {
    const wireUri = this.client.code2ProtocolConverter.asUri(uri);
    const result = await this.client.sendRequest(artifactContentRequest, { uri: wireUri }, token);
    if (!result) throw new Error(`inductor-ls has no artifact ${wireUri}`);
    this.languages.set(uri.toString(), result.languageId);
    return result.text;
  }

  // Asks VS Code to fetch every open trace document again (after a reindex).
  refreshOpen(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === traceScheme) this.changed.fire(doc.uri);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

async function applyLanguage(doc: vscode.TextDocument, provider: TraceContentProvider) {
  if (doc.uri.scheme !== traceScheme) return;
  const languageId = provider.languages.get(doc.uri.toString());
  if (languageId && doc.languageId !== languageId) {
    await vscode.languages.setTextDocumentLanguage(doc, languageId);
  }
}

export function activate(context: InductorContext, client: LanguageClient): void {
  const provider = new TraceContentProvider(client);
  // Refetch open trace documents when the index has changed, not on every
  // repeated notification.
  let lastIndexed = '';
  context.subscriptions.push(
    provider,
    vscode.workspace.registerTextDocumentContentProvider(traceScheme, provider),
    vscode.workspace.onDidOpenTextDocument((doc) => applyLanguage(doc, provider)),
    context.onDidChangeStatus((status) => {
      if (status.indexing !== false) return;
      const key = JSON.stringify(status);
      if (lastIndexed !== '' && key !== lastIndexed) provider.refreshOpen();
      lastIndexed = key;
    }),
  );
  for (const doc of vscode.workspace.textDocuments) void applyLanguage(doc, provider);
}
