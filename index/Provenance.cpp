#include "index/Provenance.h"

#include "index/TextLines.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace inductor::index {
namespace {

using json = nlohmann::json;

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Parses `json` with exceptions off; sets `error` on failure.
json parseJson(std::string_view text, std::string &error) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    error = "invalid JSON";
  else if (j.is_null())
    error = "empty";
  else if (!j.is_object())
    error = "expected a JSON object";
  return j;
}

// Appends the string elements of `array` to `out`; anything else is skipped.
void appendStrings(const json &array, std::vector<std::string> &out) {
  if (!array.is_array()) return;
  for (const json &e : array)
    if (e.is_string()) out.push_back(e.get<std::string>());
}

void readMap(const json &root, const char *key, NameMap &out) {
  auto it = root.find(key);
  if (it == root.end() || !it->is_object()) return;
  for (auto entry = it->begin(); entry != it->end(); ++entry)
    appendStrings(entry.value(), out[entry.key()]);
}

void appendUnique(std::vector<std::string> &into, const std::string &value) {
  if (std::find(into.begin(), into.end(), value) == into.end()) into.push_back(value);
}

// Fills `to` as the inverse of `from`, keeping first-seen order.
void invert(const std::unordered_map<std::string, std::vector<std::string>> &from,
            std::unordered_map<std::string, std::vector<std::string>> &to) {
  for (const auto &[key, values] : from)
    for (const std::string &v : values)
      appendUnique(to[v], key);
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
  if (!startsWith(t, file)) return false;
  size_t close = t.find('"', file.size());
  if (close == std::string_view::npos) return false;
  frame.file = std::string(t.substr(file.size(), close - file.size()));
  std::string_view rest = t.substr(close + 1);
  constexpr std::string_view line = ", line ";
  if (startsWith(rest, line)) {
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
    for (const auto &[key, values] : from) {
      std::vector<std::string> &target = into[key];
      for (const std::string &v : values)
        appendUnique(target, v);
    }
  };
  add(preToPost, other.preToPost);
  add(postToPre, other.postToPre);
  add(kernelToPost, other.kernelToPost);
  add(postToKernel, other.postToKernel);
  version = std::max(version, other.version);
}

Expected<NodeMappings> parseNodeMappings(std::string_view text) {
  std::string error;
  json root = parseJson(text, error);
  if (!error.empty()) return Error{"node mappings: " + error};
  NodeMappings m;
  readMap(root, "preToPost", m.preToPost);
  readMap(root, "postToPre", m.postToPre);
  readMap(root, "cppCodeToPost", m.kernelToPost);
  readMap(root, "postToCppCode", m.postToKernel);
  auto version = root.find("version");
  // Written as a float (2.0) by torch/_inductor/debug.py.
  if (version != root.end() && version->is_number())
    m.version = static_cast<int>(version->get<double>());
  else
    m.version = inferVersion(m);
  return m;
}

Expected<NameMap> parseKernelToPostGradNodes(std::string_view text) {
  std::string error;
  json root = parseJson(text, error);
  if (!error.empty()) return Error{"inductor_triton_kernel_to_post_grad_nodes: " + error};
  NameMap out;
  for (auto entry = root.begin(); entry != root.end(); ++entry)
    appendStrings(entry.value(), out[entry.key()]);
  return out;
}

Expected<NameMap> parsePostToPreGradNodes(std::string_view text) {
  std::string error;
  json root = parseJson(text, error);
  if (!error.empty()) return Error{"inductor_post_to_pre_grad_nodes: " + error};
  NameMap out;
  for (auto entry = root.begin(); entry != root.end(); ++entry) {
    std::vector<std::string> &pre = out[entry.key()];
    if (!entry.value().is_array()) continue;
    for (const json &node : entry.value()) {
      if (node.is_object()) {
        auto name = node.find("name");
        if (name != node.end() && name->is_string()) appendUnique(pre, name->get<std::string>());
      } else if (node.is_string()) {
        appendUnique(pre, node.get<std::string>());
      }
    }
  }
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

Expected<std::unordered_map<std::string, std::vector<std::vector<StackFrame>>>>
parseKernelStackTraces(std::string_view text) {
  std::string error;
  json root = parseJson(text, error);
  if (!error.empty()) return Error{"kernel stack traces: " + error};
  std::unordered_map<std::string, std::vector<std::vector<StackFrame>>> out;
  for (auto entry = root.begin(); entry != root.end(); ++entry) {
    std::vector<std::string> traces;
    appendStrings(entry.value(), traces);
    auto &parsed = out[entry.key()];
    for (const std::string &t : traces)
      parsed.push_back(parseStackTrace(t));
  }
  return out;
}

Expected<std::unordered_map<std::string, KernelInformation>> parseKernelInformation(std::string_view text) {
  std::string error;
  json root = parseJson(text, error);
  if (!error.empty()) return Error{"kernel_information.json: " + error};
  std::unordered_map<std::string, KernelInformation> out;
  for (auto entry = root.begin(); entry != root.end(); ++entry) {
    const json &v = entry.value();
    if (!v.is_object()) continue;
    KernelInformation &k = out[entry.key()];
    if (auto it = v.find("stack_traces"); it != v.end()) {
      std::vector<std::string> traces;
      appendStrings(*it, traces);
      for (const std::string &t : traces)
        k.stackTraces.push_back(parseStackTrace(t));
    }
    if (auto it = v.find("post_grad_nodes"); it != v.end()) appendStrings(*it, k.postGradNodes);
    if (auto it = v.find("pre_grad_nodes"); it != v.end()) appendStrings(*it, k.preGradNodes);
  }
  return out;
}

} // namespace inductor::index
