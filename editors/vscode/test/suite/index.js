// test/suite/index.js: the end-to-end suite, run by VS Code's extension host
// (payload `extensionTestsPath`) with the mlp_train fixture folder open as the
// workspace. test/e2e/run.mjs starts VS Code and reads the results.
//
// It drives the extension only through VS Code's own provider commands
// (vscode.executeHoverProvider, …) and the extension's commands, as
// lsp-sample's completion.test.ts does. Readiness is a provider answering,
// polled; never a fixed sleep.
//
// Environment (set by run.mjs on the VS Code server, inherited by the
// extension host):
//   INDUCTOR_E2E_DIR          handshake and results directory
//   INDUCTOR_E2E_EXTENSION    expected extension folder prefix (checks that the
//                             installed .vsix, not a dev copy, is under test)
//   INDUCTOR_E2E_SCREENSHOT   "1": pose the editor for the screenshot at the end

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const extensionId = 'inductor-ls.inductor-ls';
const e2eDir = process.env.INDUCTOR_E2E_DIR;
const readyTimeoutMs = 120000;

function log(line) {
  console.log(`[inductor-e2e] ${line}`);
  if (e2eDir) fs.appendFileSync(path.join(e2eDir, 'suite.log'), `${line}\n`);
}

async function until(what, probe, timeoutMs = readyTimeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${last instanceof Error ? last.stack : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function hoverMarkdown(hovers) {
  return (hovers ?? [])
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : c.value))
    .join('\n');
}

function locate(doc, needle, focus = needle, fromLine = 0) {
  for (let i = fromLine; i < doc.lineCount; i++) {
    const c = doc.lineAt(i).text.indexOf(needle);
    if (c >= 0) return new vscode.Position(i, c + Math.max(0, needle.indexOf(focus)));
  }
  throw new Error(`"${needle}" not found in ${doc.uri}`);
}

function asLocations(list) {
  return (list ?? []).map((l) => (l.targetUri ? new vscode.Location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : l));
}

function sameFile(a, b) {
  if (a.scheme !== 'file' || b.scheme !== 'file') return a.toString() === b.toString();
  const real = (u) => {
    try {
      return fs.realpathSync(u.fsPath);
    } catch {
      return u.fsPath;
    }
  };
  return real(a) === real(b);
}

function describe(locs) {
  return JSON.stringify(asLocations(locs).map((l) => `${l.uri.toString()}:${l.range.start.line}`));
}

function findOutputCode(root) {
  const runs = path.join(root, 'torch_compile_debug');
  for (const run of fs.readdirSync(runs).sort()) {
    const dir = path.join(runs, run, 'torchinductor');
    if (!fs.existsSync(dir)) continue;
    const fwd = fs.readdirSync(dir).find((d) => d.startsWith('model__0_forward'));
    if (fwd) return path.join(dir, fwd, 'output_code.py');
  }
  throw new Error(`no forward output_code.py under ${runs}`);
}

const tests = [];
function test(name, fn) {
  tests.push({ name, fn });
}

// State shared by the tests, in order.
const s = {};

test('the extension activates on a workspace that holds a trace', async () => {
  const ext = vscode.extensions.getExtension(extensionId);
  assert.ok(ext, `${extensionId} is not installed`);
  if (process.env.INDUCTOR_E2E_EXTENSION) {
    assert.ok(
      ext.extensionPath.startsWith(process.env.INDUCTOR_E2E_EXTENSION),
      `extension loaded from ${ext.extensionPath}, expected under ${process.env.INDUCTOR_E2E_EXTENSION}`,
    );
  }
  log(`extension at ${ext.extensionPath}, version ${ext.packageJSON.version}`);
  // Activation must come from `workspaceContains`, before any file is opened.
  await until('activation by workspaceContains', () => ext.isActive, 60000);
  s.api = ext.exports;
  await until('the language client', () => s.api?.languageClient?.isRunning(), 60000);
  const commands = await vscode.commands.getCommands(true);
  for (const c of ['inductorLs.showKernels', 'inductorLs.goToOrigin', 'inductorLs.reindex', 'inductorLs.openArtifact', 'inductor.showLocations', 'inductorLs.showHotLines', 'inductor.showPrinterEnv'])
    assert.ok(commands.includes(c), `command ${c} is not registered`);
});

