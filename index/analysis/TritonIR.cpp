// index/analysis/TritonIR.cpp: line tables of PTX, MLIR (TTIR/TTGIR) and LLVM IR. See TritonIR.h.
#include "index/analysis/TritonIR.h"

#include "index/support/PathNames.h"
#include "index/support/TextLines.h"

#include <cctype>
#include <charconv>
#include <map>
#include <unordered_map>

namespace inductor::index {

namespace {

std::optional<uint32_t> parseUint(std::string_view s) {
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  return v;
}

/// The unsigned number at the start of `s` (after blanks); advances `s` past it.
std::optional<uint32_t> takeUint(std::string_view &s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return std::nullopt;
  s.remove_prefix(b);
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  return v;
}

uint32_t fileIndex(IrLineMap &map, std::unordered_map<std::string, uint32_t> &known, std::string_view path) {
  auto [it, added] = known.emplace(std::string(path), static_cast<uint32_t>(map.files.size()));
  if (added) map.files.emplace_back(path);
  return it->second;
}

} // namespace

std::optional<uint32_t> IrLineMap::fileNamed(std::string_view fileName) const {
  std::string_view want = baseName(fileName);
  for (size_t i = 0; i < files.size(); ++i)
    if (baseName(files[i]) == want) return static_cast<uint32_t>(i);
  return std::nullopt;
}

std::vector<uint32_t> IrLineMap::linesOf(uint32_t file, uint32_t line) const {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < locations.size(); ++i)
    if (code[i] && locations[i].file == file && locations[i].line == line)
      out.push_back(static_cast<uint32_t>(i));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// PTX.

IrLineMap parsePtx(std::string_view text) {
  IrLineMap map;
  map.stage = TritonStage::Ptx;
  TextLines lines = splitLines(text);
  size_t n = lines.size();
  map.locations.resize(n);
  map.code.resize(n);
  // `.file N "path"`: usually after the function, so read first.
  std::map<uint32_t, uint32_t> fileOfNumber;
  std::unordered_map<std::string, uint32_t> known;
  for (size_t i = 0; i < n; ++i) {
    std::string_view t = trim(lines[i]);
    if (t.rfind(".file", 0) != 0 || t.size() < 6 || (t[5] != ' ' && t[5] != '\t')) continue;
    std::string_view rest = t.substr(5);
    auto number = takeUint(rest);
    size_t q = rest.find('"');
    size_t q2 = q == std::string_view::npos ? q : rest.find('"', q + 1);
    if (!number || q2 == std::string_view::npos) continue;
    fileOfNumber[*number] = fileIndex(map, known, rest.substr(q + 1, q2 - q - 1));
  }
  // A file named only in an inlined chain's comment (by its name): matched to a `.file` of that name.
  auto byName = [&](std::string_view name) -> uint32_t {
    for (size_t f = 0; f < map.files.size(); ++f)
      if (baseName(map.files[f]) == name) return static_cast<uint32_t>(f);
    return fileIndex(map, known, name);
  };
  bool inFunction = false, inBody = false;
  IrLocation current;
  for (size_t i = 0; i < n; ++i) {
    std::string_view raw = lines[i];
    std::string_view t = trim(raw);
    if (!inFunction) {
      size_t entry = t.find(".entry ");
      if (entry == std::string_view::npos) entry = t.find(".func ");
      // `.extern .func` declares a function (`__assertfail`) defined elsewhere: no body follows.
      if (entry != std::string_view::npos && t.rfind("//", 0) != 0 &&
          t.find(".extern") == std::string_view::npos) {
        std::string_view rest = t.substr(t.find(' ', entry) + 1);
        size_t b = rest.find_first_not_of(" \t");
        size_t e = rest.find_first_of("( \t", b);
        if (b != std::string_view::npos) {
          std::string_view name =
              rest.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
          uint32_t col = static_cast<uint32_t>(name.data() - raw.data());
          map.functions.push_back(
              {std::string(name), static_cast<uint32_t>(i), col, static_cast<uint32_t>(i)});
          inFunction = true;
          inBody = false;
          current = {};
        }
      }
      continue;
    }
    map.functions.back().endLine = static_cast<uint32_t>(i);
    if (!inBody) {
      if (raw == "{") inBody = true;
      continue;
    }
    if (raw == "}") {
      inFunction = inBody = false;
      continue;
    }
    if (t.rfind(".loc", 0) == 0 && t.size() > 4 && (t[4] == ' ' || t[4] == '\t')) {
      std::string_view rest = t.substr(4);
      auto f = takeUint(rest), l = takeUint(rest), c = takeUint(rest);
      current = {};
      if (f && l) {
        if (auto it = fileOfNumber.find(*f); it != fileOfNumber.end())
          current = {it->second, *l, c.value_or(0)};
        // An inlined chain: `// a.py:1:2 @[ b.py:3:4 @[ k.py:5:6 ] ]`; the last frame is the kernel's.
        size_t comment = rest.find("//");
        size_t at = comment == std::string_view::npos ? comment : rest.rfind("@[");
        if (at != std::string_view::npos && at > comment) {
          std::string_view frame = trim(rest.substr(at + 2));
          frame = frame.substr(0, frame.find_first_of(" \t]"));
          size_t c2 = frame.rfind(':'), c1 = c2 == std::string_view::npos ? c2 : frame.rfind(':', c2 - 1);
          if (c1 != std::string_view::npos) {
            auto fl = parseUint(frame.substr(c1 + 1, c2 - c1 - 1)), fc = parseUint(frame.substr(c2 + 1));
            if (fl) current = {byName(frame.substr(0, c1)), *fl, fc.value_or(0)};
          }
        }
      }
      continue;
    }
    // Code: anything but blanks, comments, directives (`.reg`, `.loc`), labels and braces.
    std::string_view first = t.substr(0, t.find_first_of(" \t"));
    if (t.empty() || t.rfind("//", 0) == 0 || t[0] == '.' || t[0] == '{' || t[0] == '}' ||
        first.back() == ':')
      continue;
    map.code[i] = 1;
    map.locations[i] = current;
  }
  return map;
}

// ---------------------------------------------------------------------------------------------------------
// MLIR.

namespace {

/// A location expression of MLIR: what `loc(` ... `)` holds.
struct MlirLocs {
  IrLineMap &map;
  std::unordered_map<std::string, uint32_t> &known;
  std::unordered_map<std::string_view, std::string_view> aliases; // "#loc3" -> its expression
  std::unordered_map<std::string_view, IrLocation> resolved;

