#include "index/analysis/OutputCode.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <unordered_set>

namespace inductor::index {
namespace {

constexpr size_t npos = std::string_view::npos;

// How far below a `[Provenance debug handles]` comment the launch may be. AOTI puts a few `static constexpr`
// array definitions and a handle declaration between them; Python puts `stream0 = get_raw_stream(0)`.
constexpr uint32_t kProvenanceLookahead = 24;
// How far above a launch its `Topologically Sorted Source Nodes` comment may be.
constexpr uint32_t kTopoCommentWindow = 8;

std::string_view stripHandle(std::string_view name) {
  size_t colon = name.rfind(':');
  if (colon == npos || colon + 1 == name.size()) return name;
  for (size_t i = colon + 1; i < name.size(); ++i)
    if (!isDigit(name[i])) return name;
  return name.substr(0, colon);
}

// `[a, , b]` at `pos` -> {"a", "", "b"}; advances `pos` past `]`. An empty list gives {}.
std::vector<std::string> parseBracketList(std::string_view s, size_t &pos) {
  std::vector<std::string> out;
  size_t open = s.find('[', pos);
  if (open == npos) return out;
  size_t close = s.find(']', open);
  if (close == npos) close = s.size();
  std::string_view inner = s.substr(open + 1, close - open - 1);
  pos = close == s.size() ? close : close + 1;
  if (trim(inner).empty()) return out;
  size_t start = 0;
  while (true) {
    size_t comma = inner.find(',', start);
    std::string_view item = trim(inner.substr(start, comma == npos ? npos : comma - start));
    out.emplace_back(item);
    if (comma == npos) break;
    start = comma + 1;
  }
  return out;
}

// Body of a `Topologically Sorted Source Nodes: [...], Original ATen: [...]` comment.
void parseTopoComment(std::string_view body, std::vector<std::string> &sourceNodes,
                      std::vector<std::string> &atenOps) {
  size_t pos = body.find(':');
  if (pos == npos) return;
  sourceNodes = parseBracketList(body, pos);
  size_t aten = body.find("Original ATen:", pos);
  if (aten != npos) {
    pos = aten;
    atenOps = parseBracketList(body, pos);
  }
}

// The comment text of a line (after `#` or `//`, trimmed), or nullopt when the line is not a comment.
std::optional<std::string_view> commentBody(std::string_view rest, bool cpp) {
  if (cpp) {
    if (rest.size() >= 2 && rest[0] == '/' && rest[1] == '/') return trim(rest.substr(2));
    return std::nullopt;
  }
  if (!rest.empty() && rest[0] == '#') return trim(rest.substr(1));
  return std::nullopt;
}

constexpr std::string_view kProvenancePrefix = "[Provenance debug handles]";
constexpr std::string_view kTopoPrefix = "Topologically Sorted Source Nodes:";

// `[Provenance debug handles] NAME:N` -> NAME and N.
bool parseProvenanceComment(std::string_view body, std::string_view &name, std::optional<int> &handle) {
  std::string_view rest = trim(body.substr(kProvenancePrefix.size()));
  // Only the first key is used should a future version list several.
  size_t sep = rest.find_first_of(" ,");
  if (sep != npos) rest = rest.substr(0, sep);
  name = stripHandle(rest);
  handle.reset();
  if (name.size() < rest.size()) {
    std::string_view digits = rest.substr(name.size() + 1);
    int value = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && p == digits.data() + digits.size())
      handle = value;
    else
      name = rest; // As KernelKey::parse: a handle that does not fit an int stays in the name.
  }
  return !name.empty();
}

// Finds `name` on `line` as a token outside string literals; NAME inside `call_NAME` counts too. Returns the
// start column. (The intermediate value debug printer names the kernel in strings around its launch,
// `_print_debugging_tensor_value_info("inductor: before_launch - NAME - buf1", buf1)` or
// `aoti_torch_print_tensor_handle(buf0, "before_launch - NAME - buf0")`: those are not the launch.)
std::optional<uint32_t> locateToken(std::string_view line, std::string_view name) {
  if (name.empty()) return std::nullopt;
  size_t pos = 0;
  while ((pos = line.find(name, pos)) != npos) {
    size_t end = pos + name.size();
    bool rightOk = end >= line.size() || !isIdentChar(line[end]);
    bool leftOk =
        pos == 0 || !isIdentChar(line[pos - 1]) ||
        (pos >= 5 && line.substr(pos - 5, 5) == "call_" && (pos == 5 || !isIdentChar(line[pos - 6])));
    if (rightOk && leftOk && !insideStringLiteral(line, pos)) return static_cast<uint32_t>(pos);
    pos = pos + 1;
  }
  return std::nullopt;
}

KernelKind kindFromDecorator(std::string_view afterDot) {
  // `afterDot` is the text after `@triton_heuristics.`.
  struct Entry {
    std::string_view word;
    KernelKind kind;
  };
  static constexpr std::array<Entry, 8> table{{
      {"pointwise(", KernelKind::Pointwise},
      {"reduction(", KernelKind::Reduction},
      {"persistent_reduction(", KernelKind::PersistentReduction},
      {"cooperative_reduction(", KernelKind::CooperativeReduction},
      {"split_scan(", KernelKind::SplitScan},
      {"template(", KernelKind::Template},
      {"foreach(", KernelKind::Foreach},
      {"user_autotune(", KernelKind::UserDefined},
  }};
  for (const Entry &e : table)
    if (afterDot.starts_with(e.word)) return e.kind;
  return KernelKind::Unknown;
}

KernelKind kindFromAsyncCompile(std::string_view method) {
  if (method == "cpp" || method == "cpp_pybinding") return KernelKind::Cpp;
  // CUTLASS / CK templates compiled by nvcc or hipcc.
  if (method == "cuda" || method == "rocm") return KernelKind::Template;
  return KernelKind::Unknown;
}

// The number after `'KEY': ` in an inductor_meta dict's repr, as written by Python (see KernelEstimates).
std::optional<double> metaNumber(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  if (at == npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  size_t n = 0;
  while (n < rest.size() && n < 40 &&
         (std::isdigit(static_cast<unsigned char>(rest[n])) || rest[n] == '.' || rest[n] == 'e' ||
          rest[n] == 'E' || rest[n] == '-' || rest[n] == '+'))
    ++n;
  double v = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + n, v);
  if (ec != std::errc() || end != rest.data() + n || !(v >= 0) || v > 1e30) return std::nullopt;
  return v;
}

} // namespace

