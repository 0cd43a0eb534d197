// run.mjs: one end-to-end run in a real VS Code. Starts the VS Code server
// bundled in code-server (lib/vscode/out/server-main.js), opens its web
// workbench in Debian's Chromium with puppeteer-core, and lets the workbench
// run test/suite/index.js in the extension host, the way VS Code's own browser
// integration tests do (payload extensionDevelopmentPath/extensionTestsPath,
// window.codeAutomationLog / window.codeAutomationExit).
//
// Usage (Node 24): node run.mjs --mode dev|vsix|fresh [--screenshot FILE]
//   dev   the extension folder itself is the development extension, with
//         inductorLs.serverPath set to INDUCTOR_LS; suite test/suite on the
//         fixture workspace
//   vsix  inductor-ls-linux-x64.vsix, the file a user installs, is installed
//         with --install-extension into a clean profile with no inductorLs
//         setting (it must start the server it carries); a stub development
//         extension (test/e2e/host) only carries the test runner; suite
//         test/suite on the fixture workspace
//   fresh the installed .vsix again, on a new project without traces (a
//         folder with a train.py), where a run then writes traces; suite
//         test/suite/fresh
// In dev and vsix, a stand-in for the Python extension (test/e2e/python-stub,
// id ms-python.python) is installed from a .vsix packed here; it has selected
// the interpreter of a virtual environment made here (INDUCTOR_E2E_PYTHON).
// The suite can ask for checks of the workbench's DOM (what the user sees:
// notifications, the status bar, views, the quick pick) by writing
// probe-<n>.json in the handshake folder; see probe() below.
// Environment: INDUCTOR_LS (server binary), INDUCTOR_E2E_WORKSPACE (folder to
// open in dev and vsix), INDUCTOR_FIXTURES, CHROMIUM (default
// /usr/bin/chromium), INDUCTOR_E2E_TIMEOUT_S (600).
// Exit status: 0 only if every test of the suite passed.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, '../..');
const repo = path.resolve(extDir, '../..');
const { values: opts } = parseArgs({
  options: { mode: { type: 'string', default: 'dev' }, screenshot: { type: 'string' } },
});
const mode = opts.mode;
if (!['dev', 'vsix', 'fresh'].includes(mode)) throw new Error(`--mode must be dev, vsix or fresh, not ${mode}`);

const serverBinary = process.env.INDUCTOR_LS || path.join(repo, 'build', 'inductor-ls');
let workspace = process.env.INDUCTOR_E2E_WORKSPACE;
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const timeoutMs = Number(process.env.INDUCTOR_E2E_TIMEOUT_S || 600) * 1000;
const vscodeDir = path.join(here, 'node_modules', 'code-server', 'lib', 'vscode');
const serverMain = path.join(vscodeDir, 'out', 'server-main.js');
for (const [what, p] of [['inductor-ls binary (INDUCTOR_LS)', serverBinary], ['workspace (INDUCTOR_E2E_WORKSPACE)', workspace ?? ''], ['VS Code server', serverMain], ['Chromium', chromium]])
  if (!p || !fs.existsSync(p)) throw new Error(`${what} not found at "${p}"`);

// Everything this run writes lives under .e2e/<mode>/ in the extension folder.
const runDir = path.join(extDir, '.e2e', mode);
fs.rmSync(runDir, { recursive: true, force: true });
const dirs = Object.fromEntries(['user', 'server', 'extensions', 'handshake', 'chrome'].map((d) => [d, path.join(runDir, d)]));
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
if (mode === 'fresh') {
  // A project as a newcomer has it before the first traced run: code, no trace.
  workspace = path.join(runDir, 'project');
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'train.py'), 'import torch\n\nmodel = torch.compile(torch.nn.Linear(4, 4))\n');
}
// The server binary comes from the machine setting inductorLs.serverPath.
// (PATH cannot carry it: the VS Code server replaces the extension host's PATH
// with the one of a login shell.)
// The server keeps machine settings in <user-data-dir>/Machine.
fs.mkdirSync(path.join(dirs.user, 'Machine'), { recursive: true });
// The installed .vsix runs with no inductorLs setting at all, as it does for
// a user who just installed it.
const extensionSettings =
  mode === 'dev' ? { 'inductorLs.serverPath': path.resolve(serverBinary), 'inductorLs.trace.server': 'messages' } : {};
