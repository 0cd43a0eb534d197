#include "index/JsonScan.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace inductor::index::json_scan {

std::optional<std::string_view> string(std::string_view raw, std::string &scratch) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  std::string_view inner = raw.substr(1, raw.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return inner;
  // One string token: nlohmann decodes the escapes (\uXXXX pairs included) without any nesting.
  nlohmann::json decoded = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (!decoded.is_string()) return std::nullopt;
  scratch = std::move(decoded.get_ref<std::string &>());
  return std::string_view(scratch);
}

std::optional<std::string_view> decodeKey(std::string_view key, std::string &scratch) {
  if (key.find('\\') == std::string_view::npos) return key;
  std::string quoted;
  quoted.reserve(key.size() + 2);
  quoted += '"';
  quoted += key;
  quoted += '"';
  return string(quoted, scratch);
}

std::optional<int> integer(std::string_view raw) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec != std::errc() || ptr != raw.data() + raw.size()) return std::nullopt;
  return value;
}

std::optional<double> number(std::string_view raw) {
  if (raw.empty() || raw.size() > 64 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')))
    return std::nullopt;
  // strtod needs a terminated string; a number token is short.
  std::string text(raw);
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

} // namespace inductor::index::json_scan
