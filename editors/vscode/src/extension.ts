// extension.ts: entry point. `activate` registers the commands and waits
// for a reason to start the server (activation.ts: a trace in the workspace,
// `traceDirs`, generated code opened, a command); then it resolves the
// server binary, builds the client (client.ts), lets each feature file
// register itself on the shared InductorContext, and starts the client, as
// lsp-sample and vscode-clangd do. A change of any `inductorLs.*` setting, or
// `inductorLs.restart`, disposes the context and builds a new one.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as activation from './activation';
import * as artifacts from './artifacts';
import * as client from './client';
import * as commands from './commands';
import * as compare from './compare';
import * as compiles from './compiles';
import * as config from './config';
import { InductorContext } from './context';
import * as lowered from './lowered';
import * as ranks from './ranks';
import * as runtime from './runtime';
import * as statusBar from './statusBar';
import * as traceDocuments from './traceDocuments';

// Where the extension is: waiting for a trace, or serving one.
export type ServerState = 'waiting' | 'starting' | 'running' | 'failed';

let current: InductorContext | undefined;
let state: ServerState = 'waiting';
let serverLocation: config.ServerLocation | undefined;
// Serializes start/stop so that quick successive setting changes cannot
// interleave two clients.
let pending: Promise<void> = Promise.resolve();

function setState(next: ServerState): void {
  state = next;
  // For `when` clauses of views and menus (the artifacts view of artifacts.ts,
  // and any other view that shows server data).
  void vscode.commands.executeCommand('setContext', 'inductorLs.active', next === 'running' || next === 'starting');
}

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

let pythonWatch: vscode.Disposable | undefined;

// Restarts the client when the user selects another interpreter in the Python
// extension (and inductorLs.pythonPath does not override it).
function watchPythonExtension(
  api: config.PythonExtensionApi | undefined,
  extension: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
): void {
  if (pythonWatch) return;
  if (!api) {
    // Not active yet: once it is, start again with its interpreter.
    const pending = config.pythonExtension();
    if (!pending) return;
    pythonWatch = { dispose: () => undefined };
    void pending.then((later) => {
      pythonWatch = undefined;
      if (!config.pythonExtensionInterpreter(later)) return;
      watchPythonExtension(later, extension, output);
      if (vscode.workspace.getConfiguration(config.section).get<string>('pythonPath', '').trim() !== '') return;
      // The client in hand (running or still starting) began without the interpreter; restart chains
      // after a start in progress.
      if (current && state !== 'failed') {
        output.info('The Python extension is active: restarting the server with its interpreter');
        void restart(extension, output);
      }
    });
    return;
  }
  if (!api.environments?.onDidChangeActiveEnvironmentPath) return;
  pythonWatch = api.environments.onDidChangeActiveEnvironmentPath(() => {
    if (vscode.workspace.getConfiguration(config.section).get<string>('pythonPath', '').trim() !== '') return;
    output.info('The Python extension selected another interpreter: restarting the server');
    if (current) void restart(extension, output);
  });
  extension.subscriptions.push(pythonWatch);
}

