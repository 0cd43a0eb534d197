// mlp_train.test.mjs: protocol-level tests of the real inductor-ls binary on
// the mlp_train fixture (fixtures/traces/mlp_train, see its README.md), with
// the fixture folder itself as the workspace: paths in the trace start with
// /tmp/work/mlp_train/ and resolve by path-suffix match.
//
// Expected facts come from the fixture: in the forward output code,
// `triton_poi_fused_gelu_1` is launched with debug handles 3 and 7 and comes
// from model.py line 16 (1-based) `h = F.gelu(self.fc1(h))`; that line also
// produces the backward kernel `triton_per_fused_gelu_gelu_backward_sum_3`.
// Positions below are LSP positions (0-based); the fixture text is ASCII, so
// UTF-16 and UTF-8 columns agree.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  fixturesRoot,
  hoverText,
  locate,
  realPathOfUri,
  Server,
} from './server.mjs';

const workspace = path.join(fixturesRoot, 'traces', 'mlp_train');
const modelPy = path.join(workspace, 'model.py');
const modelLine16 = 15; // 0-based
function graphDir(prefix) {
  const runs = path.join(workspace, 'torch_compile_debug');
  for (const run of fs.readdirSync(runs).sort()) {
    const dir = path.join(runs, run, 'torchinductor');
    if (!fs.existsSync(dir)) continue;
    const hit = fs.readdirSync(dir).find((d) => d.startsWith(prefix));
    if (hit) return path.join(dir, hit);
  }
  throw new Error(`no ${prefix}* under ${runs}`);
}
const forwardCode = path.join(graphDir('model__0_forward'), 'output_code.py');
const forwardText = fs.readFileSync(forwardCode, 'utf8');

// Launch of triton_poi_fused_gelu_1 with debug handle 3, cursor on its name.
const launch3 = locate(forwardText, 'triton_poi_fused_gelu_1.run(', 'triton_poi_fused_gelu_1');
const launch7 = locate(forwardText, 'triton_poi_fused_gelu_1.run(', 'triton_poi_fused_gelu_1', launch3.line + 1);
const kernelDef = locate(forwardText, 'def triton_poi_fused_gelu_1(', 'triton_poi_fused_gelu_1');
const kernelAssign = locate(forwardText, 'triton_poi_fused_gelu_1 = async_compile.triton(');

let server;
let modelUri;
let forwardUri;

function isModelLine16(loc) {
  return realPathOfUri(loc.uri) === fs.realpathSync(modelPy) && loc.range.start.line === modelLine16;
}

function describeLocations(locs) {
  return JSON.stringify(
    (locs ?? []).map((l) => `${l.uri ?? l.targetUri}:${(l.range ?? l.targetRange)?.start.line}`),
  );
}

// Definition results may be Location, Location[] or LocationLink[].
function asLocations(result) {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) => ('targetUri' in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l));
}

// Text of the document behind a location: from disk, or from the server for
// `inductor-trace:` URIs.
const textCache = new Map();
async function documentText(uri) {
  if (!textCache.has(uri)) {
    if (uri.startsWith('file:')) textCache.set(uri, fs.readFileSync(fileURLToPath(uri), 'utf8'));
    else textCache.set(uri, (await server.request('inductor/artifactContent', { uri }))?.text ?? '');
  }
  return textCache.get(uri);
}
async function lineAt(loc) {
  return (await documentText(loc.uri)).split('\n')[loc.range.start.line] ?? '';
}
// The `[Provenance debug handles] KERNEL:N` comment above a launch, if any.
async function debugHandleAt(loc) {
  const lines = (await documentText(loc.uri)).split('\n');
  for (let i = loc.range.start.line; i >= Math.max(0, loc.range.start.line - 3); i--) {
    const m = /\[Provenance debug handles\] [\w.]+:(\d+)/.exec(lines[i]);
    if (m) return Number(m[1]);
  }
  return undefined;
}

