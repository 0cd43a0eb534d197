// index/trace/CompileId.cpp: printing and parsing compile ids the way torch/_guards.py and tlparse do.
#include "index/trace/CompileId.h"

#include <charconv>

namespace inductor::index {
namespace {

// Appends a component, or "-" when it is missing. Built with appends only: GCC 12 reports false -Wrestrict
// positives for `"literal" + std::string` chains at -O3.
void appendComponent(std::string &out, const std::optional<int> &v) {
  if (v)
    out += std::to_string(*v);
  else
    out += '-';
}

// A tiny cursor over the text being parsed.
struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  // A non-negative decimal number into `out`, or "-" for a missing component (out = nullopt). Returns whether
  // anything was consumed.
  bool number(std::optional<int> &out) {
    if (eat('-')) {
      out.reset();
      return true;
    }
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), value);
    if (ec != std::errc() || value < 0) return false;
    i = size_t(ptr - s.data());
    out = value;
    return true;
  }
};

std::string_view trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && blank(s.back()))
    s.remove_suffix(1);
  return s;
}

} // namespace

std::string CompileId::str() const {
  std::string out;
  if (empty()) return out;
  if (compiledAutogradId) {
    out += '!';
    out += std::to_string(*compiledAutogradId);
    if (!frameId && !frameCompileId) return out;
    out += '/';
  }
  appendComponent(out, frameId);
  out += '/';
  appendComponent(out, frameCompileId);
  return out;
}

std::string CompileId::traceStr() const {
  std::string out = str();
  if (attempt && *attempt != 0) {
    out += '_';
    out += std::to_string(*attempt);
  }
  return out;
}

std::string CompileId::dirName() const {
  std::string out;
  if (compiledAutogradId) {
    out += '!';
    out += std::to_string(*compiledAutogradId);
    out += '_';
  }
  appendComponent(out, frameId);
  out += '_';
  appendComponent(out, frameCompileId);
  out += '_';
  appendComponent(out, attempt);
  return out;
}

std::optional<CompileId> CompileId::parse(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '[') text.remove_prefix(1);
  if (!text.empty() && text.back() == ']') text.remove_suffix(1);
  Cursor c{trim(text)};
  CompileId id;
  if (c.eat('!')) {
    if (!c.number(id.compiledAutogradId) || !id.compiledAutogradId) return std::nullopt;
    if (!c.eat('/')) return id; // "!3": compiled autograd graph without a Dynamo frame.
  }
  std::optional<int> frame, frameCompile;
  if (!c.number(frame) || !c.eat('/') || !c.number(frameCompile))
    return id.empty() ? std::nullopt : std::optional<CompileId>(id);
  id.frameId = frame;
  id.frameCompileId = frameCompile;
  // Extra "/N" components (from a newer or older PyTorch) are tolerated and ignored.
  std::optional<int> extra;
  while (c.eat('/') && c.number(extra)) {
  }
  if (c.eat('_')) {
    std::optional<int> attempt;
    if (c.number(attempt)) id.attempt = attempt;
  }
  if (id.empty()) return std::nullopt; // "-/-" names nothing.
  return id;
}

} // namespace inductor::index

size_t
std::hash<inductor::index::CompileId>::operator()(const inductor::index::CompileId &id) const noexcept {
  // Missing components hash as -1, which no real component takes.
  size_t h = 0;
  for (const auto &part : {id.frameId, id.frameCompileId, id.attempt, id.compiledAutogradId})
    h = h * 1000003u ^ std::hash<int>()(part.value_or(-1));
  return h;
}
