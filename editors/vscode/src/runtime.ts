// runtime.ts: the client side of runtime insight (GPU time from profiler
// traces, tensor statistics and NaNs from Inductor's debug printer). Inlay
// hints, timed code lenses, hovers and diagnostics need nothing here (they are
// standard LSP, shown by vscode-languageclient); this file adds:
//
//   inductorLs.showHotLines   inductor/hotLines → quick pick, hottest first → open the line
//   inductor.showPrinterEnv   the command of the printer code actions: a quick
//                             pick that copies the environment, or adds it to
//                             a launch.json configuration's `env` on request
//
// Both commands resolve to what they did, for tests and other extensions.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import {
  type HotLine,
  hotLinesRequest,
  type PrinterEnv,
  type ShowPrinterEnvArguments,
  showPrinterEnvCommand,
} from './protocol';

interface LinePick extends vscode.QuickPickItem {
  line?: HotLine;
}

async function showHotLines(client: LanguageClient): Promise<HotLine | undefined> {
  const result = await client.sendRequest(hotLinesRequest, { limit: 500 });
  if (result.basis === 'none') {
    void vscode.window.showInformationMessage(
      'Inductor: no profiler trace found. Put the torch.profiler trace beside the TORCH_TRACE logs, or set inductorLs.profiles.',
    );
    return undefined;
  }
  for (const caveat of result.caveats) void vscode.window.showWarningMessage(`Inductor: ${caveat}`);
  if (result.lines.length === 0) {
    void vscode.window.showInformationMessage(`Inductor: no user line has a GPU time (${result.basisText}).`);
    return undefined;
  }
  const items: LinePick[] = result.lines.map((l) => ({
    label: `${l.label} · ${l.percent < 0.1 ? '<0.1' : l.percent.toFixed(1)}%`,
    description: `${l.path.split('/').pop()}:${l.line}  ${l.code.trim()}`,
    detail: Object.entries(l.byKind)
      .map(([kind, ns]) => `${kind} ${(ns / 1000 / Math.max(1, result.steps.length)).toFixed(1)} µs`)
      .concat([`${l.launches} kernel launch${l.launches === 1 ? '' : 'es'}`])
      .join(' · '),
    line: l,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Inductor: hottest lines (${result.basisText})`,
    placeHolder: 'User lines by the GPU time of the kernels they became',
    matchOnDescription: true,
  });
  if (!picked?.line) return undefined;
  // Null when the line is gone from the file (edited since the trace): nowhere to go.
  if (!picked.line.location) {
    void vscode.window.showWarningMessage(
      `Inductor: ${picked.line.path}:${picked.line.line} is no longer in the file (${picked.line.code.trim()}).`,
    );
    return picked.line;
  }
  const loc = client.protocol2CodeConverter.asLocation(picked.line.location);
  const editor = await vscode.window.showTextDocument(loc.uri, { selection: loc.range, preview: false });
  editor.revealRange(loc.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return picked.line;
}

type PrinterChoice = { copied: string } | { shown: string } | { launchConfiguration: string } | undefined;

// Adds the variables to the `env` of a launch configuration of the first
// workspace folder (or of a new Python one), only when the user picks it.
async function addToLaunchJson(env: PrinterEnv): Promise<PrinterChoice> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showWarningMessage('Inductor: open a folder to add a launch configuration.');
    return undefined;
  }
  const launch = vscode.workspace.getConfiguration('launch', folder.uri);
  const configurations = [...(launch.get<Record<string, unknown>[]>('configurations') ?? [])];
  const newName = 'Python: current file with the Inductor debug printer';
  const picks = [
    ...configurations.map((c, i) => ({ label: String(c.name ?? `configuration ${i + 1}`), index: i })),
    { label: `$(add) New: ${newName}`, index: -1 },
  ];
  const picked = await vscode.window.showQuickPick(picks, { title: 'Inductor: add the variables to which configuration?' });
  if (!picked) return undefined;
  if (picked.index < 0) {
    configurations.push({ name: newName, type: 'debugpy', request: 'launch', program: '${file}', console: 'integratedTerminal', env: env.env });
  } else {
    const c = { ...configurations[picked.index] };
    c.env = { ...((c.env as Record<string, string> | undefined) ?? {}), ...env.env };
    configurations[picked.index] = c;
  }
  await launch.update('configurations', configurations, vscode.ConfigurationTarget.WorkspaceFolder);
  const name = picked.index < 0 ? newName : picked.label;
  void vscode.window.showInformationMessage(`Inductor: added ${Object.keys(env.env).join(', ')} to "${name}".`);
  return { launchConfiguration: name };
}

async function showPrinterEnv(env: PrinterEnv | undefined): Promise<PrinterChoice> {
  if (!env || typeof env.shell !== 'string') return undefined;
  const copy = { label: `$(copy) Copy  ${env.shell}`, detail: env.explanation };
  const launch = { label: '$(debug-alt) Add to a launch.json configuration…', detail: 'Writes the variables into the env of a configuration you pick.' };
  const picked = await vscode.window.showQuickPick([copy, launch], { title: `Inductor: ${env.title}` });
  if (picked === copy) {
    try {
      await vscode.env.clipboard.writeText(env.shell);
      void vscode.window.showInformationMessage('Inductor: copied; run your program with these variables set.');
      return { copied: env.shell };
    } catch {
      // No clipboard (a browser without the permission): show the text to copy by hand.
      void vscode.window.showInformationMessage(`Inductor: run your program with ${env.shell}`, { modal: false });
      return { shown: env.shell };
    }
  }
  if (picked === launch) return addToLaunchJson(env);
  return undefined;
}

export function activate(context: InductorContext, client: LanguageClient): void {
  const guarded =
    <A extends unknown[], R>(name: string, body: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await body(...args);
      } catch (e) {
        void vscode.window.showErrorMessage(`Inductor: ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }
    };
  context.subscriptions.push(
    vscode.commands.registerCommand('inductorLs.showHotLines', guarded('Show Hottest Lines', () => showHotLines(client))),
    vscode.commands.registerCommand(
      showPrinterEnvCommand,
      guarded('Printer Environment', (...[env]: ShowPrinterEnvArguments) => showPrinterEnv(env)),
    ),
  );
}
