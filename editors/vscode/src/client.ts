// client.ts: builds the vscode-languageclient LanguageClient that starts
// `inductor-ls` over stdio, following vscode-clangd's clangd-context.ts.
// Everything LSP-standard (definition, references, hover, code lens, symbols,
// `$/progress`, `workspace/codeLens/refresh`, trace) is handled by the library;
// the feature files add only what the server defines on top.

import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type Executable,
  type ServerOptions,
} from 'vscode-languageclient/node';
import * as config from './config';
import { traceScheme } from './protocol';

// Client id: vscode-languageclient reads `${id}.trace.server` for LSP tracing.
export const clientId = 'inductorLs';

export function create(serverPath: string, outputChannel: vscode.LogOutputChannel): LanguageClient {
  // No `transport` field: with `TransportKind.stdio` the library appends
  // `--stdio` to the command line, a flag inductor-ls rejects (it speaks LSP on
  // stdio by default). vscode-clangd's Executable leaves it out for the same reason.
  const executable: Executable = { command: serverPath, args: [] };
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'file', language: 'cpp' },
      { scheme: 'file', language: 'c' },
      { scheme: traceScheme },
    ],
    initializationOptions: config.initializationOptions(),
    outputChannel,
    // The server logs to stderr, which lands in the output channel; never pop
    // it up on its own (vscode-clangd does the same).
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    markdown: { isTrusted: false, supportHtml: false },
  };
  return new LanguageClient(clientId, 'Inductor Language Server', serverOptions, clientOptions);
}
