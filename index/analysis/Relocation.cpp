#include "index/analysis/Relocation.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace inductor::index {
namespace {

/// The statement on a line as compared: without leading and trailing whitespace and without a trailing
/// `# comment` (outside string literals), so that a comment added to a line does not make it another line.
std::string_view statementText(std::string_view line) {
  line = trim(line);
  CodeChars code(line);
  for (size_t i = code.next(); i != std::string_view::npos; i = code.next())
    if (line[i] == '#') return trim(line.substr(0, i));
  return line;
}

/// A `def NAME` and the lines of its body: [first, last], 0-based, inclusive (first is the `def` line).
struct FunctionSpan {
  std::string_view name;
  uint32_t first = 0, last = 0;
};

/// The name defined by `def NAME(` / `async def NAME(` at the start of `t` (already trimmed), else empty.
std::string_view defName(std::string_view t) {
  if (t.substr(0, 6) == "async ") t = trim(t.substr(6));
  if (t.substr(0, 4) != "def ") return {};
  t = trim(t.substr(4));
  size_t n = 0;
  while (n < t.size() && isIdentChar(t[n]))
    ++n;
  return n && isIdentStart(t[0]) ? t.substr(0, n) : std::string_view();
}

/// Number of triple-quote delimiters on a line (an odd count opens or closes a multi-line string).
int tripleQuotes(std::string_view line) {
  int n = 0;
  for (std::string_view q : {std::string_view("\"\"\""), std::string_view("'''")})
    for (size_t p = line.find(q); p != std::string_view::npos; p = line.find(q, p + 3))
      ++n;
  return n;
}

/// Net change of bracket depth over a line: (, [ and { outside string literals and comments.
int bracketDelta(std::string_view line) {
  int depth = 0;
  CodeChars code(line);
  for (size_t i = code.next(); i != std::string_view::npos; i = code.next()) {
    char c = line[i];
    if (c == '#') break;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  return depth;
}

/// Every function definition of Python source, by indentation. Lines inside multi-line strings, comment lines
/// and continuation lines inside brackets (the `) -> Tensor:` closing a multi-line signature) do not end a
/// body.
std::vector<FunctionSpan> functionSpans(const TextLines &lines) {
  std::vector<FunctionSpan> out;
  struct Open {
    size_t span;
    uint32_t indent;
  };
  std::vector<Open> open;
  bool inString = false;
  int depth = 0;
  uint32_t lastCode = 0;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string_view t = trim(line);
    bool startsInString = inString;
    if (tripleQuotes(line) % 2) inString = !inString;
    bool continuation = depth > 0;
    if (!startsInString && !inString) depth = std::max(0, depth + bracketDelta(line));
    if (t.empty() || t[0] == '#' || startsInString || continuation) {
      if (!t.empty()) lastCode = i;
      continue;
    }
    uint32_t indent = indentOf(line);
    while (!open.empty() && open.back().indent >= indent) {
      out[open.back().span].last = lastCode;
      open.pop_back();
    }
    if (std::string_view name = defName(t); !name.empty()) {
      out.push_back({name, i, i});
      open.push_back({out.size() - 1, indent});
    }
    lastCode = i;
  }
  for (const Open &o : open)
    out[o.span].last = lastCode;
  return out;
}

/// A function name that can be looked up as a `def` (not `<module>`, `<lambda>`, `<listcomp>`...).
bool isDefName(std::string_view f) {
  return !f.empty() && isIdentStart(f[0]);
}

} // namespace

