// activation.ts: when to start the server. VS Code loads the extension for
// the `workspaceContains` trace markers of package.json, for an
// `inductor-trace:` document, and for Python and C++ files (a trace's output
// code can be opened from anywhere, and no activation event matches file
// names). Loading starts nothing: the server, its status item and its views
// come only when
//  - the workspace holds a trace (the markers below, searched once), or
//  - `inductorLs.traceDirs` is set, or
//  - a document that is generated code is opened (output_code.py, an FX
//    graph dump, an AOTI wrapper, a cache file, an `inductor-trace:` URI), or
//  - a trace appears in the workspace later (a training run started after
//    the editor), or
//  - the user runs one of the extension's commands.
// A Python project without traces gets no process, no status item and no
// notifications.

import * as path from 'node:path';
import * as vscode from 'vscode';
import * as config from './config';
import { traceScheme } from './protocol';

// Files that only torch.compile writes; `torch_compile_debug/` is found
// through the output_code.py files in it.
export const traceFileGlob =
  '**/{dedicated_log_torch_trace*.log,output_code.py,output_code.cpp,*.wrapper.cpp,fx_graph_readable.py}';
// Searched around, not into: what discovery skips (index/files/PathResolver.h).
const excludeGlob = '**/{.git,.hg,.venv,venv,node_modules,__pycache__,site-packages}/**';

export async function workspaceHasTraces(token?: vscode.CancellationToken): Promise<boolean> {
  if (!vscode.workspace.workspaceFolders?.length) return false;
  const found = await vscode.workspace.findFiles(traceFileGlob, excludeGlob, 1, token);
  return found.length > 0;
}

export function traceDirsConfigured(): boolean {
  return vscode.workspace.getConfiguration(config.section).get<string[]>('traceDirs', []).some((d) => d.trim() !== '');
}

// Whether a document is something torch.compile generated.
export function isTraceDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === traceScheme) return true;
  if (doc.uri.scheme !== 'file') return false;
  const file = doc.uri.fsPath;
  const name = path.basename(file);
  if (/^(output_code\.(py|cpp)|fx_graph_(readable|transformed|runnable)\.py)$/.test(name)) return true;
  if (name.endsWith('.wrapper.cpp') || /^dedicated_log_torch_trace.*\.log$/.test(name)) return true;
  // A cache file `c<hash>.py` under a two-character cache directory.
  return /^c[a-z0-9]{20,}\.py$/.test(name) && /^[a-z0-9]{2}$/.test(path.basename(path.dirname(file)));
}

// Calls `start` once, as soon as one of the conditions of the file comment
// holds. Dispose to stop waiting.
export function whenTraceAppears(start: (why: string) => void): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  const cancel = new vscode.CancellationTokenSource();
  let fired = false;
  const fire = (why: string) => {
    if (fired) return;
    fired = true;
    for (const d of disposables.splice(0)) d.dispose();
    cancel.cancel();
    start(why);
  };
  const watcher = vscode.workspace.createFileSystemWatcher(traceFileGlob, false, true, true);
  // VS Code's watcher can miss the files of directories created in a burst (os.makedirs of a TORCH_TRACE
  // directory, then its log): after anything is created, look again, at most every few seconds.
  const anything = vscode.workspace.createFileSystemWatcher('**/*', false, true, true);
  let search: ReturnType<typeof setTimeout> | undefined;
  const searchSoon = () => {
    search ??= setTimeout(() => {
      search = undefined;
      void workspaceHasTraces(cancel.token).then(
        (found) => {
          if (found) fire('a trace appeared in the workspace');
        },
        () => undefined,
      );
    }, 2000);
  };
  disposables.push(
    watcher,
    anything,
    { dispose: () => search && clearTimeout(search) },
    watcher.onDidCreate((uri) => fire(`a trace appeared: ${uri.fsPath}`)),
    anything.onDidCreate(searchSoon),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (isTraceDocument(doc)) fire(`generated code opened: ${doc.uri.toString()}`);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${config.section}.traceDirs`) && traceDirsConfigured()) fire('traceDirs set');
    }),
  );
  if (traceDirsConfigured()) fire('traceDirs set');
  for (const doc of vscode.workspace.textDocuments) if (isTraceDocument(doc)) fire(`generated code open: ${doc.uri}`);
  void workspaceHasTraces(cancel.token).then(
    (found) => {
      if (found) fire('the workspace holds a trace');
    },
    () => undefined,
  );
  return {
    dispose() {
      fired = true;
      cancel.cancel();
      for (const d of disposables.splice(0)) d.dispose();
    },
  };
}
