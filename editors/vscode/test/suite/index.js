// test/suite/index.js: the end-to-end suite, run by VS Code's extension host
// (payload `extensionTestsPath`) with the mlp_train fixture folder open as the
// workspace, in two runs: the development extension (inductorLs.serverPath
// set) and the installed .vsix with no setting (the server it carries).
// test/e2e/run.mjs starts VS Code and reads the results.
//
// It drives the extension only through VS Code's own provider commands
// (vscode.executeHoverProvider, …) and the extension's commands, as
// lsp-sample's completion.test.ts does, and checks what is on screen through
// DOM probes (helpers.js). Readiness is a provider answering, polled; never a
// fixed sleep.
//
// Environment (set by run.mjs on the VS Code server, inherited by the
// extension host):
//   INDUCTOR_E2E_DIR          handshake and results directory
//   INDUCTOR_E2E_EXTENSION    expected extension folder prefix (checks that the
//                             installed .vsix, not a dev copy, is under test)
//   INDUCTOR_E2E_MODE         dev | vsix
//   INDUCTOR_E2E_SCREENSHOT   "1": pose the editor for the screenshot at the end

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const {
  extensionId,
  log,
  until,
  hoverMarkdown,
  locate,
  asLocations,
  sameFile,
  describe,
  findOutputCode,
  probe,
  runner,
  e2eDir,
} = require('./helpers');

const mode = process.env.INDUCTOR_E2E_MODE ?? 'dev';
const tests = [];
function test(name, fn) {
  tests.push({ name, fn });
}

// State shared by the tests, in order.
const s = {};

test('the extension activates on a workspace that holds a trace and starts its server', async () => {
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
  // Both: the client reports running a moment before start() resolves, and the Python extension's activation
  // may restart it in between (state 'starting' again).
  await until('the language client', () => s.api?.state === 'running' && s.api.languageClient?.isRunning(), 60000);
  if (mode === 'vsix') {
    // No setting: the server the .vsix carries, found by the extension itself.
    assert.equal(s.api.serverSource, 'bundled');
    assert.ok(s.api.serverPath.startsWith(ext.extensionPath), s.api.serverPath);
  } else {
    assert.equal(s.api.serverSource, 'setting');
  }
  log(`server: ${s.api.serverPath} (${s.api.serverSource})`);
  const commands = await vscode.commands.getCommands(true);
  for (const c of ['inductorLs.showKernels', 'inductorLs.goToOrigin', 'inductorLs.reindex', 'inductorLs.openArtifact', 'inductor.showLocations', 'inductor.showLaunchSites', 'inductor.showCompiles', 'inductorLs.showCompiles', 'inductorLs.openLocation', 'inductorLs.showHotLines', 'inductor.showPrinterEnv', 'inductorLs.compare', 'inductorLs.showRanks', 'inductorLs.selectRun', 'inductorLs.selectBaseline', 'inductorLs.showLowered'])
    assert.ok(commands.includes(c), `command ${c} is not registered`);
});

// The server's status (inductor/status), or undefined while the client restarts.
async function serverStatus() {
  const c = s.api.languageClient;
  if (!c?.isRunning()) return undefined;
  return c.sendRequest('inductor/status', {}).catch(() => undefined);
}

// The site-packages folder of a virtual environment made by `python3 -m venv`.
function sitePackages(venv) {
  const lib = path.join(venv, 'lib');
  const py = fs.readdirSync(lib).find((d) => d.startsWith('python'));
  return path.join(lib, py, 'site-packages');
}

// Waits until the running server reports `interpreter` and an import root below `venv`: what it can only
// know by having run that interpreter.
async function serverUsesInterpreter(interpreter, venv) {
  const site = fs.realpathSync(sitePackages(venv));
  return until(`the server to use ${interpreter}`, async () => {
    const st = await serverStatus();
    if (st?.python?.interpreter !== interpreter || s.api.state !== 'running') return undefined;
    const roots = (st.python.importRoots ?? []).map((r) => fs.realpathSync(r));
    return roots.includes(site) ? st : undefined;
  });
}

test("the Python extension's selected interpreter: the server finds installed packages with it, and again when the user selects another", async () => {
  // run.mjs installs a stand-in for ms-python.python (test/e2e/python-stub) that has selected a virtual
  // environment of its own; inductorLs.pythonPath is not set. The stub is not active until inductor-ls
  // activates it, as with a Python extension that activates later: the client restarts with its interpreter.
  const first = process.env.INDUCTOR_E2E_PYTHON;
  assert.ok(first, 'INDUCTOR_E2E_PYTHON is not set (run.mjs sets it)');
  const stub = vscode.extensions.getExtension('ms-python.python');
  assert.ok(stub, 'the Python extension stub is not loaded');
  let st = await serverUsesInterpreter(first, path.dirname(path.dirname(first)));
  assert.equal(st.python.error, '');
  assert.ok(stub.isActive, 'inductor-ls did not activate the Python extension');
  log(`python: ${JSON.stringify(st.python)}`);

  // The user selects another interpreter: the server is restarted with it.
  const other = path.join(e2eDir, 'venv-b');
  fs.rmSync(other, { recursive: true, force: true });
  const made = require('node:child_process').spawnSync('python3', ['-m', 'venv', '--without-pip', other], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  stub.exports.select(path.join(other, 'bin', 'python'));
  st = await serverUsesInterpreter(path.join(other, 'bin', 'python'), other);
  assert.equal(st.python.error, '');
  await until('the index after the restart', async () => (await serverStatus())?.ready === true);
});

test('hover on a kernel launch in output code: origins and FX nodes are links', async () => {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  s.root = root;
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
  assert.ok(md.includes(`[model.py:16](${s.modelUri.toString(true)}#L16)`) || md.includes('[model.py:16](file://'), md);
  assert.ok(md.includes('h = F.gelu(self.fc1(h))'), md);
  // FX nodes of the post-grad graph, which exists only in the log: VS Code renders only some link schemes,
  // so the client makes those links to its command that opens them.
  const link = /\]\(command:inductorLs\.openLocation\?([^ )]+)/.exec(md);
  assert.ok(link, `no inductor-trace: link turned into a command link:\n${md}`);
  s.traceLinkArgs = JSON.parse(decodeURIComponent(link[1]));
  assert.ok(s.traceLinkArgs[0].startsWith('inductor-trace:'), JSON.stringify(s.traceLinkArgs));
});

