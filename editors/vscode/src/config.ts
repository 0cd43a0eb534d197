// config.ts: the `inductorLs.*` settings, and how they become the server's
// command line and `initializationOptions`. Changing any of them restarts the
// client (see extension.ts); `inductorLs.trace.server` is read by
// vscode-languageclient itself because the client id is `inductorLs`.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InitializationOptions, PathMapping } from './protocol';

export const section = 'inductorLs';

// The wire shapes of `initializationOptions` live with the other wire types
// (protocol.ts, held to protocol/inductor-protocol.json).
export type { InitializationOptions, PathMapping } from './protocol';

// Whether the workspace is trusted. In Restricted Mode the extension never
// takes a program to run from the workspace: not the server (serverPath), not
// an interpreter (pythonPath, the Python extension's selection, which may be
// the workspace's own .venv), and the server is told to run none.
export function workspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

// A setting's value from the user's settings only (or its default): what an
// untrusted workspace's `.vscode/settings.json` says is not used.
export function userSetting<T>(key: string, fallback: T): T {
  const inspected = vscode.workspace.getConfiguration(section).inspect<T>(key);
  return inspected?.globalValue ?? inspected?.defaultValue ?? fallback;
}

// Expands `~` and `${workspaceFolder}` and makes relative paths absolute against
// the first workspace folder, as users expect from VS Code settings.
export function substitute(value: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let out = value.replace(/\$\{workspaceFolder\}/g, folder ?? '');
  out = out.replace(/\$\{userHome\}/g, os.homedir());
  if (out === '~' || out.startsWith('~/')) out = path.join(os.homedir(), out.slice(1));
  return out;
}

function absolute(p: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return path.isAbsolute(p) || !folder ? p : path.join(folder, p);
}

// `pythonFromExtension`: the interpreter the Python extension has selected
// (pythonExtensionInterpreter), used when `inductorLs.pythonPath` is empty.
// `trusted`: false in Restricted Mode, where no interpreter is passed and the
// server is told to run none.
export function initializationOptions(
  pythonFromExtension?: string,
  trusted: boolean = workspaceTrusted(),
): InitializationOptions {
  const cfg = vscode.workspace.getConfiguration(section);
  const options: InitializationOptions = {};
  // Settings that add read roots: in Restricted Mode only the user's own values count, never the untrusted
  // workspace's (`.vscode/settings.json` naming `/etc` as a Triton cache). package.json lists them under
  // `restrictedConfigurations` too, which makes VS Code itself ignore the workspace's values.
  const roots = <T>(key: string, fallback: T): T => (trusted ? cfg.get<T>(key, fallback) : userSetting<T>(key, fallback));
  const traceDirs = (roots<string[]>('traceDirs', []) ?? []).filter((d) => typeof d === 'string' && d.trim() !== '');
  if (traceDirs.length > 0) options.traceDirs = traceDirs.map((d) => absolute(substitute(d)));
  const mappings = (roots<PathMapping[]>('pathMappings', []) ?? []).filter(
    (m) => typeof m?.from === 'string' && typeof m?.to === 'string',
  );
  if (mappings.length > 0)
    options.pathMappings = mappings.map((m) => ({ from: m.from, to: substitute(m.to) }));
  for (const key of ['profiles', 'runLogs', 'tritonCacheDirs'] as const) {
    const paths = (roots<string[]>(key, []) ?? []).filter((d) => typeof d === 'string' && d.trim() !== '');
    if (paths.length > 0) options[key] = paths.map((d) => absolute(substitute(d)));
  }
  if (trusted) {
    const python = cfg.get<string>('pythonPath', '').trim();
    if (python !== '') options.pythonPath = absolute(substitute(python));
    else if (pythonFromExtension) options.pythonPath = pythonFromExtension;
  } else {
    options.trusted = false;
  }
  const library = cfg.get<string[]>('libraryPaths', []).filter((g) => typeof g === 'string' && g.trim() !== '');
  if (library.length > 0) options.libraryPaths = library;
  return options;
}

// The part of the Python extension's API (ms-python.python, `environments`)
// used here: the selected interpreter, and its changes.
export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

export const pythonExtensionId = 'ms-python.python';

// The Python extension's API when it is installed and already active, else
// undefined.
export function activePythonExtension(): PythonExtensionApi | undefined {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(pythonExtensionId);
  return ext?.isActive ? ext.exports : undefined;
}

