// index/support/TextLines.h: text split into lines, the input of every analyzer in index/ (OutputCode,
// GraphDump, Provenance's stack traces). Analyzers take lines rather than a file so that the same code runs
// over files on disk and over payloads inside a TORCH_TRACE log, whose lines are tab-prefixed there and are
// viewed without the tab.
//
// Positions everywhere in index/ are 0-based line numbers and 0-based UTF-8 byte columns; nothing here knows
// about UTF-16.
//
// Ownership: TextLines holds std::string_view into a buffer owned by the caller; keep that buffer alive (and
// unmodified) while the lines or anything that still points into them are in use. Results of the analyzers
// own their strings and do not point into the input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace inductor::index {

/// One entry per line, without the line terminator ('\n', and a '\r' before it is stripped as well).
using TextLines = std::vector<std::string_view>;

/// Splits `text` at '\n'. A trailing '\r' on each line is removed (CRLF files). A final line without a
/// terminator is kept; a terminator at the very end does not add an empty line, so "a\nb\n" and "a\nb" both
/// give {"a","b"}. The empty text gives no lines. The views point into `text`.
TextLines splitLines(std::string_view text);

/// Small character and string helpers shared by the analyzers. They work on bytes: a byte >= 0x80 (part of a
/// UTF-8 sequence) counts as an identifier character, as Python allows non-ASCII identifiers.
inline bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
inline bool isIdentChar(char c) {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}
inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
/// The value of a hexadecimal digit (either case), -1 for any other character.
inline int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Number of leading spaces and tabs.
inline uint32_t indentOf(std::string_view line) {
  uint32_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
    ++i;
  return i;
}

/// `s` without leading and trailing spaces, tabs and '\r'.
inline std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
    ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
    --e;
  return s.substr(b, e - b);
}

/// Length of the identifier starting at `pos` (0 if none).
inline size_t identLength(std::string_view s, size_t pos) {
  if (pos >= s.size() || !isIdentStart(s[pos])) return 0;
  size_t e = pos + 1;
  while (e < s.size() && isIdentChar(s[e]))
    ++e;
  return e - pos;
}

/// Length of `ident(.ident)*` starting at `pos` (0 if none).
inline size_t dottedLength(std::string_view s, size_t pos) {
  size_t len = identLength(s, pos);
  if (!len) return 0;
  size_t e = pos + len;
  while (e + 1 < s.size() && s[e] == '.') {
    size_t next = identLength(s, e + 1);
    if (!next) break;
    e += 1 + next;
  }
  return e - pos;
}

/// The characters of one line of Python (or C++) that are outside string literals ('…' and "…", with
/// backslash escapes inside them), in order:
///
///     CodeChars code(line);
///     for (size_t i = code.next(); i != std::string_view::npos; i = code.next()) ... line[i] ...
///
/// The quotes themselves are not code. A literal still open where the line ends (an unterminated one, or the
/// first line of a triple-quoted string) leaves `inString()` true. A '#' is code: callers that skip comments
/// stop there themselves.
class CodeChars {
public:
  explicit CodeChars(std::string_view line, size_t from = 0) : line_(line), i_(from) {}

  /// Index of the next character outside string literals, or npos at the end of the line.
  size_t next() {
    while (i_ < line_.size()) {
      char c = line_[i_];
      if (quote_) {
        i_ += c == '\\' ? 2 : 1;
        if (c == quote_) quote_ = 0;
      } else if (c == '"' || c == '\'') {
        quote_ = c;
        ++i_;
      } else {
        return i_++;
      }
    }
    return std::string_view::npos;
  }
  /// Continues at index `i`, which must be outside string literals (after a token a caller consumed).
  void seek(size_t i) { i_ = i; }
  bool inString() const { return quote_ != 0; }

private:
  std::string_view line_;
  size_t i_ = 0;
  char quote_ = 0;
};

/// Whether byte `pos` of `line` is inside a string literal (or is one of its quotes).
inline bool insideStringLiteral(std::string_view line, size_t pos) {
  CodeChars code(line.substr(0, std::min(pos + 1, line.size())));
  size_t last = std::string_view::npos;
  for (size_t i = code.next(); i != std::string_view::npos; i = code.next())
    last = i;
  return pos < line.size() && last != pos;
}

} // namespace inductor::index
