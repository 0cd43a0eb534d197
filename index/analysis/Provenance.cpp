#include "index/analysis/Provenance.h"

#include "index/support/TextLines.h"
#include "index/trace/JsonScan.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace inductor::index {
namespace {

// Provenance documents are walked with json_scan rather than parsed into a DOM: a DOM costs about 15 times
// the text (1 GB for a 64 MB map), while the walk keeps only the strings that end up in the result. What a
// document may add is bounded too (Budget), since even the kept part of a map of one-letter names is large.

/// Names and stack frames one document may add to its result (kMaxProvenanceEntries); once spent, the rest of
/// the document is skipped and the document is refused.
struct Budget {
  size_t left = kMaxProvenanceEntries;
  bool take(size_t n = 1) {
    if (n > left) {
      left = 0;
      return false;
    }
    left -= n;
    return true;
  }
  bool spent() const { return left == 0; }
};

// Walks the top-level object of a provenance document, calling member(decodedKey, rawValue, budget) and
// then read(bytes of `text` read so far). Returns an error (prefixed by `what`) when the text is not a JSON
// object, or when the budget ran out: the caller then discards what the members gave (all or nothing, in one
// pass over a document of many MB rather than a check and a walk).
template <class F>
std::optional<Error> walkDocument(std::string_view text, std::string_view what, F &&member,
                                  const std::function<void(size_t)> &read = {}) {
  std::string_view t = text;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!t.empty() && blank(t.front()))
    t.remove_prefix(1);
  while (!t.empty() && blank(t.back()))
    t.remove_suffix(1);
  auto fail = [&](const std::string &why) { return Error{std::string(what) + ": " + why}; };
  if (t.empty() || t == "null") return fail("empty");
  if (t.front() != '{') return fail(json_scan::isValue(t) ? "expected a JSON object" : "invalid JSON");
  std::string scratch;
  Budget budget;
  bool wellFormed = json_scan::walkObject(t, [&](std::string_view key, std::string_view raw) {
    if (!budget.spent() && budget.take())
      if (auto decoded = json_scan::decodeKey(key, scratch)) member(std::string(*decoded), raw, budget);
    if (read) read(size_t(raw.data() + raw.size() - text.data()));
  });
  if (!wellFormed) return fail("invalid JSON");
  if (budget.spent())
    return fail("more than " + std::to_string(kMaxProvenanceEntries) +
                " names and stack frames, which no PyTorch graph has: skipped");
  return std::nullopt;
}

// Appends the string elements of the array `raw` to `out`; anything else is skipped.
void appendStrings(std::string_view raw, std::vector<std::string> &out, Budget &budget) {
  std::string scratch;
  json_scan::walkArray(raw, [&](std::string_view e) {
    if (budget.spent()) return;
    if (auto s = json_scan::string(e, scratch); s && budget.take()) out.emplace_back(*s);
  });
}

/// Tracebacks already parsed in one document, by their JSON token (a view into the document).
using TraceMemo = std::unordered_map<std::string_view, SharedVector<StackFrame>>;

// Appends the stack traces (strings) of the array `raw` to `out`, parsed (once per distinct token: `memo`).
void appendStackTraces(std::string_view raw, std::vector<SharedVector<StackFrame>> &out, Budget &budget,
                       TraceMemo &memo) {
  std::string scratch;
  json_scan::walkArray(raw, [&](std::string_view e) {
    if (budget.spent()) return;
    auto it = memo.find(e);
    if (it == memo.end()) {
      auto trace = json_scan::string(e, scratch);
      if (!trace) return; // Not a string: skipped, as before.
      it = memo.emplace(e, SharedVector<StackFrame>(parseStackTrace(*trace))).first;
    }
    // Repeats count against the budget as parsed ones did: it bounds what one record puts in the index.
    if (budget.take(it->second.size() + 1)) out.push_back(it->second);
  });
}

// {key: [string...]} into `out`; a repeated key keeps its last value, as a JSON object does.
void readMap(std::string_view raw, NameMap &out, Budget &budget) {
  std::string scratch;
  json_scan::walkObject(raw, [&](std::string_view key, std::string_view value) {
    if (budget.spent() || !budget.take()) return;
    auto decoded = json_scan::decodeKey(key, scratch);
    if (!decoded) return;
    std::vector<std::string> &target = out[std::string(*decoded)];
    target.clear();
    appendStrings(value, target, budget);
  });
}