KernelEstimates parseKernelEstimates(std::string_view line) {
  KernelEstimates e;
  line = trim(line);
  if (!line.starts_with("inductor_meta=")) return e;
  e.numGb = metaNumber(line, "'kernel_num_gb': ");
  // An int in Python; read as a double so that a float (an older or patched Inductor) is read too.
  if (auto f = metaNumber(line, "'kernel_flop': "); f && *f < 1.8e19) e.flop = static_cast<uint64_t>(*f);
  return e;
}

namespace {

// Looks inside an embedded kernel source line (already stripped of the wrapper's indentation) for the facts
// we keep: the heuristics decorator, the `def NAME(` and, for combo kernels, `combo_grid_meta` in
// inductor_meta.
void scanSourceLine(std::string_view t, uint32_t lineNo, uint32_t indent, KernelDefinition &k, bool &sawJit) {
  if (t.empty()) return;
  if (t[0] == '@') {
    constexpr std::string_view heur = "@triton_heuristics.";
    if (t.starts_with(heur)) {
      KernelKind kind = kindFromDecorator(t.substr(heur.size()));
      if (kind != KernelKind::Unknown && k.kind != KernelKind::Combo) k.kind = kind;
    } else if (t.starts_with("@triton.jit")) {
      sawJit = true;
    }
    return;
  }
  if (t[0] == 'd' && t.starts_with("def ") && !k.defLine &&
      (sawJit || k.name.empty() || t.substr(4, k.name.size()) == k.name)) {
    size_t len = identLength(t, 4);
    if (len) {
      k.defLine = lineNo;
      k.defColumn = indent + 4;
    }
    return;
  }
  if (t[0] == 'i' && t.starts_with("inductor_meta=")) {
    if (t.find("'combo_grid_meta'") != npos) k.kind = KernelKind::Combo;
    k.estimates = parseKernelEstimates(t);
  }
}

// Parses the comment block [first, last] above a Python kernel definition.
void parseDefinitionComments(const TextLines &lines, uint32_t first, uint32_t last, KernelDefinition &k) {
  bool inMapping = false;
  for (uint32_t i = first; i <= last && i < lines.size(); ++i) {
    std::string_view rest = lines[i].substr(indentOf(lines[i]));
    auto body = commentBody(rest, false);
    if (!body) continue;
    if (auto path = kernelPathOfLine(rest)) {
      k.kernelPath = std::string(*path);
      k.kernelPathLine = i;
      inMapping = false;
    } else if (body->starts_with(kTopoPrefix)) {
      parseTopoComment(*body, k.sourceNodes, k.atenOps);
      inMapping = false;
    } else if (body->starts_with("Source node to ATen node mapping:")) {
      inMapping = true;
    } else if (body->starts_with("Graph fragment:")) {
      inMapping = false;
    } else if (inMapping) {
      // `#   h => add, add_1`; the source node may be empty (`#    => add_tensor`).
      size_t arrow = body->find("=>");
      if (arrow == npos) {
        inMapping = false;
        continue;
      }
      std::pair<std::string, std::vector<std::string>> entry;
      entry.first = std::string(trim(body->substr(0, arrow)));
      std::string_view rhs = body->substr(arrow + 2);
      size_t start = 0;
      while (start <= rhs.size()) {
        size_t comma = rhs.find(',', start);
        std::string_view item = trim(rhs.substr(start, comma == npos ? npos : comma - start));
        if (!item.empty()) entry.second.emplace_back(item);
        if (comma == npos) break;
        start = comma + 1;
      }
      k.sourceToAten.push_back(std::move(entry));
    }
  }
}

GraphKind graphKindFromAotId(std::string_view id) {
  if (id.ends_with("_forward")) return GraphKind::Forward;
  if (id.ends_with("_backward")) return GraphKind::Backward;
  if (id.ends_with("_inference")) return GraphKind::Inference;
  return GraphKind::Unknown;
}

// State shared by the Python and C++ launch scanners: pending comments and lines already taken by a
// provenance comment.
struct LaunchScanner {
  const TextLines &lines;
  bool cpp;
  std::vector<KernelLaunch> &launches;
  std::vector<bool> consumed;
  std::optional<uint32_t> pendingTopo;

