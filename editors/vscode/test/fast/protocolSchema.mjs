// protocolSchema.mjs: compares src/protocol.ts with protocol/inductor-protocol.json,
// the one description of inductor-ls's custom protocol (its subset of JSON
// Schema: protocol/inductor-protocol.md). protocol.ts is read with the
// TypeScript compiler API, and both sides are written as one canonical type
// text each (unions sorted, `integer` as `number`, objects as `{ a: T; b?: U }`),
// then compared:
//   - each `$defs` entry is an exported interface or type alias of that name in
//     protocol.ts (or one of LSP's types it imports from vscode-languageclient);
//     an object's fields match name by name, with the same optionality (`?`
//     exactly when the description does not require the key) and type;
//   - each exported interface or type alias of protocol.ts is described, unless
//     the caller lists it as client-only;
//   - each described request/notification has its `new RequestType<P, R, E>` /
//     `new NotificationType<P>` with the described params and result, and no
//     other `inductor/` method is declared.
// Returns the problems, each "where: what"; empty when both sides agree.

import ts from 'typescript';

const refPrefix = '#/$defs/';

function union(members) {
  const flat = [...new Set(members.flatMap((m) => splitUnion(m)))].sort();
  return flat.join(' | ');
}

// Splits a canonical type text at its top-level ` | `.
function splitUnion(text) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '(' || c === '<' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === '>' || c === ']') depth--;
    else if (depth === 0 && text.startsWith(' | ', i)) {
      out.push(text.slice(start, i));
      start = i + 3;
      i += 2;
    }
  }
  out.push(text.slice(start));
  return out;
}

function arrayOf(elem) {
  return splitUnion(elem).length > 1 ? `(${elem})[]` : `${elem}[]`;
}

function objectText(fields) {
  const parts = Object.keys(fields)
    .sort()
    .map((k) => `${k}${fields[k].optional ? '?' : ''}: ${fields[k].type}`);
  return parts.length ? `{ ${parts.join('; ')} }` : 'Record<string, never>';
}

function literal(v) {
  if (v === null) return 'null';
  if (typeof v === 'string') return `'${v}'`;
  return String(v);
}

// The canonical type text of a description schema node.
export function schemaType(s) {
  if (s.$ref) return s.$ref.slice(refPrefix.length);
  if (s.anyOf) return union(s.anyOf.map(schemaType));
  if (s.enum) return union(s.enum.map(literal));
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return union(
    types.map((t) => {
      if (t === 'integer' || t === 'number') return 'number';
      if (t === 'array') return arrayOf(s.items ? schemaType(s.items) : 'unknown');
      if (t === 'object') {
        if (s.properties) return objectText(schemaFields(s));
        if (s.additionalProperties && typeof s.additionalProperties === 'object')
          return `Record<string, ${schemaType(s.additionalProperties)}>`;
        return 'Record<string, never>';
      }
      return t;
    }),
  );
}

function schemaFields(s) {
  const required = new Set(s.required ?? []);
  const fields = {};
  for (const [k, v] of Object.entries(s.properties ?? {}))
    fields[k] = { optional: !required.has(k), type: schemaType(v) };
  return fields;
}

// The canonical type text of a TypeScript type node.
function tsType(node, problems, where) {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
      return 'string';
    case ts.SyntaxKind.NumberKeyword:
      return 'number';
    case ts.SyntaxKind.BooleanKeyword:
      return 'boolean';
    case ts.SyntaxKind.NullKeyword:
      return 'null';
    case ts.SyntaxKind.UnknownKeyword:
      return 'unknown';
    case ts.SyntaxKind.NeverKeyword:
      return 'never';
    case ts.SyntaxKind.ParenthesizedType:
      return tsType(node.type, problems, where);
    case ts.SyntaxKind.UnionType:
      return union(node.types.map((t) => tsType(t, problems, where)));
    case ts.SyntaxKind.ArrayType:
      return arrayOf(tsType(node.elementType, problems, where));
    case ts.SyntaxKind.LiteralType: {
      const l = node.literal;
      if (l.kind === ts.SyntaxKind.NullKeyword) return 'null';
      if (l.kind === ts.SyntaxKind.StringLiteral) return `'${l.text}'`;
      if (l.kind === ts.SyntaxKind.NumericLiteral) return l.text;
      if (l.kind === ts.SyntaxKind.TrueKeyword) return 'true';
      if (l.kind === ts.SyntaxKind.FalseKeyword) return 'false';
      break;
    }
    case ts.SyntaxKind.TypeLiteral:
      return objectText(tsFields(node.members, problems, where));
    case ts.SyntaxKind.TypeReference: {
      const name = node.typeName.getText();
      const args = (node.typeArguments ?? []).map((t) => tsType(t, problems, where));
      if (name === 'Array' && args.length === 1) return arrayOf(args[0]);
      return args.length ? `${name}<${args.join(', ')}>` : name;
    }
    default:
      break;
  }
  problems.push(`${where}: protocol.ts writes \`${node.getText()}\`, a type form the comparison does not read`);
  return node.getText();
}

