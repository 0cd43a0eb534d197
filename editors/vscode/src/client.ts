// client.ts: builds the vscode-languageclient LanguageClient that starts
// `inductor-ls` over stdio, following vscode-clangd's clangd-context.ts.
// Everything LSP-standard (definition, references, hover, code lens, symbols,
// `$/progress`, `workspace/codeLens/refresh`, trace) is handled by the library;
// the feature files add only what the server defines on top.

import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type Executable,
  type ServerOptions,
} from 'vscode-languageclient/node';
import * as config from './config';
import { openLocationCommand, traceScheme } from './protocol';

// Hovers link every kernel, origin and FX node to where it is. VS Code's
// Markdown renderer follows only a few URI schemes (http, https, mailto,
// file, vscode-remote…) and renders other links as plain text, so links to
// `inductor-trace:` documents become links to the command that opens them
// (allowed below by `isTrusted.enabledCommands`, which trusts no other
// command). `#L<line>` selects the line, as in file links.
export function rewriteTraceLinks(markdown: string): string {
  return markdown.replace(/\]\((inductor-trace:[^)#\s]*)(?:#L(\d+))?\)/g, (_m, uri: string, line?: string) => {
    const args = encodeURIComponent(JSON.stringify([uri, line ? Number(line) : 1]));
    return `](command:${openLocationCommand}?${args} "Open ${uri.replace(/"/g, '')}")`;
  });
}

function rewriteHover(hover: vscode.Hover | null | undefined): vscode.Hover | null | undefined {
  if (!hover) return hover;
  const contents = hover.contents.map((c) => {
    if (!(c instanceof vscode.MarkdownString) || !c.value.includes('](inductor-trace:')) return c;
    const md = new vscode.MarkdownString(rewriteTraceLinks(c.value), c.supportThemeIcons);
    md.isTrusted = { enabledCommands: [openLocationCommand] };
    return md;
  });
  return new vscode.Hover(contents, hover.range);
}

// Client id: vscode-languageclient reads `${id}.trace.server` for LSP tracing.
export const clientId = 'inductorLs';

export function create(
  serverPath: string,
  outputChannel: vscode.LogOutputChannel,
  pythonFromExtension?: string,
): LanguageClient {
  // No `transport` field: with `TransportKind.stdio` the library appends
  // `--stdio` to the command line, a flag inductor-ls rejects (it speaks LSP on
  // stdio by default). vscode-clangd's Executable leaves it out for the same reason.
  const executable: Executable = { command: serverPath, args: [] };
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'file', language: 'cpp' },
      { scheme: 'file', language: 'c' },
      // Triton's IR beside a kernel in its cache: definition from an IR line back to the kernel line.
      { scheme: 'file', pattern: '**/*.{ttir,ttgir,llir,ptx}' },
      { scheme: traceScheme },
    ],
    initializationOptions: config.initializationOptions(pythonFromExtension),
    outputChannel,
    // The server logs to stderr, which lands in the output channel; never pop
    // it up on its own (vscode-clangd does the same).
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    markdown: { isTrusted: false, supportHtml: false },
    middleware: {
      provideHover: async (document, position, token, next) => rewriteHover(await next(document, position, token)),
    },
  };
  return new LanguageClient(clientId, 'Inductor Language Server', serverOptions, clientOptions);
}
