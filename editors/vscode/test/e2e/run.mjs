// run.mjs: one end-to-end run in a real VS Code. Starts the VS Code server
// bundled in code-server (lib/vscode/out/server-main.js), opens its web
// workbench in Debian's Chromium with puppeteer-core, and lets the workbench
// run test/suite/index.js in the extension host, the way VS Code's own browser
// integration tests do (payload extensionDevelopmentPath/extensionTestsPath,
// window.codeAutomationLog / window.codeAutomationExit).
//
// Usage (Node 24): node run.mjs --mode dev|vsix [--screenshot FILE]
//   dev   the extension folder itself is the development extension
//   vsix  inductor-ls.vsix is installed with --install-extension; a stub
//         development extension (test/e2e/host) only carries the test runner
// Environment: INDUCTOR_LS (server binary), INDUCTOR_E2E_WORKSPACE (folder to
// open), CHROMIUM (default /usr/bin/chromium), INDUCTOR_E2E_TIMEOUT_S (600).
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
if (!['dev', 'vsix'].includes(mode)) throw new Error(`--mode must be dev or vsix, not ${mode}`);

const serverBinary = process.env.INDUCTOR_LS || path.join(repo, 'build', 'inductor-ls');
const workspace = process.env.INDUCTOR_E2E_WORKSPACE;
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
// The server binary comes from the machine setting inductorLs.serverPath.
// (PATH cannot carry it: the VS Code server replaces the extension host's PATH
// with the one of a login shell.)
// The server keeps machine settings in <user-data-dir>/Machine.
fs.mkdirSync(path.join(dirs.user, 'Machine'), { recursive: true });
fs.writeFileSync(
  path.join(dirs.user, 'Machine', 'settings.json'),
  JSON.stringify(
    {
      'inductorLs.serverPath': path.resolve(serverBinary),
      'inductorLs.trace.server': 'messages',
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
if (mode === 'vsix') {
  const vsix = path.join(extDir, 'inductor-ls.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} not found; run npm run package first`);
  const r = spawnSync(process.execPath, [serverMain, ...serverArgs, '--install-extension', vsix], { encoding: 'utf8' });
  log(`install-extension: ${(r.stdout + r.stderr).trim().split('\n').slice(-2).join(' | ')}`);
  if (r.status !== 0) throw new Error(`--install-extension failed (${r.status})`);
  devPath = path.join(here, 'host');
  expectedExtension = dirs.extensions;
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
      INDUCTOR_E2E_SCREENSHOT: opts.screenshot ? '1' : '0',
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
          return lenses.some((t) => /kernels?/.test(t)) && lenses.some((t) => t.includes('model.py:16'));
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

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(devPath)],
    ['extensionTestsPath', remote(path.join(extDir, 'test', 'suite'))],
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