test('hover on a kernel launch in output code', async () => {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  s.modelUri = vscode.Uri.file(path.join(root, 'model.py'));
  s.outputUri = vscode.Uri.file(findOutputCode(root));
  s.outputDoc = await vscode.workspace.openTextDocument(s.outputUri);
  // vscode.executeCodeLensProvider needs the document loaded, not just a URI.
  s.modelDoc = await vscode.workspace.openTextDocument(s.modelUri);
  await vscode.window.showTextDocument(s.outputDoc);
  s.launch3 = locate(s.outputDoc, 'triton_poi_fused_gelu_1.run(', 'triton_poi_fused_gelu_1');
  s.launch3 = s.launch3.translate(0, 3);
  // The first answer waits for the initial index; poll until it is ours.
  const md = await until('a hover from inductor-ls', async () => {
    const text = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', s.outputUri, s.launch3));
    return text.includes('triton_poi_fused_gelu_1') ? text : undefined;
  });
  log(`hover:\n${md}`);
  assert.ok(md.includes('model.py:16'), md);
  assert.ok(md.includes('h = F.gelu(self.fc1(h))'), md);
});

test('definition of a kernel launch is model.py:16', async () => {
  const locs = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', s.outputUri, s.launch3));
  assert.ok(locs.some((l) => sameFile(l.uri, s.modelUri) && l.range.start.line === 15), describe(locs));
});

test('code lenses: origin above the launch, kernel counts on model.py:16', async () => {
  const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.outputUri, 100);
  const atLaunch = lenses.find((l) => l.range.start.line === s.launch3.line && l.command);
  assert.ok(atLaunch, `no lens on line ${s.launch3.line}: ${JSON.stringify(lenses.map((l) => [l.range.start.line, l.command?.title]))}`);
  assert.ok(atLaunch.command.title.includes('model.py:16'), atLaunch.command.title);
  assert.equal(atLaunch.command.command, 'inductor.showLocations');
  // The client-side command runs with the lens's own (LSP-shaped) arguments.
  await vscode.commands.executeCommand(atLaunch.command.command, ...atLaunch.command.arguments);
  await vscode.commands.executeCommand('closeReferenceSearch');

  const modelLenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.modelUri, 100);
  const line16 = modelLenses.find((l) => l.range.start.line === 15 && l.command);
  assert.ok(line16, `no lens on model.py:16: ${JSON.stringify(modelLenses.map((l) => [l.range.start.line, l.command?.title]))}`);
  assert.match(line16.command.title, /\d+ kernels?/);
  assert.match(line16.command.title, /forward/);
  assert.match(line16.command.title, /backward/);
  log(`lenses: "${atLaunch.command.title}" / "${line16.command.title}"`);
});

test('references on model.py:16 are the launches of its kernels', async () => {
  const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', s.modelUri, new vscode.Position(15, 8));
  assert.ok(refs.length > 0, 'no references');
  const lines = [];
  for (const r of refs) lines.push((await vscode.workspace.openTextDocument(r.uri)).lineAt(r.range.start.line).text);
  assert.ok(lines.filter((l) => l.includes('triton_poi_fused_gelu_1.run(')).length >= 2, lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('gelu_backward')), `no backward launch:\n${lines.join('\n')}`);
});

test('hover on model.py:16 lists its kernels', async () => {
  const md = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', s.modelUri, new vscode.Position(15, 12)));
  assert.ok(md.includes('triton_poi_fused_gelu_1'), md);
});

test('Go to Origin jumps from a kernel to model.py:16', async () => {
  const editor = await vscode.window.showTextDocument(s.outputDoc);
  editor.selection = new vscode.Selection(s.launch3, s.launch3);
  await vscode.commands.executeCommand('inductorLs.goToOrigin');
  const active = await until('model.py in the active editor', () => {
    const e = vscode.window.activeTextEditor;
    return e && sameFile(e.document.uri, s.modelUri) ? e : undefined;
  }, 10000);
  assert.equal(active.selection.active.line, 15);
  await vscode.commands.executeCommand('closeReferenceSearch');
});

test('Show Generated Kernels and Reindex run', async () => {
  const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(s.modelUri));
  editor.selection = new vscode.Selection(15, 8, 15, 8);
  await vscode.commands.executeCommand('inductorLs.showKernels');
  await vscode.commands.executeCommand('closeReferenceSearch');
  await vscode.commands.executeCommand('inductorLs.reindex');
  const locs = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', s.outputUri, s.launch3));
  assert.ok(locs.some((l) => sameFile(l.uri, s.modelUri) && l.range.start.line === 15), `after reindex: ${describe(locs)}`);
});

