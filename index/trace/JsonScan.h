// index/trace/JsonScan.h: a zero-copy reader for the JSON that traces carry (record metadata lines,
// provenance payloads and files). Internal to index/.
//
// It walks one object's members or one array's elements and hands out each value's raw text (a view into the
// input); nested values are validated by a bounded recursive descent that builds nothing, and the caller
// decodes only the values it keeps (string(), integer(), number()). So memory follows what the caller keeps,
// never the input: a DOM of a 64 MB provenance map costs about 1 GB, a 200 MB metadata line 1.2 GB, while a
// walk over either allocates nothing. Nesting deeper than kMaxDepth is rejected (the descent's recursion is
// bounded by it), numbers are checked loosely (digits, sign, '.', exponent), and keys are handed out
// undecoded, without their quotes (PyTorch writes none with escapes; decodeKey() decodes the others).
// Duplicate keys are all reported, in order.
//
// Thread-safety: pure functions.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace inductor::index::json_scan {

/// Deepest nesting accepted in a walked value (arrays and objects).
constexpr int kMaxDepth = 128;

/// A cursor over JSON text; the building block of the walks below.
struct Cursor {
  const char *p;
  const char *end;

  void blanks() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      ++p;
  }
  bool eat(char c) {
    blanks();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  /// At '"': moves past the closing quote (escapes honoured).
  bool skipString() {
    const char *start = ++p;
    for (;;) {
      const char *q = static_cast<const char *>(std::memchr(p, '"', size_t(end - p)));
      if (!q) return false;
      const char *b = q;
      while (b > start && b[-1] == '\\')
        --b;
      p = q + 1;
      if (((q - b) & 1) == 0) return true;
    }
  }
  /// Moves past one value, checking its syntax (loosely for numbers); false when it is not a value.
  bool skipValue(int depth = 0) {
    blanks();
    if (p >= end || depth > kMaxDepth) return false;
    char c = *p;
    if (c == '"') return skipString();
    if (c == '{' || c == '[') {
      ++p;
      char close = c == '{' ? '}' : ']';
      if (eat(close)) return true;
      do {
        if (c == '{') {
          blanks();
          if (p >= end || *p != '"' || !skipString() || !eat(':')) return false;
        }
        if (!skipValue(depth + 1)) return false;
      } while (eat(','));
      return eat(close);
    }
    const char *start = p;
    while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || *p == '-' || *p == '+' ||
                       *p == '.' || *p == 'E'))
      ++p;
    std::string_view token(start, size_t(p - start));
    if (token.empty()) return false;
    if (token[0] == '-' || (token[0] >= '0' && token[0] <= '9')) {
      for (char d : token) // (Not find_first_not_of: it calls memchr per byte.)
        if (!((d >= '0' && d <= '9') || d == '+' || d == '-' || d == '.' || d == 'e' || d == 'E'))
          return false;
      return true;
    }
    return token == "null" || token == "true" || token == "false";
  }
  /// One value's raw text (blanks around it excluded).
  bool value(std::string_view &raw, int depth = 1) {
    blanks();
    const char *start = p;
    if (!skipValue(depth)) return false;
    raw = std::string_view(start, size_t(p - start));
    return true;
  }
};

/// Whether `text` is exactly one JSON value (blanks around it allowed).
inline bool isValue(std::string_view text) {
  Cursor c{text.data(), text.data() + text.size()};
  if (!c.skipValue()) return false;
  c.blanks();
  return c.p == c.end;
}

/// Calls member(key, rawValue) for each member of the JSON object `text`, in order; keys undecoded and
/// without quotes. Returns false when `text` is not exactly one well-formed object (members already reported
/// stay reported: a caller that needs all-or-nothing checks first, or discards). A `member` that returns bool
/// stops the walk by returning false: the rest of `text` is not read (nor checked), and the walk returns
/// true.
template <typename F> bool walkObject(std::string_view text, F &&member) {
  Cursor c{text.data(), text.data() + text.size()};
  c.blanks();
  if (c.p >= c.end || *c.p != '{') return false;
  ++c.p;
  c.blanks();
  if (c.p < c.end && *c.p == '}') {
    ++c.p;
    c.blanks();
    return c.p == c.end;
  }
  for (;;) {
    c.blanks();
    if (c.p >= c.end || *c.p != '"') return false;
    const char *keyStart = c.p + 1;
    if (!c.skipString()) return false;
    std::string_view key(keyStart, size_t(c.p - 1 - keyStart));
    c.blanks();
    if (c.p >= c.end || *c.p != ':') return false;
    ++c.p;
    std::string_view raw;
    if (!c.value(raw)) return false;
    if constexpr (std::is_same_v<std::invoke_result_t<F &, std::string_view, std::string_view>, bool>) {
      if (!member(key, raw)) return true;
    } else {
      member(key, raw);
    }
    c.blanks();
    if (c.p < c.end && *c.p == ',') {
      ++c.p;
      continue;
    }
    if (c.p < c.end && *c.p == '}') {
      ++c.p;
      c.blanks();
      return c.p == c.end;
    }
    return false;
  }
}

/// Calls element(rawValue) for each element of the JSON array `text`, in order. Returns false when `text` is
/// not exactly one well-formed array.
template <typename F> bool walkArray(std::string_view text, F &&element) {
  Cursor c{text.data(), text.data() + text.size()};
  c.blanks();
  if (c.p >= c.end || *c.p != '[') return false;
  ++c.p;
  c.blanks();
  if (c.p < c.end && *c.p == ']') {
    ++c.p;
    c.blanks();
    return c.p == c.end;
  }
  for (;;) {
    std::string_view raw;
    if (!c.value(raw)) return false;
    element(raw);
    c.blanks();
    if (c.p < c.end && *c.p == ',') {
      ++c.p;
      continue;
    }
    if (c.p < c.end && *c.p == ']') {
      ++c.p;
      c.blanks();
      return c.p == c.end;
    }
    return false;
  }
}

/// A string value's text: a view into `raw` when it has no escapes, else decoded into `scratch` (a view of
/// it). nullopt when `raw` is not a string or has an escape JSON does not allow (an unknown one, bad hex, an
/// unpaired surrogate). Other bytes are taken as they are (not checked for UTF-8 or control characters).
std::optional<std::string_view> string(std::string_view raw, std::string &scratch);
/// A key from walkObject, decoded like string().
std::optional<std::string_view> decodeKey(std::string_view key, std::string &scratch);
/// An integer value that fits an int; nullopt for anything else (null, a float, out of range).
std::optional<int> integer(std::string_view raw);
/// A number value as a double (finite); nullopt for anything else.
std::optional<double> number(std::string_view raw);

} // namespace inductor::index::json_scan
