// index/analysis/TritonIR.cpp: line tables of PTX, MLIR (TTIR/TTGIR) and LLVM IR. See TritonIR.h.
#include "index/analysis/TritonIR.h"

#include "index/support/PathNames.h"
#include "index/support/TextLines.h" // trim

#include <algorithm>
#include <cctype>
#include <charconv>
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

/// Calls `f(index, line)` for each line of `text` (as splitLines cuts them: without the terminator and a
/// '\r' before it; no empty line after a final terminator) until `f` returns false; returns the lines seen.
/// No table of lines is made: an IR file of millions of lines costs nothing per line kept.
template <typename F> uint32_t forEachLine(std::string_view text, F &&f) {
  uint32_t i = 0;
  size_t p = 0;
  while (p < text.size()) {
    size_t nl = text.find('\n', p);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(p, end - p);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!f(i, line)) return i + 1;
    ++i;
    if (nl == std::string_view::npos) break;
    p = nl + 1;
  }
  return i;
}

std::string withCommas(size_t n) {
  std::string s = std::to_string(n);
  for (size_t i = s.size(); i > 3; i -= 3)
    s.insert(i - 3, ",");
  return s;
}

/// The tables of one parse and their bounds (IrLimits): every addition goes through here, and the first one
/// past a limit sets the map's error (the parse then stops).
class Builder {
public:
  Builder(IrLineMap &map, const IrLimits &limits) : map_(map), limits_(limits) {}

  bool failed() const { return !map_.error.empty(); }
  void fail(std::string why) {
    if (map_.error.empty()) map_.error = std::move(why);
  }

  /// The index of a source file by its recorded path; UINT32_MAX (and the error) past the limits.
  uint32_t file(std::string_view path) {
    if (auto it = known_.find(std::string(path)); it != known_.end()) return it->second;
    if (path.size() > limits_.maxNameBytes) {
      fail("a source file name longer than " + withCommas(limits_.maxNameBytes) + " bytes");
      return UINT32_MAX;
    }
    if (map_.files.size() >= limits_.maxFiles) {
      fail("more than " + withCommas(limits_.maxFiles) + " source files");
      return UINT32_MAX;
    }
    auto index = static_cast<uint32_t>(map_.files.size());
    map_.files.emplace_back(path);
    known_.emplace(std::string(path), index);
    byBaseName_.try_emplace(std::string(baseName(path)), index); // The first file of a name answers.
    return index;
  }

  /// The file whose name (last component) is `name`, else `name` itself as a file: for names written
  /// without their directory (a PTX `.loc` comment's inlined chain). A map lookup, not a scan of the files.
  uint32_t fileByName(std::string_view name) {
    if (auto it = byBaseName_.find(std::string(name)); it != byBaseName_.end()) return it->second;
    return file(name);
  }

  /// Records a located code line (nothing for an invalid location).
  void code(uint32_t line, const IrLocation &l) {
    if (!l.valid() || failed()) return;
    if (map_.code.size() >= limits_.maxCodeLines) {
      fail("more than " + withCommas(limits_.maxCodeLines) + " located code lines");
      return;
    }
    map_.code.push_back({line, l});
  }

  /// Records a location directive's own line (a PTX `.loc`), under the same limit as the code lines.
  void directive(uint32_t line, const IrLocation &l) {
    if (!l.valid() || failed()) return;
    if (map_.code.size() + map_.directives.size() >= limits_.maxCodeLines) {
      fail("more than " + withCommas(limits_.maxCodeLines) + " located code lines");
      return;
    }
    map_.directives.push_back({line, l});
  }

  /// Adds a function; false (and the error) past the limits.
  bool function(std::string_view name, uint32_t line, uint32_t column) {
    if (name.size() > limits_.maxNameBytes) {
      fail("a function name longer than " + withCommas(limits_.maxNameBytes) + " bytes");
      return false;
    }
    if (map_.functions.size() >= limits_.maxFunctions) {
      fail("more than " + withCommas(limits_.maxFunctions) + " functions");
      return false;
    }
    map_.functions.push_back({std::string(name), line, column, line});
    return true;
  }

  /// Whether one more alias or metadata node may be kept (else the error).
  bool alias(size_t kept) {
    if (kept < limits_.maxAliases) return true;
    fail("more than " + withCommas(limits_.maxAliases) + " location aliases or metadata nodes");
    return false;
  }

