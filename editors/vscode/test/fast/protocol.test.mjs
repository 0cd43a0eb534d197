// protocol.test.mjs: src/protocol.ts is held to protocol/inductor-protocol.json,
// the one description of the custom protocol that the server's e2e test
// (tests/e2e/ProtocolSchemaTests.cpp) and the Neovim client's test
// (editors/neovim/tests/protocol_spec.lua) check their sides against; a field
// renamed, made optional or retyped on either side fails here
// (protocolSchema.mjs). So does a command of the description's `commands` that
// protocol.ts's ClientCommands/ServerCommands lack or declare with other
// arguments, and in the extension's sources a client command not registered
// (or registered with a handler not typed by its Arguments type), an
// `inductor.` command registered that is not described, or a command sent that
// is not a server command. The drift cases feed the comparison a mutated
// description, a mutated protocol.ts or a mutated source, to show that it
// catches them.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compareCommandSites, compareProtocol } from './protocolSchema.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../..');
const descriptionPath = path.join(repo, 'protocol', 'inductor-protocol.json');
const protocolTsPath = path.join(repo, 'editors', 'vscode', 'src', 'protocol.ts');
const srcDir = path.dirname(protocolTsPath);
const description = JSON.parse(fs.readFileSync(descriptionPath, 'utf8'));
const source = fs.readFileSync(protocolTsPath, 'utf8');
// The extension's other sources, which register and send the commands.
const sources = Object.fromEntries(
  fs
    .readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts') && f !== 'protocol.ts')
    .map((f) => [f, fs.readFileSync(path.join(srcDir, f), 'utf8')]),
);
// Exported by protocol.ts but not a wire shape of the description: none
// (the client commands' arguments are described under `commands`).
const clientOnly = [];

function compare(d = description, s = source) {
  return compareProtocol(d, s, { clientOnly });
}

function compareSites(d = description, s = source, files = sources) {
  return compareCommandSites(d, s, files);
}

// `sources` with one file's text replaced (`from` must be there).
function withFile(name, from, to) {
  assert.ok(sources[name]?.includes(from), `src/${name} no longer holds ${JSON.stringify(from)}: update the drift case`);
  return { ...sources, [name]: sources[name].replace(from, to) };
}

function mutated(edit) {
  const d = structuredClone(description);
  edit(d);
  return d;
}

function replaced(text, from, to) {
  assert.ok(text.includes(from), `protocol.ts no longer holds ${JSON.stringify(from)}: update the drift case`);
  return text.replace(from, to);
}

function assertFlags(problems, part) {
  assert.ok(
    problems.some((p) => p.includes(part)),
    `expected a problem mentioning ${JSON.stringify(part)}, got:\n  ${problems.join('\n  ')}`,
  );
}

