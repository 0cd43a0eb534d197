// index/TextLines.h: text split into lines, the input of every analyzer in index/ (OutputCode, GraphDump,
// Provenance's stack traces). Analyzers take lines rather than a file so that the same code runs over files
// on disk and over payloads inside a TORCH_TRACE log, whose lines are tab-prefixed there and are viewed
// without the tab.
//
// Positions everywhere in index/ are 0-based line numbers and 0-based UTF-8 byte columns; nothing here knows
// about UTF-16.
//
// Ownership: TextLines holds std::string_view into a buffer owned by the caller; keep that buffer alive (and
// unmodified) while the lines or anything that still points into them are in use. Results of the analyzers
// own their strings and do not point into the input.
#pragma once

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

} // namespace inductor::index
