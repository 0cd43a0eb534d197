// index/health/CompileHealth.cpp: the parsers of compile-health record texts and the first build step,
// reading one log's records into RecordedCompiles (see CompileHealth.h for the formats).
#include "index/health/CompileHealth.h"
#include "index/trace/JsonScan.h"

#include "index/support/TextLines.h"
#include "index/trace/TraceLog.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace inductor::index {
namespace {

using json = nlohmann::json;

std::string joinLines(const std::vector<std::string_view> &lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < lines.size(); ++i) {
    if (i > begin) out += '\n';
    out += lines[i];
  }
  return out;
}

/// Removes trailing blank lines and trailing whitespace.
std::string trimText(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  size_t b = 0;
  while (b < s.size() && s[b] == '\n')
    ++b;
  return s.substr(b);
}

std::optional<uint32_t> parseUint(std::string_view s) {
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// "PATH:LINE" (the line after the last colon).
std::optional<StackFrame> parseFileLine(std::string_view s) {
  s = trim(s);
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  auto line = parseUint(s.substr(colon + 1));
  if (!line) return std::nullopt;
  StackFrame f;
  f.file = std::string(s.substr(0, colon));
  f.line = *line;
  return f;
}

/// "PATH:LINE in NAME[ (...)]" at the start of `s`, as torch.utils._traceback.format_frame prints a frame.
std::optional<StackFrame> parseFrameSummary(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  constexpr std::string_view in = " in ";
  size_t at = s.find(in);
  while (at != std::string_view::npos) {
    if (auto f = parseFileLine(s.substr(0, at))) {
      std::string_view name = s.substr(at + in.size());
      size_t end = name.find(' ');
      f->function = std::string(name.substr(0, end));
      return f;
    }
    at = s.find(in, at + 1);
  }
  return std::nullopt;
}

std::string_view afterPrefix(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix ? s.substr(prefix.size()) : std::string_view();
}

/// The guard-source expression that starts at `pos` in `s`: `L['x']`, `G['SCALE']`, followed by attribute
/// and item accesses (`.size()[0]` is not an access path: calls end it).
std::string sourceAt(std::string_view s, size_t pos) {
  size_t i = pos + 1; // After 'L' or 'G'.
  auto item = [&]() {
    if (i >= s.size() || s[i] != '[') return false;
    size_t close = s.find(']', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
    return true;
  };
  if (!item()) return {};
  for (;;) {
    if (i < s.size() && s[i] == '.') {
      size_t j = i + 1;
      while (j < s.size() && isIdentChar(s[j]))
        ++j;
      if (j == i + 1 || (j < s.size() && s[j] == '(')) break;
      i = j;
      continue;
    }
    if (!item()) break;
  }
  return std::string(s.substr(pos, i - pos));
}

/// The first guard source (`L[...]`/`G[...]` access path) in an expression.
std::string firstSource(std::string_view s) {
  for (size_t i = 0; i + 2 < s.size(); ++i)
    if ((s[i] == 'L' || s[i] == 'G') && s[i + 1] == '[' && (i == 0 || !isIdentChar(s[i - 1])))
      if (std::string src = sourceAt(s, i); !src.empty()) return src;
  return {};
}

CacheOutcome outcomeOf(std::string_view name) {
  if (name.ends_with("_hit")) return CacheOutcome::Hit;
  if (name.ends_with("_miss")) return CacheOutcome::Miss;
  if (name.ends_with("_bypass")) return CacheOutcome::Bypass;
  return CacheOutcome::Unknown;
}

/// A compile's cache outcome over several graphs (forward, backward): a miss anywhere is a miss.
void mergeOutcome(CacheOutcome &into, CacheOutcome o) {
  auto rank = [](CacheOutcome c) {
    switch (c) {
    case CacheOutcome::Miss:
      return 3;
    case CacheOutcome::Bypass:
      return 2;
    case CacheOutcome::Hit:
      return 1;
    case CacheOutcome::Unknown:
      break;
    }
    return 0;
  };
  if (rank(o) > rank(into)) into = o;
}

// Walked, not parsed into a DOM: a stack is the whole Python stack (KBs of frames in a guard's record), and
// nlohmann's DOM of each, with its copies, was two thirds of the compile health read of the 1G workload.
std::vector<StackFrame> readStack(std::string_view raw, const std::function<std::string(int)> &filename) {
  std::vector<StackFrame> out;
  std::string scratch;
  auto text = [&](std::string_view v) -> std::optional<std::string> {
    auto s = json_scan::string(v, scratch);
    return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
  };
  // A line number as the trace records it: a positive integer (no fraction or exponent) that fits.
  auto lineOf = [](std::string_view v) -> uint32_t {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n <= 0 || n > int64_t{UINT32_MAX}) return 0;
    return static_cast<uint32_t>(n);
  };
  auto fileOf = [&](std::string_view v) -> std::string {
    if (auto id = json_scan::integer(v)) return filename(*id);
    return text(v).value_or(std::string());
  };
  bool ok = json_scan::walkArray(raw, [&](std::string_view element) {
    StackFrame frame;
    if (element.front() == '{') {
      std::optional<std::string> uninterned;
      // The first of repeated keys, as json_scan reads metadata.
      bool seenFile = false, seenLine = false, seenName = false, seenLoc = false;
      json_scan::walkObject(element, [&](std::string_view key, std::string_view v) {
        if (key == "filename" && !seenFile) {
          seenFile = true;
          frame.file = fileOf(v);
        } else if (key == "uninterned_filename" && !uninterned) {
          uninterned = text(v);
        } else if (key == "line" && !seenLine) {
          seenLine = true;
          frame.line = lineOf(v);
        } else if (key == "name" && !seenName) {
          seenName = true;
          frame.function = text(v).value_or(std::string());
        } else if (key == "loc" && !seenLoc) {
          seenLoc = true;
          if (auto loc = json_scan::string(v, scratch)) frame.code = std::string(trim(*loc));
        }
      });
      if (uninterned) frame.file = std::move(*uninterned);
    } else if (element.front() == '[') {
      std::string_view parts[3];
      size_t n = 0;
      json_scan::walkArray(element, [&](std::string_view v) {
        if (n < 3) parts[n] = v;
        ++n;
      });
      if (n < 3) return;
      frame.file = fileOf(parts[0]);
      frame.line = lineOf(parts[1]);
      frame.function = text(parts[2]).value_or(std::string());
    } else {
      return;
    }
    out.push_back(std::move(frame));
  });
  if (!ok) out.clear(); // Not one well-formed array: no frames, as for any text that is not a stack.
  return out;
}

std::string str(const json &j, const char *key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> num(const json &j, const char *key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<int64_t> integer(const json &j, const char *key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

/// Seconds from `<key>_s`, else from `<key>_us` style fields.
std::optional<double> seconds(const json &j, std::initializer_list<const char *> secondKeys,
                              std::initializer_list<const char *> microKeys) {
  for (const char *k : secondKeys)
    if (auto v = num(j, k)) return v;
  for (const char *k : microKeys)
    if (auto v = num(j, k)) return *v / 1e6;
  return std::nullopt;
}

/// The integer member `key` at the top level of a JSON object text (dynamo_config), scanned, not parsed.
std::optional<int64_t> configInteger(std::string_view config, std::string_view key) {
  std::optional<int64_t> out;
  json_scan::walkObject(config, [&](std::string_view k, std::string_view raw) {
    if (k != key) return true;
    out = json_scan::integer(raw);
    return false;
  });
  return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------------------------
// Record texts.

namespace {

/// The graph-break site id ("gb0059") of a reason's link, after trimming the link's trailing punctuation.
void setLink(GraphBreakReason &r) {
  if (r.url.empty()) return;
  std::string_view u = r.url;
  while (!u.empty() && (u.back() == '.' || u.back() == ')'))
    u.remove_suffix(1);
  r.url = std::string(u);
  u = r.url; // The old buffer is gone.
  size_t slash = u.rfind('/');
  std::string_view base = slash == std::string_view::npos ? u : u.substr(slash + 1);
  if (size_t dot = base.find('.'); dot != std::string_view::npos) base = base.substr(0, dot);
  if (base.starts_with("gb")) r.id = std::string(base);
}

/// The body of one graph break, lines [begin, end): title, "  Explanation:", "  Hint:", "  Developer debug
/// context:", the link. The title is the last unindented line before the explanation (after a context line
/// such as "Encountered graph break when attempting to trace CALL: ..."); returns it, empty without an
/// explanation.
std::string parseBreakBody(const TextLines &lines, size_t begin, size_t end, GraphBreakReason &r) {
  std::string title, lastUnindented;
  bool explained = false;
  enum class Field { None, Explanation, Hint, Developer } field = Field::None;
  for (size_t i = begin; i < end; ++i) {
    std::string_view line = lines[i];
    std::string_view t = trim(line);
    if (t.empty()) {
      field = Field::None;
      continue;
    }
    if (auto rest = afterPrefix(t, "Explanation:"); !rest.empty() || t == "Explanation:") {
      if (!explained) title = lastUnindented;
      r.explanation = std::string(trim(rest));
      field = Field::Explanation;
      explained = true;
      continue;
    }
    if (auto rest = afterPrefix(t, "Hint:"); !rest.empty()) {
      r.hints.push_back(std::string(trim(rest)));
      field = Field::Hint;
      continue;
    }
    if (auto rest = afterPrefix(t, "Developer debug context:");
        !rest.empty() || t == "Developer debug context:") {
      r.developerContext = std::string(trim(rest));
      field = Field::Developer;
      continue;
    }
    if (size_t at = t.find("please visit: "); at != std::string_view::npos) {
      r.url = std::string(trim(t.substr(at + 14)));
      field = Field::None;
      continue;
    }
    if (indentOf(line) == 0) {
      if (!explained) lastUnindented = std::string(t);
      field = Field::None;
      continue;
    }
    // A continuation line of the field above.
    switch (field) {
    case Field::Explanation:
      r.explanation += " " + std::string(t);
      break;
    case Field::Hint:
      r.hints.back() += " " + std::string(t);
      break;
    case Field::Developer:
      r.developerContext += " " + std::string(t);
      break;
    case Field::None:
      break;
    }
  }
  setLink(r);
  return title;
}

/// The line torch/_dynamo/exc.py writes between a graph break and one that occurred while handling it.
bool isFollowUpSeparator(std::string_view line) {
  return trim(line).starts_with("*** While handling this graph break, another graph break occurred");
}

/// At most this many graph breaks that occurred while handling one are kept (PyTorch nests one or two).
constexpr size_t kMaxFollowUps = 8;

} // namespace

GraphBreakReason parseGraphBreakReason(std::string_view text) {
  GraphBreakReason r;
  TextLines lines = splitLines(text);
  size_t reasonBegin = lines.size(), reasonEnd = lines.size(), traceback = lines.size();
  std::string header;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (auto rest = afterPrefix(line, "Graph break in user code at "); !rest.empty()) {
      if (!r.at) r.at = parseFileLine(rest);
      continue;
    }
    if (reasonBegin == lines.size()) {
      for (std::string_view prefix : {std::string_view("Graph Break Reason: "), std::string_view("Reason: ")})
        if (auto rest = afterPrefix(line, prefix); !rest.empty()) {
          header = std::string(trim(rest));
          reasonBegin = i;
          break;
        }
      if (reasonBegin == i) continue;
    }
    if (trim(line) == "User code traceback:") {
      traceback = i;
      reasonEnd = std::min(reasonEnd, i);
      break;
    }
    if (line.starts_with("Traceback (most recent call last):")) {
      reasonEnd = std::min(reasonEnd, i);
      break;
    }
  }
  if (reasonBegin == lines.size()) {
    // A restart reason or fail_reason: the reason itself, from its first non-empty line.
    reasonBegin = 0;
    while (reasonBegin < reasonEnd && (trim(lines[reasonBegin]).empty() ||
                                       lines[reasonBegin].starts_with("Graph break in user code at ")))
      ++reasonBegin;
    if (reasonBegin < reasonEnd) {
      header = std::string(trim(lines[reasonBegin]));
    }
  }
  // The first graph break's body ends at the first follow-up separator; each follow-up's at the next one.
  // Iterative, and the follow-ups kept are bounded: a hostile text of many separators costs one pass.
  std::vector<size_t> separators;
  for (size_t i = reasonBegin + 1; i < reasonEnd; ++i)
    if (isFollowUpSeparator(lines[i])) separators.push_back(i);
  size_t firstEnd = separators.empty() ? reasonEnd : separators.front();
  std::string title = parseBreakBody(lines, reasonBegin + 1, firstEnd, r);
  for (size_t k = 0; k < separators.size() && k < kMaxFollowUps; ++k) {
    size_t end = k + 1 < separators.size() ? separators[k + 1] : reasonEnd;
    GraphBreakReason next;
    std::string nextTitle = parseBreakBody(lines, separators[k] + 1, end, next);
    if (nextTitle.empty()) // No explanation: its first line is all there is.
      for (size_t i = separators[k] + 1; i < end && nextTitle.empty(); ++i)
        nextTitle = std::string(trim(lines[i]));
    next.title = std::move(nextTitle);
    if (next.title.empty()) continue;
    r.followUps.push_back(std::move(next));
  }
  if (!title.empty()) {
    r.title = title;
    r.context = header;
  } else {
    r.title = header;
  }
  while (!r.context.empty() && r.context.back() == ':')
    r.context.pop_back();
  if (reasonBegin < reasonEnd) r.text = trimText(joinLines(lines, reasonBegin, reasonEnd));
  // Whether Dynamo gave up on the frame (see the header): said in the reason line, an explanation or a
  // developer context, of the first graph break or a follow-up.
  for (size_t i = reasonBegin; i < reasonEnd && !r.skipsFrame; ++i) {
    std::string_view t = trim(lines[i]);
    r.skipsFrame = t.find("falling back to eager") != std::string_view::npos ||
                   t.find("Skipping frame") != std::string_view::npos ||
                   t.find("Skipping the frame") != std::string_view::npos ||
                   t.find("frame skipped: ") != std::string_view::npos;
  }
  if (traceback < lines.size()) {
    size_t end = traceback + 1;
    while (end < lines.size() && !lines[end].empty() && indentOf(lines[end]) > 0)
      ++end;
    r.userStack = parseStackTrace(joinLines(lines, traceback + 1, end));
  }
  return r;
}

RecompileLimit parseRecompileLimit(std::string_view text) {
  RecompileLimit out;
  // The limit's config name: PyTorch 2.11's developer context names it; older texts name it in the reason.
  if (size_t at = text.find("Limit type: "); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 12);
    size_t n = 0;
    while (n < rest.size() && isIdentChar(rest[n]))
      ++n;
    out.name = std::string(rest.substr(0, n));
  }
  if (out.name.empty())
    for (std::string_view name : {"accumulated_recompile_limit", "accumulated_cache_size_limit",
                                  "recompile_limit", "cache_size_limit"})
      if (text.find(name) != std::string_view::npos) {
        out.name = std::string(name);
        break;
      }
  if (out.name.empty() && text.find("recompile limit exceeded") != std::string_view::npos)
    out.name = "recompile_limit";
  if (out.name.empty()) return out;
  // Its value: "(currently set to N)", else "config.<name> (N)".
  auto number = [](std::string_view s) -> std::optional<int64_t> {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p == s.data() || v < 0) return std::nullopt;
    return v;
  };
  if (size_t at = text.find("currently set to "); at != std::string_view::npos)
    out.value = number(text.substr(at + 17));
  if (!out.value)
    if (size_t at = text.find("config." + out.name + " ("); at != std::string_view::npos)
      out.value = number(text.substr(at + 9 + out.name.size()));
  return out;
}

std::vector<StackFrame> userCodeFrames(std::string_view text) {
  // The last section: an error chained over another ("During handling of the above exception") prints the
  // innermost exception's message, with its own section, last.
  size_t at = text.rfind("\nfrom user code:");
  if (at == std::string_view::npos) {
    if (!text.starts_with("from user code:")) return {};
    at = 0;
  } else {
    ++at;
  }
  TextLines lines = splitLines(text.substr(at));
  // The frames follow, indented, until a line that is not indented ("Set TORCHDYNAMO_VERBOSE=1 ...").
  size_t end = 1;
  while (end < lines.size() && (trim(lines[end]).empty() || indentOf(lines[end]) > 0)) {
    if (trim(lines[end]).empty() && end + 1 < lines.size() && indentOf(lines[end + 1]) == 0) break;
    ++end;
  }
  return parseStackTrace(joinLines(lines, 1, end));
}

std::vector<std::string> splitRecompileReasons(std::string_view payload, size_t *cut) {
  std::vector<std::string> out;
  size_t notKept = 0;
  auto keep = [&](std::string_view text) {
    size_t end = text.size();
    bool shortened = end > kMaxRecompileReasonBytes;
    if (shortened) { // Shortened at a character boundary, and said so.
      end = kMaxRecompileReasonBytes;
      while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80)
        --end;
    }
    std::string reason = trimText(std::string(text.substr(0, end)));
    if (trim(reason).empty()) return;
    if (out.size() >= kMaxRecompileReasons) {
      ++notKept;
      return;
    }
    if (shortened) {
      ++notKept;
      reason += " … [cut: over " + std::to_string(kMaxRecompileReasonBytes >> 10) + " KiB]";
    }
    out.push_back(std::move(reason));
  };
  // Scanned, never parsed into a DOM: only the reasons kept are copied (a 200 MB `[[],…]` cost 5.5 GB).
  std::string scratch;
  std::string_view t = trim(payload);
  bool read = false;
  if (!t.empty() && t.front() == '[') {
    read = json_scan::walkArray(t, [&](std::string_view raw) {
      if (raw.front() != '"') return;
      if (auto s = json_scan::string(raw, scratch)) keep(*s);
    });
  } else if (!t.empty() && t.front() == '"' && json_scan::isValue(t)) {
    if (auto s = json_scan::string(t, scratch)) {
      keep(*s);
      read = true;
    }
  }
  if (!read) { // Plain text (or JSON that does not scan): one reason.
    out.clear();
    notKept = 0;
    keep(payload);
  }
  if (cut) *cut += notKept;
  return out;
}

namespace {

/// A guard's text split at its comment: "EXPR  # code  # file:line in fn (extra)". `code` are the trimmed
/// parts between the expression and the site (a quoted line may itself hold "  # ").
struct GuardComment {
  std::string_view expression;
  std::vector<std::string_view> code;
  std::optional<StackFrame> at;
};

GuardComment readGuardComment(std::string_view text) {
  constexpr std::string_view sep = "  # ";
  std::vector<std::string_view> parts;
  size_t pos = 0;
  for (;;) {
    size_t next = text.find(sep, pos);
    if (next == std::string_view::npos) {
      parts.push_back(text.substr(pos));
      break;
    }
    parts.push_back(text.substr(pos, next - pos));
    pos = next + sep.size();
  }
  GuardComment out;
  out.expression = trim(parts.front());
  if (parts.size() == 1) return out;
  size_t codeEnd = parts.size();
  if (auto f = parseFrameSummary(parts.back())) {
    out.at = std::move(f);
    codeEnd = parts.size() - 1;
  }
  for (size_t i = 1; i < codeEnd; ++i)
    out.code.push_back(trim(parts[i]));
  return out;
}

/// `code` joined as the comment printed it (empty parts add no separator).
template <class Append> void joinGuardCode(const std::vector<std::string_view> &code, Append append) {
  bool any = false;
  for (std::string_view part : code) {
    if (any) append(std::string_view("  # "));
    append(part);
    any = any || !part.empty();
  }
}

} // namespace

std::string splitGuardComment(std::string_view text, std::string &userCode, std::optional<StackFrame> &at) {
  GuardComment g = readGuardComment(text);
  if (g.at) at = std::move(g.at);
  if (!g.code.empty()) {
    userCode.clear();
    joinGuardCode(g.code, [&](std::string_view s) { userCode.append(s); });
  }
  return std::string(g.expression);
}

GuardFailure parseGuardFailure(std::string_view text) {
  GuardFailure g;
  TextLines lines = splitLines(text);
  size_t stackAt = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (trim(lines[i]) == "User stack trace:") {
      stackAt = i;
      break;
    }
  if (stackAt < lines.size()) g.userStack = parseStackTrace(joinLines(lines, stackAt + 1, lines.size()));
  std::string first = lines.empty() ? std::string() : std::string(lines[0]);
  // "8/0: <reason>": the cached compile whose guards failed.
  if (size_t colon = first.find(": "); colon != std::string::npos) {
    std::string_view prefix = std::string_view(first).substr(0, colon);
    if (prefix.find(' ') == std::string_view::npos && CompileId::parse(prefix)) {
      g.cachedCompile = std::string(prefix);
      first = first.substr(colon + 2);
    }
  }
  g.reason = splitGuardComment(first, g.userCode, g.at);
  // More reason lines before the stack (rare: several failures of one cache entry).
  for (size_t i = 1; i < stackAt && i < lines.size(); ++i)
    if (!trim(lines[i]).empty()) g.reason += "\n" + std::string(trim(lines[i]));
  std::string_view reason = g.reason;
  if (auto rest = afterPrefix(reason, "tensor '"); !rest.empty()) {
    size_t end = rest.find("' ");
    std::string name(rest.substr(0, end));
    bool path = name.find_first_of("[.(") != std::string::npos;
    g.source = path ? name : "L['" + name + "']";
  } else if (std::string src = firstSource(reason); !src.empty()) {
    g.source = src;
  } else if (!reason.empty() && isIdentStart(reason[0])) {
    size_t i = 0;
    while (i < reason.size() && isIdentChar(reason[i]))
      ++i;
    std::string_view rest = reason.substr(i);
    for (std::string_view op : {" == ", " != ", " < ", " > ", " <= ", " >= ", " is ", " in "})
      if (rest.starts_with(op)) {
        g.source = "L['" + std::string(reason.substr(0, i)) + "']";
        break;
      }
  }
  if (size_t at = reason.find("size mismatch at index "); at != std::string_view::npos) {
    std::string_view digits = reason.substr(at + 23);
    size_t n = 0;
    while (n < digits.size() && isDigit(digits[n]))
      ++n;
    if (auto v = parseUint(digits.substr(0, n))) g.sizeIndex = static_cast<int>(*v);
  }
  return g;
}

GuardTree parseGuardTree(const std::vector<std::string_view> &lines) {
  // The texts are appended to one string as (offset, length) spans, and made views once it is complete.
  using Span = std::pair<size_t, size_t>;
  std::string text;
  std::unordered_map<std::string, Span> interned; // Kinds, sources, files and functions repeat.
  auto add = [&](std::string_view s) {
    Span span{text.size(), s.size()};
    text.append(s);
    return span;
  };
  auto intern = [&](std::string_view s) {
    auto [it, inserted] = interned.try_emplace(std::string(s));
    if (inserted) it->second = add(s);
    return it->second;
  };
  struct Pending {
    Span kind, source, expression, userCode, file, function;
    uint32_t line = 0;
    bool hasSite = false;
  };
  std::vector<Pending> pending;
  // Sources of the managers enclosing the current line, by depth (views of `lines`).
  std::vector<std::string_view> sources;
  for (std::string_view line : lines) {
    size_t plus = line.find("+- ");
    if (plus == std::string_view::npos) continue;
    std::string_view prefix = line.substr(0, plus);
    if (prefix.find_first_not_of("| ") != std::string_view::npos) continue;
    size_t depth = static_cast<size_t>(std::count(prefix.begin(), prefix.end(), '|'));
    std::string_view body = trim(line.substr(plus + 3));
    sources.resize(depth);
    auto manager = [&](std::string_view source) {
      sources.resize(depth + 1);
      sources[depth] = source;
    };
    std::string_view enclosing =
        depth > 0 && depth - 1 < sources.size() ? sources[depth - 1] : std::string_view();
    if (size_t src = body.find("source=");
        src != std::string_view::npos && body.substr(0, src).find("GuardManager") != std::string_view::npos) {
      std::string_view s = body.substr(src + 7);
      if (size_t comma = s.find(", accessed_by="); comma != std::string_view::npos) s = s.substr(0, comma);
      manager(trim(s));
      continue;
    }
    size_t colon = body.find(": ");
    std::string_view kind = body.substr(0, colon);
    bool isKind =
        colon != std::string_view::npos && !kind.empty() && std::all_of(kind.begin(), kind.end(), [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        });
    if (!isKind) {
      // RootGuardManager, KeyValueManager pair ...: managers without a source.
      manager(enclosing);
      continue;
    }
    GuardComment comment = readGuardComment(body.substr(colon + 2));
    Pending g;
    g.kind = intern(kind);
    g.source = intern(enclosing);
    g.expression = add(comment.expression);
    g.userCode.first = text.size();
    joinGuardCode(comment.code, [&](std::string_view s) { text.append(s); });
    g.userCode.second = text.size() - g.userCode.first;
    if (comment.at) {
      g.hasSite = true;
      g.file = intern(comment.at->file);
      g.function = intern(comment.at->function);
      g.line = comment.at->line;
    }
    pending.push_back(g);
  }
  GuardTree out;
  if (pending.empty()) return out;
  auto data = std::make_shared<GuardTree::Data>();
  data->text = std::move(text);
  data->text.shrink_to_fit();
  std::string_view all = data->text;
  auto view = [&](Span s) { return all.substr(s.first, s.second); };
  data->entries.reserve(pending.size());
  for (const Pending &p : pending) {
    GuardEntry &g = data->entries.emplace_back();
    g.kind = view(p.kind);
    g.source = view(p.source);
    g.expression = view(p.expression);
    g.userCode = view(p.userCode);
    if (p.hasSite) g.at = GuardSite{view(p.file), p.line, view(p.function)};
  }
  out.data_ = std::move(data);
  return out;
}

std::vector<StackFrame> stackFromJsonText(std::string_view text,
                                          const std::function<std::string(int)> &filename) {
  return readStack(text, filename);
}

std::string_view cacheOutcomeName(CacheOutcome c) {
  switch (c) {
  case CacheOutcome::Hit:
    return "hit";
  case CacheOutcome::Miss:
    return "miss";
  case CacheOutcome::Bypass:
    return "bypass";
  case CacheOutcome::Unknown:
    break;
  }
  return "";
}

std::string_view compileStatusName(CompileStatus s) {
  switch (s) {
  case CompileStatus::Failed:
    return "failed";
  case CompileStatus::NotCompiled:
    return "not compiled";
  case CompileStatus::GraphBreak:
    return "graph break";
  case CompileStatus::Recompiled:
    return "recompiled";
  case CompileStatus::Ok:
    break;
  }
  return "ok";
}

std::string FrameCompile::label() const {
  std::string s = "[" + id.str() + "]";
  if (rank) s += " rank " + std::to_string(*rank);
  return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Records of one log.

GuardTree GuardTrees::parse(const TraceLog &log, const TraceRecord &r) {
  auto own = [&] { return parseGuardTree(log.payloadLines(r)); };
  if (!r.payloadHash || r.payloadEnd > log.text().size() || r.payloadBegin > r.payloadEnd) return own();
  std::string_view payload = log.text().substr(r.payloadBegin, r.payloadEnd - r.payloadBegin);
  std::string key(reinterpret_cast<const char *>(r.payloadHash->bytes.data()), r.payloadHash->bytes.size());
  key += std::to_string(payload.size());
  auto find = [&]() -> const GuardTree * {
    auto it = byDigest_.find(key);
    if (it == byDigest_.end()) return nullptr;
    for (const Parsed &p : it->second)
      if (p.payload == payload) return &p.tree;
    return nullptr;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const GuardTree *tree = find()) return *tree;
  }
  GuardTree tree = own(); // Outside the lock: two logs may parse the same tree at once.
  std::lock_guard<std::mutex> lock(mutex_);
  if (const GuardTree *first = find()) return *first;
  byDigest_[key].push_back({payload, tree});
  return tree;
}

std::vector<RecordedCompile> readCompileHealth(const TraceLog &log, GuardTrees *trees) {
  std::vector<RecordedCompile> out;
  std::map<std::tuple<int, int, int>, size_t> byId; // (ca id, frame id, frame compile id) -> index in `out`.
  auto filename = [&](int id) {
    auto name = log.internedFilename(InternedStringId{id});
    return name ? std::string(*name) : std::string();
  };
  // Reading metadata and guard payloads faults in whole page-cache folios around them: over a log that is
  // most of it, so the pages behind are returned every 4 MB read (only those: a call's cost follows its
  // range), and all of them at the end. 16 MB steps were a third of a 115 MB log's peak resident set.
  constexpr uint64_t kReleaseBytes = uint64_t{4} << 20;
  uint64_t releasedAt = 0;
  for (const TraceRecord &r : log.records()) {
    if (r.envelopeOffset >= releasedAt + kReleaseBytes) {
      log.releasePages(releasedAt, r.envelopeOffset - releasedAt);
      releasedAt = r.envelopeOffset;
    }
    if (!r.compileId.frameId) continue;
    auto key = std::make_tuple(r.compileId.compiledAutogradId.value_or(-1), *r.compileId.frameId,
                               r.compileId.frameCompileId.value_or(0));
    bool health = false;
    switch (r.kind) {
    case TraceKind::DynamoStart:
    case TraceKind::CompilationMetrics:
    case TraceKind::BwdCompilationMetrics:
    case TraceKind::AotAutogradBackwardCompilationMetrics:
    case TraceKind::CompilationMetricsRuntime:
    case TraceKind::DynamoCppGuardsStr:
    case TraceKind::CreateSymbol:
    case TraceKind::CreateUnbackedSymbol:
    case TraceKind::SymbolicShapeSpecialization:
    case TraceKind::GuardAddedFast:
    case TraceKind::GuardAdded:
      health = true;
      break;
    case TraceKind::Artifact:
      health = r.name == "dynamo_graph_break_reason" || r.name == "recompile_reasons" ||
               r.name == "dynamo_error" || outcomeOf(r.name) != CacheOutcome::Unknown;
      break;
    default:
      break;
    }
    if (!health) continue;
    auto [it, inserted] = byId.emplace(key, out.size());
    // A process that reset Dynamo (torch._dynamo.reset(), tests) numbers frames from 0 again: a compile id
    // that already completed starts over as a new compile.
    if (!inserted && ((r.kind == TraceKind::DynamoStart && out[it->second].started) ||
                      (r.kind == TraceKind::CompilationMetrics && out[it->second].hasMetrics))) {
      it->second = out.size();
      inserted = true;
    }
    if (inserted) {
      RecordedCompile c;
      c.id = r.compileId;
      c.id.attempt = r.compileId.attempt.value_or(0);
      c.rank = r.rank ? r.rank : log.rank();
      c.firstLine = r.line;
      out.push_back(std::move(c));
    }
    RecordedCompile &c = out[it->second];
    int attempt = r.compileId.attempt.value_or(0);
    if (r.compileId.attempt && attempt > c.id.attempt.value_or(0)) c.id.attempt = attempt;
    if (r.compileId.attempt && std::find(c.attempts.begin(), c.attempts.end(), attempt) == c.attempts.end()) {
      c.attempts.push_back(attempt);
      std::sort(c.attempts.begin(), c.attempts.end());
    }

    // The members `keys` (and `optional`) of the kind's value object (the metadata's member named after the
    // kind), as an object; null when the value is not an object. Only those members are parsed, and only the
    // kind's value is walked (the scan found it, checking the whole line), and only until every one of `keys`
    // was seen: metrics records carry large members nothing here reads (CompilationMetrics' last member,
    // `inductor_provenance`, makes a bwd_compilation_metrics line of an 8-layer Llama 7 MB), which a DOM of
    // the whole line would copy and a walk of it would read again, mapping its pages.
    // Stacks (`stack`, `user_stack`) are not parsed into the object: their raw text goes to `stacks`, for
    // readStack (a DOM of each was most of the health read).
    struct Stacks {
      std::string_view stack, userStack;
    } stacks;
    auto value = [&](std::initializer_list<std::string_view> keys,
                     std::initializer_list<std::string_view> optional = {}) -> json {
      stacks = {};
      std::string_view kindValue = log.kindValueText(r);
      if (kindValue.empty() || kindValue.front() != '{') return json();
      json out = json::object();
      size_t missing = keys.size();
      bool wellFormed = json_scan::walkObject(kindValue, [&](std::string_view key, std::string_view raw) {
        bool wanted = std::find(keys.begin(), keys.end(), key) != keys.end();
        if (!wanted && std::find(optional.begin(), optional.end(), key) == optional.end()) return true;
        std::string_view *stack = key == "stack"        ? &stacks.stack
                                  : key == "user_stack" ? &stacks.userStack
                                                        : nullptr;
        if (stack) {
          if (stack->data()) return true; // The first of repeated keys, as the scan takes.
          *stack = raw;
        } else if (raw.size() > kMaxMetadataValueBytes) {
          // Never parsed into a DOM (about 30 bytes per byte of `[[],…]`): left out as if absent, counted.
          ++c.valuesCut;
        } else {
          auto [it, fresh] = out.emplace(std::string(key), json());
          if (!fresh) return true; // Likewise.
          it.value() = json::parse(raw, nullptr, /*allow_exceptions=*/false);
        }
        return !(wanted && --missing == 0);
      });
      if (!wellFormed) {
        stacks = {};
        return json();
      }
      return out; // Moved: a conditional expression would copy it.
    };
    switch (r.kind) {
    case TraceKind::DynamoStart: {
      c.started = true;
      json v = value({"stack"});
      if (v.is_object()) c.startStack = readStack(stacks.stack, filename);
      if (!c.startStack.empty() && c.function.empty()) {
        c.function = c.startStack.back().function;
        c.file = c.startStack.back().file;
        c.firstLineNo = c.startStack.back().line;
      }
      break;
    }
    case TraceKind::CompilationMetrics: {
      json v = value({"co_name", "co_filename", "co_firstlineno", "fail_type", "fail_reason",
                      "fail_user_frame_filename", "fail_user_frame_lineno", "restart_reasons",
                      "recompile_reason", "entire_frame_compile_time_s", "duration_us", "guard_count",
                      "shape_env_guard_count", "graph_op_count"},
                     {"dynamo_config"});
      if (!v.is_object()) break;
      c.hasMetrics = true;
      if (auto s = str(v, "co_name"); !s.empty()) c.function = s;
      if (auto s = str(v, "co_filename"); !s.empty()) c.file = s;
      if (auto l = integer(v, "co_firstlineno"); l && *l > 0 && *l <= UINT32_MAX)
        c.firstLineNo = static_cast<uint32_t>(*l);
      c.failType = str(v, "fail_type");
      c.failReason = str(v, "fail_reason");
      if (auto f = str(v, "fail_user_frame_filename"); !f.empty()) {
        StackFrame frame;
        frame.file = f;
        if (auto l = integer(v, "fail_user_frame_lineno"); l && *l > 0 && *l <= UINT32_MAX)
          frame.line = static_cast<uint32_t>(*l);
        c.failUserFrame = frame;
      }
      c.restartReasons.clear();
      if (auto rr = v.find("restart_reasons"); rr != v.end() && rr->is_array())
        for (const json &e : *rr)
          if (e.is_string()) c.restartReasons.push_back(e.get<std::string>());
      c.recompileReasonMetric = str(v, "recompile_reason");
      c.compileSeconds = seconds(v, {"entire_frame_compile_time_s"}, {"duration_us"});
      c.guardCount = integer(v, "guard_count");
      c.shapeEnvGuardCount = integer(v, "shape_env_guard_count");
      c.graphOpCount = integer(v, "graph_op_count");
      // The limits, from the config as JSON text (read when it comes before the last wanted member, as in
      // PyTorch 2.11; otherwise the limit failure's own text says the value).
      if (std::string config = str(v, "dynamo_config"); !config.empty()) {
        c.recompileLimit = configInteger(config, "recompile_limit");
        if (!c.recompileLimit) c.recompileLimit = configInteger(config, "cache_size_limit");
        c.accumulatedRecompileLimit = configInteger(config, "accumulated_recompile_limit");
        if (!c.accumulatedRecompileLimit)
          c.accumulatedRecompileLimit = configInteger(config, "accumulated_cache_size_limit");
      }
      break;
    }
    case TraceKind::BwdCompilationMetrics:
    case TraceKind::AotAutogradBackwardCompilationMetrics: {
      // elapsed_time: older PyTorch; inductor_compile_time_s is taken before it.
      json v =
          value({"inductor_compile_time_s", "duration_us", "fail_type", "fail_reason"}, {"elapsed_time"});
      if (!v.is_object()) break;
      if (auto s = seconds(v, {"inductor_compile_time_s", "elapsed_time"}, {"duration_us"}))
        c.backwardSeconds = c.backwardSeconds.value_or(0) + *s;
      if (auto t = str(v, "fail_type"); !t.empty()) {
        c.backwardFailType = t;
        c.backwardFailReason = str(v, "fail_reason");
      }
      break;
    }
    case TraceKind::CompilationMetricsRuntime: {
      json v = value({"duration_us", "runtime_triton_autotune_time_us", "runtime_cudagraphify_time_us"});
      if (!v.is_object()) break;
      std::optional<double> s = seconds(v, {}, {"duration_us"});
      if (!s) {
        double sum = 0;
        bool any = false;
        for (const char *k : {"runtime_triton_autotune_time_us", "runtime_cudagraphify_time_us"})
          if (auto us = num(v, k)) {
            sum += *us / 1e6;
            any = true;
          }
        if (any) s = sum;
      }
      if (s) c.runtimeSeconds = c.runtimeSeconds.value_or(0) + *s;
      break;
    }
    case TraceKind::DynamoCppGuardsStr:
      c.guards = trees ? trees->parse(log, r) : parseGuardTree(log.payloadLines(r));
      break;
    case TraceKind::CreateSymbol:
    case TraceKind::CreateUnbackedSymbol:
    case TraceKind::SymbolicShapeSpecialization:
    case TraceKind::GuardAddedFast:
    case TraceKind::GuardAdded: {
      json v = value(
          {"symbol", "source", "sources", "val", "value", "vr", "reason", "expr", "stack", "user_stack"});
      if (!v.is_object()) break;
      ShapeRecord s;
      s.kind = r.kind == TraceKind::CreateSymbol                  ? ShapeRecord::Kind::CreateSymbol
               : r.kind == TraceKind::CreateUnbackedSymbol        ? ShapeRecord::Kind::UnbackedSymbol
               : r.kind == TraceKind::SymbolicShapeSpecialization ? ShapeRecord::Kind::Specialization
                                                                  : ShapeRecord::Kind::GuardAdded;
      s.symbol = str(v, "symbol");
      s.source = str(v, "source");
      if (auto srcs = v.find("sources"); srcs != v.end() && srcs->is_array())
        for (const json &e : *srcs)
          if (e.is_string()) s.source += (s.source.empty() ? "" : ", ") + e.get<std::string>();
      s.value = str(v, "val");
      if (s.value.empty()) s.value = str(v, "value");
      s.range = str(v, "vr");
      s.reason = str(v, "reason");
      s.expression = str(v, "expr");
      s.stack = readStack(stacks.stack, filename);
      s.userStack = readStack(stacks.userStack, filename);
      if (s.userStack.empty()) s.userStack = s.stack;
      c.shapes.push_back(std::move(s));
      break;
    }
    case TraceKind::Artifact: {
      if (r.name == "dynamo_graph_break_reason") {
        c.graphBreaks.push_back({attempt, parseGraphBreakReason(log.payloadText(r))});
      } else if (r.name == "recompile_reasons") {
        for (std::string &reason : splitRecompileReasons(log.payloadText(r), &c.recompileReasonsCut)) {
          if (c.recompileReasons.size() < kMaxRecompileReasons)
            c.recompileReasons.push_back(std::move(reason));
          else
            ++c.recompileReasonsCut;
        }
      } else if (r.name == "dynamo_error") {
        c.errors.push_back(log.payloadText(r));
      } else if (r.name.starts_with("fx_graph_cache_")) {
        mergeOutcome(c.fxGraphCache, outcomeOf(r.name));
      } else if (r.name.starts_with("aotautograd_cache_")) {
        mergeOutcome(c.aotAutogradCache, outcomeOf(r.name));
      }
      break;
    }
    default:
      break;
    }
  }
  log.releasePages();
  return out;
}

std::string_view healthEventWord(HealthEventKind kind) {
  switch (kind) {
  case HealthEventKind::GraphBreak:
    return "graph break";
  case HealthEventKind::Recompile:
    return "recompile";
  case HealthEventKind::Failure:
    return "failure";
  case HealthEventKind::Specialization:
    break;
  }
  return "specialization";
}

std::string_view healthEventHeading(HealthEventKind kind) {
  switch (kind) {
  case HealthEventKind::GraphBreak:
    return "Graph break";
  case HealthEventKind::Recompile:
    return "Recompile";
  case HealthEventKind::Failure:
    return "Compile failure";
  case HealthEventKind::Specialization:
    break;
  }
  return "Dynamic shape specialized";
}

} // namespace inductor::index