// Appends the values not yet in `into`, in order. Linear: a list of 100,000 names must not cost 10^10 steps.
void appendUnique(std::vector<std::string> &into, const std::vector<std::string> &values) {
  if (into.size() + values.size() <= 16) {
    for (const std::string &v : values)
      if (std::find(into.begin(), into.end(), v) == into.end()) into.push_back(v);
    return;
  }
  std::unordered_set<std::string_view> seen(into.begin(), into.end());
  std::vector<std::string> added;
  for (const std::string &v : values)
    if (seen.insert(v).second) added.push_back(v);
  into.insert(into.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
}

// Fills `to` as the inverse of `from`, keeping first-seen order.
void invert(const std::unordered_map<std::string, std::vector<std::string>> &from,
            std::unordered_map<std::string, std::vector<std::string>> &to) {
  std::unordered_map<std::string, std::unordered_set<std::string>> seen;
  for (const auto &[key, values] : from)
    for (const std::string &v : values)
      if (seen[v].insert(key).second) to[v].push_back(key);
}

int inferVersion(const NodeMappings &m) {
  for (const auto &[key, values] : m.kernelToPost)
    if (KernelKey::parse(key).debugHandle) return 2;
  for (const auto &[key, values] : m.postToKernel)
    for (const std::string &v : values)
      if (KernelKey::parse(v).debugHandle) return 2;
  return 1;
}

// `File "PATH", line N, in FUNC` (leading spaces already removed).
bool parseFrameHeader(std::string_view t, StackFrame &frame) {
  constexpr std::string_view file = "File \"";
  if (!t.starts_with(file)) return false;
  size_t close = t.find('"', file.size());
  if (close == std::string_view::npos) return false;
  frame.file = std::string(t.substr(file.size(), close - file.size()));
  std::string_view rest = t.substr(close + 1);
  constexpr std::string_view line = ", line ";
  if (rest.starts_with(line)) {
    rest.remove_prefix(line.size());
    uint32_t n = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec == std::errc()) frame.line = n;
    rest = rest.substr(static_cast<size_t>(p - rest.data()));
  }
  // Searched rather than expected right here, so that an unreadable line number (`line ?`) is skipped.
  constexpr std::string_view in = ", in ";
  if (size_t pos = rest.find(in); pos != std::string_view::npos)
    frame.function = std::string(trim(rest.substr(pos + in.size())));
  return true;
}

} // namespace

KernelKey KernelKey::parse(std::string_view key) {
  KernelKey k;
  size_t colon = key.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < key.size()) {
    std::string_view digits = key.substr(colon + 1);
    int handle = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), handle);
    if (ec == std::errc() && p == digits.data() + digits.size() && isDigit(digits[0])) {
      k.name = std::string(key.substr(0, colon));
      k.debugHandle = handle;
      return k;
    }
  }
  k.name = std::string(key);
  return k;
}

std::string KernelKey::str() const {
  if (!debugHandle) return name;
  return name + ":" + std::to_string(*debugHandle);
}

std::vector<StackFrame> parseStackTrace(std::string_view text) {
  std::vector<StackFrame> frames;
  TextLines lines = splitLines(text);
  // Whether the previous line was a frame header whose code line has not been seen yet.
  bool expectCode = false;
  for (std::string_view line : lines) {
    uint32_t indent = indentOf(line);
    std::string_view t = trim(line);
    StackFrame frame;
    if (parseFrameHeader(t, frame)) {
      frames.push_back(std::move(frame));
      expectCode = true;
      continue;
    }
    // A code line is indented under its header; an unindented line after a header is a message such as
    // "Gradient addition node due to multiple use of tensor around:". Lines after the code (Python 3.11's
    // `~~~^^^` markers) are ignored.
    if (expectCode && indent > 0 && !t.empty()) frames.back().code = std::string(t);
    expectCode = false;
  }
  return frames;
}

bool NodeMappings::empty() const {
  return preToPost.empty() && postToPre.empty() && kernelToPost.empty() && postToKernel.empty();
}

void NodeMappings::merge(const NodeMappings &other) {
  auto add = [](auto &into, const auto &from) {
    for (const auto &[key, values] : from)
      appendUnique(into[key], values);
  };
  add(preToPost, other.preToPost);
  add(postToPre, other.postToPre);
  add(kernelToPost, other.kernelToPost);
  add(postToKernel, other.postToKernel);
  version = std::max(version, other.version);
}