function tsFields(members, problems, where) {
  const fields = {};
  for (const m of members) {
    if (!ts.isPropertySignature(m) || !m.type) {
      problems.push(`${where}: member \`${m.getText()}\` is not a plain field`);
      continue;
    }
    const name = m.name.getText().replace(/^['"]|['"]$/g, '');
    fields[name] = { optional: !!m.questionToken, type: tsType(m.type, problems, `${where}.${name}`) };
  }
  return fields;
}

function isExported(node) {
  return (node.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

// What protocol.ts declares: exported interfaces and type aliases, names it
// imports from vscode-languageclient, and its RequestType/NotificationType
// constants by method.
export function readProtocolTs(source, fileName = 'protocol.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const types = new Map();
  const lspTypes = new Set();
  const methods = { request: new Map(), notification: new Map() };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.moduleSpecifier.text === 'vscode-languageclient') {
      for (const el of node.importClause?.namedBindings?.elements ?? []) lspTypes.add(el.name.text);
    } else if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && isExported(node)) {
      types.set(node.name.text, node);
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const kind = { RequestType: 'request', NotificationType: 'notification' }[node.expression.text];
      const method = node.arguments?.[0];
      if (kind && method && ts.isStringLiteral(method)) methods[kind].set(method.text, node.typeArguments ?? []);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { types, lspTypes, methods };
}

// Compares; `clientOnly`: exported types of protocol.ts that are not wire
// shapes of the description (command arguments, unions of the client's own).
export function compareProtocol(description, source, { clientOnly = [] } = {}) {
  const problems = [];
  const { types, lspTypes, methods } = readProtocolTs(source);
  const defs = description.$defs ?? {};

  for (const [name, schema] of Object.entries(defs)) {
    const node = types.get(name);
    if (!node) {
      if (!lspTypes.has(name))
        problems.push(`${name}: described in $defs, but protocol.ts exports no type ${name} (nor imports it from vscode-languageclient)`);
      continue;
    }
    const isObject = schema.properties !== undefined;
    const members = ts.isInterfaceDeclaration(node)
      ? node.members
      : ts.isTypeLiteralNode(node.type)
        ? node.type.members
        : undefined;
    if (isObject && members) {
      const want = schemaFields(schema);
      const have = tsFields(members, problems, name);
      for (const [k, f] of Object.entries(want)) {
        const h = have[k];
        if (!h) {
          problems.push(`${name}.${k}: in the description, missing in protocol.ts`);
          continue;
        }
        if (h.optional !== f.optional)
          problems.push(
            `${name}.${k}: ${f.optional ? 'optional' : 'required'} in the description, ${h.optional ? 'optional' : 'required'} in protocol.ts`,
          );
        if (h.type !== f.type)
          problems.push(`${name}.${k}: the description says \`${f.type}\`, protocol.ts \`${h.type}\``);
      }
      for (const k of Object.keys(have))
        if (!(k in want)) problems.push(`${name}.${k}: in protocol.ts, not in the description`);
    } else {
      const want = schemaType(schema);
      const have = ts.isTypeAliasDeclaration(node) ? tsType(node.type, problems, name) : objectText(tsFields(node.members, problems, name));
      if (want !== have) problems.push(`${name}: the description says \`${want}\`, protocol.ts \`${have}\``);
    }
  }
  for (const name of types.keys())
    if (!(name in defs) && !clientOnly.includes(name))
      problems.push(`${name}: exported by protocol.ts but not in the description's $defs`);

  for (const [kind, group] of [
    ['request', 'requests'],
    ['notification', 'notifications'],
  ]) {
    const described = description[group] ?? {};
    for (const [method, m] of Object.entries(described)) {
      const args = methods[kind].get(method);
      if (!args) {
        problems.push(`${method}: described, but protocol.ts has no new ${kind === 'request' ? 'RequestType' : 'NotificationType'}<…>('${method}')`);
        continue;
      }
      const parts = kind === 'request' ? [['params', 0], ['result', 1]] : [['params', 0]];
      for (const [part, i] of parts) {
        const want = schemaType(m[part]);
        const have = args[i] ? tsType(args[i], problems, `${method} ${part}`) : '(none)';
        if (want !== have) problems.push(`${method} ${part}: the description says \`${want}\`, protocol.ts \`${have}\``);
      }
    }
    for (const method of methods[kind].keys())
      if (method.startsWith('inductor/') && !(method in described))
        problems.push(`${method}: protocol.ts declares a ${kind} the description does not have`);
  }
  return problems;
}
