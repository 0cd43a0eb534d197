#include "server/text/Markdown.h"

#include "index/support/TextLines.h"

#include <algorithm>
#include <vector>

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

std::string withinLineBudget(const std::string &md, size_t budget) {
  std::vector<std::vector<std::string_view>> blocks;
  size_t total = 0;
  for (size_t start = 0; start <= md.size();) {
    size_t end = md.find("\n\n", start);
    std::string_view block =
        std::string_view(md).substr(start, end == std::string::npos ? md.npos : end - start);
    blocks.emplace_back();
    for (size_t b = 0; b <= block.size();) {
      size_t e = block.find('\n', b);
      std::string_view line = block.substr(b, e == std::string_view::npos ? block.npos : e - b);
      if (!index::trim(line).empty()) {
        blocks.back().push_back(line);
        ++total;
      }
      if (e == std::string_view::npos) break;
      b = e + 1;
    }
    if (end == std::string::npos) break;
    start = end + 2;
  }
  if (total <= budget) return md;
  std::string out;
  size_t used = 0, dropped = 0;
  for (const auto &lines : blocks) {
    if (lines.empty()) continue;
    // Past the budget, a section's heading stays (what else the hover has stays visible); the rest goes.
    bool heading = lines[0].starts_with("### ") || lines[0] == "---";
    size_t room = budget > used ? budget - used : 0;
    // A block that does not fit keeps what fits with its "more" line, counted; one with no room for both
    // goes whole (a heading keeps its first line).
    if (lines.size() > room && room < 2 && !(heading && lines.size() == 1)) {
      if (!heading) {
        dropped += lines.size();
        continue;
      }
    }
    size_t keep = lines.size() <= room ? lines.size() : std::max<size_t>(1, room > 1 ? room - 1 : 0);
    std::string block;
    bool inCode = false;
    for (size_t i = 0; i < keep; ++i) {
      block += (i ? "\n" : "") + std::string(lines[i]);
      if (lines[i].starts_with("```")) inCode = !inCode;
    }
    if (keep < lines.size()) {
      std::string more = "… " + std::to_string(lines.size() - keep) + " more";
      block += inCode ? "\n" + more + "\n```" : "\n- " + more;
      used += inCode ? 2 : 1;
    }
    out += (out.empty() ? "" : "\n\n") + block;
    used += keep;
  }
  if (dropped) out += "\n\n*… " + std::to_string(dropped) + " more lines*";
  return out;
}

} // namespace inductor::server