  const IrLimits &limits() const { return limits_; }

private:
  IrLineMap &map_;
  const IrLimits &limits_;
  std::unordered_map<std::string, uint32_t> known_;      // Recorded path -> index.
  std::unordered_map<std::string, uint32_t> byBaseName_; // Last component -> the first file of that name.
};

} // namespace

std::optional<IrLocation> IrLineMap::locationAt(uint32_t line) const {
  for (const std::vector<IrCodeLine> *lines : {&code, &directives}) {
    auto it = std::lower_bound(lines->begin(), lines->end(), line,
                               [](const IrCodeLine &c, uint32_t l) { return c.line < l; });
    if (it != lines->end() && it->line == line) return it->location;
  }
  return std::nullopt;
}

std::optional<uint32_t> IrLineMap::fileNamed(std::string_view fileName) const {
  std::string_view want = baseName(fileName);
  for (size_t i = 0; i < files.size(); ++i)
    if (baseName(files[i]) == want) return static_cast<uint32_t>(i);
  return std::nullopt;
}

std::vector<uint32_t> IrLineMap::linesOf(uint32_t file, uint32_t line) const {
  std::vector<uint32_t> out;
  for (const IrCodeLine &c : code)
    if (c.location.file == file && c.location.line == line) out.push_back(c.line);
  return out;
}

size_t IrLineMap::keptBytes() const {
  size_t bytes = sizeof(IrLineMap) + (code.capacity() + directives.capacity()) * sizeof(IrCodeLine) +
                 files.capacity() * sizeof(std::string) + functions.capacity() * sizeof(IrFunction) +
                 error.capacity();
  for (const std::string &f : files)
    bytes += f.capacity();
  for (const IrFunction &f : functions)
    bytes += f.name.capacity();
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------
// PTX.

IrLineMap parsePtx(std::string_view text, const IrLimits &limits) {
  IrLineMap map;
  map.stage = TritonStage::Ptx;
  Builder b(map, limits);
  // `.file N "path"`: usually after the function, so read first.
  std::unordered_map<uint32_t, uint32_t> fileOfNumber;
  forEachLine(text, [&](uint32_t, std::string_view line) {
    std::string_view t = trim(line);
    if (t.rfind(".file", 0) != 0 || t.size() < 6 || (t[5] != ' ' && t[5] != '\t')) return true;
    std::string_view rest = t.substr(5);
    auto number = takeUint(rest);
    size_t q = rest.find('"');
    size_t q2 = q == std::string_view::npos ? q : rest.find('"', q + 1);
    if (!number || q2 == std::string_view::npos) return true;
    if (fileOfNumber.size() >= limits.maxFiles && !fileOfNumber.count(*number)) {
      b.fail("more than " + withCommas(limits.maxFiles) + " .file directives");
      return false;
    }
    uint32_t f = b.file(rest.substr(q + 1, q2 - q - 1));
    fileOfNumber[*number] = f;
    return !b.failed();
  });
  bool inFunction = false, inBody = false;
  IrLocation current;
  map.lineCount = forEachLine(text, [&](uint32_t i, std::string_view raw) {
    if (b.failed()) return false;
    std::string_view t = trim(raw);
    if (!inFunction) {
      size_t entry = t.find(".entry ");
      if (entry == std::string_view::npos) entry = t.find(".func ");
      // `.extern .func` declares a function (`__assertfail`) defined elsewhere: no body follows.
      if (entry != std::string_view::npos && t.rfind("//", 0) != 0 &&
          t.find(".extern") == std::string_view::npos) {
        std::string_view rest = t.substr(t.find(' ', entry) + 1);
        size_t nb = rest.find_first_not_of(" \t");
        size_t e = rest.find_first_of("( \t", nb);
        if (nb != std::string_view::npos) {
          std::string_view name =
              rest.substr(nb, e == std::string_view::npos ? std::string_view::npos : e - nb);
          if (!b.function(name, i, static_cast<uint32_t>(name.data() - raw.data()))) return false;
          inFunction = true;
          inBody = false;
          current = {};
        }
      }
      return true;
    }
    map.functions.back().endLine = i;
    if (!inBody) {
      if (raw == "{") inBody = true;
      return true;
    }
    if (raw == "}") {
      inFunction = inBody = false;
      return true;
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
          size_t c2 = frame.rfind(':'), c1 = c2 == std::string_view::npos || c2 == 0
                                                 ? std::string_view::npos
                                                 : frame.rfind(':', c2 - 1);
          if (c1 != std::string_view::npos) {
            auto fl = parseUint(frame.substr(c1 + 1, c2 - c1 - 1)), fc = parseUint(frame.substr(c2 + 1));
            if (fl) current = {b.fileByName(frame.substr(0, c1)), *fl, fc.value_or(0)};
          }
        }
      }
      // The directive's own line goes where it says (definition on a `.loc` line), counted as no code.
      b.directive(i, current);
      return !b.failed();
    }
    // Code: anything but blanks, comments, directives (`.reg`, `.loc`), labels and braces.
    std::string_view first = t.substr(0, t.find_first_of(" \t"));
    if (t.empty() || t.rfind("//", 0) == 0 || t[0] == '.' || t[0] == '{' || t[0] == '}' ||
        first.back() == ':')
      return true;
    b.code(i, current);
    return !b.failed();
  });
  return map;
}

