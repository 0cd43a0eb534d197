// protocol/Position.cpp: UTF-8 <-> UTF-16/UTF-32 column arithmetic and line tables.
#include "protocol/Position.h"

#include <algorithm>
#include <cstring>

namespace inductor::protocol {

namespace {

/// One step of a UTF-8 walk: how many bytes the code point at a position takes, and how many code units it
/// counts for in each encoding.
struct CodePoint {
  std::size_t bytes;   // 1 for ASCII and for every byte that is not part of a well-formed sequence.
  std::uint32_t utf16; // 2 for a code point outside the BMP (a surrogate pair), else 1.
};

/// Decodes the structure (not the value) of the sequence starting at `line[i]`. Only the lead-byte range
/// and the continuation bytes are checked: overlong or surrogate encodings are counted like real code
/// points, which is harmless for column arithmetic.
CodePoint decodeAt(std::string_view line, std::size_t i) {
  const auto lead = static_cast<unsigned char>(line[i]);
  std::size_t length = 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  if (length == 1 || i + length > line.size()) return {1, 1};
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(line[i + k]) & 0xC0) != 0x80) return {1, 1};
  return {length, length == 4 ? 2u : 1u};
}

std::uint32_t unitsOf(const CodePoint &cp, OffsetEncoding encoding) {
  switch (encoding) {
  case OffsetEncoding::UTF8:
    return static_cast<std::uint32_t>(cp.bytes);
  case OffsetEncoding::UTF16:
    return cp.utf16;
  case OffsetEncoding::UTF32:
    return 1;
  }
  return 1;
}

/// Length of the longest prefix of `text` with no byte above 0x7F, eight bytes at a time.
std::size_t asciiPrefix(std::string_view text) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    if (word & kHighBits) break;
  }
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80)
    ++i;
  return i;
}

} // namespace

std::string_view encodingName(OffsetEncoding encoding) {
  switch (encoding) {
  case OffsetEncoding::UTF8:
    return "utf-8";
  case OffsetEncoding::UTF16:
    return "utf-16";
  case OffsetEncoding::UTF32:
    return "utf-32";
  }
  return "utf-16";
}

std::optional<OffsetEncoding> parseOffsetEncoding(std::string_view name) {
  if (name == "utf-8") return OffsetEncoding::UTF8;
  if (name == "utf-16") return OffsetEncoding::UTF16;
  if (name == "utf-32") return OffsetEncoding::UTF32;
  return std::nullopt;
}

OffsetEncoding negotiateEncoding(const std::vector<std::string> &clientOffers) {
  for (const std::string &offer : clientOffers)
    if (parseOffsetEncoding(offer) == OffsetEncoding::UTF8) return OffsetEncoding::UTF8;
  return OffsetEncoding::UTF16;
}

std::size_t characterToByteColumn(std::string_view line, std::uint32_t character, OffsetEncoding encoding) {
  if (encoding == OffsetEncoding::UTF8) return std::min<std::size_t>(character, line.size());
  std::size_t i = 0;
  std::uint32_t units = 0;
  while (i < line.size() && units < character) {
    const CodePoint cp = decodeAt(line, i);
    i += cp.bytes;
    units += unitsOf(cp, encoding);
  }
  return i;
}

std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  std::size_t cut = maxBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) // A continuation byte.
    --cut;
  return text.substr(0, cut);
}

std::uint32_t byteColumnToCharacter(std::string_view line, std::size_t byteColumn, OffsetEncoding encoding) {
  byteColumn = std::min(byteColumn, line.size());
  if (encoding == OffsetEncoding::UTF8) return static_cast<std::uint32_t>(byteColumn);
  // An ASCII byte is one unit in every encoding; generated code is mostly ASCII (a many-rank reference
  // converts thousands of columns).
  std::size_t i = asciiPrefix(line.substr(0, byteColumn));
  auto units = static_cast<std::uint32_t>(i);
  while (i < byteColumn) {
    const CodePoint cp = decodeAt(line, i);
    if (i + cp.bytes > byteColumn) break; // byteColumn is inside this code point: round down.
    i += cp.bytes;
    units += unitsOf(cp, encoding);
  }
  return units;
}

LineTable::LineTable(std::string_view text) : text_(text) {
  lineStarts_.push_back(0);
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
    lineStarts_.push_back(i + 1);
}

std::string_view LineTable::lineText(std::size_t line) const {
  if (line >= lineStarts_.size()) return {};
  const std::size_t begin = lineStarts_[line];
  std::size_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r' && end < text_.size() && text_[end] == '\n') --end;
  return text_.substr(begin, end - begin);
}

std::size_t LineTable::lineStart(std::size_t line) const {
  return line < lineStarts_.size() ? lineStarts_[line] : text_.size();
}

std::size_t LineTable::offset(LineColumn position) const {
  if (position.line >= lineStarts_.size()) return text_.size();
  return lineStarts_[position.line] + std::min(position.byteColumn, lineText(position.line).size());
}

LineColumn LineTable::lineColumn(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  // The last line start <= offset; lineStarts_[0] == 0 guarantees one exists.
  const auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset) - 1;
  const auto line = static_cast<std::size_t>(it - lineStarts_.begin());
  const std::size_t column = std::min(offset - *it, lineText(line).size());
  return {static_cast<std::uint32_t>(line), column};
}

std::size_t LineTable::offsetOfPosition(std::uint32_t line, std::uint32_t character,
                                        OffsetEncoding encoding) const {
  if (line >= lineStarts_.size()) return text_.size();
  return lineStarts_[line] + characterToByteColumn(lineText(line), character, encoding);
}

std::uint32_t LineTable::characterOfOffset(std::size_t offset, OffsetEncoding encoding) const {
  const LineColumn lc = lineColumn(offset);
  return byteColumnToCharacter(lineText(lc.line), lc.byteColumn, encoding);
}

} // namespace inductor::protocol
