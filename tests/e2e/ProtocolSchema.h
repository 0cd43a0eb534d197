// tests/e2e/ProtocolSchema.h: a small validator of JSON values against protocol/inductor-protocol.json, the
// one description of inductor-ls's custom protocol (its subset of JSON Schema is in
// protocol/inductor-protocol.md). Used by ProtocolSchemaTests.cpp to hold the server's answers to it; the
// editors' tests hold protocol.ts and the Lua client to the same file.
#pragma once

#include "e2e/LSPClient.h"

#include <set>
#include <string>
#include <vector>

namespace inductor::e2e {

/// The description as committed (INDUCTOR_SOURCE_DIR/protocol/inductor-protocol.json). A file that does not
/// parse fails the current test.
json loadProtocolDescription();

/// Problems of the description itself, each "where: what": a keyword outside the subset, a `$ref` that does
/// not resolve, an object schema that does not say `additionalProperties`, a required key it does not list, a
/// method without params. Empty when the description is usable.
std::vector<std::string> checkDescription(const json &description);

/// Validates `value` against `schema` (a node of `description`; `$ref`s are `#/$defs/Name` into it).
/// Returns every problem, each "path: what" where path is `where` followed by the keys and indices walked
/// (`inductor/compiles result.frames[2].compiles[0].events[1].severity: 2.5 is not of type integer`): a
/// missing required key, a key the object does not describe, a wrong type, a value outside its enum, an
/// anyOf that no branch matches. `seen`, when given, receives "Def.key" for each property of a `$defs`
/// object found present in the value (to tell which described keys a run exercised).
std::vector<std::string> validateValue(const json &description, const json &schema, const json &value,
                                       const std::string &where, std::set<std::string> *seen = nullptr);

/// "Def.key" of every property of every object in `$defs` reachable from `schema`.
/// A Command (a code lens's or code action's) against `commands` of the description: a described name, as
/// many arguments as described, each valid; problems as validateValue's.
std::vector<std::string> validateCommand(const json &description, const json &command,
                                         const std::string &where, std::set<std::string> *seen = nullptr);

std::set<std::string> reachableProperties(const json &description, const json &schema);

} // namespace inductor::e2e