  LaunchScanner(const TextLines &l, bool isCpp, std::vector<KernelLaunch> &out)
      : lines(l), cpp(isCpp), launches(out), consumed(l.size(), false) {}

  void attachTopo(KernelLaunch &launch, uint32_t launchLine) {
    if (!pendingTopo) return;
    if (*pendingTopo < launchLine && launchLine - *pendingTopo <= kTopoCommentWindow) {
      std::string_view rest = lines[*pendingTopo].substr(indentOf(lines[*pendingTopo]));
      if (auto body = commentBody(rest, cpp)) parseTopoComment(*body, launch.sourceNodes, launch.atenOps);
    }
    pendingTopo.reset();
  }

  // A `[Provenance debug handles] NAME:N` comment on line `i`: finds the launch line below it.
  void onProvenanceComment(uint32_t i, std::string_view body) {
    std::string_view name;
    std::optional<int> handle;
    if (!parseProvenanceComment(body, name, handle)) return;
    uint32_t commentIndent = indentOf(lines[i]);
    std::optional<uint32_t> firstCode, target;
    uint32_t column = 0, endColumn = 0;
    std::string_view lastComponent = name;
    if (size_t dot = name.rfind('.'); dot != npos) lastComponent = name.substr(dot + 1);
    uint32_t end =
        static_cast<uint32_t>(std::min<size_t>(lines.size(), size_t(i) + 1 + kProvenanceLookahead));
    for (uint32_t j = i + 1; j < end; ++j) {
      std::string_view line = lines[j];
      uint32_t ind = indentOf(line);
      std::string_view rest = line.substr(ind);
      if (rest.empty()) continue;
      if (auto c = commentBody(rest, cpp)) {
        if (c->starts_with(kProvenancePrefix)) break;
        continue;
      }
      if (ind < commentIndent) break;
      if (!firstCode) firstCode = j;
      std::optional<uint32_t> col = locateToken(line, name);
      uint32_t len = static_cast<uint32_t>(name.size());
      if (!col && lastComponent.size() != name.size()) {
        col = locateToken(line, lastComponent);
        len = static_cast<uint32_t>(lastComponent.size());
      }
      if (col) {
        target = j;
        column = *col;
        endColumn = *col + len;
        break;
      }
    }
    if (!target && firstCode) {
      target = firstCode;
      column = endColumn = indentOf(lines[*firstCode]);
    }
    if (!target || consumed[*target]) return;
    consumed[*target] = true;
    KernelLaunch launch;
    launch.kernel = std::string(name);
    launch.debugHandle = handle;
    launch.line = *target;
    launch.column = column;
    launch.endColumn = endColumn;
    attachTopo(launch, *target);
    launches.push_back(std::move(launch));
  }

  // Handles the text of a comment line.
  void onComment(uint32_t i, std::string_view body) {
    if (body.starts_with(kTopoPrefix))
      pendingTopo = i;
    else if (body.starts_with(kProvenancePrefix))
      onProvenanceComment(i, body);
  }

  void addLaunch(uint32_t i, std::string_view kernel, uint32_t column) {
    KernelLaunch launch;
    launch.kernel = std::string(kernel);
    launch.line = i;
    launch.column = column;
    launch.endColumn = column + static_cast<uint32_t>(kernel.size());
    attachTopo(launch, i);
    launches.push_back(std::move(launch));
  }