fs.writeFileSync(
  path.join(dirs.user, 'Machine', 'settings.json'),
  JSON.stringify(
    {
      ...extensionSettings,
      // A quiet workbench, and a clear picture for the screenshot.
      'workbench.startupEditor': 'none',
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'chat.disableAIFeatures': true,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'git.enabled': false,
      'editor.minimap.enabled': false,
      'editor.stickyScroll.enabled': false,
    },
    null,
    2,
  ),
);

const started = Date.now();
const log = (line) => console.log(`[e2e ${mode} ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
const serverArgs = ['--user-data-dir', dirs.user, '--server-data-dir', dirs.server, '--extensions-dir', dirs.extensions];

let devPath = extDir;
let expectedExtension = extDir;
if (mode !== 'dev') {
  // The file scripts/package.sh made (test-e2e.sh passes the path it printed).
  const vsix = process.env.INDUCTOR_E2E_VSIX || path.join(extDir, 'inductor-ls-linux-x64.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} not found; run bash scripts/package.sh first`);
  const r = spawnSync(process.execPath, [serverMain, ...serverArgs, '--install-extension', vsix], { encoding: 'utf8' });
  log(`install-extension: ${(r.stdout + r.stderr).trim().split('\n').slice(-2).join(' | ')}`);
  if (r.status !== 0) throw new Error(`--install-extension failed (${r.status})`);
  devPath = path.join(here, 'host');
  expectedExtension = dirs.extensions;
}

