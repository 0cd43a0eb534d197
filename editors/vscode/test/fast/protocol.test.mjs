// protocol.test.mjs: src/protocol.ts is held to protocol/inductor-protocol.json,
// the one description of the custom protocol that the server's e2e test
// (tests/e2e/ProtocolSchemaTests.cpp) and the Neovim client's test
// (editors/neovim/tests/protocol_spec.lua) check their sides against; a field
// renamed, made optional or retyped on either side fails here
// (protocolSchema.mjs). The drift cases feed the comparison a mutated
// description or a mutated protocol.ts, to show that it catches them.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compareProtocol } from './protocolSchema.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../..');
const descriptionPath = path.join(repo, 'protocol', 'inductor-protocol.json');
const protocolTsPath = path.join(repo, 'editors', 'vscode', 'src', 'protocol.ts');
const description = JSON.parse(fs.readFileSync(descriptionPath, 'utf8'));
const source = fs.readFileSync(protocolTsPath, 'utf8');
// Exported by protocol.ts but not a wire shape of the description: none
// (the client commands' arguments are described under `commands`).
const clientOnly = [];

function compare(d = description, s = source) {
  return compareProtocol(d, s, { clientOnly });
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
