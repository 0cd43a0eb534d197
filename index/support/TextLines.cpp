#include "index/support/TextLines.h"

#include <cstring>

namespace inductor::index {

TextLines splitLines(std::string_view text) {
  TextLines lines;
  // memchr is much faster than a byte loop on large payloads; count first so the vector allocates once.
  size_t count = 0;
  for (const char *p = text.data(), *end = text.data() + text.size(); p < end;) {
    const void *nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    ++count;
    if (!nl) break;
    p = static_cast<const char *>(nl) + 1;
  }
  lines.reserve(count);
  size_t pos = 0;
  while (pos < text.size()) {
    const void *nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    size_t end = nl ? static_cast<size_t>(static_cast<const char *>(nl) - text.data()) : text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

} // namespace inductor::index