// The Python extension's API once it is active (activating it), or undefined
// when it is not installed; the promise never rejects (a failing extension
// leaves the server to find the environment itself).
export function pythonExtension(): Promise<PythonExtensionApi | undefined> | undefined {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(pythonExtensionId);
  if (!ext) return undefined;
  return Promise.resolve(ext.isActive ? ext.exports : ext.activate()).then(
    (api) => api,
    () => undefined,
  );
}

// The interpreter the Python extension has selected for the first workspace
// folder, or undefined.
export function pythonExtensionInterpreter(api: PythonExtensionApi | undefined): string | undefined {
  try {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const p = api?.environments?.getActiveEnvironmentPath(folder)?.path;
    return p && p.trim() !== '' ? p : undefined;
  } catch {
    return undefined;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// Whether `file` lies in a workspace folder.
export function insideWorkspace(file: string): boolean {
  const resolved = path.resolve(file);
  return (vscode.workspace.workspaceFolders ?? []).some((f) => {
    const rel = path.relative(f.uri.fsPath, resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

// The first executable `name` in an absolute PATH entry (a relative one, `.`
// or empty, means whatever the current directory is); `trusted` false also
// skips entries inside the workspace folders.
function onPath(name: string, trusted: boolean = true): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir) || (!trusted && insideWorkspace(dir))) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

// The platforms a .vsix carries a server for (`vsce package --target`), as
// `${process.platform}-${process.arch}` spells them.
export const bundledPlatforms = ['linux-x64'];

// The server binary shipped in a platform-specific .vsix at server/inductor-ls.
export function bundledServer(extensionPath: string): string {
  return path.join(extensionPath, 'server', process.platform === 'win32' ? 'inductor-ls.exe' : 'inductor-ls');
}

export type ServerLocation =
  | { path: string; source: 'setting' | 'bundled' | 'PATH' }
  | { error: string };

// The binary to start: `inductorLs.serverPath` if set; else the one shipped
// in the extension (`server/inductor-ls`, same version as the extension);
// else `inductor-ls` on PATH. Returns what to tell the user instead when none
// is usable.
// In Restricted Mode only the user's settings count: a workspace cannot name
// the program to start.
export function serverPath(extensionPath: string, trusted: boolean = workspaceTrusted()): ServerLocation {
  const configured = (
    trusted
      ? vscode.workspace.getConfiguration(section).get<string>('serverPath', '')
      : userSetting<string>('serverPath', '')
  ).trim();
  if (configured !== '') {
    const resolved = substitute(configured);
    if (resolved.includes(path.sep)) {
      const file = absolute(resolved);
      if (!trusted && insideWorkspace(file))
        return {
          error:
            `inductorLs.serverPath is "${configured}", inside the workspace, which is not trusted: ` +
            'trust the workspace to start that server.',
        };
      return isExecutable(file)
        ? { path: file, source: 'setting' }
        : { error: `inductorLs.serverPath is "${configured}", but ${file} is not an executable file.` };
    }
    const found = onPath(resolved, trusted);
    return found
      ? { path: found, source: 'setting' }
      : { error: `inductorLs.serverPath is "${configured}", which is not on PATH.` };
  }
  const shipped = bundledServer(extensionPath);
  if (fs.existsSync(shipped)) {
    // Some unpackers drop the executable bit; the file is ours to fix.
    if (!isExecutable(shipped)) {
      try {
        fs.chmodSync(shipped, 0o755);
      } catch {
        // Reported below.
      }
    }
    if (isExecutable(shipped)) return { path: shipped, source: 'bundled' };
  }
  const found = onPath(process.platform === 'win32' ? 'inductor-ls.exe' : 'inductor-ls', trusted);
  if (found) return { path: found, source: 'PATH' };
  const platform = `${process.platform}-${process.arch}`;
  return {
    error: bundledPlatforms.includes(platform)
      ? 'This installation of the extension carries no inductor-ls server (install the .vsix for ' +
        `${platform}), and none is on PATH. Set inductorLs.serverPath to an inductor-ls binary.`
      : `The extension ships inductor-ls for ${bundledPlatforms.join(', ')} only, not for ${platform}. ` +
        'Build the server from source (cmake --build build --target inductor-ls) and set ' +
        'inductorLs.serverPath to build/inductor-ls.',
  };
}
