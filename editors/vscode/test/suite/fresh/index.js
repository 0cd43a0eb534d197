// test/suite/fresh/index.js: the newcomer's path, with the installed .vsix and
// no setting: a project without traces (run.mjs makes it: a train.py), where
// the extension starts nothing; then a training run writes its trace into the
// project, and the extension starts the server by itself, which says that the
// model files are not on this machine; a second run is picked up without a
// reindex (the server registered for VS Code's file events); a large trace
// shows the indexing progress in the status bar.

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { extensionId, log, until, probe, runner } = require('../helpers');

const repo = process.env.INDUCTOR_E2E_REPO;
const fixtures = process.env.INDUCTOR_FIXTURES || path.join(repo, '..', 'shared', 'fixtures');
const tests = [];
function test(name, fn) {
  tests.push({ name, fn });
}
const s = {};

// Writes a fixture's log into `toDir` as torch does with TORCH_TRACE=toDir: the
// directory is made first (torch/_logging/_internal.py), the log a moment later.
async function copyLog(fromCase, toDir) {
  const traceDir = path.join(fixtures, 'traces', fromCase, 'trace');
  const log = fs.readdirSync(traceDir).find((f) => f.startsWith('dedicated_log_torch_trace'));
  fs.mkdirSync(toDir, { recursive: true });
  await new Promise((r) => setTimeout(r, 1000));
  fs.copyFileSync(path.join(traceDir, log), path.join(toDir, log));
}

async function status() {
  return s.api.languageClient.sendRequest('inductor/status', {});
}

test('a Python file of a project without traces loads the extension, which starts nothing', async () => {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  s.root = root;
  const doc = await vscode.workspace.openTextDocument(path.join(root, 'train.py'));
  await vscode.window.showTextDocument(doc);
  const ext = vscode.extensions.getExtension(extensionId);
  assert.ok(ext, `${extensionId} is not installed`);
  await until('activation by the Python file', () => ext.isActive, 60000);
  s.api = ext.exports;
  assert.equal(s.api.state, 'waiting');
  assert.equal(s.api.languageClient, undefined);
  // Nothing on screen: no status item, no notification, no view.
  const bar = await probe({ selector: '.statusbar-item', text: 'Inductor', absent: true, timeoutMs: 3000 });
  assert.ok(bar.ok, `a status item: ${JSON.stringify(bar.texts)}`);
  const views = await probe({ selector: '.pane-header', text: 'Inductor Traces', absent: true, timeoutMs: 500 });
  assert.ok(views.ok, `the view shows: ${JSON.stringify(views.texts)}`);
});

test('a trace written by a run starts the server by itself, which says the sources are not here', async () => {
  await copyLog('mlp_train', path.join(s.root, 'runs', 'first', 'trace'));
  await until('the server started', () => s.api.state === 'running' && s.api.languageClient?.isRunning(), 60000);
  assert.equal(s.api.serverSource, 'bundled');
  const st = await until('the first index', async () => {
    const x = await status();
    return x.indexing === false && x.counts?.graphs === 2 ? x : undefined;
  }, 60000);
  // One compile id ([0/0]), its forward and backward graphs: the status bar's '1 compile'.
  assert.equal(st.compiles, 1);
  assert.equal(st.launchesWithMissingSource, 29);
  assert.equal(st.notices[0].kind, 'missingSources');
  // Said once (window/showMessage), with what to do. The toast itself is not asserted: in this headless
  // workbench it does not reliably reach the DOM (it was seen missing while the server had sent it).
  const notice = st.notices[0].message;
  assert.ok(notice.includes('not on this machine'), notice);
  assert.ok(notice.includes('pathMappings') && notice.includes('/tmp/work/mlp_train/model.py'), notice);
  const note = await probe({ selector: '.notification-list-item-message', text: 'not on this machine', timeoutMs: 3000 });
  log(`notification toast ${note.ok ? 'seen' : 'not seen'}`);
  const bar = await probe({ selector: '.statusbar-item', text: 'Inductor: 1 compile · 14 kernels' });
  assert.ok(bar.ok, JSON.stringify(bar));
  await vscode.commands.executeCommand('notifications.clearAll');
});

test('a second run is picked up without a reindex (VS Code watches the files for the server)', async () => {
  await copyLog('cpu_inductor', path.join(s.root, 'runs', 'second', 'trace'));
  // cpu_inductor's log starts after mlp_train's (2026-11-22 10:30:13 vs 10:29:20 UTC): it is the latest run,
  // served alone; mlp_train's is the other run the status counts.
  const st = await until('the second run served', async () => {
    const x = await status();
    return x.indexing === false && x.run === '2026-11-22 10:30:13' ? x : undefined;
  }, 60000);
  assert.equal(st.otherRuns, 1);
  assert.equal(st.traces, 1);
  assert.equal(st.compiles, 1);
  const bar = await probe({ selector: '.statusbar-item', text: '(+1)' });
  assert.ok(bar.ok, JSON.stringify(bar));
});

test('a large trace shows its indexing progress in the status bar', async () => {
  const dir = path.join(s.root, 'runs', 'large', 'trace');
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'dedicated_log_torch_trace_llama8l.log');
  // Written under another name, then moved in whole: one event, one build to watch.
  execFileSync('sh', ['-c', `xz -dc '${path.join(repo, 'bench', 'llama', 'llama8l.log.xz')}' > '${out}.part'`]);
  fs.renameSync(`${out}.part`, out);
  // The progress may show for a tenth of a second (the index of this 115 MB log builds in about that): the
  // probe watches every change of the status bar and reports the text it matched.
  const indexing = await probe({
    selector: '.statusbar-item',
    text: 'Inductor: indexing',
    pattern: 'indexing \\d+%',
    timeoutMs: 30000,
  });
  assert.ok(indexing.ok, JSON.stringify(indexing));
  log(`status while indexing: ${JSON.stringify(indexing.texts)}`);
  assert.ok(indexing.texts.some((t) => /indexing \d+%/.test(t)), JSON.stringify(indexing.texts));
  // Recorded a day later than the other two: the latest run, its 8 compile ids (16 graphs) alone.
  const st = await until('the large trace indexed', async () => {
    const x = await status();
    return x.indexing === false && x.run === '2026-11-23 06:26:33' ? x : undefined;
  }, 120000);
  assert.equal(st.otherRuns, 2);
  assert.equal(st.compiles, 8);
  assert.equal(st.counts.graphs, 16);
  log(`indexed: ${JSON.stringify({ compiles: st.compiles, kernels: st.kernels, traces: st.traces })}`);
});

exports.run = runner(tests, s);
