// extension.ts: entry point. `activate` resolves the server binary, builds the
// client (client.ts), lets each feature file register itself on the shared
// InductorContext, then starts the client, as lsp-sample and vscode-clangd do.
// A change of any `inductorLs.*` setting, or `inductorLs.restart`, disposes the
// context and builds a new one.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as client from './client';
import * as commands from './commands';
import * as config from './config';
import { InductorContext } from './context';
import * as runtime from './runtime';
import * as statusBar from './statusBar';
import * as traceDocuments from './traceDocuments';

let current: InductorContext | undefined;
// Serializes start/stop so that quick successive setting changes cannot
// interleave two clients.
let pending: Promise<void> = Promise.resolve();

async function stop(): Promise<void> {
  const ctx = current;
  current = undefined;
  if (!ctx) return;
  try {
    await ctx.client.stop();
  } catch {
    // A client that failed to start cannot be stopped; disposing is enough.
  }
  ctx.dispose();
}

async function start(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  const resolved = config.serverPath(extension.extensionPath);
  if ('error' in resolved) {
    output.error(resolved.error);
    void vscode.window.showErrorMessage(`Inductor: ${resolved.error}`, 'Open Settings').then((choice) => {
      if (choice)
        void vscode.commands.executeCommand('workbench.action.openSettings', `${config.section}.serverPath`);
    });
    return;
  }
  output.info(`Starting ${resolved.path}`);
  const languageClient = client.create(resolved.path, output);
  const ctx = new InductorContext(extension, languageClient);
  current = ctx;
  traceDocuments.activate(ctx, languageClient);
  commands.activate(ctx, languageClient);
  runtime.activate(ctx, languageClient);
  statusBar.activate(ctx, languageClient);
  try {
    await languageClient.start();
  } catch (e) {
    output.error(`inductor-ls failed to start: ${e instanceof Error ? e.message : String(e)}`);
    void vscode.window.showErrorMessage(
      'Inductor: inductor-ls failed to start; see the "Inductor Language Server" output channel.',
    );
  }
}

function restart(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  pending = pending.then(stop).then(() => start(extension, output));
  return pending;
}

// The extension's API, as vscode-clangd exports its client: for tests and for
// other extensions that want to send inductor-ls requests themselves.
export interface InductorLsApi {
  // The running client, or undefined while (re)starting or when no server was found.
  readonly languageClient: LanguageClient | undefined;
}

export async function activate(extension: vscode.ExtensionContext): Promise<InductorLsApi> {
  const output = vscode.window.createOutputChannel('Inductor Language Server', { log: true });
  extension.subscriptions.push(
    output,
    vscode.commands.registerCommand('inductorLs.restart', () => restart(extension, output)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(config.section)) void restart(extension, output);
    }),
  );
  await restart(extension, output);
  return {
    get languageClient() {
      return current?.client;
    },
  };
}

export function deactivate(): Promise<void> {
  return pending.then(stop);
}
