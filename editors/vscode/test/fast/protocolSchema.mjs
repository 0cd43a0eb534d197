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
//     other `inductor/` method is declared;
//   - each described command (workspace/executeCommand) is a key of the
//     interface ClientCommands or ServerCommands, as its `side` says, whose
//     type (a tuple, or an exported alias of one) has the described
//     `arguments`, position by position; neither interface has another key,
//     and each `export const` naming an `inductor.` command names one of them.
// compareCommandSites then holds the extension's sources to those interfaces:
// every client command registered, with its handler's parameters typed by its
// Arguments type, no other `inductor.` command registered, and every server
// command sent through executeCommandParams.
// Both return the problems, each "where: what"; empty when both sides agree.

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
    // Tuples (command arguments): `[T, U?, ...V[]]`; the names of named members are not compared.
    case ts.SyntaxKind.TupleType:
      return `[${node.elements.map((e) => tsType(e, problems, where)).join(', ')}]`;
    case ts.SyntaxKind.NamedTupleMember:
      return `${node.dotDotDotToken ? '...' : ''}${tsType(node.type, problems, where)}${node.questionToken ? '?' : ''}`;
    case ts.SyntaxKind.OptionalType:
      return `${tsType(node.type, problems, where)}?`;
    case ts.SyntaxKind.RestType:
      return `...${tsType(node.type, problems, where)}`;
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
// imports from vscode-languageclient, its RequestType/NotificationType
// constants by method, and its exported string constants (command names).
export function readProtocolTs(source, fileName = 'protocol.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const types = new Map();
  const lspTypes = new Set();
  const methods = { request: new Map(), notification: new Map() };
  const constants = new Map();
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.moduleSpecifier.text === 'vscode-languageclient') {
      for (const el of node.importClause?.namedBindings?.elements ?? []) lspTypes.add(el.name.text);
    } else if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && isExported(node)) {
      types.set(node.name.text, node);
    } else if (ts.isVariableStatement(node) && isExported(node)) {
      for (const d of node.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer && ts.isStringLiteral(d.initializer))
          constants.set(d.name.text, d.initializer.text);
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const kind = { RequestType: 'request', NotificationType: 'notification' }[node.expression.text];
      const method = node.arguments?.[0];
      if (kind && method && ts.isStringLiteral(method)) methods[kind].set(method.text, node.typeArguments ?? []);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { types, lspTypes, methods, constants };
}

// The description's commands (its `$comment` aside).
function describedCommands(description) {
  return Object.entries(description.commands ?? {}).filter(([, c]) => typeof c === 'object' && c !== null);
}

const commandInterfaces = { client: 'ClientCommands', server: 'ServerCommands' };