test('an inductor-trace: artifact opens with its text and language', async () => {
  const client = s.api.languageClient;
  const artifacts = await client.sendRequest('inductor/listArtifacts', {});
  const inTrace = artifacts.find((a) => a.uri.startsWith('inductor-trace:'));
  assert.ok(inTrace, `no inductor-trace: artifact among ${artifacts.length}`);
  const uri = client.protocol2CodeConverter.asUri(inTrace.uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);
  assert.ok(doc.getText().length > 0, `${inTrace.uri} is empty`);
  await until(`language ${inTrace.languageId} on ${inTrace.uri}`, () => {
    const d = vscode.workspace.textDocuments.find((x) => x.uri.toString() === uri.toString());
    return d?.languageId === inTrace.languageId;
  }, 10000);
  log(`opened ${inTrace.uri} (${doc.lineCount} lines, ${inTrace.languageId})`);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
});

function hintLabel(h) {
  return typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('');
}

// Runs a command that opens a quick pick, accepting the selected item until the
// command settles; returns its result.
async function runAccepting(command, ...args) {
  let settled;
  vscode.commands.executeCommand(command, ...args).then((value) => (settled = { value }), (error) => (settled = { error }));
  await until(`${command} to settle`, async () => {
    if (settled) return true;
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    return settled !== undefined;
  }, 30000);
  if (settled.error) throw settled.error;
  return settled.value;
}

test('runtime insight: inlay hints and timed lenses from a profile, hottest lines, the first NaN of a run log', async () => {
  const traces = path.dirname(vscode.workspace.workspaceFolders[0].uri.fsPath);
  const profiled = path.join(traces, 'profiled_mlp');
  const jit = path.join(traces, 'jit_printer');
  const before = s.api.languageClient;
  const cfg = vscode.workspace.getConfiguration('inductorLs');
  await cfg.update('traceDirs', [profiled, jit], vscode.ConfigurationTarget.Global);
  try {
    await until('the client restarted on the new traceDirs', () => {
      const c = s.api.languageClient;
      return c && c !== before && c.isRunning();
    }, 60000);

    // Inlay hints after each launch: its GPU time (totals: profiled_mlp marks no steps) and share.
    const outputUri = vscode.Uri.file(findOutputCode(profiled));
    const outputDoc = await vscode.workspace.openTextDocument(outputUri);
    await vscode.window.showTextDocument(outputDoc);
    const launch = locate(outputDoc, 'triton_poi_fused_gelu_1.run(');
    const hints = await until('inlay hints in output_code.py', async () => {
      const h = await vscode.commands.executeCommand('vscode.executeInlayHintProvider', outputUri, new vscode.Range(0, 0, outputDoc.lineCount, 0));
      return h && h.length > 0 ? h : undefined;
    });
    const onLaunch = hints.filter((h) => h.position.line === launch.line).map(hintLabel);
    assert.equal(onLaunch.length, 1, JSON.stringify(hints.map((h) => [h.position.line, hintLabel(h)])));
    assert.match(onLaunch[0], /^[\d.]+ \S+ total · [\d.<]+%$/);
    log(`inlay hint: ${onLaunch[0]}`);

    // The lens of model.py:17 (the gelu line of this model) ends with its time.
    const modelUri = vscode.Uri.file(path.join(profiled, 'model.py'));
    await vscode.workspace.openTextDocument(modelUri);
    const lens = await until('a timed lens on model.py:17', async () => {
      const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', modelUri, 100);
      return lenses.find((l) => l.range.start.line === 16 && l.command && l.command.title.endsWith(' total'));
    });
    assert.match(lens.command.title, /^10 kernels · 4 forward · 6 backward · [\d.]+ \S+ total$/);
    log(`timed lens: ${lens.command.title}`);

    // Show Hottest Lines: the quick pick lists the lines hottest first; accepting one opens it.
    const hottest = await runAccepting('inductorLs.showHotLines');
    assert.ok(hottest && hottest.path.endsWith('/profiled_mlp/model.py'), JSON.stringify(hottest));
    const active = vscode.window.activeTextEditor;
    assert.ok(active && sameFile(active.document.uri, modelUri), `active: ${active?.document.uri}`);
    assert.equal(active.selection.start.line, hottest.line - 1);
    log(`hottest line: model.py:${hottest.line} ${hottest.label}`);

    // The first NaN of jit_printer's run log: an Error on model.py:16 (h = torch.log(h - 0.5)).
    const jitModel = vscode.Uri.file(path.join(jit, 'model.py'));
    await vscode.workspace.openTextDocument(jitModel);
    const nan = await until('the first-NaN diagnostic on jit_printer/model.py', () =>
      vscode.languages.getDiagnostics(jitModel).find((d) => d.severity === vscode.DiagnosticSeverity.Error && d.message.includes('first NaN')),
    );
    assert.equal(nan.range.start.line, 15);
    assert.ok(nan.message.includes('triton_poi_fused_addmm_log_relu_sub_0'), nan.message);
    // Its code action: the environment that prints only that kernel, shown for the user to copy.
    const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', jitModel, new vscode.Range(15, 0, 15, 0));
    const printer = actions.find((a) => a.command && a.command.command === 'inductor.showPrinterEnv');
    assert.ok(printer, JSON.stringify(actions.map((a) => a.title)));
    const choice = await runAccepting(printer.command.command, ...printer.command.arguments);
    const shell = (choice && (choice.copied ?? choice.shown)) || '';
    assert.equal(shell, 'AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2 AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT=triton_poi_fused_addmm_log_relu_sub_0');
  } finally {
    // Back to the workspace's own traces for the rest of the run (and the screenshot).
    const restarted = s.api.languageClient;
    await cfg.update('traceDirs', undefined, vscode.ConfigurationTarget.Global);
    await until('the client restarted on the workspace', () => {
      const c = s.api.languageClient;
      return c && c !== restarted && c.isRunning();
    }, 60000);
    await until('mlp_train answering again', async () => {
      const md = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', s.outputUri, s.launch3));
      return md.includes('model.py:16');
    });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  }
});