describe('protocol.ts against protocol/inductor-protocol.json', () => {
  test('they agree', () => {
    const problems = compare();
    assert.deepEqual(problems, [], `protocol.ts and ${descriptionPath} disagree:\n  ${problems.join('\n  ')}`);
  });

  test('every request and notification of the description is checked', () => {
    // The comparison found each method (no silent skip): removing one from protocol.ts is a problem.
    for (const method of Object.keys(description.requests)) {
      const s = source.replaceAll(`('${method}')`, `('x/${method}')`).replaceAll(`'${method}',\n`, `'x/${method}',\n`);
      assertFlags(compare(description, s), `${method}: described, but protocol.ts has no new RequestType`);
    }
  });

  test('drift in the description fails: a field renamed, made optional, retyped, an enum value added', () => {
    let d = mutated((x) => {
      const p = x.$defs.Counts.properties;
      p.graphBreak = p.graphBreaks;
      delete p.graphBreaks;
      x.$defs.Counts.required = x.$defs.Counts.required.map((k) => (k === 'graphBreaks' ? 'graphBreak' : k));
    });
    let problems = compare(d);
    assertFlags(problems, 'Counts.graphBreak: in the description, missing in protocol.ts');
    assertFlags(problems, 'Counts.graphBreaks: in protocol.ts, not in the description');

    d = mutated((x) => {
      x.$defs.HotLinesResult.required = x.$defs.HotLinesResult.required.filter((k) => k !== 'basisText');
    });
    assertFlags(compare(d), 'HotLinesResult.basisText: optional in the description, required in protocol.ts');

    d = mutated((x) => {
      x.$defs.Artifact.properties.compileIndex = { type: 'integer' };
    });
    assertFlags(compare(d), "Artifact.compileIndex: the description says `number`, protocol.ts `null | number`");

    d = mutated((x) => {
      x.$defs.Notice.properties.kind.enum.push('noIndex');
    });
    assertFlags(compare(d), 'Notice.kind:');

    d = mutated((x) => {
      x.requests['inductor/hotLines'].result = { $ref: '#/$defs/HotLine' };
    });
    assertFlags(compare(d), 'inductor/hotLines result: the description says `HotLine`, protocol.ts `HotLinesResult`');

    d = mutated((x) => {
      x.$defs.FlakesResult = { type: 'object', properties: { runs: { type: 'array', items: { type: 'string' } } }, additionalProperties: false };
      x.requests['inductor/flakes'] = { params: { $ref: '#/$defs/NoParams' }, result: { $ref: '#/$defs/FlakesResult' } };
    });
    problems = compare(d);
    assertFlags(problems, 'FlakesResult: described in $defs, but protocol.ts exports no type FlakesResult');
    assertFlags(problems, "inductor/flakes: described, but protocol.ts has no new RequestType<…>('inductor/flakes')");
  });

  test('drift in protocol.ts fails: a field renamed, made optional, retyped, a type or method added', () => {
    assertFlags(compare(description, replaced(source, '  basisText: string;', '  basisTxt: string;')),
      'HotLinesResult.basisText: in the description, missing in protocol.ts');
    assertFlags(compare(description, replaced(source, '  waitingRequests: number;', '  waitingRequests?: number;')),
      'StatusResult.waitingRequests: required in the description, optional in protocol.ts');
    assertFlags(compare(description, replaced(source, '  compileIndex: number | null;', '  compileIndex: number;')),
      'Artifact.compileIndex: the description says `null | number`, protocol.ts `number`');
    assertFlags(compare(description, replaced(source, "  languageId: 'python' | 'cpp';\n}\nexport const artifactContentRequest",
      "  languageId: string;\n}\nexport const artifactContentRequest")),
    "ArtifactContentResult.languageId: the description says `'cpp' | 'python'`, protocol.ts `string`");
    assertFlags(compare(description, replaced(source, 'export const statusNotification = new NotificationType<StatusResult>',
      'export const statusNotification = new NotificationType<Partial<StatusResult>>')),
    'inductor/status params: the description says `StatusResult`, protocol.ts `Partial<StatusResult>`');
    assertFlags(compare(description, `${source}\nexport interface FlakesResult { runs: string[] }\n`),
      'FlakesResult: exported by protocol.ts but not in the description');
    assertFlags(compare(description, `${source}\nexport const flakesRequest = new RequestType<NoParams, string[], void>('inductor/flakes');\n`),
      'inductor/flakes: protocol.ts declares a request the description does not have');
  });
});

