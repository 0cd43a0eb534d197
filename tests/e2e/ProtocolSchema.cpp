#include "e2e/ProtocolSchema.h"

#include "e2e/TraceOracle.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>

namespace inductor::e2e {

namespace {

const std::string kRefPrefix = "#/$defs/";

/// Keywords of the subset, per place: a schema node, the file's top level, a method.
const std::set<std::string> kSchemaKeywords = {
    "type",        "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$ref",
    "description", "$comment",   "title"};
const std::set<std::string> kTopKeywords = {
    "$schema", "$comment", "title", "requests", "notifications", "commands", "initializationOptions",
    "$defs"};
const std::set<std::string> kTypes = {"null", "boolean", "integer", "number", "string", "array", "object"};

std::string show(const json &v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

bool hasType(const json &v, const std::string &type) {
  if (type == "null") return v.is_null();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}

const json *resolve(const json &description, const std::string &ref) {
  if (ref.rfind(kRefPrefix, 0) != 0) return nullptr;
  std::string name = ref.substr(kRefPrefix.size());
  auto defs = description.find("$defs");
  if (defs == description.end() || !defs->contains(name)) return nullptr;
  return &(*defs)[name];
}

void checkSchema(const json &description, const json &s, const std::string &where,
                 std::vector<std::string> &out) {
  if (!s.is_object()) return out.push_back(where + ": a schema must be an object");
  for (const auto &[k, v] : s.items())
    if (!kSchemaKeywords.count(k)) out.push_back(where + ": keyword `" + k + "` is outside the subset");
  if (auto r = s.find("$ref"); r != s.end()) {
    if (!r->is_string() || !resolve(description, r->get<std::string>()))
      out.push_back(where + ": $ref " + show(*r) + " does not name a $defs entry");
    for (const auto &[k, v] : s.items())
      if (k != "$ref" && k != "description" && k != "$comment")
        out.push_back(where + ": `" + k + "` beside $ref");
  }
  if (auto t = s.find("type"); t != s.end()) {
    json types = t->is_array() ? *t : json::array({*t});
    for (const json &one : types)
      if (!one.is_string() || !kTypes.count(one.get<std::string>()))
        out.push_back(where + ": unknown type " + show(one));
  }
  if (auto e = s.find("enum"); e != s.end() && (!e->is_array() || e->empty()))
    out.push_back(where + ": enum must be a non-empty array");
  if (auto a = s.find("anyOf"); a != s.end()) {
    if (!a->is_array() || a->size() < 2)
      out.push_back(where + ": anyOf must list at least two schemas");
    else
      for (size_t i = 0; i < a->size(); ++i)
        checkSchema(description, (*a)[i], where + ".anyOf[" + std::to_string(i) + "]", out);
  }
  if (auto p = s.find("properties"); p != s.end()) {
    if (!p->is_object())
      out.push_back(where + ": properties must be an object");
    else
      for (const auto &[k, v] : p->items())
        checkSchema(description, v, where + "." + k, out);
    if (!s.contains("additionalProperties"))
      out.push_back(where + ": an object with properties must say additionalProperties");
    if (auto r = s.find("required"); r != s.end())
      for (const json &k : *r)
        if (!k.is_string() || !p->contains(k.get<std::string>()))
          out.push_back(where + ": required " + show(k) + " is not a property");
  }
  if (auto a = s.find("additionalProperties"); a != s.end() && !a->is_boolean())
    checkSchema(description, *a, where + ".additionalProperties", out);
  if (auto i = s.find("items"); i != s.end()) checkSchema(description, *i, where + "[]", out);
  if (!s.contains("type") && !s.contains("enum") && !s.contains("anyOf") && !s.contains("$ref"))
    out.push_back(where + ": says neither type, enum, anyOf nor $ref");
}

struct Validator {
  const json &description;
  std::set<std::string> *seen;
  std::vector<std::string> out;

  void walk(const json &s, const json &v, const std::string &path, const std::string &def = "") {
    if (auto r = s.find("$ref"); r != s.end()) {
      const json *target = resolve(description, r->get<std::string>());
      if (!target) return out.push_back(path + ": the description's $ref " + show(*r) + " does not resolve");
      return walk(*target, v, path, r->get<std::string>().substr(kRefPrefix.size()));
    }
    if (auto a = s.find("anyOf"); a != s.end()) {
      std::vector<std::string> why;
      for (const json &branch : *a) {
        Validator one{description, nullptr, {}};
        one.walk(branch, v, path);
        if (one.out.empty()) return walk(branch, v, path); // Again, to record what it saw.
        why.push_back(one.out.front());
      }
      std::string text = path + ": " + show(v) + " matches no anyOf branch (";
      for (size_t i = 0; i < why.size(); ++i)
        text += (i ? "; " : "") + why[i];
      return out.push_back(text + ")");
    }
    if (auto e = s.find("enum"); e != s.end()) {
      if (std::find(e->begin(), e->end(), v) == e->end())
        out.push_back(path + ": " + show(v) + " is not one of " + show(*e));
      return;
    }
    if (auto t = s.find("type"); t != s.end()) {
      json types = t->is_array() ? *t : json::array({*t});
      bool ok = std::any_of(types.begin(), types.end(),
                            [&](const json &one) { return hasType(v, one.get<std::string>()); });
      if (!ok) return out.push_back(path + ": " + show(v) + " is not of type " + show(*t));
    }
    if (v.is_object()) {
      const json noProperties = json::object();
      auto p = s.find("properties");
      const json &props = p != s.end() ? *p : noProperties;
      if (auto r = s.find("required"); r != s.end())
        for (const json &k : *r)
          if (!v.contains(k.get<std::string>()))
            out.push_back(path + ": missing required key `" + k.get<std::string>() + "`");
      auto extra = s.find("additionalProperties");
      for (const auto &[k, item] : v.items()) {
        std::string at = path + "." + k;
        if (auto it = props.find(k); it != props.end()) {
          // Seen only with a value: a key that is null in every answer checked would prove nothing.
          if (seen && !def.empty() && !item.is_null()) seen->insert(def + "." + k);
          walk(*it, item, at);
        } else if (extra != s.end() && extra->is_object()) {
          walk(*extra, item, at);
        } else if (extra == s.end() || *extra == false) {
          out.push_back(path + ": unexpected key `" + k + "` (not in protocol/inductor-protocol.json)");
        }
      }
    }
    if (v.is_array())
      if (auto items = s.find("items"); items != s.end())
        for (size_t i = 0; i < v.size(); ++i)
          walk(*items, v[i], path + "[" + std::to_string(i) + "]");
  }
};

} // namespace

json loadProtocolDescription() {
  std::string path = std::string(INDUCTOR_SOURCE_DIR) + "/protocol/inductor-protocol.json";
  json description = json::parse(readFile(path), nullptr, /*allow_exceptions=*/false);
  REQUIRE_MESSAGE(description.is_object(), path << " is not a JSON object");
  return description;
}

std::vector<std::string> checkDescription(const json &d) {
  std::vector<std::string> out;
  if (!d.is_object()) return {"the description is not an object"};
  for (const auto &[k, v] : d.items())
    if (!kTopKeywords.count(k)) out.push_back("top level: `" + k + "` is not part of the description");
  for (const char *group : {"requests", "notifications"}) {
    if (!d.contains(group) || !d[group].is_object()) {
      out.push_back(std::string(group) + ": missing");
      continue;
    }
    for (const auto &[method, m] : d[group].items()) {
      if (method.rfind("inductor/", 0) != 0) out.push_back(method + ": not an inductor/ method");
      for (const auto &[k, v] : m.items())
        if (k != "params" && k != "result" && k != "description")
          out.push_back(method + ": `" + k + "` is neither params, result nor description");
      if (!m.contains("params"))
        out.push_back(method + ": no params");
      else
        checkSchema(d, m["params"], method + " params", out);
      if (std::string(group) == "requests") {
        if (!m.contains("result"))
          out.push_back(method + ": a request without result");
        else
          checkSchema(d, m["result"], method + " result", out);
      } else if (m.contains("result")) {
        out.push_back(method + ": a notification has no result");
      }
    }
  }
  if (!d.contains("commands") || !d["commands"].is_object()) {
    out.push_back("commands: missing");
  } else {
    for (const auto &[name, c] : d["commands"].items()) {
      if (name == "$comment") continue;
      if (name.rfind("inductor.", 0) != 0) out.push_back(name + ": not an inductor. command");
      for (const auto &[k, v] : c.items())
        if (k != "side" && k != "arguments" && k != "description")
          out.push_back(name + ": `" + k + "` is neither side, arguments nor description");
      if (!c.contains("side") || (c["side"] != "server" && c["side"] != "client"))
        out.push_back(name + ": side must be \"server\" or \"client\"");
      if (!c.contains("arguments") || !c["arguments"].is_array()) {
        out.push_back(name + ": arguments must be an array of schemas");
        continue;
      }
      for (size_t i = 0; i < c["arguments"].size(); ++i)
        checkSchema(d, c["arguments"][i], name + " arguments[" + std::to_string(i) + "]", out);
    }
  }
  if (!d.contains("initializationOptions"))
    out.push_back("initializationOptions: missing");
  else
    checkSchema(d, d["initializationOptions"], "initializationOptions", out);
  if (d.contains("$defs"))
    for (const auto &[name, s] : d["$defs"].items())
      checkSchema(d, s, "$defs." + name, out);
  return out;
}

std::vector<std::string> validateValue(const json &description, const json &schema, const json &value,
                                       const std::string &where, std::set<std::string> *seen) {
  Validator v{description, seen, {}};
  v.walk(schema, value, where);
  return std::move(v.out);
}

std::vector<std::string> validateCommand(const json &description, const json &command,
                                         const std::string &where, std::set<std::string> *seen) {
  std::vector<std::string> out;
  if (!command.is_object() || !command.contains("command") || !command["command"].is_string())
    return {where + ": not a Command: " + show(command)};
  std::string name = command["command"].get<std::string>();
  const json &commands = description["commands"];
  if (!commands.contains(name)) return {where + ": command `" + name + "` is not described"};
  const json &described = commands[name]["arguments"];
  json args = command.value("arguments", json::array());
  if (!args.is_array()) return {where + ".arguments: not an array"};
  if (args.size() != described.size())
    out.push_back(where + ".arguments: " + std::to_string(args.size()) + " for `" + name + "`, described " +
                  std::to_string(described.size()));
  for (size_t i = 0; i < std::min(args.size(), described.size()); ++i) {
    std::vector<std::string> p = validateValue(description, described[i], args[i],
                                               where + ".arguments[" + std::to_string(i) + "]", seen);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

std::set<std::string> reachableProperties(const json &description, const json &schema) {
  std::set<std::string> out, visited;
  std::function<void(const json &, const std::string &)> visit = [&](const json &s, const std::string &def) {
    if (!s.is_object()) return;
    if (auto r = s.find("$ref"); r != s.end()) {
      std::string name = r->get<std::string>().substr(kRefPrefix.size());
      if (!visited.insert(name).second) return;
      if (const json *target = resolve(description, r->get<std::string>())) visit(*target, name);
      return;
    }
    if (auto p = s.find("properties"); p != s.end())
      for (const auto &[k, v] : p->items()) {
        if (!def.empty()) out.insert(def + "." + k);
        visit(v, "");
      }
    for (const char *key : {"items", "additionalProperties"})
      if (auto it = s.find(key); it != s.end()) visit(*it, "");
    if (auto a = s.find("anyOf"); a != s.end())
      for (const json &b : *a)
        visit(b, "");
  };
  visit(schema, "");
  return out;
}

} // namespace inductor::e2e