test('a link to log-only code in a hover opens it at its line', async () => {
  const [uri, line] = s.traceLinkArgs;
  await vscode.commands.executeCommand('inductorLs.openLocation', uri, line);
  const editor = await until(`${uri} in the active editor`, () => {
    const e = vscode.window.activeTextEditor;
    return e && e.document.uri.scheme === 'inductor-trace' ? e : undefined;
  }, 20000);
  assert.equal(editor.selection.active.line, line - 1);
  assert.ok(editor.document.lineAt(line - 1).text.includes('='), editor.document.lineAt(line - 1).text);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
});

test('definition of a kernel launch is model.py:16', async () => {
  const locs = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', s.outputUri, s.launch3));
  assert.ok(locs.some((l) => sameFile(l.uri, s.modelUri) && l.range.start.line === 15), describe(locs));
});

test('code lenses: a lens with one target goes there; kernel counts on model.py:16', async () => {
  const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.outputUri, 100);
  const atLaunch = lenses.find((l) => l.range.start.line === s.launch3.line && l.command);
  assert.ok(atLaunch, `no lens on line ${s.launch3.line}: ${JSON.stringify(lenses.map((l) => [l.range.start.line, l.command?.title]))}`);
  assert.ok(atLaunch.command.title.includes('model.py:16'), atLaunch.command.title);
  assert.equal(atLaunch.command.command, 'inductor.showLocations');
  // The client-side command runs with the lens's own (LSP-shaped) arguments: one location, so it goes there.
  await vscode.window.showTextDocument(s.outputDoc);
  await vscode.commands.executeCommand(atLaunch.command.command, ...atLaunch.command.arguments);
  const editor = await until('model.py in the active editor', () => {
    const e = vscode.window.activeTextEditor;
    return e && sameFile(e.document.uri, s.modelUri) ? e : undefined;
  }, 10000);
  assert.equal(editor.selection.start.line, 15);

  const modelLenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.modelUri, 100);
  const line16 = modelLenses.find((l) => l.range.start.line === 15 && l.command);
  assert.ok(line16, `no lens on model.py:16: ${JSON.stringify(modelLenses.map((l) => [l.range.start.line, l.command?.title]))}`);
  // Distinct kernels and their launches: forward addmm and gelu, backward gelu_backward and mm.
  assert.equal(line16.command.title, '4 kernels, 10 launches · 2 forward · 2 backward');
  log(`lenses: "${atLaunch.command.title}" / "${line16.command.title}"`);
  // Its command carries no locations: the client asks inductor/launchSites, and with several targets the peek
  // opens (and the editor stays where it was).
  assert.equal(line16.command.command, 'inductor.showLaunchSites');
  assert.equal(line16.command.arguments.length, 2);
  await vscode.commands.executeCommand(line16.command.command, ...line16.command.arguments);
  assert.ok(sameFile(vscode.window.activeTextEditor.document.uri, s.modelUri));
  await vscode.commands.executeCommand('closeReferenceSearch');
});

test('references on model.py:16 are the launches of its kernels, in the debug directory copies', async () => {
  const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', s.modelUri, new vscode.Position(15, 8));
  assert.ok(refs.length > 0, 'no references');
  const lines = [];
  for (const r of refs) {
    // Named after their graph (torch_compile_debug/…/model__0_forward_1.0/output_code.py), not the cache's
    // hash-named copies.
    assert.ok(r.uri.fsPath.includes('/torch_compile_debug/') && r.uri.fsPath.endsWith('/output_code.py'), r.uri.fsPath);
    lines.push((await vscode.workspace.openTextDocument(r.uri)).lineAt(r.range.start.line).text);
  }
  assert.ok(lines.filter((l) => l.includes('triton_poi_fused_gelu_1.run(')).length >= 2, lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('gelu_backward')), `no backward launch:\n${lines.join('\n')}`);
});

