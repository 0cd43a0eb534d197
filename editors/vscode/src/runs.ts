// runs.ts: choosing the run every answer comes from and the baseline it is
// compared with (issue 28). Both are quick picks over `inductor/runs` that end
// in the server's own workspace commands (server/workspace/Runs.cpp), so the choice is
// the server's: it reindexes the chosen run, or builds the chosen baseline, and
// says so with `inductor/status` (the status bar, the comparison view).
//
//   inductorLs.selectRun       inductor/runs → quick pick → inductor.selectRun [id]
//   inductorLs.selectBaseline  inductor/runs → quick pick → inductor.selectBaseline [id]
//
// Besides the runs themselves the picks offer the settings' words: "latest"
// (follows new runs as they are written), "previous" (the baseline by default)
// and "none" (compare with nothing). Both commands resolve to the id chosen
// (undefined when dismissed), for tests and other extensions.

import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient } from 'vscode-languageclient/node';
import { executeCommandParams, type RunEntry, runsRequest, selectBaselineCommand, selectRunCommand } from './protocol';
import { rankRanges } from './ranks';
import { plural } from './statusBar';

interface RunPick extends vscode.QuickPickItem {
  id?: string;
}

// "ranks 0–3", "ranks 0–511, 513–1023" (rankRanges); nothing for a single rank 0 (not distributed).
export function describeRanks(ranks: number[]): string {
  if (ranks.length === 0) return '';
  if (ranks.length === 1) return ranks[0] === 0 ? '' : `rank ${ranks[0]}`;
  return `ranks ${rankRanges(ranks, 4)}`;
}

function runItem(run: RunEntry, latest: boolean): RunPick {
  const marks = [latest ? 'latest' : '', run.current ? 'current' : '', run.baseline ? 'baseline' : ''].filter(Boolean);
  const ranks = describeRanks(run.ranks);
  const names = run.logs.map((l) => l.split('/').pop() ?? l);
  return {
    label: `${run.current ? '$(check) ' : run.baseline ? '$(git-compare) ' : ''}${run.id}`,
    description: [marks.join(' · '), ranks, plural(run.logs.length, 'log')].filter(Boolean).join(' · '),
    detail:
      (run.endTime && run.startTime ? `${run.startTime} → ${run.endTime} · ` : '') +
      (names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', ')),
    id: run.id,
  };
}

async function pick(client: LanguageClient, baseline: boolean): Promise<string | undefined> {
  const { runs } = await client.sendRequest(runsRequest, {});
  if (runs.length === 0) {
    void vscode.window.showInformationMessage('Inductor: the traces hold no run yet.');
    return undefined;
  }
  const newest = runs[runs.length - 1];
  const items: RunPick[] = baseline
    ? [
        { label: '$(history) Previous run', description: 'the run before the current one (default)', id: 'previous' },
        { label: '$(circle-slash) None', description: 'compare with nothing', id: 'none' },
      ]
    : [{ label: '$(arrow-up) Latest run', description: 'follows new runs as they are written (default)', id: 'latest' }];
  items.push({ label: 'runs, newest first', kind: vscode.QuickPickItemKind.Separator });
  // Newest first: the run users look for is usually one of the last ones.
  for (const run of [...runs].reverse()) items.push(runItem(run, run === newest));
  const qp = vscode.window.createQuickPick<RunPick>();
  qp.title = baseline ? 'Inductor: compare with which run?' : 'Inductor: serve which run?';
  qp.placeholder = baseline
    ? 'The baseline: events new since it are marked, lenses show the change'
    : 'The current run: every answer (navigation, lenses, diagnostics) comes from it';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.items = items;
  // The run chosen now is the active item, so Enter keeps it.
  const chosen = items.find((i) => i.id !== undefined && runs.some((r) => r.id === i.id && (baseline ? r.baseline : r.current)));
  if (chosen) qp.activeItems = [chosen];
  const id = await new Promise<string | undefined>((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.id ?? qp.activeItems[0]?.id);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (id === undefined) return undefined;
  await client.sendRequest(
    ExecuteCommandRequest.type,
    executeCommandParams(baseline ? selectBaselineCommand : selectRunCommand, id),
  );
  return id;
}

export const selectRun = (client: LanguageClient) => pick(client, false);
export const selectBaseline = (client: LanguageClient) => pick(client, true);
