#include "index/trace/JsonScan.h"
#include "index/support/TextLines.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace inductor::index::json_scan {

std::optional<std::string_view> string(std::string_view raw, std::string &scratch) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  std::string_view inner = raw.substr(1, raw.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return inner;
  // Decoded here rather than by nlohmann::json::parse, which grows a new string byte by byte for each token:
  // stack traces are thousands of multi-KB strings with `\n` escapes, and that was a third of a build.
  // Escapes are checked as strictly as nlohmann checks them (RFC 8259; \u surrogates must pair).
  scratch.clear();
  scratch.reserve(inner.size());
  auto hex4 = [&](size_t at) -> std::optional<uint32_t> {
    if (at + 4 > inner.size()) return std::nullopt;
    uint32_t v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      int d = hexValue(inner[k]);
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<uint32_t>(d);
    }
    return v;
  };
  for (size_t i = 0; i < inner.size();) {
    size_t escape = inner.find('\\', i);
    if (escape == std::string_view::npos) escape = inner.size();
    scratch.append(inner.substr(i, escape - i));
    if (escape == inner.size()) break;
    if (escape + 1 >= inner.size()) return std::nullopt;
    char e = inner[escape + 1];
    i = escape + 2;
    switch (e) {
    case '"':
      scratch += '"';
      continue;
    case '\\':
      scratch += '\\';
      continue;
    case '/':
      scratch += '/';
      continue;
    case 'b':
      scratch += '\b';
      continue;
    case 'f':
      scratch += '\f';
      continue;
    case 'n':
      scratch += '\n';
      continue;
    case 'r':
      scratch += '\r';
      continue;
    case 't':
      scratch += '\t';
      continue;
    case 'u':
      break;
    default:
      return std::nullopt;
    }
    auto unit = hex4(i);
    if (!unit) return std::nullopt;
    i += 4;
    uint32_t cp = *unit;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return std::nullopt; // A low surrogate first.
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 2 > inner.size() || inner[i] != '\\' || inner[i + 1] != 'u') return std::nullopt;
      auto low = hex4(i + 2);
      if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
      i += 6;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (*low - 0xDC00);
    }
    if (cp < 0x80) {
      scratch += static_cast<char>(cp);
    } else if (cp < 0x800) {
      scratch += static_cast<char>(0xC0 | (cp >> 6));
      scratch += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      scratch += static_cast<char>(0xE0 | (cp >> 12));
      scratch += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      scratch += static_cast<char>(0xF0 | (cp >> 18));
      scratch += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      scratch += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
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