  void finish() {
    std::stable_sort(launches.begin(), launches.end(),
                     [](const KernelLaunch &a, const KernelLaunch &b) { return a.line < b.line; });
  }
};

// Names of the kernels defined so far, for recognising `NAME(` calls in constant time. Owns its strings:
// views into KernelDefinition::name would dangle when the vector grows.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using KernelNames = std::unordered_set<std::string, NameHash, std::equal_to<>>;

// Python: the callee of a call statement `[targets =] callee(`; [start, end) within `rest`.
bool parseCallee(std::string_view rest, size_t &start, size_t &end) {
  size_t p = 0;
  size_t len = dottedLength(rest, p);
  if (!len) return false;
  if (p + len < rest.size() && rest[p + len] == '(') {
    start = p;
    end = p + len;
    return true;
  }
  // Assignment targets: `a = `, `a, b = `.
  p += len;
  while (true) {
    while (p < rest.size() && rest[p] == ' ')
      ++p;
    if (p < rest.size() && rest[p] == ',') {
      ++p;
      while (p < rest.size() && rest[p] == ' ')
        ++p;
      size_t l = dottedLength(rest, p);
      if (!l) return false;
      p += l;
      continue;
    }
    break;
  }
  if (p >= rest.size() || rest[p] != '=' || (p + 1 < rest.size() && rest[p + 1] == '=')) return false;
  ++p;
  while (p < rest.size() && rest[p] == ' ')
    ++p;
  len = dottedLength(rest, p);
  if (!len || p + len >= rest.size() || rest[p + len] != '(') return false;
  start = p;
  end = p + len;
  return true;
}

OutputCodeAnalysis analyzeCppWrapperLines(const TextLines &lines);

// cpp_wrapper JIT output code: the C++ wrapper in `cpp_wrapper_src`, lines [first, first + cpp.size()) of
// the Python module, merged into the module's analysis. Its launches and entry point are the module's; its
// `call_NAME` helpers are listed only for kernels the Python part does not define (it defines the Triton
// kernels with their sources).
void mergeEmbeddedCpp(OutputCodeAnalysis &out, const TextLines &cpp, uint32_t first) {
  OutputCodeAnalysis c = analyzeCppWrapperLines(cpp);
  out.cppWrapperSource = true;
  for (KernelDefinition &k : c.kernels) {
    if (out.findKernel(k.name)) continue;
    k.nameLine += first;
    k.firstLine += first;
    k.lastLine += first;
    if (k.defLine) *k.defLine += first;
    if (k.sourceFirstLine || k.sourceLastLine) {
      k.sourceFirstLine += first;
      k.sourceLastLine += first;
    }
    out.kernels.push_back(std::move(k));
  }
  for (KernelLaunch &l : c.launches) {
    l.line += first;
    out.launches.push_back(std::move(l));
  }
  std::stable_sort(out.launches.begin(), out.launches.end(),
                   [](const KernelLaunch &a, const KernelLaunch &b) { return a.line < b.line; });
  for (EntryPoint &e : c.entries) {
    e.line += first;
    out.entries.push_back(std::move(e));
  }
}

} // namespace

std::string_view graphKindName(GraphKind kind, std::string_view unknown) {
  switch (kind) {
  case GraphKind::Forward:
    return "forward";
  case GraphKind::Backward:
    return "backward";
  case GraphKind::Inference:
    return "inference";
  case GraphKind::Unknown:
    break;
  }
  return unknown;
}

std::string_view displayName(KernelKind kind) {
  switch (kind) {
  case KernelKind::Unknown:
    return "unknown";
  case KernelKind::Pointwise:
    return "pointwise";
  case KernelKind::Reduction:
    return "reduction";
  case KernelKind::PersistentReduction:
    return "persistent reduction";
  case KernelKind::CooperativeReduction:
    return "cooperative reduction";
  case KernelKind::SplitScan:
    return "split scan";
  case KernelKind::Template:
    return "template";
  case KernelKind::Foreach:
    return "foreach";
  case KernelKind::Combo:
    return "combo";
  case KernelKind::UserDefined:
    return "user-defined Triton";
  case KernelKind::Cpp:
    return "C++";
  case KernelKind::Extern:
    return "extern";
  }
  return "unknown";
}

KernelKind kindFromName(std::string_view name) {
  name = stripHandle(trim(name));
  if (name.starts_with("call_")) name.remove_prefix(5);
  struct Entry {
    std::string_view prefix;
    KernelKind kind;
  };
  static constexpr std::array<Entry, 12> table{{
      {"triton_poi_", KernelKind::Pointwise},
      {"triton_red_", KernelKind::Reduction},
      {"triton_per_", KernelKind::PersistentReduction},
      {"triton_coo_", KernelKind::CooperativeReduction},
      {"triton_spl_", KernelKind::SplitScan},
      {"triton_tem_", KernelKind::Template},
      {"triton_for_", KernelKind::Foreach},
      {"cpp_fused_", KernelKind::Cpp},
      {"extern_kernels.", KernelKind::Extern},
      {"aoti_torch_", KernelKind::Extern},
      {"torch.ops.", KernelKind::Extern},
      {"aten.", KernelKind::Extern},
  }};
  for (const Entry &e : table)
    if (name.starts_with(e.prefix)) return e.kind;
  return KernelKind::Unknown;
}