test('hover on model.py:16: distinct kernels with their launches, by compile and graph, each a link', async () => {
  const md = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', s.modelUri, new vscode.Position(15, 12)));
  log(`hover on model.py:16:\n${md}`);
  assert.ok(md.startsWith('### 4 kernels, 10 launches from line 16'), md);
  assert.ok(md.indexOf('**[0/0] forward**') < md.indexOf('**[0/0] backward**'), md);
  assert.match(md, /\[`triton_poi_fused_gelu_1`\]\(file:\/\/[^)]*\/model__0_forward_1\.0\/output_code\.py#L\d+\) · pointwise · 2 launches, debug handles \[3\]/, md);
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

test('`# File:` comments of a graph dump are document links to the model lines', async () => {
  const graph = vscode.Uri.file(path.join(path.dirname(s.outputUri.fsPath), 'fx_graph_readable.py'));
  const doc = await vscode.workspace.openTextDocument(graph);
  const links = await vscode.commands.executeCommand('vscode.executeLinkProvider', graph);
  assert.ok(links.length >= 6, `${links.length} links`);
  for (const l of links) {
    assert.ok(l.target, 'a link without target');
    const text = doc.getText(l.range);
    const m = /model\.py:(\d+)$/.exec(text);
    assert.ok(m, `link on "${text}"`);
    assert.ok(sameFile(l.target.with({ fragment: '' }), s.modelUri), l.target.toString());
    assert.equal(l.target.fragment, `L${m[1]}`);
  }
});

test('fx_graph_runnable.py: a node goes to its model line', async () => {
  const runnable = vscode.Uri.file(path.join(path.dirname(s.outputUri.fsPath), 'fx_graph_runnable.py'));
  const doc = await vscode.workspace.openTextDocument(runnable);
  const at = locate(doc, 'mul_4 = torch.ops.aten.mul.Tensor(', 'mul_4');
  const locs = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', runnable, at));
  assert.ok(locs.some((l) => sameFile(l.uri, s.modelUri) && l.range.start.line === 15), describe(locs));
  const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', runnable, 100);
  assert.ok(lenses.some((l) => l.command?.title.startsWith('model.py:16')), JSON.stringify(lenses.map((l) => l.command?.title)));
});

test('the status bar says what the index holds, in words', async () => {
  const r = await probe({ selector: '.statusbar-item', text: 'Inductor: 1 compile · 14 kernels' });
  assert.ok(r.ok, `status bar: ${JSON.stringify(r)}`);
});

test('Open Trace Artifact lists each file once, labelled with compile and graph', async () => {
  void vscode.commands.executeCommand('inductorLs.openArtifact');
  const r = await probe({ selector: '.quick-input-list .monaco-list-row', text: '[0/0] backward · output_code.py' });
  assert.ok(r.ok, `quick pick: ${JSON.stringify(r)}`);
  const all = await probe({ selector: '.quick-input-list .monaco-list-row' });
  log(`quick pick rows: ${JSON.stringify(all.texts)}`);
  assert.ok(!all.texts.some((t) => t.includes('[?')), JSON.stringify(all.texts));
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
});

test('the Inductor Traces view: trace → compiles → output code and graphs → kernels', async () => {
  await vscode.commands.executeCommand('inductorLs.artifacts.focus');
  for (const text of ['dedicated_log_torch_trace', '[0/0] forward', '[0/0] backward', 'post-grad graph', 'fx_graph_runnable.py']) {
    const r = await probe({ selector: '.monaco-list-row', text });
    assert.ok(r.ok, `no "${text}" row: ${JSON.stringify(r)}`);
  }
  // Expanding an output code lists its kernels with their launches.
  const expand = await probe({ selector: '.monaco-list-row', text: 'output codeoutput_code.py', click: '.monaco-tl-twistie' });
  assert.ok(expand.ok, JSON.stringify(expand));
  const kernel = await probe({ selector: '.monaco-list-row', text: 'triton_poi_fused_gelu_1' });
  assert.ok(kernel.ok, JSON.stringify(kernel));
  assert.ok(kernel.texts.some((t) => t.includes('2 launches')), JSON.stringify(kernel.texts));
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

// Compile health. mlp_train has no graph break; compile_health (its sibling
// fixture) has graph breaks and recompiles. The user setting inductorLs.traceDirs
// adds it to the index (the extension restarts its client on the change), and the
// last test puts the setting back. Expected lines come from the trace itself.
function healthFixture() {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const dir = path.join(path.dirname(root), 'compile_health');
  const traceDir = path.join(dir, 'trace');
  const log = path.join(traceDir, fs.readdirSync(traceDir).find((f) => f.startsWith('dedicated_log_torch_trace')));
  const text = fs.readFileSync(log, 'utf8');
  // "Graph break in user code at /tmp/work/compile_health/model.py:9" (payload lines start with a tab).
  const breakLines = new Set();
  for (const m of text.matchAll(/^\tGraph break in user code at (.*):(\d+)$/gm))
    if (m[1].endsWith('/model.py')) breakLines.add(Number(m[2]) - 1);
  const recompiles = [...text.matchAll(/"name": "recompile_reasons"/g)].length;
  const functions = new Set();
  for (const m of text.matchAll(/\{"compilation_metrics": \{[^\n]*?"co_name": "([^"]+)"/g))
    if (!m[1].startsWith('torch_dynamo_resume_in_')) functions.add(m[1]);
  return { root, dir, model: vscode.Uri.file(path.join(dir, 'model.py')), breakLines, recompiles, functions };
}

test('compile health: graph breaks and recompiles in the Problems panel', async () => {
  s.health = healthFixture();
  const h = s.health;
  assert.ok(h.breakLines.size > 0 && h.recompiles > 0, 'the compile_health trace has no graph break or recompile');
  await vscode.workspace
    .getConfiguration('inductorLs')
    .update('traceDirs', [path.join(h.root, 'trace'), h.dir], vscode.ConfigurationTarget.Global);
  const diagnostics = await until('torch.compile diagnostics of compile_health/model.py', () => {
    const d = vscode.languages.getDiagnostics(h.model).filter((x) => x.source === 'torch.compile');
    return d.length >= h.breakLines.size + h.recompiles ? d : undefined;
  });
  log(`diagnostics: ${JSON.stringify(diagnostics.map((d) => [d.range.start.line + 1, d.severity, d.message.split('\n')[0]]))}`);
  const breaks = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Warning);
  assert.deepEqual(new Set(breaks.map((d) => d.range.start.line)), h.breakLines);
  for (const d of breaks) {
    assert.ok(d.message.startsWith('Graph break: '), d.message);
    assert.match(String(d.code?.value ?? d.code), /^gb\d+$/);
    assert.ok(d.code?.target, 'no link to the graph-break site');
  }
  const recompiles = diagnostics.filter((d) => d.message.startsWith('recompiled '));
  assert.equal(recompiles.length, h.recompiles);
  for (const d of recompiles) assert.equal(d.severity, vscode.DiagnosticSeverity.Information);
  assert.equal(diagnostics.length, breaks.length + recompiles.length, 'diagnostics the trace does not hold');
  // The Problems panel lists every file with problems.
  assert.ok(vscode.languages.getDiagnostics().some(([uri, ds]) => sameFile(uri, h.model) && ds.length > 0));
  await vscode.commands.executeCommand('workbench.actions.view.problems');
  await vscode.commands.executeCommand('workbench.action.closePanel');
});

test('compile health: the Compiled Frames view and the def-line lens', async () => {
  const h = s.health;
  const provider = await until('the Compiled Frames data', async () => {
    const p = s.api.compiles;
    if (!p) return undefined;
    await p.refresh();
    return [...h.functions].every((f) => p.frames.some((x) => x.function === f)) ? p : undefined;
  });
  await vscode.commands.executeCommand('inductorLs.compiles.focus');
  // Files, then their functions (resumed frames under the function they resume).
  const roots = provider.getChildren();
  assert.ok(roots.every((n) => n.kind === 'file'), JSON.stringify(roots.map((n) => n.kind)));
  const functions = roots.flatMap((n) => provider.getChildren(n));
  const withPrint = functions.find((n) => n.kind === 'function' && n.fn.function === 'with_print');
  assert.ok(withPrint, 'no with_print function');
  assert.ok(!functions.some((n) => /^torch_dynamo_resume_in_|unknown function/.test(provider.getTreeItem(n).label)));
  const item = provider.getTreeItem(withPrint);
  assert.equal(item.label, 'with_print');
  assert.match(item.description, /graph break/);
  const compiles = provider.getChildren(withPrint).map((n) => provider.getTreeItem(n));
  assert.ok(compiles.some((c) => c.label === '[0/0]'), JSON.stringify(compiles.map((c) => c.label)));
  log(`view: ${roots.length} files, ${functions.length} functions; with_print: ${item.description}`);
  // The lens on with_print's def line runs the view's reveal.
  const doc = await vscode.workspace.openTextDocument(h.model);
  const def = locate(doc, 'def with_print(');
  const lenses = await until('the compile lens of with_print', async () => {
    const all = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', h.model, 100);
    return all.find((l) => l.range.start.line === def.line && l.command?.command === 'inductor.showCompiles');
  });
  assert.match(lenses.command.title, /^\[0\/0, 1\/0\] 2 compiles · 1 graph break/);
  await vscode.commands.executeCommand(lenses.command.command, ...lenses.command.arguments);
});

test('compile health: a quick fix from PyTorch\'s hint', async () => {
  const doc = await vscode.workspace.openTextDocument(s.health.model);
  const item = locate(doc, '.max().item()');
  const actions = await until('code actions on the .item() line', async () => {
    const a = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', s.health.model, new vscode.Range(item, item));
    return a?.find((x) => x.title.includes('capture_scalar_outputs = True'));
  });
  assert.equal(actions.kind.value, 'quickfix');
  const edits = actions.edit.get(s.health.model);
  assert.equal(edits.length, 1);
  assert.equal(edits[0].newText, 'torch._dynamo.config.capture_scalar_outputs = True\n');
});

test('compile health: the setting is put back and mlp_train serves again', async () => {
  await vscode.workspace.getConfiguration('inductorLs').update('traceDirs', undefined, vscode.ConfigurationTarget.Global);
  s.api = vscode.extensions.getExtension(extensionId).exports;
  await until('definitions after the restart', async () => {
    const locs = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', s.outputUri, s.launch3));
    return locs.some((l) => sameFile(l.uri, s.modelUri) && l.range.start.line === 15);
  });
  await until('no torch.compile diagnostics left', () =>
    vscode.languages.getDiagnostics(s.health.model).every((d) => d.source !== 'torch.compile'),
  );
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
  const cfg = vscode.workspace.getConfiguration('inductorLs');
  // One trace folder at a time: two folders of two runs are served as the latest run alone (issue 28).
  const serve = async (dirs) => {
    const before = s.api.languageClient;
    await cfg.update('traceDirs', dirs, vscode.ConfigurationTarget.Global);
    await until(`the client restarted on ${dirs.map((d) => path.basename(d)).join(', ')}`, () => {
      const c = s.api.languageClient;
      return c && c !== before && c.isRunning();
    }, 60000);
  };
  try {
    await serve([profiled]);

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
    assert.match(lens.command.title, /^4 kernels, 10 launches · 2 forward · 2 backward · [\d.]+ \S+ total$/);
    log(`timed lens: ${lens.command.title}`);

    // Show Hottest Lines: the quick pick lists the lines hottest first; accepting one opens it.
    const hottest = await runAccepting('inductorLs.showHotLines');
    assert.ok(hottest && hottest.path.endsWith('/profiled_mlp/model.py'), JSON.stringify(hottest));
    const active = vscode.window.activeTextEditor;
    assert.ok(active && sameFile(active.document.uri, modelUri), `active: ${active?.document.uri}`);
    assert.equal(active.selection.start.line, hottest.line - 1);
    log(`hottest line: model.py:${hottest.line} ${hottest.label}`);

    // The first NaN of jit_printer's run log: an Error on model.py:16 (h = torch.log(h - 0.5)).
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await serve([jit]);
    const jitModel = vscode.Uri.file(path.join(jit, 'model.py'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(jitModel));
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

// Runs, ranks and kernel internals (issues 28, 29, 30) on their own fixtures, each served alone through the
// user setting inductorLs.traceDirs (the client restarts on the change; undefined: the workspace's own
// traces again); the last test puts the setting back.
// Expected lines are found by their text in the fixture's files, never by number.
async function serveTraces(dirs) {
  const before = s.api.languageClient;
  await vscode.workspace.getConfiguration('inductorLs').update('traceDirs', dirs, vscode.ConfigurationTarget.Global);
  await until(`the client restarted on ${dirs ? dirs.map((d) => path.basename(d)).join(', ') : 'the workspace'}`, () => {
    const c = s.api.languageClient;
    return c && c !== before && c.isRunning() && s.api.state === 'running';
  }, 60000);
}

function fixture(name) {
  return path.join(path.dirname(vscode.workspace.workspaceFolders[0].uri.fsPath), name);
}

// The 1-based line of `model.py` (as it is on disk) holding `needle`, once.
function lineOf(file, needle) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.map((l, i) => (l.includes(needle) ? i + 1 : 0)).filter((n) => n > 0);
  assert.equal(at.length, 1, `"${needle}" is on ${at.length} lines of ${file}`);
  return at[0];
}

// Runs a tree item's command (vscode.open of a location) and returns the active editor once it shows `file`.
async function clickItem(item, file) {
  assert.ok(item.command, `no command on the item "${item.label}"`);
  await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
  return until(`${path.basename(file)} in the active editor`, () => {
    const e = vscode.window.activeTextEditor;
    return e && sameFile(e.document.uri, vscode.Uri.file(file)) ? e : undefined;
  }, 10000);
}

test('runs: the Run Comparison view lists the new graph break on the print line, the SiLU line new and the GELU line gone', async () => {
  const root = fixture('runs_gpt');
  const model = path.join(root, 'model.py');
  await serveTraces([root]);
  // Two runs: the view shows in the Explorer by itself. The baseline is indexed after the current run; the
  // view asks again by itself when the server says so (inductor/status, workspace/codeLens/refresh).
  await until('the Run Comparison view shown', async () => {
    await vscode.commands.executeCommand('inductorLs.compare.focus');
    return s.api.compare?.view?.visible;
  }, 30000);
  const provider = s.api.compare;
  await until('the view filled with the comparison, unasked', () => provider.result?.baseline && provider.getChildren().some((n) => n.kind === 'group'));
  const result = await vscode.commands.executeCommand('inductorLs.compare');
  assert.deepEqual(result, provider.result);
  const runs = (await s.api.languageClient.sendRequest('inductor/runs', {})).runs;
  assert.equal(runs.length, 2, JSON.stringify(runs));
  // Both runs are of one day: the title gives their times, baseline first.
  assert.equal(provider.title, `Changes: ${runs[0].id.slice(11)} → ${runs[1].id.slice(11)}`);
  assert.equal(result.baseline.id, runs[0].id);
  const header = await probe({ selector: '.pane-header', text: provider.title });
  assert.ok(header.ok, `view title: ${JSON.stringify(header)}`);

  const groups = provider.getChildren();
  const group = (name) => {
    const g = groups.find((n) => n.kind === 'group' && n.group === name);
    assert.ok(g, `no group ${name} among ${JSON.stringify(groups.map((n) => provider.getTreeItem(n).label))}`);
    return g;
  };
  log(`compare view: ${groups.map((g) => `${provider.getTreeItem(g).label} (${g.children.length})`).join(', ')}`);
  // The graph break on the print line (the new run's `.item()`), new since the baseline.
  const printLine = lineOf(model, 'print("mlp scale"');
  const breaks = provider.getChildren(group('eventsNew')).filter((n) => n.event.kind === 'graph break');
  const onPrint = breaks.find((n) => sameFile(vscode.Uri.file(n.event.file), vscode.Uri.file(model)) && n.event.line === printLine);
  assert.ok(onPrint, `no new graph break on model.py:${printLine}: ${JSON.stringify(breaks.map((n) => [n.event.file, n.event.line]))}`);
  const breakItem = provider.getTreeItem(onPrint);
  assert.ok(breakItem.description.startsWith(`graph break · model.py:${printLine}`), breakItem.description);
  let editor = await clickItem(breakItem, model);
  assert.equal(editor.selection.active.line, printLine - 1);

  // The SiLU line compiled only in the current run: new, its kernels from none to some, with its GPU time.
  const siluLine = lineOf(model, 'h = F.silu(h)');
  const silu = provider.getChildren(group('linesNew')).find((n) => n.line.line === siluLine);
  assert.ok(silu, `no new line model.py:${siluLine}`);
  assert.ok(silu.line.kernelsBefore.length === 0 && silu.line.kernelsAfter.length > 0, JSON.stringify(silu.line));
  const siluItem = provider.getTreeItem(silu);
  assert.equal(siluItem.label, 'h = F.silu(h)');
  // GPU time per step where the profile marks steps, else in total.
  const per = (basis) => (basis === 'perStep' ? '/step' : '');
  assert.notEqual(result.basisAfter, 'none', 'runs_gpt has a profile of each run');
  assert.ok(silu.line.kernelCountAfter >= silu.line.kernelsAfter.length, JSON.stringify(silu.line));
  assert.match(siluItem.description, new RegExp(`^model\\.py:${siluLine} · 0 → ${silu.line.kernelCountAfter} kernels · [\\d.]+ (µs|ms)${per(result.basisAfter)}$`));
  // Its kernels, each marked added.
  const kernels = provider.getChildren(silu).map((n) => provider.getTreeItem(n));
  assert.deepEqual(kernels.map((k) => k.label).sort(), [...silu.line.kernelsAfter].sort());
  assert.ok(kernels.every((k) => k.description === 'added'), JSON.stringify(kernels.map((k) => k.description)));
  editor = await clickItem(siluItem, model);
  assert.equal(editor.selection.active.line, siluLine - 1);

  // The GELU line compiled only in the baseline: gone, its text the baseline's.
  const geluBase = lineOf(path.join(root, 'model_base.py.txt'), 'h = F.gelu(h)');
  const gelu = provider.getChildren(group('linesGone')).find((n) => n.line.text.includes('h = F.gelu(h)'));
  assert.ok(gelu, 'no gone F.gelu line');
  assert.equal(gelu.line.line, geluBase);
  assert.match(provider.getTreeItem(gelu).description, new RegExp(`^model\\.py:${geluBase} · \\d+ → 0 kernels · [\\d.]+ (µs|ms)${per(result.basisBefore)}$`));
  // In the editor too: the SiLU line's code lens marks its kernels new, and the print line's graph break
  // diagnostic says it is new since the baseline run (named as the server names runs: date and time).
  const siluLens = await until('a code lens on the SiLU line marked (new)', async () => {
    const all = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', vscode.Uri.file(model), 100);
    return (all || []).find((l) => l.range.start.line === siluLine - 1 && l.command && l.command.title.includes('(new)'));
  });
  // The lens counts what the view counts (the comparison's kernelCountAfter).
  assert.match(siluLens.command.title, new RegExp(`^${silu.line.kernelCountAfter} kernels? \\(new\\)`), siluLens.command.title);
  const fresh = await until('the print line graph break marked new since the baseline', () =>
    vscode.languages.getDiagnostics(vscode.Uri.file(model)).find((d) => d.range.start.line === printLine - 1 && d.message.includes(' · new since run ')),
  );
  assert.ok(fresh.message.includes(`new since run ${runs[0].id.slice(0, 10)} ${runs[0].id.slice(11, 19)}`), fresh.message);
  // On screen: revealed in the view (the Explorer shows only a few rows), with its description.
  await provider.view.reveal(silu, { select: true, focus: true });
  const row = await probe({ selector: '.monaco-list-row', text: `h = F.silu(h)model.py:${siluLine}` });
  assert.ok(row.ok, `the view shows no F.silu row: ${JSON.stringify(row)}`);
});

test('runs: Select Baseline Run and Select Run list the runs and choose through the server', async () => {
  const provider = s.api.compare;
  const runs = (await s.api.languageClient.sendRequest('inductor/runs', {})).runs;
  const [older, newer] = runs;
  // No baseline: the view says there is none.
  let picked = vscode.commands.executeCommand('inductorLs.selectBaseline');
  const rows = await probe({ selector: '.quick-input-list .monaco-list-row', text: older.id });
  assert.ok(rows.ok, JSON.stringify(rows));
  const all = await probe({ selector: '.quick-input-list .monaco-list-row' });
  log(`baseline pick: ${JSON.stringify(all.texts)}`);
  assert.ok(all.texts.some((t) => t.includes(newer.id) && t.includes('latest') && t.includes('current')), JSON.stringify(all.texts));
  assert.ok(all.texts.some((t) => t.includes(older.id) && t.includes('baseline')), JSON.stringify(all.texts));
  assert.ok((await probe({ selector: '.quick-input-list .monaco-list-row', text: 'None', click: true })).ok);
  assert.equal(await picked, 'none');
  await until('the view without a baseline', () => provider.result && provider.result.baseline === null && provider.title === 'Run Comparison');
  assert.equal(provider.getChildren()[0].kind, 'message');

  // The older run as the current one: the server reindexes it (and compares it with nothing older).
  picked = vscode.commands.executeCommand('inductorLs.selectRun');
  assert.ok((await probe({ selector: '.quick-input-list .monaco-list-row', text: older.id, click: true })).ok);
  assert.equal(await picked, older.id);
  await until(`run ${older.id} current`, async () => {
    const r = (await s.api.languageClient.sendRequest('inductor/runs', {})).runs;
    return r.find((x) => x.id === older.id)?.current;
  });
  // Back to the latest run, compared with the previous one: the view lists the changes again by itself.
  picked = vscode.commands.executeCommand('inductorLs.selectRun');
  assert.ok((await probe({ selector: '.quick-input-list .monaco-list-row', text: 'Latest run', click: true })).ok);
  assert.equal(await picked, 'latest');
  picked = vscode.commands.executeCommand('inductorLs.selectBaseline');
  assert.ok((await probe({ selector: '.quick-input-list .monaco-list-row', text: 'Previous run', click: true })).ok);
  assert.equal(await picked, 'previous');
  await until('the comparison with the previous run again', () =>
    provider.result?.baseline?.id === older.id && provider.result.current.id === newer.id && provider.getChildren().some((n) => n.kind === 'group'),
  );
});

test('ranks: the Rank Divergences view lists the recompile, graph break and different code with their ranks', async () => {
  const root = fixture('ranks_diverge');
  const model = path.join(root, 'model.py');
  await serveTraces([root]);
  const result = await until('three divergences', async () => {
    const r = await vscode.commands.executeCommand('inductorLs.showRanks');
    return r && r.divergences.filter((d) => d.kind !== 'cache').length >= 3 ? r : undefined;
  });
  assert.equal(result.count, 4);
  const provider = s.api.ranks;
  const scaled = lineOf(model, 'h = h * scale / temp');
  const branch = lineOf(model, 'if DIVERGE and dist.get_rank() == 3');
  const expected = [
    ['recompile', 2, scaled],
    ['graph break', 3, branch],
    ['different code', 1, scaled],
  ];
  const nodes = provider.getChildren().filter((n) => n.kind === 'divergence' && n.divergence.kind !== 'cache');
  log(`ranks view: ${JSON.stringify(nodes.map((n) => provider.getTreeItem(n).description))}`);
  assert.equal(nodes.length, expected.length, JSON.stringify(nodes.map((n) => n.divergence)));
  for (const [kind, rank, line] of expected) {
    const node = nodes.find((n) => n.divergence.kind === kind);
    assert.ok(node, `no ${kind} divergence`);
    assert.deepEqual(node.divergence.ranks, [rank]);
    const item = provider.getTreeItem(node);
    assert.equal(item.label, `${kind} · rank ${rank} of 4`);
    assert.equal(item.description, `[${node.divergence.compileId}] model.py:${line}`);
    // Label and description fit the Explorer's default width (about 45 characters together).
    assert.ok(item.label.length + item.description.length <= 48, `${item.label} ${item.description}`);
    assert.ok(item.tooltip.value.includes(node.divergence.message.split('\n')[0]), item.tooltip.value);
    const editor = await clickItem(item, model);
    assert.equal(editor.selection.active.line, line - 1, `${kind}: line`);
  }
  const row = await probe({ selector: '.monaco-list-row', text: 'rank 2 of 4' });
  assert.ok(row.ok, `the view shows no rank 2 row: ${JSON.stringify(row)}`);
  // The status bar says there are 4 ranks, and the server's count of their divergences is the view's.
  const bar = await probe({ selector: '.statusbar-item', text: '· 4 ranks' });
  assert.ok(bar.ok, `status bar: ${JSON.stringify(bar)}`);
  const status = await s.api.languageClient.sendRequest('inductor/status', {});
  assert.equal(status.rankDivergences, nodes.length);
  assert.equal(status.counts.ranks, 4);
});

// kernel_ir keeps the Triton cache: each kernel's PTX with `.file` and `.loc` directives naming the kernel's
// Python file in the Inductor cache. The oracle reads them.
function ptxLocs(text) {
  const files = new Map();
  for (const m of text.matchAll(/^\s*\.file\s+(\d+)\s+"([^"]+)"/gm)) files.set(Number(m[1]), m[2]);
  // For each line, the `.loc` (file, line) in force there: the last one above it within its function.
  const governing = [];
  let loc;
  for (const line of text.split('\n')) {
    const m = /^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+/.exec(line);
    if (m) loc = { file: Number(m[1]), line: Number(m[2]) };
    else if (/^\s*}\s*$/.test(line) || /^\s*\.(visible|entry|func)\b/.test(line)) loc = undefined;
    governing.push(m ? { ...loc, directive: true } : loc);
  }
  return { files, governing };
}

function isInstruction(line) {
  const t = line.trim();
  return t.endsWith(';') && !t.startsWith('.') && !t.startsWith('//');
}

function kernelIr() {
  const root = fixture('kernel_ir');
  const ptx = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name === 'triton_per_fused_native_layer_norm_0.ptx') ptx.push(path.join(dir, e.name));
    }
  };
  walk(path.join(root, 'inductor_cache', 'triton'));
  assert.equal(ptx.length, 1, `the LayerNorm kernel's PTX: ${JSON.stringify(ptx)}`);
  const text = fs.readFileSync(ptx[0], 'utf8');
  const { files, governing } = ptxLocs(text);
  // The kernel's file: the `.file` under the Inductor cache, found in the fixture by its name.
  const [kernelIndex, recorded] = [...files.entries()].find(([, f]) => f.includes('/inductor_cache/'));
  const kernelFile = path.join(root, 'inductor_cache', path.basename(path.dirname(recorded)), path.basename(recorded));
  assert.ok(fs.existsSync(kernelFile), kernelFile);
  return { root, ptx: ptx[0], lines: text.split('\n'), governing, kernelIndex, kernelFile, kernelLines: fs.readFileSync(kernelFile, 'utf8').split('\n') };
}

test('kernel internals: a PTX file opens as ptx; definition on an instruction goes to the kernel line its .loc names, and on to the model line', async () => {
  const k = kernelIr();
  s.kernelIr = k;
  await serveTraces([k.root]);
  const ptxUri = vscode.Uri.file(k.ptx);
  const doc = await vscode.workspace.openTextDocument(ptxUri);
  await vscode.window.showTextDocument(doc);
  assert.equal(doc.languageId, 'ptx');
  // The first instruction under a `.loc` naming a tl.load line of the kernel.
  const at = k.governing.findIndex(
    (g, i) => g && !g.directive && g.file === k.kernelIndex && k.kernelLines[g.line - 1].includes('tl.load(') && isInstruction(k.lines[i]),
  );
  assert.ok(at >= 0, 'no instruction under a .loc of a tl.load line');
  const kernelLine = k.governing[at].line;
  const locs = await until('a definition from the PTX line', async () => {
    const l = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', ptxUri, new vscode.Position(at, k.lines[at].search(/\S/))));
    return l.length > 0 ? l : undefined;
  });
  log(`PTX line ${at + 1} (${k.lines[at].trim()}) → ${describe(locs)}`);
  assert.ok(locs.some((l) => sameFile(l.uri, vscode.Uri.file(k.kernelFile)) && l.range.start.line === kernelLine - 1), `expected ${k.kernelFile}:${kernelLine}: ${describe(locs)}`);

  // From the kernel to the model line (definition on the kernel's `def` line of that file, as in output code):
  // one of the traced lines (`# File: …model.py:N` in the forward graph), the one of the model's only
  // LayerNorm (`self.norm`), which this kernel is.
  const graph = fs.readFileSync(path.join(path.dirname(findOutputCode(k.root)), 'fx_graph_readable.py'), 'utf8');
  const traced = new Set([...graph.matchAll(/# File: \S*\/model\.py:(\d+) in /g)].map((m) => Number(m[1])));
  const model = path.join(k.root, 'model.py');
  const normLine = lineOf(model, 'self.norm(x)');
  assert.ok(traced.has(normLine), `model.py:${normLine} is not in the forward graph`);
  const kernelUri = vscode.Uri.file(k.kernelFile);
  await vscode.workspace.openTextDocument(kernelUri);
  const defLine = k.kernelLines.findIndex((l) => l.startsWith('def triton_per_fused_native_layer_norm_0('));
  assert.ok(defLine >= 0 && defLine < kernelLine - 1, 'the kernel line is not below its def');
  const back = await until('a definition from the kernel def line', async () => {
    const l = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', kernelUri, new vscode.Position(defLine, 4)));
    return l.length > 0 ? l : undefined;
  });
  log(`kernel def line ${defLine + 1} → ${describe(back)}`);
  assert.ok(back.every((l) => sameFile(l.uri, vscode.Uri.file(model))), describe(back));
  assert.ok(back.some((l) => l.range.start.line === normLine - 1), `expected model.py:${normLine}: ${describe(back)}`);
  // The kernel line the PTX led to is in the body: it leads to the same model lines as the def.
  const fromBody = asLocations(await vscode.commands.executeCommand('vscode.executeDefinitionProvider', kernelUri, new vscode.Position(kernelLine - 1, 4)));
  log(`kernel line ${kernelLine} → ${describe(fromBody)}`);
  assert.deepEqual(fromBody.map((l) => `${l.uri.fsPath}:${l.range.start.line}`).sort(), back.map((l) => `${l.uri.fsPath}:${l.range.start.line}`).sort());
});

test('kernel internals: Show Lowered IR on a tl.load line opens the PTX beside with exactly the lines its .loc directives give', async () => {
  const k = s.kernelIr;
  const output = findOutputCode(k.root);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(output));
  const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
  // The LayerNorm kernel's first load, in output code; its line in the kernel's file has the same text.
  const def = locate(doc, 'def triton_per_fused_native_layer_norm_0(');
  const load = locate(doc, 'tl.load(', 'tl.load(', def.line);
  const statement = doc.lineAt(load.line).text.trim();
  const kernelLine = k.kernelLines.findIndex((l) => l.trim() === statement) + 1;
  assert.ok(kernelLine > 0, `"${statement}" is not in ${k.kernelFile}`);
  editor.selection = new vscode.Selection(load, load);
  // Without a stage the pick opens with PTX in focus: accepting it shows the PTX.
  const shown = await runAccepting('inductorLs.showLowered');
  assert.ok(shown, 'Show Lowered IR showed nothing');
  assert.equal(shown.stage, 'ptx');
  const active = vscode.window.activeTextEditor;
  assert.ok(active && sameFile(active.document.uri, vscode.Uri.file(k.ptx)), `active: ${active?.document.uri}`);
  assert.equal(active.document.languageId, 'ptx');
  assert.equal(active.viewColumn, vscode.ViewColumn.Two, 'not beside the output code');
  const highlighted = s.api.highlightedLines(active);
  log(`lowered: ${highlighted.length} PTX lines for kernel line ${kernelLine}: ${JSON.stringify(highlighted.map((l) => l + 1))}`);
  assert.deepEqual(highlighted, shown.lines);
  // Exactly the instructions under `.loc` directives naming this kernel line.
  const expected = k.lines
    .map((text, i) => ({ text, i, g: k.governing[i] }))
    .filter(({ text, g }) => g && g.file === k.kernelIndex && g.line === kernelLine && isInstruction(text))
    .map(({ i }) => i);
  assert.ok(expected.length > 0, 'the oracle found no PTX instruction');
  for (const line of highlighted) {
    const g = k.governing[line];
    assert.ok(g && g.file === k.kernelIndex && g.line === kernelLine, `PTX line ${line + 1} (${k.lines[line].trim()}) is not under a .loc of line ${kernelLine}`);
  }
  assert.deepEqual(expected.filter((l) => !highlighted.includes(l)), [], 'instructions of the line not highlighted');
  assert.ok(active.visibleRanges.some((r) => r.contains(new vscode.Position(highlighted[0], 0))), 'the first line is not revealed');
  // With the stage named, no pick: the TTIR.
  (await vscode.window.showTextDocument(doc, vscode.ViewColumn.One)).selection = new vscode.Selection(load, load);
  const ttir = await vscode.commands.executeCommand('inductorLs.showLowered', 'ttir');
  assert.ok(ttir && ttir.uri.endsWith('.ttir') && ttir.lines.length > 0, JSON.stringify(ttir));
  assert.equal(vscode.window.activeTextEditor.document.languageId, 'mlir');
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
});

test('entry points: the user file of a library-compiled model has a lens and hover on its call into the library', async () => {
  // decode_lib (tests/traces): transformers compiles its own forward under generate(); model.py only calls it.
  const traces = process.env.INDUCTOR_TRACES || path.join(process.env.INDUCTOR_E2E_REPO, 'build', 'traces');
  const root = path.join(traces, 'decode_lib');
  const model = path.join(root, 'model.py');
  await serveTraces([root]);
  // vscode.executeCodeLensProvider needs the document loaded, not just a URI ("Illegal argument").
  await vscode.workspace.openTextDocument(vscode.Uri.file(model));
  const line = lineOf(model, 'return model.generate(');
  const lens = await until('the entry-point lens on the generate() call', async () => {
    const all = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', vscode.Uri.file(model), 100);
    return (all || []).find((l) => l.range.start.line === line - 1 && l.command && l.command.title.startsWith('calls compiled '));
  }, 60000);
  assert.match(lens.command.title, /^calls compiled wrapper \(generic\.py:\d+\) · 1 compile · \d+ kernels, \d+ launches/, lens.command.title);
  assert.equal(lens.command.command, 'inductor.showCompiles');
  // The lines that only lead to it (main, <module>) have none.
  const all = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', vscode.Uri.file(model), 100);
  assert.equal(all.filter((l) => l.command && l.command.title.startsWith('calls compiled ')).length, 1);
  // The hover names the compiled function with a link into the library.
  const md = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', vscode.Uri.file(model), new vscode.Position(line - 1, 8)));
  assert.ok(md.includes('Calls compiled code of an installed package'), md);
  assert.ok(md.includes('site-packages/transformers/utils/generic.py#L'), md);
});

test('runs, ranks, kernel internals: the setting is put back and mlp_train serves again', async () => {
  await serveTraces(undefined);
  if (!s.outputUri) return; // INDUCTOR_E2E_ONLY left out the tests that found mlp_train's files.
  await until('mlp_train answering again', async () => {
    const md = hoverMarkdown(await vscode.commands.executeCommand('vscode.executeHoverProvider', s.outputUri, s.launch3));
    return md.includes('model.py:16');
  });
});

// Shows output_code.py beside model.py with the hover of model.py:16 (its
// kernels grouped by compile and graph, each a link), then waits for run.mjs
// to take the picture.
async function poseForScreenshot() {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.commands.executeCommand('workbench.action.closePanel');
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
  await vscode.commands.executeCommand('notifications.clearAll');
  const out = await vscode.window.showTextDocument(s.outputDoc, vscode.ViewColumn.Two);
  out.revealRange(new vscode.Range(s.launch3.line - 8, 0, s.launch3.line + 26, 0), vscode.TextEditorRevealType.AtTop);
  const model = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(s.modelUri), vscode.ViewColumn.One);
  model.revealRange(new vscode.Range(3, 0, 30, 0), vscode.TextEditorRevealType.AtTop);
  await vscode.commands.executeCommand('vscode.executeCodeLensProvider', s.modelUri);
  model.selection = new vscode.Selection(15, 12, 15, 12);
  await vscode.commands.executeCommand('editor.action.showHover');
  fs.writeFileSync(path.join(e2eDir, 'screenshot.request'), '');
  await until('the screenshot', () => fs.existsSync(path.join(e2eDir, 'screenshot.done')), 60000);
}

// INDUCTOR_E2E_ONLY (a regular expression): only the tests whose names match it, after the first one (the
// activation every test needs); for working on a few tests without the whole suite.
if (process.env.INDUCTOR_E2E_ONLY) {
  const only = new RegExp(process.env.INDUCTOR_E2E_ONLY);
  tests.splice(1, tests.length, ...tests.slice(1).filter((t) => only.test(t.name)));
}

exports.run = runner(tests, s, process.env.INDUCTOR_E2E_SCREENSHOT === '1' ? poseForScreenshot : undefined);