// ---------------------------------------------------------------------------------------------------------
// MLIR.

namespace {

/// A location expression of MLIR: what `loc(` ... `)` holds.
struct MlirLocs {
  Builder &b;
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
        return {b.file(str), *l, c.value_or(0)};
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

/// `#locN = loc(...)`: the alias's name and expression.
std::optional<std::pair<std::string_view, std::string_view>> aliasLine(std::string_view t) {
  if (t.rfind("#loc", 0) != 0) return std::nullopt;
  size_t eq = t.find(" = loc(");
  if (eq == std::string_view::npos) return std::nullopt;
  return std::pair{t.substr(0, eq), t.substr(eq + 7)};
}

} // namespace

IrLineMap parseMlir(std::string_view text, TritonStage stage, const IrLimits &limits) {
  IrLineMap map;
  map.stage = stage;
  Builder b(map, limits);
  MlirLocs locs{b, {}, {}};
  forEachLine(text, [&](uint32_t, std::string_view line) {
    auto alias = aliasLine(trim(line));
    if (!alias) return true;
    if (!locs.aliases.count(alias->first) && !b.alias(locs.aliases.size())) return false;
    locs.aliases.emplace(alias->first, alias->second);
    return true;
  });
  map.lineCount = forEachLine(text, [&](uint32_t i, std::string_view raw) {
    if (b.failed()) return false;
    std::string_view t = trim(raw);
    if (aliasLine(t)) return true;
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
      if (!b.function(name, i, static_cast<uint32_t>(name.data() - raw.data()))) return false;
    }
    if (!map.functions.empty() && t.rfind("} loc(", 0) == 0 &&
        map.functions.back().endLine == map.functions.back().line)
      map.functions.back().endLine = i;
    std::string_view expr = lastLoc(t);
    if (expr.empty() || t.rfind("module", 0) == 0 || t.rfind("} loc(", 0) == 0) return true;
    b.code(i, locs.resolve(expr));
    return !b.failed();
  });
  return map;
}

// ---------------------------------------------------------------------------------------------------------
// LLVM IR.

