// context.ts: what one running client shares with the feature files (the
// shape of vscode-clangd's ClangdContext). A restart disposes the whole context
// and builds a new one, so features never see a stale client.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { CompareProvider } from './compare';
import type { CompilesProvider } from './compiles';
import type { RanksProvider } from './ranks';
import { type StatusResult, statusNotification } from './protocol';

export class InductorContext implements vscode.Disposable {
  readonly subscriptions: vscode.Disposable[] = [];
  private readonly status = new vscode.EventEmitter<Partial<StatusResult>>();
  // Fired for every `inductor/status` notification. vscode-jsonrpc keeps one
  // handler per method, so features subscribe here instead of calling
  // client.onNotification themselves.
  readonly onDidChangeStatus = this.status.event;
  // The Compiled Frames view's data, set by compiles.ts.
  compiles: CompilesProvider | undefined;
  // The Run Comparison and Rank Divergences views' data (compare.ts, ranks.ts).
  compare: CompareProvider | undefined;
  ranks: RanksProvider | undefined;

  constructor(
    readonly extension: vscode.ExtensionContext,
    readonly client: LanguageClient,
  ) {
    this.subscriptions.push(
      this.status,
      client.onNotification(statusNotification, (params) => this.status.fire(params ?? {})),
    );
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0).reverse()) d.dispose();
  }
}