Expected<NodeMappings> parseNodeMappings(std::string_view text) {
  NodeMappings m;
  std::optional<double> version;
  auto error =
      walkDocument(text, "node mappings", [&](const std::string &key, std::string_view raw, Budget &budget) {
        if (key == "preToPost")
          readMap(raw, m.preToPost, budget);
        else if (key == "postToPre")
          readMap(raw, m.postToPre, budget);
        else if (key == "cppCodeToPost")
          readMap(raw, m.kernelToPost, budget);
        else if (key == "postToCppCode")
          readMap(raw, m.postToKernel, budget);
        else if (key == "version")
          version = json_scan::number(raw);
      });
  if (error) return *error;
  // Written as a float (2.0) by torch/_inductor/debug.py; clamped, since a double out of int's range does not
  // convert.
  if (version)
    m.version = static_cast<int>(std::clamp(*version, -1.0, 1000.0));
  else
    m.version = inferVersion(m);
  return m;
}

Expected<NameMap> parseKernelToPostGradNodes(std::string_view text) {
  NameMap out;
  auto error = walkDocument(text, "inductor_triton_kernel_to_post_grad_nodes",
                            [&](const std::string &key, std::string_view raw, Budget &budget) {
                              std::vector<std::string> &target = out[key];
                              target.clear();
                              appendStrings(raw, target, budget);
                            });
  if (error) return *error;
  return out;
}

Expected<NameMap> parsePostToPreGradNodes(std::string_view text) {
  NameMap out;
  std::string scratch;
  auto error = walkDocument(text, "inductor_post_to_pre_grad_nodes",
                            [&](const std::string &key, std::string_view raw, Budget &budget) {
                              std::vector<std::string> &pre = out[key];
                              pre.clear();
                              std::unordered_set<std::string> seen;
                              json_scan::walkArray(raw, [&](std::string_view node) {
                                if (budget.spent() || !budget.take()) return;
                                std::optional<std::string_view> name = json_scan::string(node, scratch);
                                if (!name)
                                  json_scan::walkObject(node, [&](std::string_view k, std::string_view v) {
                                    if (k == "name") name = json_scan::string(v, scratch);
                                  });
                                if (name && seen.insert(std::string(*name)).second) pre.emplace_back(*name);
                              });
                            });
  if (error) return *error;
  return out;
}

NodeMappings legacyNodeMappings(const NameMap &kernelToPost, const NameMap &postToPre) {
  NodeMappings m;
  m.kernelToPost = kernelToPost;
  m.postToPre = postToPre;
  invert(m.kernelToPost, m.postToKernel);
  invert(m.postToPre, m.preToPost);
  m.version = inferVersion(m);
  return m;
}

Expected<std::unordered_map<std::string, std::vector<SharedVector<StackFrame>>>>
parseKernelStackTraces(std::string_view text, const std::function<void(size_t)> &read) {
  std::unordered_map<std::string, std::vector<SharedVector<StackFrame>>> out;
  TraceMemo memo;
  auto error = walkDocument(
      text, "kernel stack traces",
      [&](const std::string &key, std::string_view raw, Budget &budget) {
        auto &parsed = out[key];
        parsed.clear();
        appendStackTraces(raw, parsed, budget, memo);
      },
      read);
  if (error) return *error;
  return out;
}

Expected<std::unordered_map<std::string, KernelInformation>> parseKernelInformation(std::string_view text) {
  std::unordered_map<std::string, KernelInformation> out;
  TraceMemo memo;
  auto error = walkDocument(text, "kernel_information.json",
                            [&](const std::string &key, std::string_view raw, Budget &budget) {
                              if (raw.empty() || raw.front() != '{') return;
                              KernelInformation &k = out[key];
                              k = KernelInformation();
                              json_scan::walkObject(raw, [&](std::string_view member, std::string_view v) {
                                if (member == "stack_traces") {
                                  k.stackTraces.clear();
                                  appendStackTraces(v, k.stackTraces, budget, memo);
                                } else if (member == "post_grad_nodes") {
                                  k.postGradNodes.clear();
                                  appendStrings(v, k.postGradNodes, budget);
                                } else if (member == "pre_grad_nodes") {
                                  k.preGradNodes.clear();
                                  appendStrings(v, k.preGradNodes, budget);
                                }
                              });
                            });
  if (error) return *error;
  return out;
}

} // namespace inductor::index
