// statusBar.ts: the `Inductor: N compiles · M kernels` item. It exists only
// while a server runs (activation.ts), is fed by the server's `inductor/status`
// notification and, once the client is running, by one `inductor/status`
// request (the notification may have been sent before we listened), and says
// what is going on: indexing with its percentage and step, requests waiting
// for the index, and the server's notices (no trace, sources not on this
// machine, corrupted records) with a warning look. Clicking it opens the
// artifact picker.

import * as vscode from 'vscode';
import { type LanguageClient, State } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { type StatusResult, statusRequest } from './protocol';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// The item's text and tooltip for a status (exported for tests).
export function describe(status: Partial<StatusResult>): { text: string; tooltip: string; warning: boolean } {
  const notices = status.notices ?? [];
  const warning = notices.some((n) => n.type <= 2) || (status.errors ?? 0) > 0;
  // The server's one definition of the counts (`counts`), as explain and the
  // Compiled Frames view give them; older servers send only the top level.
  const c = status.counts;
  const compiles = c?.compiles ?? status.compiles ?? 0;
  const kernels = c?.kernels ?? status.kernels ?? 0;
  let counts =
    `${plural(c?.traces ?? status.traces ?? 0, 'trace')} · ${plural(compiles, 'compile')} · ` +
    (c ? `${plural(c.graphs, 'graph')} · ` : '') +
    `${plural(kernels, 'kernel')} · ${plural(c?.launches ?? status.launches ?? 0, 'launch', 'launches')}`;
  if (c)
    counts +=
      ` · ${plural(c.problems, 'problem')}` +
      (c.problems > 0
        ? ` (${plural(c.graphBreaks, 'graph break')}, ${plural(c.recompiles, 'recompile')}, ${plural(c.failures, 'failure')})` +
          // The Problems panel lists them merged per line and kind.
          (status.problemLines !== undefined ? ` on ${plural(status.problemLines, 'line')} (the Problems panel)` : '')
        : '');
  // Several ranks: how many, and where they disagree (the Rank Divergences view).
  const ranks = c?.ranks ?? 0;
  const divergences = status.rankDivergences ?? 0;
  if (ranks > 1)
    counts += ` · ${plural(ranks, 'rank')}` + (divergences > 0 ? `, ${plural(divergences, 'divergence')} (the Rank Divergences view)` : ', all agree');
  const lines: string[] = [];
  let text: string;
  if (status.indexing) {
    const p = status.progress;
    text = `$(sync~spin) Inductor: indexing${p ? ` ${p.percentage}%` : '…'}`;
    if (p?.message) lines.push(`Indexing: ${p.message} (${p.percentage}%)`);
  } else if (status.ready !== false && compiles === 0 && notices.some((n) => n.kind === 'noTrace')) {
    text = '$(info) Inductor: no trace';
  } else {
    text = `Inductor: ${plural(compiles, 'compile')} · ${plural(kernels, 'kernel')}` + (warning ? ' $(warning)' : '');
    const ranks = status.counts?.ranks ?? 0;
    if (ranks > 1) text += ` · ${plural(ranks, 'rank')}` + ((status.rankDivergences ?? 0) > 0 ? ' $(git-compare)' : '');
  }
  // Several runs in the traces: the one every answer comes from, and how many others there are.
  const others = status.otherRuns ?? 0;
  if (typeof status.run === 'string' && others > 0) {
    // The time of day of an id "2026-11-27 02:31:47"; other ids whole.
    text += ` · run ${status.run.length >= 19 ? status.run.slice(11) : status.run} (+${others})`;
    lines.push(
      `Run ${status.run} (${plural(others, 'other run')} in the traces)` +
        (typeof status.baseline === 'string' ? `, compared with run ${status.baseline}.` : '.'),
    );
  }
  const waiting = status.waitingRequests ?? 0;
  if (waiting > 0) {
    text += ` · ${plural(waiting, 'request')} waiting`;
    lines.push(`${plural(waiting, 'request')} waiting for the index (answered when it is ready).`);
  }
  if (status.ready !== false)
    lines.push(
      counts +
        ((status.errors ?? 0) > 0 ? ` · ${plural(status.errors ?? 0, 'indexing error')} (see the output channel)` : ''),
    );
  for (const n of notices) lines.push(n.message.replace(/^inductor-ls: /, ''));
  lines.push('Click to open a trace artifact.');
  return { text, tooltip: lines.join('\n\n'), warning };
}

export function render(item: vscode.StatusBarItem, status: Partial<StatusResult>): void {
  const { text, tooltip, warning } = describe(status);
  item.text = text;
  item.backgroundColor = warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown('**Inductor Language Server**\n\n');
  md.appendText(tooltip);
  // Several runs: what to do about them, one click away (only these commands run from the tooltip).
  if ((status.otherRuns ?? 0) > 0) {
    const links = ['inductorLs.selectRun', 'inductorLs.selectBaseline', 'inductorLs.compare'];
    md.isTrusted = { enabledCommands: links };
    md.appendMarkdown(
      `\n\n[$(history) Select run](command:${links[0]}) · [$(git-compare) Select baseline](command:${links[1]})` +
        ` · [Compare](command:${links[2]})`,
    );
  }
  item.tooltip = md;
}

export function activate(context: InductorContext, client: LanguageClient): void {
  const item = vscode.window.createStatusBarItem('inductorLs.status', vscode.StatusBarAlignment.Left, 0);
  item.name = 'Inductor Language Server';
  item.command = 'inductorLs.openArtifact';
  item.text = '$(sync~spin) Inductor: starting…';
  item.show();
  const query = async () => {
    try {
      render(item, await client.sendRequest(statusRequest, {}));
    } catch {
      // The notification will bring the state; a failed query is not news.
    }
  };
  context.subscriptions.push(
    item,
    context.onDidChangeStatus((status) => {
      // A notification without counts only says "something changed".
      if (status.compiles === undefined && status.kernels === undefined) {
        void query();
      } else {
        render(item, status);
      }
    }),
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) void query();
      if (e.newState === State.Stopped) {
        item.text = '$(error) Inductor: stopped';
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.tooltip = 'inductor-ls is not running; see the "Inductor Language Server" output channel.';
        item.command = 'inductorLs.restart';
      } else {
        item.command = 'inductorLs.openArtifact';
      }
    }),
  );
  if (client.state === State.Running) void query();
}
