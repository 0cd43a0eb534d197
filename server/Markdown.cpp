#include "server/Markdown.h"

namespace inductor::server {

std::string plural(size_t n, std::string_view one, std::string_view many) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

std::string markdownLink(std::string_view text, const std::string &uri, uint32_t line) {
  std::string out = "[";
  // Brackets in the text would end the link text early.
  for (char c : text) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  out += "](" + uri;
  if (line > 0) out += "#L" + std::to_string(line);
  out += ")";
  return out;
}

std::string codeSpan(std::string_view s) {
  // A backtick inside would end the span early; use a double-backtick span then.
  return s.find('`') == std::string_view::npos ? "`" + std::string(s) + "`" : "`` " + std::string(s) + " ``";
}

} // namespace inductor::server