describe('inductor-ls on mlp_train', () => {
  before(async () => {
    server = await Server.start({ workspace });
    modelUri = server.open(modelPy);
    forwardUri = server.open(forwardCode);
  });
  after(async () => {
    await server?.stop();
  });

  test('initialize advertises the pinned capabilities', () => {
    const caps = server.initializeResult.capabilities;
    assert.ok(caps.definitionProvider, 'definitionProvider');
    assert.ok(caps.referencesProvider, 'referencesProvider');
    assert.ok(caps.hoverProvider, 'hoverProvider');
    assert.ok(caps.codeLensProvider, 'codeLensProvider');
    assert.ok(caps.documentSymbolProvider, 'documentSymbolProvider');
    assert.ok(caps.workspaceSymbolProvider, 'workspaceSymbolProvider');
    assert.ok(caps.executeCommandProvider?.commands?.includes('inductor.reindex'), 'inductor.reindex');
    assert.ok(
      !caps.executeCommandProvider.commands.includes('inductor.showLocations') &&
        !caps.executeCommandProvider.commands.includes('inductor.showLaunchSites'),
      'inductor.showLocations and inductor.showLaunchSites are client commands; the client would fail to register them twice',
    );
    assert.equal(caps.positionEncoding ?? 'utf-16', 'utf-16', 'only utf-16 was offered');
  });

  test('definition on a kernel launch goes to model.py:16', async () => {
    for (const at of [launch3, launch7]) {
      const locs = asLocations(
        await server.request('textDocument/definition', { textDocument: { uri: forwardUri }, position: at }),
      );
      assert.ok(locs.some(isModelLine16), `launch at line ${at.line}: ${describeLocations(locs)}`);
    }
  });

  test('definition on the kernel definition goes to model.py:16', async () => {
    const locs = asLocations(
      await server.request('textDocument/definition', { textDocument: { uri: forwardUri }, position: kernelDef }),
    );
    assert.ok(locs.some(isModelLine16), describeLocations(locs));
  });

  test('hover on a kernel launch describes the kernel and its origin', async () => {
    const hover = await server.request('textDocument/hover', { textDocument: { uri: forwardUri }, position: launch3 });
    assert.ok(hover, 'hover is null');
    if (!Array.isArray(hover.contents) && typeof hover.contents === 'object')
      assert.equal(hover.contents.kind, 'markdown');
    const md = hoverText(hover);
    for (const needle of ['triton_poi_fused_gelu_1', 'model.py:16', 'h = F.gelu(self.fc1(h))', 'aten.gelu', '0/0', 'forward'])
      assert.ok(md.includes(needle), `hover lacks "${needle}":\n${md}`);
    assert.match(md, /handle\D{0,20}3\b/i, `hover lacks debug handle 3:\n${md}`);
    assert.match(md, /\berf\b|\bmul_2\b/, `hover lacks the FX nodes (mul_2, erf, …):\n${md}`);
  });

  test('hover on a user line lists its kernels', async () => {
    const hover = await server.request('textDocument/hover', {
      textDocument: { uri: modelUri },
      position: { line: modelLine16, character: 12 },
    });
    const md = hoverText(hover);
    for (const needle of ['triton_poi_fused_gelu_1', 'triton_per_fused_gelu_gelu_backward_sum_3'])
      assert.ok(md.includes(needle), `hover on model.py:16 lacks "${needle}":\n${md}`);
  });

  test('nothing here answers null, not an error', async () => {
    // model.py line 1 is a comment; output_code.py line 1 is `# AOT ID: …`.
    const onComment = await server.request('textDocument/hover', {
      textDocument: { uri: modelUri },
      position: { line: 0, character: 2 },
    });
    assert.equal(onComment, null);
    const def = await server.request('textDocument/definition', {
      textDocument: { uri: modelUri },
      position: { line: 0, character: 2 },
    });
    assert.ok(def === null || (Array.isArray(def) && def.length === 0), JSON.stringify(def));
    const refs = await server.request('textDocument/references', {
      textDocument: { uri: modelUri },
      position: { line: 4, character: 0 },
      context: { includeDeclaration: false },
    });
    assert.ok(refs === null || (Array.isArray(refs) && refs.length === 0), JSON.stringify(refs));
  });

  test('code lenses in output code name the origin', async () => {
    const lenses = await server.request('textDocument/codeLens', { textDocument: { uri: forwardUri } });
    assert.ok(Array.isArray(lenses) && lenses.length > 0, 'no code lenses on output_code.py');
    for (const lens of lenses) assert.ok(lens.command, `unresolved lens at line ${lens.range.start.line}`);
    const atLaunch = lenses.find((l) => l.range.start.line === launch3.line);
    assert.ok(atLaunch, `no lens on the launch line ${launch3.line}`);
    assert.ok(atLaunch.command.title.includes('model.py:16'), atLaunch.command.title);
    assert.equal(atLaunch.command.command, 'inductor.showLocations');
    const [uri, position, locations] = atLaunch.command.arguments;
    assert.equal(typeof uri, 'string');
    assert.equal(typeof position?.line, 'number');
    assert.ok(asLocations(locations).some(isModelLine16), describeLocations(locations));
    const atDef = lenses.find((l) => [kernelDef.line, kernelAssign.line].includes(l.range.start.line));
    assert.ok(atDef, `no lens on the kernel definition (line ${kernelAssign.line} or ${kernelDef.line})`);
    assert.ok(atDef.command.title.includes('model.py:16'), atDef.command.title);
  });

  test('code lens on model.py:16 counts forward and backward kernels', async () => {
    const lenses = await server.request('textDocument/codeLens', { textDocument: { uri: modelUri } });
    const lens = (lenses ?? []).find((l) => l.range.start.line === modelLine16);
    assert.ok(lens, `no lens on model.py:16; lenses on lines ${JSON.stringify((lenses ?? []).map((l) => l.range.start.line))}`);
    assert.match(lens.command.title, /\d+ kernels?/);
    assert.match(lens.command.title, /forward/);
    assert.match(lens.command.title, /backward/);
    // No locations in the lens: the client asks for them when it is clicked.
    assert.equal(lens.command.command, 'inductor.showLaunchSites');
    const [uri, position] = lens.command.arguments;
    assert.equal(realPathOfUri(uri), fs.realpathSync(modelPy));
    const sites = await server.request('inductor/launchSites', { textDocument: { uri }, position });
    assert.ok(Array.isArray(sites) && sites.length === 10, `launch sites: ${JSON.stringify(sites)}`);
    const lines = await Promise.all(sites.map(lineAt));
    assert.ok(lines.every((l) => l.includes('(')), lines.join('\n'));
  });

  test('references on model.py:16 are every launch of its kernels', async () => {
    const refs = await server.request('textDocument/references', {
      textDocument: { uri: modelUri },
      position: { line: modelLine16, character: 8 },
      context: { includeDeclaration: false },
    });
    assert.ok(Array.isArray(refs) && refs.length > 0, `no references: ${JSON.stringify(refs)}`);
    const lines = await Promise.all(refs.map(lineAt));
    const handles = new Set();
    for (let i = 0; i < refs.length; i++) {
      if (lines[i].includes('triton_poi_fused_gelu_1.run(')) handles.add(await debugHandleAt(refs[i]));
    }
    assert.ok(handles.has(3) && handles.has(7), `forward gelu launches (handles 3, 7) missing: ${describeLocations(refs)}\n${lines.join('\n')}`);
    assert.ok(
      lines.some((l) => l.includes('triton_per_fused_gelu_gelu_backward_sum_3.run(')),
      `backward launch missing:\n${lines.join('\n')}`,
    );
  });

  test('inductor/status reports the index', async () => {
    // A request made during indexing is answered once the index is ready, so
    // after the requests above the index is built.
    const status = await server.request('inductor/status', {});
    assert.equal(status.indexing, false);
    assert.ok(status.traces >= 1, JSON.stringify(status));
    assert.ok(status.compiles >= 1, JSON.stringify(status));
    assert.ok(status.kernels >= 5, JSON.stringify(status));
    assert.ok(status.launches >= status.kernels / 2, JSON.stringify(status));
    assert.equal(typeof status.errors, 'number');
  });

  test('indexing progress and the status notification are sent', async () => {
    const created = server.serverRequests.filter((r) => r.method === 'window/workDoneProgress/create');
    assert.ok(created.length > 0, 'no window/workDoneProgress/create');
    const token = created[0].params.token;
    const progress = server.notifications.filter((n) => n.method === '$/progress' && n.params.token === token);
    assert.ok(progress.some((n) => n.params.value.kind === 'begin'), 'no progress begin');
    await server.waitForNotification('$/progress', (p) => p.token === token && p.value.kind === 'end');
    const status = await server.waitForNotification('inductor/status');
    assert.equal(typeof status, 'object');
  });

  test('listArtifacts and artifactContent serve trace-only artifacts', async () => {
    const artifacts = await server.request('inductor/listArtifacts', {});
    assert.ok(Array.isArray(artifacts) && artifacts.length > 0, 'no artifacts');
    for (const a of artifacts) {
      assert.equal(typeof a.uri, 'string');
      assert.equal(typeof a.title, 'string');
      // A kernel source file in the Inductor cache can serve several compiles:
      // its compileId is null. Every other artifact belongs to one compile.
      assert.ok(typeof a.compileId === 'string' || (a.kind === 'kernel' && a.compileId === null), JSON.stringify(a));
      assert.ok(['outputCode', 'wrapperCode', 'kernel', 'graph'].includes(a.kind), a.kind);
      assert.ok(['python', 'cpp'].includes(a.languageId), a.languageId);
    }
    const inTrace = artifacts.filter((a) => a.uri.startsWith('inductor-trace:'));
    assert.ok(inTrace.length > 0, 'no inductor-trace: artifact (graphs exist only inside the log)');
    for (const a of inTrace) {
      assert.match(a.uri, /\.(py|cpp)$/);
      const content = await server.request('inductor/artifactContent', { uri: a.uri });
      assert.ok(content && content.text.length > 0, `empty content for ${a.uri}`);
      assert.equal(content.languageId, a.languageId, a.uri);
    }
    assert.ok(artifacts.some((a) => a.kind === 'outputCode' && a.compileId.includes('0/0')), 'no output code of compile 0/0');
  });

  test('definition on an FX node name in a graph dump goes to its user line', async () => {
    // The graph text says where each node comes from:
    //   # File: /tmp/work/mlp_train/model.py:16 in forward, code: …
    //   mul_2: "f32[64, 1024]" = torch.ops.aten.mul.Tensor(addmm, 0.5)
    const artifacts = await server.request('inductor/listArtifacts', {});
    let checked = 0;
    for (const a of artifacts.filter((x) => x.kind === 'graph')) {
      const text = await documentText(a.uri);
      const lines = text.split('\n');
      const i = lines.findIndex((l, k) => /# File: \S*model\.py:\d+ in \w+/.test(l) && /^\s+\w+: .*= torch\.ops\./.test(lines[k + 1] ?? ''));
      if (i < 0) continue;
      const userLine = Number(/model\.py:(\d+)/.exec(lines[i])[1]) - 1;
      const name = /^\s+(\w+):/.exec(lines[i + 1])[1];
      if (a.uri.startsWith('file:')) server.open(fileURLToPath(a.uri));
      else server.openText(a.uri, a.languageId, text);
      const position = { line: i + 1, character: lines[i + 1].indexOf(name) + 1 };
      const locs = asLocations(await server.request('textDocument/definition', { textDocument: { uri: a.uri }, position }));
      assert.ok(
        locs.some((l) => realPathOfUri(l.uri) === fs.realpathSync(modelPy) && l.range.start.line === userLine),
        `${a.uri} ${JSON.stringify(position)} (${name}) should go to model.py:${userLine + 1}: ${describeLocations(locs)}`,
      );
      if (++checked === 2) break;
    }
    assert.ok(checked > 0, 'no graph artifact with "# File: …model.py:N" node comments');
  });

  test('document and workspace symbols name the kernels', async () => {
    const symbols = await server.request('textDocument/documentSymbol', { textDocument: { uri: forwardUri } });
    const names = [];
    const walk = (list) => {
      for (const s of list ?? []) {
        names.push(s.name);
        walk(s.children);
      }
    };
    walk(symbols);
    assert.ok(names.includes('triton_poi_fused_gelu_1'), JSON.stringify(names));
    const found = await server.request('workspace/symbol', { query: 'triton_poi_fused_gelu' });
    assert.ok(
      (found ?? []).some((s) => s.name === 'triton_poi_fused_gelu_1'),
      JSON.stringify((found ?? []).map((s) => s.name)),
    );
  });

  test('inductor.reindex rebuilds the same index', async () => {
    const before = await server.request('inductor/status', {});
    await server.request('workspace/executeCommand', { command: 'inductor.reindex', arguments: [] });
    const locs = asLocations(
      await server.request('textDocument/definition', { textDocument: { uri: forwardUri }, position: launch3 }),
    );
    assert.ok(locs.some(isModelLine16), describeLocations(locs));
    const afterStatus = await server.request('inductor/status', {});
    assert.equal(afterStatus.kernels, before.kernels);
    assert.equal(afterStatus.compiles, before.compiles);
  });
});

describe('position encoding', () => {
  test('utf-8 is chosen when the client offers it', async () => {
    const server8 = await Server.start({ workspace, positionEncodings: ['utf-8', 'utf-16'] });
    try {
      assert.equal(server8.initializeResult.capabilities.positionEncoding, 'utf-8');
    } finally {
      await server8.stop();
    }
  });
});

describe('initializationOptions', () => {
  test('traceDirs and pathMappings replace discovery and suffix matching', async () => {
    // Index only the trace log, with no workspace folder: paths resolve
    // through the mapping alone.
    const srv = await Server.start({
      initializationOptions: {
        traceDirs: [path.join(workspace, 'trace')],
        pathMappings: [{ from: '/tmp/work/mlp_train', to: workspace }],
      },
    });
    try {
      const uri = srv.open(modelPy);
      const hover = await srv.request('textDocument/hover', {
        textDocument: { uri },
        position: { line: modelLine16, character: 12 },
      });
      assert.ok(hoverText(hover).includes('triton_poi_fused_gelu_1'), hoverText(hover));
      const status = await srv.request('inductor/status', {});
      assert.equal(status.traces, 1, JSON.stringify(status));
    } finally {
      await srv.stop();
    }
  });
});

