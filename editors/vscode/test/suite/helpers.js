// test/suite/helpers.js: what the end-to-end suites share: waiting on real
// signals (never a fixed sleep), positions in documents, locations, and DOM
// probes answered by test/e2e/run.mjs (what the user sees: notifications, the
// status bar, views, the quick pick).

const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const extensionId = 'inductor-ls.inductor-ls';
exports.extensionId = extensionId;
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


let probes = 0;
// Asks run.mjs to look at the workbench: waits until an element matching
// `selector` whose text contains `text` is on screen (clicking it when
// `click`), or with `absent` checks that none shows up within `timeoutMs`.
// Returns {ok, texts, error}.
async function probe(spec) {
  const n = ++probes;
  const request = path.join(e2eDir, `probe-${n}.json`);
  const answer = path.join(e2eDir, `probe-${n}.result.json`);
  fs.writeFileSync(request, JSON.stringify(spec));
  await until(`the DOM probe ${JSON.stringify(spec)}`, () => fs.existsSync(answer), (spec.timeoutMs ?? 15000) + 30000);
  return JSON.parse(fs.readFileSync(answer, 'utf8'));
}

// Runs a list of tests in order; writes results.json for run.mjs.
function runner(tests, s, finish) {
  return async function run() {
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
        if (!s.api) break;
      }
    }
    if (finish && results.every((r) => r.ok)) {
      try {
        await finish();
      } catch (e) {
        log(`finishing failed: ${e instanceof Error ? e.stack : String(e)}`);
      }
    }
    if (e2eDir) fs.writeFileSync(path.join(e2eDir, 'results.json'), JSON.stringify(results, null, 2));
    const failed = results.filter((r) => !r.ok).length;
    if (failed > 0 || results.length < tests.length)
      throw new Error(`${failed} of ${tests.length} end-to-end tests failed (${results.length} ran)`);
  };
}

Object.assign(exports, { log, until, hoverMarkdown, locate, asLocations, sameFile, describe, findOutputCode, probe, runner, e2eDir });