describe('workspace/executeCommand commands against the description', () => {
  test('protocol.ts declares them as described, and the extension registers and sends them so', () => {
    const problems = compareSites();
    assert.deepEqual(problems, [], `src/*.ts and ${descriptionPath} disagree on commands:\n  ${problems.join('\n  ')}`);
    // Every command of the description is checked (no silent skip): each side's interface has it.
    const commands = Object.entries(description.commands).filter(([, c]) => typeof c === 'object');
    for (const side of ['client', 'server'])
      assert.ok(commands.some(([, c]) => c.side === side), `the description has ${side} commands`);
    for (const [name, c] of commands) {
      const s = source.replace(`  '${name}': `, `  'x.${name}': `);
      assert.notEqual(s, source, `protocol.ts has no key '${name}'`);
      assertFlags(compare(description, s), `${name}: a ${c.side} command in the description, but no key`);
    }
  });

  test('drift in the description fails: a command renamed, added, moved to the other side, an argument retyped', () => {
    let d = mutated((x) => {
      x.commands['inductor.showLocation'] = x.commands['inductor.showLocations'];
      delete x.commands['inductor.showLocations'];
    });
    let problems = compare(d);
    assertFlags(problems, "inductor.showLocation: a client command in the description, but no key of protocol.ts's ClientCommands");
    assertFlags(problems, "inductor.showLocations: a key of protocol.ts's ClientCommands, not a client command of the description");
    assertFlags(problems, "showLocationsCommand: protocol.ts names 'inductor.showLocations', not a command of the description");
    problems = compareSites(d);
    assertFlags(problems, 'inductor.showLocation: a client command of the description, but no source registers it');
    assertFlags(problems, 'inductor.showLocations: commands.ts:');
    assertFlags(problems, 'registers it, but it is not a client command of the description');

    d = mutated((x) => {
      x.commands['inductor.showFlakes'] = { side: 'client', description: 'x', arguments: [{ type: 'string' }] };
    });
    assertFlags(compare(d), "inductor.showFlakes: a client command in the description, but no key of protocol.ts's ClientCommands");
    assertFlags(compareSites(d), 'inductor.showFlakes: a client command of the description, but no source registers it');

    d = mutated((x) => {
      x.commands['inductor.selectRun'].side = 'client';
    });
    assertFlags(compare(d),
      "inductor.selectRun: a client command in the description, but a key of protocol.ts's ServerCommands, not ClientCommands");
    assertFlags(compareSites(d), 'inductor.selectRun: runs.ts:');

    d = mutated((x) => {
      x.commands['inductor.showCompiles'].arguments[2] = { $ref: '#/$defs/Position' };
      x.commands['inductor.showLocations'].arguments[2] = { $ref: '#/$defs/Location' };
      x.commands['inductor.showPrinterEnv'].arguments.push({ type: 'string' });
    });
    problems = compare(d);
    assertFlags(problems,
      'inductor.showCompiles arguments: the description says `[string, Position, Position]`, protocol.ts `[string, Position, CompilesSelection]`');
    assertFlags(problems, 'inductor.showLocations arguments: the description says `[string, Position, Location]`');
    assertFlags(problems,
      'inductor.showPrinterEnv arguments: the description says `[PrinterEnv, string]`, protocol.ts `[PrinterEnv]`');

    // The argument objects are $defs, compared field by field.
    d = mutated((x) => {
      x.$defs.CompilesSelection.required = x.$defs.CompilesSelection.required.filter((k) => k !== 'compileIds');
      x.$defs.PrinterEnv.properties.shellLine = x.$defs.PrinterEnv.properties.shell;
      delete x.$defs.PrinterEnv.properties.shell;
    });
    problems = compare(d);
    assertFlags(problems, 'CompilesSelection.compileIds: optional in the description, required in protocol.ts');
    assertFlags(problems, 'PrinterEnv.shellLine: in the description, missing in protocol.ts');
    assertFlags(problems, 'PrinterEnv.shell: in protocol.ts, not in the description');
  });

  test('drift in protocol.ts fails: a key renamed, an argument retyped or made optional, a stale constant', () => {
    let s = replaced(source, "  'inductor.showLaunchSites': ShowLaunchSitesArguments;", "  'inductor.showLaunchSite': ShowLaunchSitesArguments;");
    assertFlags(compare(description, s),
      "inductor.showLaunchSite: a key of protocol.ts's ClientCommands, not a client command of the description");
    s = replaced(source, 'export type ShowLaunchSitesArguments = [uri: string, position: Position];',
      'export type ShowLaunchSitesArguments = [uri: string, position?: Position];');
    assertFlags(compare(description, s),
      'inductor.showLaunchSites arguments: the description says `[string, Position]`, protocol.ts `[string, Position?]`');
    s = replaced(source, "  'inductor.selectRun': [run: string];", "  'inductor.selectRun': [run: string, force: boolean];");
    assertFlags(compare(description, s), 'inductor.selectRun arguments: the description says `[string]`, protocol.ts `[string, boolean]`');
    s = replaced(source, "export const reindexCommand = 'inductor.reindex';", "export const reindexCommand = 'inductor.reIndex';");
    assertFlags(compare(description, s), "reindexCommand: protocol.ts names 'inductor.reIndex', not a command of the description");
  });

  test('drift in the sources fails: a handler not registered or untyped, a stale name, a client command sent', () => {
    const sites = (...edit) => compareSites(description, source, withFile(...edit));
    assertFlags(sites('runtime.ts', 'registerCommand(\n      showPrinterEnvCommand,', 'registerCommand(\n      openLocationCommand,'),
      'inductor.showPrinterEnv: a client command of the description, but no source registers it');
    assertFlags(sites('compiles.ts', '(...[uri, , selection]: ShowCompilesArguments)',
      '(uri: string, _position: unknown, selection?: { line: number; function: string })'),
    'inductor.showCompiles: compiles.ts:');
    assertFlags(sites('commands.ts', '(client, ...[uri, position]: ShowLaunchSitesArguments)',
      '(client, ...[uri, position]: ShowLocationsArguments)'),
    'registers a handler whose arguments are `...: ShowLocationsArguments`, not `...: ShowLaunchSitesArguments`');
    const problems = sites('commands.ts', "register('inductorLs.showLowered'", "register('inductor.showLowered'");
    assertFlags(problems, 'inductor.showLowered: commands.ts:');
    assertFlags(problems, "writes 'inductor.showLowered'; name the command with protocol.ts's constant");
    assertFlags(sites('runs.ts', 'baseline ? selectBaselineCommand : selectRunCommand', 'baseline ? showCompilesCommand : selectRunCommand'),
      'inductor.showCompiles: runs.ts:');
    assertFlags(sites('commands.ts', 'executeCommandParams(reindexCommand)', '{ command: reindexCommand, arguments: [] }'),
      'workspace/executeCommand with params not made by executeCommandParams');
  });
});