IrLineMap parseLlir(std::string_view text, const IrLimits &limits) {
  IrLineMap map;
  map.stage = TritonStage::Llir;
  Builder b(map, limits);
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
  forEachLine(text, [&](uint32_t, std::string_view line) {
    std::string_view t = trim(line);
    if (t.size() < 2 || t[0] != '!' || !isdigit(static_cast<unsigned char>(t[1]))) return true;
    size_t eq = t.find(" = ");
    if (eq == std::string_view::npos) return true;
    auto id = parseUint(t.substr(1, eq - 1));
    std::string_view rest = t.substr(eq + 3);
    if (rest.rfind("distinct ", 0) == 0) rest.remove_prefix(9);
    size_t open = rest.find('(');
    if (!id || rest.empty() || rest[0] != '!' || open == std::string_view::npos) return true;
    if (!nodes.count(*id) && !b.alias(nodes.size())) return false;
    nodes[*id] = {rest.substr(1, open - 1), rest.substr(open + 1)};
    return true;
  });
  auto unquote = [](std::string_view v) {
    return v.size() >= 2 && v[0] == '"' ? v.substr(1, v.size() - 2) : v;
  };
  // Each node's fields are read once: many scopes name one DIFile, many locations one inlinedAt chain.
  std::unordered_map<uint32_t, std::optional<uint32_t>> fileOfNode; // DIFile node -> file index
  auto fileNode = [&](uint32_t id) -> std::optional<uint32_t> {
    if (auto it = fileOfNode.find(id); it != fileOfNode.end()) return it->second;
    std::optional<uint32_t> out;
    auto fn = nodes.find(id);
    if (fn != nodes.end() && fn->second.kind == "DIFile") {
      std::string_view file = unquote(field(fn->second.fields, "filename: "));
      std::string_view dir = unquote(field(fn->second.fields, "directory: "));
      std::string name(file);
      if (!name.empty() && name[0] != '/' && !dir.empty()) name = std::string(dir) + "/" + name;
      if (uint32_t idx = b.file(name); idx != UINT32_MAX) out = idx;
    }
    fileOfNode[id] = out;
    return out;
  };
  std::unordered_map<uint32_t, std::optional<uint32_t>> fileOfScope;
  auto scopeFile = [&](uint32_t scope) -> std::optional<uint32_t> {
    if (auto it = fileOfScope.find(scope); it != fileOfScope.end()) return it->second;
    std::optional<uint32_t> out;
    auto s = nodes.find(scope);
    if (s != nodes.end())
      if (auto f = nodeRef(field(s->second.fields, "file: "))) out = fileNode(*f);
    fileOfScope[scope] = out;
    return out;
  };
  // The outermost DILocation of each location, following inlinedAt (where the kernel called the inlined
  // helper), at most kMaxLocDepth deep; each node is resolved once, so chains sharing a tail cost nothing
  // more.
  std::unordered_map<uint32_t, IrLocation> resolved;
  auto location = [&](auto &self, uint32_t id, size_t depth) -> IrLocation {
    if (auto it = resolved.find(id); it != resolved.end()) return it->second;
    auto node = nodes.find(id);
    if (node == nodes.end() || node->second.kind != "DILocation") return {};
    resolved[id] = {}; // A cycle resolves to nothing.
    IrLocation r;
    auto next = nodeRef(field(node->second.fields, "inlinedAt: "));
    if (next && depth + 1 < kMaxLocDepth) {
      r = self(self, *next, depth + 1);
    } else {
      auto l = parseUint(trim(field(node->second.fields, "line: ")));
      auto c = parseUint(trim(field(node->second.fields, "column: ")));
      auto s = nodeRef(field(node->second.fields, "scope: "));
      std::optional<uint32_t> f = s ? scopeFile(*s) : std::nullopt;
      if (l && f) r = {*f, *l, c.value_or(0)};
    }
    resolved[id] = r;
    return r;
  };
  map.lineCount = forEachLine(text, [&](uint32_t i, std::string_view raw) {
    if (b.failed()) return false;
    std::string_view t = trim(raw);
    if (t.rfind("define ", 0) == 0) {
      size_t at = t.find('@');
      size_t end = at == std::string_view::npos ? at : t.find('(', at);
      if (end != std::string_view::npos && !b.function(t.substr(at + 1, end - at - 1), i,
                                                       static_cast<uint32_t>(t.data() - raw.data() + at + 1)))
        return false;
      return true;
    }
    if (t == "}" && !map.functions.empty()) map.functions.back().endLine = i;
    size_t dbg = t.rfind("!dbg !");
    if (dbg == std::string_view::npos || t[0] == '!') return true;
    auto id = parseUint(t.substr(dbg + 6));
    if (!id) return true;
    b.code(i, location(location, *id, 0));
    return !b.failed();
  });
  return map;
}

IrLineMap parseTritonIr(TritonStage stage, std::string_view text, const IrLimits &limits) {
  switch (stage) {
  case TritonStage::Ptx:
    return parsePtx(text, limits);
  case TritonStage::Llir:
    return parseLlir(text, limits);
  case TritonStage::Source:
  case TritonStage::Ttir:
  case TritonStage::Ttgir:
    return parseMlir(text, stage, limits);
  case TritonStage::Cubin:
    break;
  }
  IrLineMap empty;
  empty.stage = stage;
  return empty;
}

} // namespace inductor::index
