// server.mjs: starts the real inductor-ls binary and talks LSP to it over
// stdio with vscode-jsonrpc, the way the extension's client does. Used by the
// fast tests (node --test); no VS Code involved.
//
// Environment:
//   INDUCTOR_LS        server binary (default: <repo>/build/inductor-ls)
//   INDUCTOR_FIXTURES  fixture root (default: <repo>/shared/fixtures if present,
//                      else /work/shared/fixtures)
//   INDUCTOR_LS_LOG    if set, the server's --log-file (level verbose)

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../../..');

export const serverBinary = process.env.INDUCTOR_LS || path.join(repoRoot, 'build', 'inductor-ls');

export const fixturesRoot =
  process.env.INDUCTOR_FIXTURES ||
  [path.join(repoRoot, 'shared', 'fixtures'), '/work/shared/fixtures'].find((p) =>
    fs.existsSync(p),
  ) ||
  '/work/shared/fixtures';

// Per-request limit: requests made while the index builds are answered when it
// is ready, which takes well under this on the fixtures.
const requestTimeoutMs = Number(process.env.INDUCTOR_LS_TIMEOUT_MS || 60000);

export function fileUri(p) {
  return pathToFileURL(p).href;
}

// file:// URI → real path (symlinks resolved), for comparing locations.
export function realPathOfUri(uri) {
  if (!uri.startsWith('file:')) return uri;
  const p = fileURLToPath(uri);
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

export function assertBinary() {
  if (!fs.existsSync(serverBinary)) {
    throw new Error(
      `inductor-ls binary not found at ${serverBinary}. Build it ` +
        '(cmake -S . -B build -G Ninja && cmake --build build --target inductor-ls) ' +
        'or point INDUCTOR_LS at it.',
    );
  }
}

// One server process plus its connection. `notifications` records every
// notification by method; `waitForNotification` resolves on the first match.
export class Server {
  static async start({ workspace, initializationOptions, positionEncodings = ['utf-16'] } = {}) {
    assertBinary();
    const args = [];
    if (process.env.INDUCTOR_LS_LOG) args.push('--log-file', process.env.INDUCTOR_LS_LOG, '--log-level', 'verbose');
    const proc = spawn(serverBinary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const server = new Server(proc);
    const rootUri = workspace ? fileUri(workspace) : null;
    server.initializeResult = await server.initialize({
      processId: process.pid,
      clientInfo: { name: 'inductor-ls fast tests' },
      rootUri,
      workspaceFolders: workspace ? [{ uri: rootUri, name: path.basename(workspace) }] : null,
      initializationOptions,
      capabilities: {
        general: { positionEncodings },
        window: { workDoneProgress: true },
        workspace: {
          codeLens: { refreshSupport: true },
          workspaceFolders: true,
          executeCommand: { dynamicRegistration: false },
          symbol: { dynamicRegistration: false },
        },
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          definition: { linkSupport: false },
          references: {},
          codeLens: {},
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        },
      },
    });
    server.notify('initialized', {});
    return server;
  }

  // initialize, killing the process if it fails so no child outlives the test.
  async initialize(params) {
    try {
      return await this.request('initialize', params);
    } catch (e) {
      this.proc.kill('SIGKILL');
      this.connection.dispose();
      throw e;
    }
  }

  constructor(proc) {
    this.proc = proc;
    this.stderr = '';
    this.notifications = [];
    this.waiters = [];
    this.serverRequests = [];
    this.exited = new Promise((resolve) => {
      proc.on('exit', (code, signal) => resolve({ code, signal }));
      proc.on('error', (error) => resolve({ code: null, signal: null, error }));
    });
    proc.stdin.on('error', () => {}); // EPIPE is reported by request().
    proc.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-20000);
    });
    this.connection = createMessageConnection(
      new StreamMessageReader(proc.stdout),
      new StreamMessageWriter(proc.stdin),
    );
    // Server → client requests the extension's client would answer.
    this.connection.onRequest((method, params) => {
      this.serverRequests.push({ method, params });
      if (method === 'workspace/configuration') return (params?.items ?? []).map(() => null);
      return null; // window/workDoneProgress/create, workspace/codeLens/refresh, client/registerCapability
    });
    this.connection.onNotification((method, params) => this.record(method, params));
    // vscode-jsonrpc routes `$/progress` apart from other notifications.
    this.connection.onUnhandledProgress((params) => this.record('$/progress', params));
    this.connection.onError(() => {});
    this.connection.listen();
  }

  record(method, params) {
    this.notifications.push({ method, params });
    for (const w of this.waiters.splice(0)) {
      if (w.method === method && w.predicate(params)) w.resolve(params);
      else this.waiters.push(w);
    }
  }

  // Sends a request; fails (instead of hanging) if the server exits or stays
  // silent past the timeout, with the tail of its stderr in the message.
  async request(method, params) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${method}: no answer within ${requestTimeoutMs} ms\n${this.stderrTail()}`)),
        requestTimeoutMs,
      );
    });
    const exited = this.exited.then(({ code, signal, error }) => {
      throw new Error(
        `${method}: inductor-ls (${serverBinary}) ` +
          (error ? `could not start: ${error.message}` : `exited (code ${code}, signal ${signal}) before answering`) +
          `\n${this.stderrTail()}`,
      );
    });
    try {
      return await Promise.race([this.connection.sendRequest(method, params), timeout, exited]);
    } catch (e) {
      // A write to a dead server fails with EPIPE before 'exit' is seen:
      // prefer the exit report, which says what happened.
      const gone = await Promise.race([exited.then(() => null, (x) => x), new Promise((r) => setTimeout(() => r(null), 500))]);
      throw gone ?? e;
    } finally {
      clearTimeout(timer);
    }
  }

  notify(method, params) {
    return this.connection.sendNotification(method, params);
  }

  waitForNotification(method, predicate = () => true) {
    const seen = this.notifications.find((n) => n.method === method && predicate(n.params));
    if (seen) return Promise.resolve(seen.params);
    return new Promise((resolve) => this.waiters.push({ method, predicate, resolve }));
  }

  // didOpen with the file's text from disk; returns its URI.
  open(file, languageId = file.endsWith('.cpp') ? 'cpp' : 'python') {
    const uri = fileUri(file);
    this.notify('textDocument/didOpen', {
      textDocument: { uri, languageId, version: 1, text: fs.readFileSync(file, 'utf8') },
    });
    return uri;
  }

  openText(uri, languageId, text) {
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  }

  stderrTail() {
    return this.stderr ? `server stderr (tail):\n${this.stderr.slice(-2000)}` : '(no stderr)';
  }

  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      try {
        await Promise.race([
          this.connection.sendRequest('shutdown').then(() => this.notify('exit')),
          new Promise((r) => setTimeout(r, 3000)),
        ]);
      } catch {
        // Already gone.
      }
      const done = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r(null), 3000))]);
      if (done === null) this.proc.kill('SIGKILL');
    }
    this.connection.dispose();
  }
}

// Finds the 0-based line of the first line containing `needle`, and the
// character of `needle` (or of `focus` inside it) on that line.
export function locate(text, needle, focus = needle, from = 0) {
  const lines = text.split('\n');
  for (let i = from; i < lines.length; i++) {
    const c = lines[i].indexOf(needle);
    if (c >= 0) return { line: i, character: c + Math.max(0, needle.indexOf(focus)) };
  }
  throw new Error(`"${needle}" not found`);
}

export function hoverText(hover) {
  if (!hover) return '';
  const c = hover.contents;
  const part = (x) => (typeof x === 'string' ? x : x?.value ?? '');
  return Array.isArray(c) ? c.map(part).join('\n') : part(c);
}