// protocol.ts's commands, per side: name → { type (the member's type node),
// alias (the exported type alias it names, if it names one) }.
export function readCommandTypes(types) {
  const out = { client: new Map(), server: new Map() };
  for (const [side, name] of Object.entries(commandInterfaces)) {
    const node = types.get(name);
    if (!node || !ts.isInterfaceDeclaration(node)) continue;
    for (const m of node.members) {
      if (!ts.isPropertySignature(m) || !m.type) continue;
      const alias = ts.isTypeReferenceNode(m.type) ? m.type.typeName.getText() : undefined;
      out[side].set(m.name.getText().replace(/^['"]|['"]$/g, ''), { type: m.type, alias });
    }
  }
  return out;
}

function compareCommands(description, { types, constants }, problems) {
  const declared = readCommandTypes(types);
  for (const [side, name] of Object.entries(commandInterfaces))
    if (!types.has(name)) problems.push(`${name}: protocol.ts exports no interface ${name} (the ${side} commands)`);
  const described = new Map(describedCommands(description));
  for (const [command, c] of described) {
    const mine = declared[c.side]?.get(command);
    if (!mine) {
      const want = commandInterfaces[c.side] ?? `${c.side} commands`;
      const other = Object.entries(commandInterfaces).find(([side]) => side !== c.side && declared[side].has(command));
      problems.push(
        `${command}: a ${c.side} command in the description, but ` +
          (other ? `a key of protocol.ts's ${other[1]}, not ${want}` : `no key of protocol.ts's ${want}`),
      );
      continue;
    }
    const want = `[${(c.arguments ?? []).map(schemaType).join(', ')}]`;
    let node = mine.type;
    if (mine.alias) {
      const aliased = types.get(mine.alias);
      if (!aliased || !ts.isTypeAliasDeclaration(aliased)) {
        problems.push(`${command} arguments: protocol.ts exports no type alias ${mine.alias}`);
        continue;
      }
      node = aliased.type;
    }
    const have = tsType(node, problems, `${command} arguments`);
    if (want !== have) problems.push(`${command} arguments: the description says \`${want}\`, protocol.ts \`${have}\``);
  }
  for (const [side, byName] of Object.entries(declared))
    for (const command of byName.keys())
      if (described.get(command)?.side !== side)
        problems.push(`${command}: a key of protocol.ts's ${commandInterfaces[side]}, not a ${side} command of the description`);
  for (const [name, value] of constants)
    if (value.startsWith('inductor.') && !described.has(value))
      problems.push(`${name}: protocol.ts names '${value}', not a command of the description`);
  return declared;
}

// Compares; `clientOnly`: exported types of protocol.ts that are not wire
// shapes of the description (command arguments, unions of the client's own).
export function compareProtocol(description, source, { clientOnly = [] } = {}) {
  const problems = [];
  const read = readProtocolTs(source);
  const { types, lspTypes, methods } = read;
  const defs = description.$defs ?? {};
  // The command interfaces and the aliases they name are compared with `commands`, not `$defs`.
  const declared = compareCommands(description, read, problems);
  const commandTypes = new Set([
    ...Object.values(commandInterfaces),
    ...[...declared.client.values(), ...declared.server.values()].map((c) => c.alias).filter(Boolean),
  ]);

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
    if (!(name in defs) && !clientOnly.includes(name) && !commandTypes.has(name))
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

// The string a command-name expression of the sources stands for: a literal, or
// a constant protocol.ts exports; each branch of a conditional. Unknown: [].
function commandNames(node, constants) {
  if (ts.isStringLiteralLike(node)) return [node.text];
  if (ts.isIdentifier(node)) return constants.has(node.text) ? [constants.get(node.text)] : [];
  if (ts.isParenthesizedExpression(node)) return commandNames(node.expression, constants);
  if (ts.isConditionalExpression(node))
    return [...commandNames(node.whenTrue, constants), ...commandNames(node.whenFalse, constants)];
  return [];
}

// The function that runs a command: `body`, or the last function among the
// arguments of a wrapper call (`guarded(name, body)`).
function handlerOf(node) {
  if (!node) return undefined;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return node;
  if (ts.isCallExpression(node)) return handlerOf(node.arguments[node.arguments.length - 1]);
  return undefined;
}

// Holds the extension's sources (`sources`: file name → text, protocol.ts
// aside) to protocol.ts's command interfaces and the description:
//   - a call `registerCommand(id, …)` or `register(id, …)` whose id is an
//     `inductor.` command registers a client command of the description, with a
//     handler (its last argument, or the last one of a wrapper call there)
//     whose last parameter is `...args: A`, A the command's type in
//     ClientCommands; each client command of the description is registered;
//   - `executeCommandParams(id, …)` sends a server command of the description,
//     and workspace/executeCommand is sent with nothing else
//     (`sendRequest(ExecuteCommandRequest.type, executeCommandParams(…))`);
//   - no source writes an `inductor.` command name itself (protocol.ts's
//     constants say it).
export function compareCommandSites(description, protocolSource, sources) {
  const problems = [];
  const { types, constants } = readProtocolTs(protocolSource);
  const declared = readCommandTypes(types);
  const described = new Map(describedCommands(description));
  const registered = new Map();
  for (const [fileName, text] of Object.entries(sources)) {
    const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
    const at = (node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node) => {
      if (ts.isStringLiteralLike(node) && node.text.startsWith('inductor.'))
        problems.push(`${at(node)}: writes '${node.text}'; name the command with protocol.ts's constant`);
      if (ts.isStringLiteralLike(node) && node.text === 'workspace/executeCommand')
        problems.push(`${at(node)}: workspace/executeCommand by name; send ExecuteCommandRequest.type with executeCommandParams`);
      if (ts.isCallExpression(node)) {
        const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : node.expression.getText();
        const [first] = node.arguments;
        if ((callee === 'registerCommand' || callee === 'register') && first) {
          for (const command of commandNames(first, constants).filter((n) => n.startsWith('inductor.'))) {
            registered.set(command, at(node));
            const c = described.get(command);
            if (c?.side !== 'client') {
              problems.push(`${command}: ${at(node)} registers it, but it is not a client command of the description`);
              continue;
            }
            const alias = declared.client.get(command)?.alias ?? `ClientCommands['${command}']`;
            const handler = handlerOf(node.arguments[node.arguments.length - 1]);
            const last = handler?.parameters[handler.parameters.length - 1];
            const typed = last?.dotDotDotToken && last.type ? last.type.getText().replace(/"/g, "'") : undefined;
            if (typed !== alias && typed !== `ClientCommands['${command}']`) {
              const what = typed ? `\`...: ${typed}\`` : 'not a rest parameter';
              problems.push(`${command}: ${at(node)} registers a handler whose arguments are ${what}, not \`...: ${alias}\``);
            }
          }
        }
        if (callee === 'executeCommandParams' && first) {
          const names = commandNames(first, constants);
          if (names.length === 0)
            problems.push(`${at(node)}: executeCommandParams of \`${first.getText()}\`, not a command constant of protocol.ts`);
          for (const command of names)
            if (described.get(command)?.side !== 'server')
              problems.push(`${command}: ${at(node)} sends it, but it is not a server command of the description`);
        }
        if (callee.endsWith('sendRequest') && first?.getText() === 'ExecuteCommandRequest.type') {
          const params = node.arguments[1];
          const ok = params && ts.isCallExpression(params) && params.expression.getText() === 'executeCommandParams';
          if (!ok) problems.push(`${at(node)}: workspace/executeCommand with params not made by executeCommandParams`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  for (const [command, c] of described)
    if (c.side === 'client' && !registered.has(command))
      problems.push(`${command}: a client command of the description, but no source registers it`);
  return problems;
}
