// statusBar.ts: the `Inductor: N compiles · M kernels` item. It is fed by the
// server's `inductor/status` notification and, once the client is running, by
// one `inductor/status` request (the notification may have been sent before we
// listened). Clicking it opens the artifact picker.

import * as vscode from 'vscode';
import { type LanguageClient, State } from 'vscode-languageclient/node';
import type { InductorContext } from './context';
import { type StatusResult, statusRequest } from './protocol';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function render(item: vscode.StatusBarItem, status: Partial<StatusResult>): void {
  const errors = status.errors ?? 0;
  if (status.indexing) {
    item.text = '$(sync~spin) Inductor: indexing…';
  } else {
    item.text =
      `Inductor: ${plural(status.compiles ?? 0, 'compile')} · ${plural(status.kernels ?? 0, 'kernel')}` +
      (errors > 0 ? ` · $(warning) ${plural(errors, 'error')}` : '');
  }
  item.backgroundColor =
    errors > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown('**Inductor Language Server**\n\n');
  tooltip.appendMarkdown(
    `${plural(status.traces ?? 0, 'trace')} · ${plural(status.compiles ?? 0, 'compile')} · ` +
      `${plural(status.kernels ?? 0, 'kernel')} · ${plural(status.launches ?? 0, 'launch')}` +
      (errors > 0 ? ` · ${plural(errors, 'error')} (see the output channel)` : '') +
      '\n\nClick to open a trace artifact.',
  );
  item.tooltip = tooltip;
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
      if (status.compiles === undefined && status.kernels === undefined) void query();
      else render(item, status);
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