std::string KernelLaunch::key() const {
  if (!debugHandle) return kernel;
  return kernel + ":" + std::to_string(*debugHandle);
}

const KernelDefinition *OutputCodeAnalysis::findKernel(std::string_view name) const {
  name = stripHandle(name);
  for (const KernelDefinition &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::optional<std::string_view> kernelPathOfLine(std::string_view line) {
  auto body = commentBody(line.substr(indentOf(line)), false);
  if (!body || !body->starts_with("kernel path:")) return std::nullopt;
  return trim(body->substr(12));
}

OutputCodeAnalysis analyzePythonWrapper(const TextLines &lines) {
  OutputCodeAnalysis out;
  out.language = OutputCodeAnalysis::Language::Python;
  LaunchScanner scanner(lines, /*isCpp=*/false, out.launches);
  KernelNames definedNames;
  const uint32_t n = static_cast<uint32_t>(lines.size());

  std::optional<uint32_t> commentStart;
  // The kernel whose embedded source we are in, and that source's closing delimiter.
  // (An index with a sentinel rather than an optional: GCC 12 warns, wrongly, that the optional's value may
  // be used uninitialized.)
  constexpr size_t kNone = SIZE_MAX;
  size_t inSource = kNone;
  std::string_view delim;
  bool sawJit = false;
  // A module-level string that is no kernel's source, and its closing delimiter: the `Compile-time
  // auto-tuning block` docstring (its `.run(` lines are not launches), or cpp_wrapper's `cpp_wrapper_src`,
  // whose lines [first, last) are analysed as C++ wrapper code.
  uint32_t stringBlock = UINT32_MAX; // The opening line, UINT32_MAX when outside.
  std::string_view blockDelim;
  bool blockIsCpp = false, cppSourceNext = false;
  std::vector<std::pair<uint32_t, uint32_t>> cppRanges;

  for (uint32_t i = 0; i < n; ++i) {
    std::string_view line = lines[i];
    if (stringBlock != UINT32_MAX && inSource == kNone) {
      if (line.find(blockDelim) != npos) {
        if (blockIsCpp) cppRanges.emplace_back(stringBlock + 1, i);
        stringBlock = UINT32_MAX;
        continue;
      }
      if (blockIsCpp) continue;
      // The auto-tuning docstring: its kernel definitions (with their sources) are the module's, nothing in
      // it is a launch.
    }
    const bool inDocstring = stringBlock != UINT32_MAX;
    if (inSource != kNone) {
      KernelDefinition &k = out.kernels[inSource];
      if (line.find(delim) != npos) {
        k.sourceLastLine = i > k.sourceFirstLine ? i - 1 : k.sourceFirstLine;
        k.lastLine = i;
        inSource = kNone;
        continue;
      }
      // Only decorator, `def` and inductor_meta lines matter inside the source (templates write the
      // decorator's arguments unindented); the first-byte checks keep this cheap.
      if (!line.empty() && (line[0] == '@' || line[0] == 'd' || line[0] == ' ' || line[0] == 'i'))
        scanSourceLine(trim(line), i, indentOf(line), k, sawJit);
      continue;
    }
    uint32_t ind = indentOf(line);
    std::string_view rest = line.substr(ind);
    if (rest.empty()) {
      commentStart.reset();
      continue;
    }
    if (rest[0] == '#') {
      if (!commentStart) commentStart = i;
      std::string_view body = trim(rest.substr(1));
      if (ind == 0 && out.aotId.empty() && body.starts_with("AOT ID:")) {
        size_t q = body.find('\'');
        size_t q2 = q == npos ? npos : body.find('\'', q + 1);
        if (q2 != npos) {
          out.aotId = std::string(body.substr(q + 1, q2 - q - 1));
          out.graphKind = graphKindFromAotId(out.aotId);
        }
      } else if (!inDocstring) {
        scanner.onComment(i, body);
      }
      continue;
    }
    std::optional<uint32_t> blockStart = commentStart;
    commentStart.reset();
    if (scanner.consumed[i]) continue;

    if (ind == 0 && !inDocstring) {
      std::string_view t = rest;
      constexpr std::string_view cppSource = "cpp_wrapper_src =";
      bool isCpp = cppSourceNext;
      cppSourceNext = false;
      if (t.starts_with(cppSource)) {
        t = trim(t.substr(cppSource.size()));
        if (t == "(") {
          cppSourceNext = true;
          continue;
        }
        isCpp = true;
      }
      size_t prefix = 0;
      while (prefix < 2 && prefix < t.size() && (t[prefix] == 'r' || t[prefix] == 'R' || t[prefix] == 'b'))
        ++prefix;
      std::string_view quotes = t.substr(prefix, 3);
      if (quotes == "\"\"\"" || quotes == "'''") {
        if (t.find(quotes, prefix + 3) == npos) {
          stringBlock = i;
          blockDelim = quotes == "\"\"\"" ? std::string_view("\"\"\"") : std::string_view("'''");
          blockIsCpp = isCpp;
        }
        continue;
      }
    }

    if (inDocstring && (ind != 0 || rest.find(" = async_compile.") == npos)) continue;
    if (rest.starts_with("def call(")) {
      out.entries.push_back({"call", i, ind + 4});
      continue;
    }
    if (ind == 0) {
      // `NAME = async_compile.METHOD(...`
      size_t len = identLength(rest, 0);
      constexpr std::string_view ac = " = async_compile.";
      if (!len || rest.substr(len, ac.size()) != ac) continue;
      size_t mpos = len + ac.size();
      size_t mlen = identLength(rest, mpos);
      if (!mlen || mpos + mlen >= rest.size() || rest[mpos + mlen] != '(') continue;
      std::string_view method = rest.substr(mpos, mlen);
      if (method == "wait") continue;
      KernelDefinition k;
      k.name = std::string(rest.substr(0, len));
      k.nameLine = i;
      k.nameColumn = 0;
      k.firstLine = blockStart.value_or(i);
      k.lastLine = i;
      k.kind = kindFromAsyncCompile(method);
      if (blockStart) parseDefinitionComments(lines, *blockStart, i - 1, k);
      // The definition's own Topologically Sorted comment is not a launch's.
      scanner.pendingTopo.reset();
      size_t open = rest.find("'''", mpos);
      std::string_view d = "'''";
      size_t open2 = rest.find("\"\"\"", mpos);
      if (open2 < open) {
        open = open2;
        d = "\"\"\"";
      }
      bool hasSource = open != npos && rest.find(d, open + 3) == npos;
      if (hasSource && i + 1 < n) {
        k.sourceFirstLine = i + 1;
        k.sourceLastLine = i + 1;
        delim = d;
        sawJit = false;
        definedNames.insert(k.name);
        out.kernels.push_back(std::move(k));
        inSource = out.kernels.size() - 1;
      } else {
        definedNames.insert(k.name);
        out.kernels.push_back(std::move(k));
      }
      continue;
    }

    size_t cs = 0, ce = 0;
    if (!parseCallee(rest, cs, ce)) continue;
    std::string_view callee = rest.substr(cs, ce - cs);
    if (callee.ends_with(".run")) {
      std::string_view kernel = callee.substr(0, callee.size() - 4);
      if (kernel.find('.') == npos) scanner.addLaunch(i, kernel, ind + static_cast<uint32_t>(cs));
    } else if (callee.starts_with("extern_kernels.") ||
               (callee.find('.') == npos && definedNames.count(callee))) {
      scanner.addLaunch(i, callee, ind + static_cast<uint32_t>(cs));
    }
  }
  // A source cut off by the end of the input (a truncated payload): it runs to the last line.
  if (inSource != kNone && n > 0) {
    KernelDefinition &k = out.kernels[inSource];
    k.sourceLastLine = n - 1;
    k.lastLine = n - 1;
  }
  for (KernelDefinition &k : out.kernels)
    if (k.kind == KernelKind::Unknown) k.kind = kindFromName(k.name);
  scanner.finish();
  for (const auto &[first, last] : cppRanges)
    mergeEmbeddedCpp(out, TextLines(lines.begin() + first, lines.begin() + last), first);
  return out;
}

OutputCodeAnalysis analyzeCppWrapper(const TextLines &lines) {
  return analyzeCppWrapperLines(lines);
}

namespace {

OutputCodeAnalysis analyzeCppWrapperLines(const TextLines &lines) {
  OutputCodeAnalysis out;
  out.language = OutputCodeAnalysis::Language::Cpp;
  LaunchScanner scanner(lines, /*isCpp=*/true, out.launches);
  KernelNames definedNames;
  const uint32_t n = static_cast<uint32_t>(lines.size());

  bool inBlockComment = false;
  bool inEmbeddedSource = false;
  bool sawJit = false;
  // The `call_NAME` helper whose body we are in (its closing `}` at column 0 ends it).
  std::optional<size_t> helper;

  for (uint32_t i = 0; i < n; ++i) {
    std::string_view line = lines[i];
    uint32_t ind = indentOf(line);
    std::string_view rest = line.substr(ind);
    if (inBlockComment) {
      if (rest.find("*/") != npos) {
        inBlockComment = false;
        inEmbeddedSource = false;
        continue;
      }
      if (!helper || rest.empty()) continue;
      KernelDefinition &k = out.kernels[*helper];
      if (!inEmbeddedSource) {
        if (rest.starts_with("async_compile.triton(") && rest.find("'''") != npos) {
          inEmbeddedSource = true;
          sawJit = false;
          k.sourceFirstLine = i + 1;
          k.sourceLastLine = i + 1;
        }
        continue;
      }
      if (rest.starts_with("'''")) {
        k.sourceLastLine = i > k.sourceFirstLine ? i - 1 : k.sourceFirstLine;
        inEmbeddedSource = false;
        continue;
      }
      scanSourceLine(rest, i, ind, k, sawJit);
      continue;
    }
    if (rest.empty()) continue;
    if (rest[0] == '/' && rest.size() >= 2) {
      if (rest[1] == '*') {
        inBlockComment = rest.find("*/", 2) == npos;
        continue;
      }
      if (rest[1] == '/') {
        scanner.onComment(i, trim(rest.substr(2)));
        continue;
      }
    }
    if (helper && ind == 0 && rest[0] == '}') {
      out.kernels[*helper].lastLine = i;
      helper.reset();
      continue;
    }
    if (scanner.consumed[i]) continue;
    if (ind == 0) {
      constexpr std::string_view def = "static inline void call_";
      if (rest.starts_with(def)) {
        size_t len = identLength(rest, def.size());
        if (!len) continue;
        KernelDefinition k;
        k.name = std::string(rest.substr(def.size(), len));
        k.nameLine = i;
        k.nameColumn = static_cast<uint32_t>(def.size());
        k.firstLine = (i > 0 && (lines[i - 1]).starts_with("template")) ? i - 1 : i;
        k.lastLine = i;
        definedNames.insert(k.name);
        out.kernels.push_back(std::move(k));
        helper = out.kernels.size() - 1;
        continue;
      }
      constexpr std::string_view entry = "void AOTInductorModel::run_impl(";
      constexpr std::string_view jitEntry = "void inductor_entry_impl(";
      if (rest.starts_with(entry))
        out.entries.push_back({"run_impl", i, static_cast<uint32_t>(entry.size() - 9)});
      else if (rest.starts_with(jitEntry))
        out.entries.push_back({"inductor_entry_impl", i, 5});
      continue;
    }
    // Launches inside function bodies.
    if (rest.starts_with("call_")) {
      size_t len = identLength(rest, 5);
      if (len && 5 + len < rest.size() && rest[5 + len] == '(') {
        std::string_view name = rest.substr(5, len);
        if (name.starts_with("triton_") || definedNames.count(name)) scanner.addLaunch(i, name, ind + 5);
      }
      continue;
    }
    constexpr std::string_view check = "AOTI_TORCH_ERROR_CODE_CHECK(";
    if (rest.starts_with(check)) {
      size_t p = check.size();
      size_t len = identLength(rest, p);
      if (!len || p + len >= rest.size() || rest[p + len] != '(') continue;
      std::string_view name = rest.substr(p, len);
      // Fallback ops go through device-specific shims (torch/csrc/inductor/aoti_torch/c/shim.h and the
      // generated c_shim_<device>.h); other aoti_torch_* calls (empty_strided, get_dtype, ...) are
      // bookkeeping.
      if (name.starts_with("aoti_torch_cuda_") || name.starts_with("aoti_torch_cpu_") ||
          name.starts_with("aoti_torch_xpu_") || name.starts_with("aoti_torch_mps_") ||
          name == "aoti_torch_proxy_executor_call_function")
        scanner.addLaunch(i, name, ind + static_cast<uint32_t>(p));
      continue;
    }
    if (rest.starts_with("cpp_fused_")) {
      size_t len = identLength(rest, 0);
      if (len < rest.size() && rest[len] == '(') scanner.addLaunch(i, rest.substr(0, len), ind);
    }
  }
  if (helper && n > 0) out.kernels[*helper].lastLine = n - 1;
  for (KernelDefinition &k : out.kernels)
    if (k.kind == KernelKind::Unknown) k.kind = kindFromName(k.name);
  scanner.finish();
  return out;
}

} // namespace

std::optional<KernelSourceFile> analyzeKernelSource(const TextLines &lines) {
  // The kernel is the first @triton.jit function after the `@triton_heuristics.` decorator; helper functions
  // (also @triton.jit) may come before it.
  std::optional<KernelSourceFile> afterHeuristics, firstJit, fromMeta;
  KernelKind kind = KernelKind::Unknown;
  KernelEstimates estimates;
  bool sawJit = false, sawHeuristics = false;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    if (line[0] == '@') {
      constexpr std::string_view heur = "@triton_heuristics.";
      if (line.starts_with(heur)) {
        sawHeuristics = true;
        KernelKind k = kindFromDecorator(line.substr(heur.size()));
        if (k != KernelKind::Unknown && kind != KernelKind::Combo) kind = k;
      } else if (line.starts_with("@triton.jit")) {
        sawJit = true;
      }
      continue;
    }
    if (line[0] == 'd' && line.starts_with("def ")) {
      size_t len = identLength(line, 4);
      if (len && sawJit) {
        KernelSourceFile f{std::string(line.substr(4, len)), i, 4, KernelKind::Unknown, {}};
        if (sawHeuristics && !afterHeuristics)
          afterHeuristics = f;
        else if (!firstJit)
          firstJit = f;
      }
      sawJit = false;
      continue;
    }
    if (line[0] == ' ' && !fromMeta) {
      size_t km = line.find("'kernel_name': '");
      if (km != npos) {
        size_t s = km + 16;
        size_t e = line.find('\'', s);
        if (e != npos && e > s)
          fromMeta = KernelSourceFile{
              std::string(line.substr(s, e - s)), i, static_cast<uint32_t>(s), KernelKind::Unknown, {}};
        if (line.find("'combo_grid_meta'") != npos) kind = KernelKind::Combo;
      }
    }
    // Indented in Inductor's kernels, at column 0 in its templates' decorators.
    if ((line[0] == ' ' || line[0] == 'i') && !estimates.numGb && !estimates.flop)
      estimates = parseKernelEstimates(line);
  }
  std::optional<KernelSourceFile> result = afterHeuristics ? afterHeuristics : firstJit ? firstJit : fromMeta;
  if (!result) return std::nullopt;
  result->kind = kind != KernelKind::Unknown ? kind : kindFromName(result->name);
  result->estimates = estimates;
  return result;
}

std::vector<KernelSourceFile> analyzeCppKernelSource(const TextLines &lines) {
  std::vector<KernelSourceFile> out;
  // How far below the signature's first line its `{` or `;` may be (one parameter per line).
  constexpr uint32_t kSignatureLines = 256;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    constexpr std::string_view ext = "extern \"C\"";
    if (!line.starts_with(ext)) continue;
    // `extern "C"  void  NAME(` with any spacing and attributes between; NAME is the identifier before '('.
    size_t open = line.find('(', ext.size());
    if (open == npos) continue;
    size_t end = open;
    while (end > ext.size() && line[end - 1] == ' ')
      --end;
    size_t begin = end;
    while (begin > ext.size() && isIdentChar(line[begin - 1]))
      --begin;
    if (begin == end || !isIdentStart(line[begin])) continue;
    // A definition has its `{` before any `;`.
    bool definition = false;
    for (uint32_t j = i; j < lines.size() && j < i + kSignatureLines; ++j) {
      std::string_view l = j == i ? line.substr(open) : lines[j];
      size_t brace = l.find('{'), semi = l.find(';');
      if (brace == npos && semi == npos) continue;
      definition = brace < semi;
      break;
    }
    if (definition)
      out.push_back({std::string(line.substr(begin, end - begin)),
                     i,
                     static_cast<uint32_t>(begin),
                     KernelKind::Cpp,
                     {}});
  }
  return out;
}

bool looksLikeWrapperCode(const TextLines &lines) {
  bool inString = false, call = false, moduleKernel = false;
  for (std::string_view line : lines) {
    // Embedded sources in a wrapper open and close with ''' on lines of their own statements; an odd count of
    // delimiters toggles the state.
    size_t count = 0;
    for (size_t p = line.find("'''"); p != npos; p = line.find("'''", p + 3))
      ++count;
    if (count % 2 == 1) {
      inString = !inString;
      continue;
    }
    if (inString || line.empty()) continue;
    if (line.starts_with("async_compile = AsyncCompile()") || line.starts_with("# AOT ID:")) return true;
    if (line.starts_with("def call(") || line.starts_with("    def call(self")) call = true;
    // A kernel defined at module level (its decorator outside any string), or the harness that benchmarks
    // one: a kernel file, or an autotuning choice's benchmark module, whatever else it defines.
    if (line.starts_with("@triton.jit") || line.starts_with("@triton_heuristics.") ||
        line.starts_with("def benchmark_all_configs("))
      moduleKernel = true;
  }
  return call && !moduleKernel;
}

} // namespace inductor::index
