// protocol/Position.h: conversions between LSP positions and UTF-8 byte offsets.
//
// LSP positions are (line, character), both 0-based; `character` counts code units of the position
// encoding negotiated in `initialize` (LSP 3.17 `general.positionEncodings`, or clangd's `offsetEncoding`
// extension), UTF-16 code units when nothing was negotiated. Everything below protocol/ (index/) works in
// 0-based lines and UTF-8 byte columns, so this file is the only place that knows about UTF-16.
//
// Text is UTF-8. Invalid UTF-8 is tolerated, never rejected: every byte that is not part of a well-formed
// sequence counts as one code unit in every encoding (one "character"), so conversions never crash and
// stay monotonic on binary garbage. Lines end at "\n"; a "\r" just before it belongs to the terminator.
// Deliberately absent: a lone "\r" is not a line break (the spec allows it; clangd does not either, and
// Python sources written by Inductor never use it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::protocol {

/// How LSP `Position::character` is counted. Wire names are "utf-8", "utf-16" and "utf-32".
enum class OffsetEncoding { UTF8, UTF16, UTF32 };

/// The wire name of `encoding` ("utf-8", "utf-16", "utf-32"). Deliberately not called `toString`: doctest
/// finds an unqualified `toString(OffsetEncoding)` by ADL when printing a failed CHECK and cannot use a
/// std::string_view result, so every test comparing encodings would stop compiling.
std::string_view encodingName(OffsetEncoding encoding);

/// Parses a wire name; exact and case-sensitive as in the spec. nullopt for anything else.
std::optional<OffsetEncoding> parseOffsetEncoding(std::string_view name);

/// Picks the encoding to use from the client's offers (in the client's order of preference, as sent in
/// `general.positionEncodings` or `offsetEncoding`). UTF-8 is chosen whenever it is offered, since it needs
/// no conversion; otherwise UTF-16, which every client must support (the spec's mandatory default), even
/// when the client offered only UTF-32 or names we do not know.
OffsetEncoding negotiateEncoding(const std::vector<std::string> &clientOffers);

/// Byte column in `line` (one line of UTF-8 text, without its terminator) of the position that is
/// `character` code units of `encoding` from the line start. Clamped to `line.size()` when `character` is
/// past the end. A UTF-16 `character` that falls between the two halves of a surrogate pair lands after
/// the code point (as clangd does).
std::size_t characterToByteColumn(std::string_view line, std::uint32_t character, OffsetEncoding encoding);

/// The longest prefix of `text` of at most `maxBytes` bytes that does not end inside a UTF-8 sequence: for
/// shortening text shown to the user (a message, a lens title) without producing invalid UTF-8, which a JSON
/// serialiser would reject or replace.
std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes);

/// Number of `encoding` code units in `line` before byte column `byteColumn` (clamped to `line.size()`).
/// A column inside a multi-byte sequence is rounded down to the start of that code point.
std::uint32_t byteColumnToCharacter(std::string_view line, std::size_t byteColumn, OffsetEncoding encoding);

/// A 0-based line and a UTF-8 byte column within that line (terminator excluded).
struct LineColumn {
  std::uint32_t line = 0;
  std::size_t byteColumn = 0;
  friend bool operator==(const LineColumn &, const LineColumn &) = default;
};

/// Line starts of a whole text, for offset <-> (line, column) conversions.
///
/// The table does NOT own the text: it keeps a std::string_view, so the text must outlive the table and
/// must not change (rebuild the table after every edit; building is one linear scan). A text of N "\n"
/// has N + 1 lines: "" has one empty line, and "a\n" has lines "a" and "" (the position just after a final
/// newline is line 1, character 0, as in the spec). Immutable after construction, so safe to share
/// between threads.
class LineTable {
public:
  explicit LineTable(std::string_view text);

  /// Number of lines, always >= 1.
  std::size_t lineCount() const { return lineStarts_.size(); }

  /// The text of line `line` without its "\n" or "\r\n"; empty if `line` is out of range.
  std::string_view lineText(std::size_t line) const;

  /// Byte offset of the first byte of `line`; text.size() if `line` is out of range.
  std::size_t lineStart(std::size_t line) const;

  /// Byte offset of (line, byteColumn). A column past the end of the line is clamped to the line's end
  /// (before its terminator); a line past the last one maps to the end of the text.
  std::size_t offset(LineColumn position) const;

  /// The (line, byte column) of byte offset `offset`, clamped to the end of the text. An offset inside a
  /// "\r\n" terminator maps to the end of that line.
  LineColumn lineColumn(std::size_t offset) const;

  /// Byte offset of the LSP position (line, character) counted in `encoding`; clamped like offset().
  std::size_t offsetOfPosition(std::uint32_t line, std::uint32_t character, OffsetEncoding encoding) const;

  /// The LSP `character` of byte offset `offset` (its line is lineColumn(offset).line).
  std::uint32_t characterOfOffset(std::size_t offset, OffsetEncoding encoding) const;

  std::string_view text() const { return text_; }

private:
  std::string_view text_;
  std::vector<std::size_t> lineStarts_; // Sorted; lineStarts_[0] == 0.
};

} // namespace inductor::protocol
