// index/CompileId.cpp: printing and parsing compile ids the way torch/_guards.py and tlparse do.
#include "index/CompileId.h"

#include <charconv>

namespace inductor::index {
namespace {

std::string component(const std::optional<int> &v) {
  return v ? std::to_string(*v) : std::string("-");
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
  // A non-negative decimal number, or "-" for a missing component. The outer optional says whether
  // anything was consumed.
  std::optional<std::optional<int>> number() {
    if (eat('-')) return std::optional<int>{};
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    i = size_t(ptr - s.data());
    return std::optional<int>{value};
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
  if (empty()) return "";
  std::string frame = component(frameId) + "/" + component(frameCompileId);
  if (compiledAutogradId) {
    std::string out = "!" + std::to_string(*compiledAutogradId);
    if (frameId || frameCompileId) out += "/" + frame;
    return out;
  }
  return frame;
}

std::string CompileId::traceStr() const {
  std::string out = str();
  if (attempt && *attempt != 0) out += "_" + std::to_string(*attempt);
  return out;
}

std::string CompileId::dirName() const {
  std::string out;
  if (compiledAutogradId) out = "!" + std::to_string(*compiledAutogradId) + "_";
  return out + component(frameId) + "_" + component(frameCompileId) + "_" + component(attempt);
}

std::optional<CompileId> CompileId::parse(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '[') text.remove_prefix(1);
  if (!text.empty() && text.back() == ']') text.remove_suffix(1);
  Cursor c{trim(text)};
  CompileId id;
  bool any = false;
  if (c.eat('!')) {
    auto ca = c.number();
    if (!ca || !*ca) return std::nullopt;
    id.compiledAutogradId = *ca;
    any = true;
    if (!c.eat('/')) return id; // "!3": compiled autograd graph without a Dynamo frame.
  }
  auto frame = c.number();
  if (!frame || !c.eat('/')) return any ? std::optional<CompileId>(id) : std::nullopt;
  auto frameCompile = c.number();
  if (!frameCompile) return any ? std::optional<CompileId>(id) : std::nullopt;
  id.frameId = *frame;
  id.frameCompileId = *frameCompile;
  // Extra "/N" components (from a newer or older PyTorch) are tolerated and ignored.
  while (c.eat('/') && c.number()) {
  }
  if (c.eat('_')) {
    if (auto attempt = c.number()) id.attempt = *attempt;
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