async function start(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  setState('starting');
  const resolved = config.serverPath(extension.extensionPath);
  serverLocation = resolved;
  if ('error' in resolved) {
    setState('failed');
    output.error(resolved.error);
    void vscode.window.showErrorMessage(`Inductor: ${resolved.error}`, 'Open Settings').then((choice) => {
      if (choice)
        void vscode.commands.executeCommand('workbench.action.openSettings', `${config.section}.serverPath`);
    });
    return;
  }
  output.info(`Starting ${resolved.path} (${resolved.source === 'bundled' ? 'shipped with the extension' : `from ${resolved.source}`})`);
  // The Python extension's selected interpreter, when it is installed and active: installed packages are
  // found there. Starting never waits for it: when it activates later, the client restarts (see
  // watchPythonExtension).
  // In Restricted Mode none is passed (it may be the workspace's own .venv) and the server runs none; trust
  // granted later restarts the server with it (activate).
  const trusted = config.workspaceTrusted();
  const python = trusted ? config.activePythonExtension() : undefined;
  const interpreter = trusted ? config.pythonExtensionInterpreter(python) : undefined;
  if (interpreter) output.info(`Python environment from the Python extension: ${interpreter}`);
  if (!trusted)
    output.info('Restricted Mode: no Python interpreter is run, and the workspace cannot choose the server binary');
  else watchPythonExtension(python, extension, output);
  const languageClient = client.create(resolved.path, output, interpreter);
  const ctx = new InductorContext(extension, languageClient);
  current = ctx;
  traceDocuments.activate(ctx, languageClient);
  runtime.activate(ctx, languageClient);
  statusBar.activate(ctx, languageClient);
  ctx.compiles = compiles.activate(ctx, languageClient);
  ctx.compare = compare.activate(ctx, languageClient);
  ctx.ranks = ranks.activate(ctx, languageClient);
  artifacts.activate(ctx, languageClient);
  try {
    await languageClient.start();
    setState('running');
  } catch (e) {
    setState('failed');
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
  // The running client, or undefined while waiting for a trace, (re)starting,
  // or when no server was found.
  readonly languageClient: LanguageClient | undefined;
  // The Compiled Frames view's data (compiles.ts), for tests.
  readonly compiles: compiles.CompilesProvider | undefined;
  // The Run Comparison and Rank Divergences views' data (compare.ts, ranks.ts), for tests.
  readonly compare: compare.CompareProvider | undefined;
  readonly ranks: ranks.RanksProvider | undefined;
  // The lines Show Lowered IR highlighted in an editor (lowered.ts), for tests.
  highlightedLines(editor: vscode.TextEditor): number[];
  readonly state: ServerState;
  // The binary started (or why none could be), once a start was attempted.
  readonly serverPath: string | undefined;
  readonly serverSource: 'setting' | 'bundled' | 'PATH' | undefined;
}

export async function activate(extension: vscode.ExtensionContext): Promise<InductorLsApi> {
  const output = vscode.window.createOutputChannel('Inductor Language Server', { log: true });
  setState('waiting');
  // Commands work from the start: the first one starts the server if nothing did.
  const ensureClient = async (): Promise<LanguageClient | undefined> => {
    if (!current && state !== 'failed') await restart(extension, output);
    await pending;
    return current?.client;
  };
  let waiting: vscode.Disposable | undefined;
  extension.subscriptions.push(
    output,
    { dispose: () => waiting?.dispose() },
    vscode.commands.registerCommand('inductorLs.restart', () => {
      waiting?.dispose();
      return restart(extension, output);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(config.section) && current) void restart(extension, output);
    }),
    // Trust granted: start again with everything Restricted Mode left out (the workspace's serverPath, the
    // interpreter). Trust is never taken back without a window reload.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (!current && state !== 'failed') return;
      output.info('The workspace is trusted now: restarting the server with its settings and interpreter');
      void restart(extension, output);
    }),
  );
  commands.activate(extension, ensureClient);
  waiting = activation.whenTraceAppears((why) => {
    output.info(`Starting the server: ${why}`);
    void restart(extension, output);
  });
  return {
    get languageClient() {
      return current?.client;
    },
    get compiles() {
      return current?.compiles;
    },
    get compare() {
      return current?.compare;
    },
    get ranks() {
      return current?.ranks;
    },
    highlightedLines: lowered.highlightedLines,
    get state() {
      return state;
    },
    get serverPath() {
      return serverLocation && 'path' in serverLocation ? serverLocation.path : undefined;
    },
    get serverSource() {
      return serverLocation && 'path' in serverLocation ? serverLocation.source : undefined;
    },
  };
}

export function deactivate(): Promise<void> {
  return pending.then(stop);
}
