// trust.test.mjs: workspace trust (issue 33, finding 1). The extension
// declares limited support for untrusted workspaces, and in Restricted Mode it
// starts the server with `trusted: false` (config.ts initializationOptions):
// then the server runs no interpreter at all, not even one a workspace
// setting names, and still reads the workspace's virtual environment.
// Every "interpreter" planted here touches a marker file if it runs.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fixturesRoot, Server } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(fs.readFileSync(path.join(here, '..', '..', 'package.json'), 'utf8'));

test('package.json: untrusted workspaces supported with limits; the program settings are restricted', () => {
  const untrusted = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(untrusted?.supported, 'limited');
  assert.ok(untrusted.description);
  for (const key of ['inductorLs.serverPath', 'inductorLs.pythonPath'])
    assert.ok(untrusted.restrictedConfigurations?.includes(key), key);
});

// Issue 43, finding 8: every setting that makes the server read a folder (a read root: SECURITY.md) is one an
// untrusted workspace must not set, or its `.vscode/settings.json` could name `/etc` as a Triton cache: each
// initializationOptions key the server's description gives a list of paths or mappings (all but
// `libraryPaths`, which are globs of frames, never read) must be restricted.
test('package.json: every setting that adds a read root is restricted in an untrusted workspace', () => {
  const description = JSON.parse(
    fs.readFileSync(path.join(here, '..', '..', '..', '..', 'protocol', 'inductor-protocol.json'), 'utf8'),
  );
  const restricted = manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? [];
  const lists = Object.entries(description.$defs.InitializationOptions.properties)
    .filter(([, schema]) => JSON.stringify(schema).includes('"array"'))
    .map(([key]) => key);
  const pathSettings = lists.filter((k) => k !== 'libraryPaths');
  assert.deepEqual(pathSettings.sort(), ['pathMappings', 'profiles', 'runLogs', 'traceDirs', 'tritonCacheDirs']);
  for (const key of pathSettings) {
    const setting = `inductorLs.${key}`;
    assert.ok(manifest.contributes.configuration.properties[setting], `${setting} is a setting`);
    assert.ok(restricted.includes(setting), `${setting} is not restricted in Restricted Mode`);
  }
});

function plant(file, marker) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\necho '[]'\n`, { mode: 0o755 });
}

test('Restricted Mode: the server runs no interpreter (trusted: false), and reads the workspace venv', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'inductor-trust-'));
  const marker = path.join(ws, '..', `${path.basename(ws)}-ran`);
  let server;
  try {
    fs.mkdirSync(path.join(ws, 'trace'));
    const trace = path.join(fixturesRoot, 'traces', 'mlp_train', 'trace');
    for (const log of fs.readdirSync(trace)) fs.copyFileSync(path.join(trace, log), path.join(ws, 'trace', log));
    const site = path.join(ws, '.venv', 'lib', 'python3.12', 'site-packages');
    fs.mkdirSync(site, { recursive: true });
    fs.writeFileSync(path.join(ws, '.venv', 'pyvenv.cfg'), 'home = /usr/bin\n');
    plant(path.join(ws, '.venv', 'bin', 'python'), marker);
    plant(path.join(ws, 'tools', 'python'), marker);
    server = await Server.start({
      workspace: ws,
      // What a workspace's settings could name, sent as an untrusted client must not: the server still refuses.
      initializationOptions: { trusted: false, pythonPath: path.join(ws, 'tools', 'python') },
    });
    await server.waitForNotification('inductor/status', (s) => s?.indexing === false);
    await server.request('workspace/executeCommand', { command: 'inductor.reindex' });
    let status;
    for (let i = 0; i < 300; ++i) {
      status = await server.request('inductor/status', {});
      if (status.builds >= 2 && status.indexing === false) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(status.builds >= 2, JSON.stringify(status));
    assert.equal(status.python.interpreter, '');
    assert.equal(status.python.trusted, false);
    assert.ok(status.python.importRoots.includes(site), JSON.stringify(status.python));
    assert.equal(fs.existsSync(marker), false, 'a planted interpreter ran');
  } finally {
    await server?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(marker, { force: true });
  }
});