  /// The outermost file location of `expr` (a call site's caller, a fused location's first).
  IrLocation resolve(std::string_view expr, size_t depth = 0) {
    expr = trim(expr);
    if (depth > kMaxLocDepth || expr.empty()) return {};
    if (expr[0] == '#') {
      std::string_view name = expr.substr(0, expr.find_first_of(" \t),]"));
      if (auto it = resolved.find(name); it != resolved.end()) return it->second;
      auto a = aliases.find(name);
      if (a == aliases.end()) return {};
      resolved[name] = {}; // A cycle resolves to nothing.
      IrLocation r = resolve(a->second, depth + 1);
      resolved[name] = r;
      return r;
    }
    if (expr[0] == '"') {
      size_t end = expr.find('"', 1);
      if (end == std::string_view::npos) return {};
      std::string_view str = expr.substr(1, end - 1), rest = expr.substr(end + 1);
      if (!rest.empty() && rest[0] == ':') { // "file":line:col
        rest.remove_prefix(1);
        auto l = takeUint(rest);
        std::optional<uint32_t> c;
        if (!rest.empty() && rest[0] == ':') {
          rest.remove_prefix(1);
          c = takeUint(rest);
        }
        if (!l) return {};
        return {fileIndex(map, known, str), *l, c.value_or(0)};
      }
      if (!rest.empty() && rest[0] == '(') return resolve(rest.substr(1), depth + 1); // "name"(child)
      return {};
    }
    if (expr.rfind("callsite(", 0) == 0) {
      // callsite(CALLEE at CALLER): the caller is where the kernel wrote the call. Find ` at ` at depth 0.
      std::string_view body = expr.substr(9);
      int nesting = 0;
      for (size_t i = 0; i + 4 <= body.size(); ++i) {
        char ch = body[i];
        if (ch == '(' || ch == '[') ++nesting;
        if (ch == ')' || ch == ']') {
          if (nesting == 0) break;
          --nesting;
        }
        if (ch == '"') {
          size_t e = body.find('"', i + 1);
          if (e == std::string_view::npos) break;
          i = e;
          continue;
        }
        if (nesting == 0 && body.substr(i, 4) == " at ") return resolve(body.substr(i + 4), depth + 1);
      }
      return {};
    }
    if (expr.rfind("fused", 0) == 0) {
      size_t open = expr.find('[');
      if (open == std::string_view::npos) return {};
      return resolve(expr.substr(open + 1), depth + 1);
    }
    return {};
  }
};

/// The expression of the last `loc(` of a line (what follows it, up to the line's end).
std::string_view lastLoc(std::string_view line) {
  size_t at = line.rfind("loc(");
  while (at != std::string_view::npos && at > 0 &&
         (isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_' || line[at - 1] == '#'))
    at = at == 0 ? std::string_view::npos : line.rfind("loc(", at - 1);
  if (at == std::string_view::npos) return {};
  return line.substr(at + 4);
}

} // namespace

IrLineMap parseMlir(std::string_view text, TritonStage stage) {
  IrLineMap map;
  map.stage = stage;
  TextLines lines = splitLines(text);
  size_t n = lines.size();
  map.locations.resize(n);
  map.code.resize(n);
  std::unordered_map<std::string, uint32_t> known;
  MlirLocs locs{map, known, {}, {}};
  std::vector<uint8_t> isAlias(n);
  for (size_t i = 0; i < n; ++i) {
    std::string_view t = trim(lines[i]);
    if (t.rfind("#loc", 0) != 0) continue;
    size_t eq = t.find(" = loc(");
    if (eq == std::string_view::npos) continue;
    locs.aliases.emplace(t.substr(0, eq), t.substr(eq + 7));
    isAlias[i] = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (isAlias[i]) continue;
    std::string_view raw = lines[i];
    std::string_view t = trim(raw);
    for (std::string_view head : {"tt.func ", "llvm.func ", "func.func "}) {
      if (t.rfind(head, 0) != 0) continue;
      size_t at = t.find('@');
      if (at == std::string_view::npos) break;
      size_t end = t.find_first_of("( \t", at);
      std::string_view name = t.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
      if (t.size() > at + 1 && t[at + 1] == '"') { // @"quoted.name(1,)"
        size_t close = t.find('"', at + 2);
        if (close == std::string_view::npos) break;
        name = t.substr(at + 2, close - at - 2);
      }
      map.functions.push_back({std::string(name), static_cast<uint32_t>(i),
                               static_cast<uint32_t>(name.data() - raw.data()), static_cast<uint32_t>(i)});
    }
    if (!map.functions.empty() && t.rfind("} loc(", 0) == 0 &&
        map.functions.back().endLine == map.functions.back().line)
      map.functions.back().endLine = static_cast<uint32_t>(i);
    std::string_view expr = lastLoc(t);
    if (expr.empty() || t.rfind("module", 0) == 0 || t.rfind("} loc(", 0) == 0) continue;
    IrLocation l = locs.resolve(expr);
    if (!l.valid()) continue;
    map.locations[i] = l;
    map.code[i] = 1;
  }
  return map;
}

// ---------------------------------------------------------------------------------------------------------
// LLVM IR.

IrLineMap parseLlir(std::string_view text) {
  IrLineMap map;
  map.stage = TritonStage::Llir;
  TextLines lines = splitLines(text);
  size_t n = lines.size();
  map.locations.resize(n);
  map.code.resize(n);
  std::unordered_map<std::string, uint32_t> known;
  // Metadata nodes: `!N = [distinct ]!KIND(fields)`.
  struct Node {
    std::string_view kind, fields;
  };
  std::unordered_map<uint32_t, Node> nodes;
  auto field = [](std::string_view fields, std::string_view name) -> std::string_view {
    size_t at = 0;
    while ((at = fields.find(name, at)) != std::string_view::npos) {
      if (at == 0 || fields[at - 1] == ' ' || fields[at - 1] == '(' || fields[at - 1] == ',') {
        std::string_view v = fields.substr(at + name.size());
        if (!v.empty() && v[0] == '"') {
          size_t e = v.find('"', 1);
          return e == std::string_view::npos ? std::string_view() : v.substr(0, e + 1);
        }
        return v.substr(0, v.find_first_of(",)"));
      }
      at += name.size();
    }
    return {};
  };
  auto nodeRef = [](std::string_view v) -> std::optional<uint32_t> {
    v = trim(v);
    if (v.size() < 2 || v[0] != '!') return std::nullopt;
    return parseUint(v.substr(1));
  };
  for (size_t i = 0; i < n; ++i) {
    std::string_view t = trim(lines[i]);
    if (t.size() < 2 || t[0] != '!' || !isdigit(static_cast<unsigned char>(t[1]))) continue;
    size_t eq = t.find(" = ");
    if (eq == std::string_view::npos) continue;
    auto id = parseUint(t.substr(1, eq - 1));
    std::string_view rest = t.substr(eq + 3);
    if (rest.rfind("distinct ", 0) == 0) rest.remove_prefix(9);
    size_t open = rest.find('(');
    if (!id || rest.empty() || rest[0] != '!' || open == std::string_view::npos) continue;
    nodes[*id] = {rest.substr(1, open - 1), rest.substr(open + 1)};
  }
  auto unquote = [](std::string_view v) {
    return v.size() >= 2 && v[0] == '"' ? v.substr(1, v.size() - 2) : v;
  };
  std::unordered_map<uint32_t, uint32_t> fileOfScope;
  auto scopeFile = [&](uint32_t scope) -> std::optional<uint32_t> {
    if (auto it = fileOfScope.find(scope); it != fileOfScope.end()) return it->second;
    auto s = nodes.find(scope);
    if (s == nodes.end()) return std::nullopt;
    auto f = nodeRef(field(s->second.fields, "file: "));
    auto fn = f ? nodes.find(*f) : nodes.end();
    if (fn == nodes.end() || fn->second.kind != "DIFile") return std::nullopt;
    std::string name(unquote(field(fn->second.fields, "filename: ")));
    std::string_view dir = unquote(field(fn->second.fields, "directory: "));
    if (!name.empty() && name[0] != '/' && !dir.empty()) name = std::string(dir) + "/" + name;
    uint32_t idx = fileIndex(map, known, name);
    fileOfScope[scope] = idx;
    return idx;
  };
  std::unordered_map<uint32_t, IrLocation> resolved;
  auto location = [&](uint32_t id) -> IrLocation {
    if (auto it = resolved.find(id); it != resolved.end()) return it->second;
    // Follow inlinedAt to the outermost DILocation: where the kernel called the inlined helper.
    uint32_t at = id;
    for (size_t depth = 0; depth < kMaxLocDepth; ++depth) {
      auto node = nodes.find(at);
      if (node == nodes.end() || node->second.kind != "DILocation") break;
      auto next = nodeRef(field(node->second.fields, "inlinedAt: "));
      if (!next) break;
      at = *next;
    }
    IrLocation r;
    auto node = nodes.find(at);
    if (node != nodes.end() && node->second.kind == "DILocation") {
      auto l = parseUint(trim(field(node->second.fields, "line: ")));
      auto c = parseUint(trim(field(node->second.fields, "column: ")));
      auto s = nodeRef(field(node->second.fields, "scope: "));
      std::optional<uint32_t> f = s ? scopeFile(*s) : std::nullopt;
      if (l && f) r = {*f, *l, c.value_or(0)};
    }
    resolved[id] = r;
    return r;
  };
  for (size_t i = 0; i < n; ++i) {
    std::string_view raw = lines[i];
    std::string_view t = trim(raw);
    if (t.rfind("define ", 0) == 0) {
      size_t at = t.find('@');
      size_t end = at == std::string_view::npos ? at : t.find('(', at);
      if (end != std::string_view::npos)
        map.functions.push_back({std::string(t.substr(at + 1, end - at - 1)), static_cast<uint32_t>(i),
                                 static_cast<uint32_t>(t.data() - raw.data() + at + 1),
                                 static_cast<uint32_t>(i)});
      continue;
    }
    if (t == "}" && !map.functions.empty()) map.functions.back().endLine = static_cast<uint32_t>(i);
    size_t dbg = t.rfind("!dbg !");
    if (dbg == std::string_view::npos || t[0] == '!') continue;
    auto id = parseUint(t.substr(dbg + 6));
    if (!id) continue;
    IrLocation l = location(*id);
    if (!l.valid()) continue;
    map.locations[i] = l;
    map.code[i] = 1;
  }
  return map;
}

IrLineMap parseTritonIr(TritonStage stage, std::string_view text) {
  switch (stage) {
  case TritonStage::Ptx:
    return parsePtx(text);
  case TritonStage::Llir:
    return parseLlir(text);
  case TritonStage::Source:
  case TritonStage::Ttir:
  case TritonStage::Ttgir:
    return parseMlir(text, stage);
  case TritonStage::Cubin:
    break;
  }
  IrLineMap empty;
  empty.stage = stage;
  return empty;
}

} // namespace inductor::index