std::vector<Relocation> relocateLines(const TextLines &current, const std::vector<RecordedLine> &recorded) {
  const uint32_t lineCount = static_cast<uint32_t>(current.size());
  std::vector<Relocation> out(recorded.size());

  // Candidate lines for each recorded text, in one pass over the file.
  std::unordered_map<std::string_view, std::vector<uint32_t>> byText;
  for (const RecordedLine &r : recorded)
    if (std::string_view code = statementText(r.code); !code.empty())
      byText.emplace(code, std::vector<uint32_t>{});
  std::unordered_set<std::string_view> functions;
  for (const RecordedLine &r : recorded)
    if (isDefName(r.function)) functions.insert(r.function);
  for (uint32_t i = 0; i < lineCount; ++i)
    if (auto it = byText.find(statementText(current[i])); it != byText.end()) it->second.push_back(i);

  std::vector<FunctionSpan> spans;
  if (!functions.empty()) spans = functionSpans(current);
  auto definesFunction = [&](std::string_view f) {
    return std::any_of(spans.begin(), spans.end(), [&](const FunctionSpan &s) { return s.name == f; });
  };
  auto insideFunction = [&](uint32_t line, std::string_view f) {
    return std::any_of(spans.begin(), spans.end(), [&](const FunctionSpan &s) {
      return s.name == f && s.first <= line && line <= s.last;
    });
  };

  // Pass 1: unchanged lines, lines with one candidate (anchors), lines not found; the rest wait for anchors.
  std::vector<std::pair<uint32_t, uint32_t>> anchors; // (recorded line, current line), 1-based.
  std::vector<std::pair<size_t, std::vector<uint32_t>>> ambiguous;
  for (size_t k = 0; k < recorded.size(); ++k) {
    const RecordedLine &r = recorded[k];
    std::string_view code = statementText(r.code);
    if (code.empty()) {
      if (r.line >= 1 && r.line <= lineCount) out[k] = {Relocation::Status::Unverified, r.line};
      continue;
    }
    bool checkFunction = isDefName(r.function) && definesFunction(r.function);
    if (r.line >= 1 && r.line <= lineCount && statementText(current[r.line - 1]) == code &&
        (!checkFunction || insideFunction(r.line - 1, r.function))) {
      out[k] = {Relocation::Status::Unchanged, r.line};
      anchors.emplace_back(r.line, r.line);
      continue;
    }
    std::vector<uint32_t> candidates = byText[code];
    if (checkFunction) std::erase_if(candidates, [&](uint32_t c) { return !insideFunction(c, r.function); });
    if (candidates.empty()) continue; // NotFound.
    if (candidates.size() == 1) {
      out[k] = {Relocation::Status::Moved, candidates[0] + 1};
      anchors.emplace_back(r.line, candidates[0] + 1);
      continue;
    }
    ambiguous.emplace_back(k, std::move(candidates));
  }

  // Pass 2: among several candidates, the one nearest to where the neighbouring anchors say the line went.
  std::sort(anchors.begin(), anchors.end());
  for (auto &entry : ambiguous) {
    // Named, not a structured binding: clang 14 cannot capture bindings in the lambda below.
    const size_t k = entry.first;
    const std::vector<uint32_t> &candidates = entry.second;
    const RecordedLine &r = recorded[k];
    auto next = std::lower_bound(anchors.begin(), anchors.end(), std::make_pair(r.line, uint32_t{0}));
    std::optional<std::pair<uint32_t, uint32_t>> before, after;
    if (next != anchors.end()) after = *next;
    if (next != anchors.begin()) before = *std::prev(next);
    int64_t shift = 0;
    if (before && (!after || r.line - before->first <= after->first - r.line))
      shift = int64_t(before->second) - before->first;
    else if (after)
      shift = int64_t(after->second) - after->first;
    int64_t expected = int64_t(r.line) + shift;
    int64_t lo = before ? before->second : 0;
    int64_t hi = after ? after->second : std::numeric_limits<int64_t>::max();
    auto pick = [&](bool bounded) -> std::optional<uint32_t> {
      std::optional<uint32_t> best;
      int64_t bestDistance = 0;
      for (uint32_t c : candidates) {
        int64_t line = int64_t(c) + 1;
        if (bounded && (line < lo || line > hi)) continue;
        int64_t d = line > expected ? line - expected : expected - line;
        if (!best || d < bestDistance) {
          best = static_cast<uint32_t>(line);
          bestDistance = d;
        }
      }
      return best;
    };
    std::optional<uint32_t> line = pick(true);
    if (!line) line = pick(false);
    out[k] = {Relocation::Status::Moved, *line};
  }
  return out;
}

Relocation relocateLine(const TextLines &current, const RecordedLine &recorded) {
  return relocateLines(current, {recorded}).front();
}

} // namespace inductor::index
