// lowered.ts: from a line of a Triton kernel (in output code, in the kernel's
// file in the Inductor cache, in a log-only document) to what the compiler made
// of it (issue 30): `inductor/lowered` answers the line's locations in each IR
// stage of the kernel's Triton cache entry (ttir, ttgir, llir, ptx); this file
// opens one stage beside the source with those lines highlighted, as
// Compiler Explorer and tritonparse do. Go to Definition on an IR line leads
// back to the kernel line (the server's `loc`/`.loc` mapping), and from there
// to the model line.
//
//   inductorLs.showLowered [stage?]  the stage named, else the only stage
//                                    with lines, else a quick pick (PTX first
//                                    in focus) → the IR beside, lines
//                                    highlighted and revealed
//
// The highlight stays on that document (in every editor showing it, also when
// it is shown again later) until the next Show Lowered IR or until it is closed.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { type LoweredStage, loweredRequest } from './protocol';

const stageNames: Record<string, string> = {
  ttir: 'TTIR (Triton IR)',
  ttgir: 'TTGIR (Triton GPU IR)',
  llir: 'LLIR (LLVM IR)',
  ptx: 'PTX',
};

// What a Show Lowered IR did: the stage shown, its document and the 0-based
// lines highlighted there.
export interface LoweredShown {
  stage: string;
  uri: string;
  lines: number[];
}

let decoration: vscode.TextEditorDecorationType | undefined;
// Document URI → the ranges highlighted in it.
const highlights = new Map<string, vscode.Range[]>();
// Editor → the 0-based lines last highlighted in it (what tests check).
const applied = new WeakMap<vscode.TextEditor, number[]>();

function apply(editor: vscode.TextEditor): void {
  if (!decoration) return;
  const ranges = highlights.get(editor.document.uri.toString()) ?? [];
  editor.setDecorations(decoration, ranges);
  applied.set(
    editor,
    ranges.map((r) => r.start.line),
  );
}

/// The lines highlighted in `editor` (0-based), for tests.
export function highlightedLines(editor: vscode.TextEditor): number[] {
  return applied.get(editor) ?? [];
}

export function activate(extension: vscode.ExtensionContext): void {
  decoration = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
  });
  extension.subscriptions.push(
    decoration,
    // Shown again (another tab, a split): highlighted again.
    vscode.window.onDidChangeVisibleTextEditors((editors) => {
      for (const e of editors) if (highlights.has(e.document.uri.toString())) apply(e);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => highlights.delete(doc.uri.toString())),
  );
}

interface StagePick extends vscode.QuickPickItem {
  stage: LoweredStage;
}

function fileName(uri: string): string {
  return decodeURIComponent(uri.split('/').pop() ?? uri);
}

async function chooseStage(stages: LoweredStage[]): Promise<LoweredStage | undefined> {
  const qp = vscode.window.createQuickPick<StagePick>();
  qp.title = 'Inductor: show this kernel line lowered to';
  qp.placeholder = 'The IR stage to open beside, with the lines the compiler attributes to this line highlighted';
  qp.items = stages.map((s) => ({
    label: stageNames[s.stage] ?? s.stage,
    description:
      `${s.locations.length} line${s.locations.length === 1 ? '' : 's'}` +
      (s.more ? ` … ${s.more} more line${s.more === 1 ? '' : 's'} not listed` : ''),
    detail: [...new Set(s.locations.map((l) => fileName(l.uri)))].join(', '),
    stage: s,
  }));
  // PTX in focus: what the GPU runs, and what people tuning a kernel read first.
  const ptx = qp.items.find((i) => i.stage.stage === 'ptx');
  if (ptx) qp.activeItems = [ptx];
  const picked = await new Promise<LoweredStage | undefined>((resolve) => {
    qp.onDidAccept(() => {
      resolve((qp.selectedItems[0] ?? qp.activeItems[0])?.stage);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  return picked;
}

export async function showLowered(client: LanguageClient, stage?: string): Promise<LoweredShown | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Inductor: put the cursor on a line of a Triton kernel first.');
    return undefined;
  }
  const params = client.code2ProtocolConverter.asTextDocumentPositionParams(editor.document, editor.selection.active);
  const answer = (await client.sendRequest(loweredRequest, params)) ?? [];
  const stages = answer.filter((s) => s.locations.length > 0);
  // A stage whose file the server did not read (too large, past a limit) says why.
  const notes = answer.filter((s) => s.note).map((s) => `${stageNames[s.stage] ?? s.stage}: ${s.note}`);
  if (notes.length > 0) void vscode.window.showWarningMessage(`Inductor: not read: ${notes.join('; ')}`);
  if (stages.length === 0) {
    void vscode.window.showInformationMessage(
      'Inductor: no IR lines for this line (not a line of a Triton kernel, or no Triton cache entry was found for its kernel).',
    );
    return undefined;
  }
  let chosen: LoweredStage | undefined;
  if (stage) {
    chosen = stages.find((s) => s.stage === stage);
    if (!chosen) {
      void vscode.window.showInformationMessage(
        `Inductor: no ${stageNames[stage] ?? stage} lines for this line (found: ${stages.map((s) => s.stage).join(', ')}).`,
      );
      return undefined;
    }
  } else {
    chosen = stages.length === 1 ? stages[0] : await chooseStage(stages);
  }
  if (!chosen) return undefined;
  // One IR file per stage of one kernel; should a line lower into several, the first one's file.
  const p2c = client.protocol2CodeConverter;
  const target = chosen.locations[0].uri;
  const ranges = chosen.locations
    .filter((l) => l.uri === target)
    .map((l) => p2c.asRange(l.range))
    .sort((a, b) => a.start.line - b.start.line)
    .map((r) => new vscode.Range(r.start.line, 0, r.start.line, 0));
  const uri = p2c.asUri(target);
  for (const key of highlights.keys()) highlights.delete(key);
  highlights.set(uri.toString(), ranges);
  for (const e of vscode.window.visibleTextEditors) apply(e);
  const doc = await vscode.workspace.openTextDocument(uri);
  const shown = await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preview: true,
    selection: ranges[0],
  });
  apply(shown);
  shown.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return { stage: chosen.stage, uri: uri.toString(), lines: ranges.map((r) => r.start.line) };
}