// The interpreter the Python extension stub has selected at first: a fresh
// virtual environment (its site-packages then is an import root the server
// can only have found by running it).
let stubInterpreter = '';
if (mode !== 'fresh') {
  const venv = path.join(runDir, 'venv-a');
  const r = spawnSync('python3', ['-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 -m venv failed: ${r.stderr}`);
  stubInterpreter = path.join(venv, 'bin', 'python');
  // Installed like a user's extension, packed as a .vsix (a zip whose extension/ holds the package): the
  // web workbench takes one extensionDevelopmentPath only, which dev mode needs for inductor-ls itself.
  const pack = path.join(runDir, 'python-stub');
  fs.rmSync(pack, { recursive: true, force: true });
  fs.mkdirSync(pack, { recursive: true });
  fs.cpSync(path.join(here, 'python-stub'), path.join(pack, 'extension'), { recursive: true });
  const stubVsix = path.join(runDir, 'python-stub.vsix');
  fs.rmSync(stubVsix, { force: true });
  const z = spawnSync('python3', ['-m', 'zipfile', '-c', stubVsix, 'extension'], { cwd: pack, encoding: 'utf8' });
  if (z.status !== 0) throw new Error(`packing the Python extension stub failed: ${z.stderr}`);
  const i = spawnSync(process.execPath, [serverMain, ...serverArgs, '--install-extension', stubVsix], { encoding: 'utf8' });
  log(`install-extension (Python stub): ${(i.stdout + i.stderr).trim().split('\n').slice(-1).join(' | ')}`);
  if (i.status !== 0) throw new Error(`--install-extension of the Python stub failed (${i.status})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const server = spawn(
  process.execPath,
  [serverMain, '--host', '127.0.0.1', '--port', String(port), '--without-connection-token', '--enable-smoke-test-driver', '--disable-workspace-trust', '--disable-telemetry', ...serverArgs],
  {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      INDUCTOR_E2E_DIR: dirs.handshake,
      INDUCTOR_E2E_EXTENSION: expectedExtension,
      INDUCTOR_E2E_MODE: mode,
      INDUCTOR_E2E_SCREENSHOT: opts.screenshot ? '1' : '0',
      INDUCTOR_E2E_REPO: repo,
      INDUCTOR_E2E_PYTHON: stubInterpreter,
    },
  },
);
const serverLog = fs.createWriteStream(path.join(runDir, 'server.log'));
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('VS Code server did not start within 60 s')), 60000);
  server.on('exit', (code) => reject(new Error(`VS Code server exited (${code}); see ${runDir}/server.log`)));
  server.stdout.on('data', (chunk) => {
    if (chunk.toString().includes('Extension host agent listening on')) {
      clearTimeout(timer);
      resolve();
    }
  });
});
log(`VS Code server on port ${port}`);

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: dirs.chrome,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'],
  defaultViewport: { width: 1440, height: 860 },
});

let exitCode = 1;
let screenshotTaken = false;
try {
  const page = await browser.newPage();
  const exited = new Promise((resolve) => {
    page.exposeFunction('codeAutomationExit', async (code, logs) => {
      for (const l of logs ?? []) fs.writeFileSync(path.join(runDir, `workbench-${l.relativePath.replace(/[\\/]/g, '_')}`), l.contents);
      resolve(code);
    });
  });
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const text = (args ?? []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    if (text.includes('[inductor-e2e]') || type === 'error') log(`workbench ${type}: ${text.slice(0, 2000)}`);
  });
  page.on('console', (msg) => {
    if (msg.text().includes('[inductor-e2e]')) log(msg.text().replace(/%c/g, '').slice(0, 2000));
  });

  // The suite asks for the screenshot through a file, and waits for the answer.
  const handshake = setInterval(async () => {
    const request = path.join(dirs.handshake, 'screenshot.request');
    if (!opts.screenshot || !fs.existsSync(request)) return;
    fs.rmSync(request);
    // Let the hover and lenses finish painting: wait for the hover widget.
    await page.waitForSelector('.monaco-hover:not(.hidden)', { timeout: 10000 }).catch(() => log('no visible hover widget'));
    // Both lenses painted: the kernel counts on model.py and an origin in output code.
    await page
      .waitForFunction(
        () => {
          const lenses = [...document.querySelectorAll('.codelens-decoration')].map((e) => e.textContent ?? '');
          return lenses.some((t) => /kernels?/.test(t)) && lenses.some((t) => t.includes('model.py:'));
        },
        { timeout: 15000, polling: 200 },
      )
      .catch(async () => {
        const seen = await page.$$eval('.codelens-decoration', (es) => es.map((e) => e.textContent));
        log(`the code lenses did not render; lenses on screen: ${JSON.stringify(seen)}`);
      });
    await page.screenshot({ path: opts.screenshot, type: 'png' });
    screenshotTaken = true;
    log(`screenshot ${opts.screenshot} (${fs.statSync(opts.screenshot).size} bytes)`);
    fs.writeFileSync(path.join(dirs.handshake, 'screenshot.done'), '');
  }, 200);

  // DOM probes: the suite writes probe-<n>.json {selector, text?, pattern?, absent?, click?, timeoutMs?}; the
  // answer, probe-<n>.result.json {ok, texts, error}, comes when an element matching `selector` whose text
  // contains `text` (and matches the regular expression `pattern`) is on screen (or, with `absent`, when none
  // is, after the whole timeout), clicking it first if asked. `texts` are the matching texts as they were
  // when the match was seen: a transient text (a status shown for a tenth of a second) may be gone a moment
  // later. A `pattern` is watched at every change of
  // the DOM rather than every 100 ms.
  const probing = new Set();
  const probes = setInterval(async () => {
    for (const name of fs.readdirSync(dirs.handshake)) {
      const m = /^probe-(\d+)\.json$/.exec(name);
      if (!m || probing.has(name)) continue;
      probing.add(name);
      const spec = JSON.parse(fs.readFileSync(path.join(dirs.handshake, name), 'utf8'));
      const timeout = spec.timeoutMs ?? 15000;
      let result;
      try {
        const matches = (sel, text) =>
          page.$$eval(sel, (es, t) => es.map((e) => e.textContent ?? '').filter((x) => !t || x.includes(t)), text);
        if (spec.absent) {
          const deadline = Date.now() + timeout;
          let texts = [];
          while (Date.now() < deadline) {
            texts = await matches(spec.selector, spec.text);
            if (texts.length > 0) break;
            await new Promise((r) => setTimeout(r, 200));
          }
          result = { ok: texts.length === 0, texts };
        } else {
          const seen = await page.waitForFunction(
            (sel, t, re) => {
              const xs = [...document.querySelectorAll(sel)]
                .map((e) => e.textContent ?? '')
                .filter((x) => (!t || x.includes(t)) && (!re || new RegExp(re).test(x)));
              return xs.length > 0 ? xs : null;
            },
            { timeout, polling: spec.pattern ? 'mutation' : 100 },
            spec.selector,
            spec.text ?? '',
            spec.pattern ?? '',
          );
          const texts = await seen.jsonValue();
          if (spec.click) {
            // `click: true` clicks the element; a string clicks the element inside it that it selects.
            const handles = await page.$$(spec.selector);
            for (const h of handles) {
              const t = await h.evaluate((e) => e.textContent ?? '');
              if (!spec.text || t.includes(spec.text)) {
                const target = typeof spec.click === 'string' ? await h.$(spec.click) : h;
                await (target ?? h).click();
                break;
              }
            }
          }
          result = { ok: true, texts };
        }
      } catch (e) {
        const seen = await page.$$eval(spec.selector, (es) => es.map((x) => x.textContent ?? '')).catch(() => []);
        result = { ok: false, error: String(e), texts: seen };
      }
      log(`probe ${spec.selector}${spec.text ? ` "${spec.text}"` : ''}${spec.absent ? ' (absent)' : ''}: ${result.ok ? 'ok' : 'FAILED'}`);
      fs.writeFileSync(path.join(dirs.handshake, `probe-${m[1]}.result.json`), JSON.stringify(result));
    }
  }, 200);

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const suite = mode === 'fresh' ? path.join(extDir, 'test', 'suite', 'fresh') : path.join(extDir, 'test', 'suite');
  const payload = [
    ['extensionDevelopmentPath', remote(devPath)],
    ['extensionTestsPath', remote(suite)],
  ];
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  log(`open ${url}`);
  await page.goto(url, { waitUntil: 'domcontentloaded' });

  let timer;
  const code = await Promise.race([
    exited,
    new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  clearInterval(handshake);
  clearInterval(probes);
  if (code === 'timeout') {
    log(`no result within ${timeoutMs / 1000} s`);
    await page.screenshot({ path: path.join(runDir, 'timeout.png') }).catch(() => {});
  } else {
    exitCode = code;
  }
} finally {
  await browser.close().catch(() => {});
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

const resultsFile = path.join(dirs.handshake, 'results.json');
const results = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, 'utf8')) : [];
for (const r of results) log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.ms} ms)${r.ok ? '' : `\n${r.error}`}`);
if (results.length === 0) log('the suite wrote no results');
if (opts.screenshot && !screenshotTaken) log('no screenshot was taken');
const passed = exitCode === 0 && results.length > 0 && results.every((r) => r.ok) && (!opts.screenshot || screenshotTaken);
if (!passed) {
  // The extension's output channel and the extension host log say why.
  const logs = spawnSync('find', [dirs.server, dirs.user, '-name', '*.log', '-path', '*exthost*'], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
  for (const f of logs) {
    const text = fs.readFileSync(f, 'utf8').trim();
    if (text) log(`--- ${path.relative(runDir, f)} (tail)\n${text.split('\n').slice(-40).join('\n')}`);
  }
  log(`logs kept in ${runDir}`);
}
log(passed ? `passed (${results.length} tests)` : `FAILED (workbench exit code ${exitCode})`);
process.exit(passed ? 0 : 1);