// Shows model.py with its code lens beside output_code.py with a hover on the
// launch of triton_poi_fused_gelu_1, then waits for run.mjs to take the picture.
async function poseForScreenshot() {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.commands.executeCommand('workbench.action.closePanel');
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
  await vscode.commands.executeCommand('notifications.clearAll');
  const model = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(s.modelUri), vscode.ViewColumn.One);
  model.selection = new vscode.Selection(15, 8, 15, 8);
  model.revealRange(new vscode.Range(3, 0, 30, 0), vscode.TextEditorRevealType.AtTop);
  const out = await vscode.window.showTextDocument(s.outputDoc, vscode.ViewColumn.Two);
  const at = s.launch3;
  out.selection = new vscode.Selection(at, at);
  // The hover covers the lens above its own line: keep the second launch of
  // the kernel (debug handle 7), with its lens, in view below.
  out.revealRange(new vscode.Range(at.line - 7, 0, at.line + 26, 0), vscode.TextEditorRevealType.AtTop);
  // Visit model.py once more so its lenses are fetched while it has focus,
  // then come back and show the hover in output_code.py.
  await vscode.window.showTextDocument(model.document, { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
  await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.modelUri);
  await vscode.window.showTextDocument(s.outputDoc, { viewColumn: vscode.ViewColumn.Two, preserveFocus: false });
  await vscode.commands.executeCommand('editor.action.showHover');
  fs.writeFileSync(path.join(e2eDir, 'screenshot.request'), '');
  await until('the screenshot', () => fs.existsSync(path.join(e2eDir, 'screenshot.done')), 60000);
}

exports.run = async function run() {
  const results = [];
  for (const t of tests) {
    const started = Date.now();
    try {
      await t.fn();
      results.push({ name: t.name, ok: true, ms: Date.now() - started });
      log(`ok   ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      results.push({ name: t.name, ok: false, ms: Date.now() - started, error: e instanceof Error ? e.stack : String(e) });
      log(`FAIL ${t.name}\n${e instanceof Error ? e.stack : String(e)}`);
      // Later tests depend on earlier state; stop at the first setup failure.
      if (!s.outputDoc || !s.api) break;
    }
  }
  if (process.env.INDUCTOR_E2E_SCREENSHOT === '1' && results.every((r) => r.ok)) {
    try {
      await poseForScreenshot();
    } catch (e) {
      log(`screenshot pose failed: ${e instanceof Error ? e.stack : String(e)}`);
    }
  }
  if (e2eDir) fs.writeFileSync(path.join(e2eDir, 'results.json'), JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok).length;
  if (failed > 0 || results.length < tests.length)
    throw new Error(`${failed} of ${tests.length} end-to-end tests failed (${results.length} ran)`);
};
