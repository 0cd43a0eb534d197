// Tests for protocol/Position.h: encoding negotiation, column conversions and LineTable.
#include "protocol/Position.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

// doctest 2.4.9 cannot print std::string_view on its own.
template <> struct doctest::StringMaker<std::string_view> {
  static String convert(std::string_view s) {
    return String(s.data(), static_cast<String::size_type>(s.size()));
  }
};
template <> struct doctest::StringMaker<LineColumn> {
  static String convert(const LineColumn &lc) {
    return String(("{" + std::to_string(lc.line) + ", " + std::to_string(lc.byteColumn) + "}").c_str());
  }
};

namespace {

constexpr OffsetEncoding kAll[] = {OffsetEncoding::UTF8, OffsetEncoding::UTF16, OffsetEncoding::UTF32};

} // namespace

TEST_CASE("OffsetEncoding names round-trip and unknown names are refused") {
  for (OffsetEncoding e : kAll)
    CHECK(parseOffsetEncoding(encodingName(e)) == e);
  CHECK(encodingName(OffsetEncoding::UTF8) == "utf-8");
  CHECK(encodingName(OffsetEncoding::UTF16) == "utf-16");
  CHECK(encodingName(OffsetEncoding::UTF32) == "utf-32");
  CHECK_FALSE(parseOffsetEncoding("UTF-8").has_value());
  CHECK_FALSE(parseOffsetEncoding("utf8").has_value());
  CHECK_FALSE(parseOffsetEncoding("").has_value());
}

TEST_CASE("negotiateEncoding prefers utf-8 and falls back to utf-16") {
  CHECK(negotiateEncoding({}) == OffsetEncoding::UTF16);
  CHECK(negotiateEncoding({"utf-16"}) == OffsetEncoding::UTF16);
  CHECK(negotiateEncoding({"utf-16", "utf-8"}) == OffsetEncoding::UTF8);
  CHECK(negotiateEncoding({"utf-8", "utf-16"}) == OffsetEncoding::UTF8);
  // UTF-32 alone is not taken: UTF-16 is the one every client must support.
  CHECK(negotiateEncoding({"utf-32"}) == OffsetEncoding::UTF16);
  CHECK(negotiateEncoding({"latin-1", "bogus"}) == OffsetEncoding::UTF16);
}

TEST_CASE("ASCII columns are the same in every encoding") {
  const std::string_view line = "x = y + 1";
  for (OffsetEncoding e : kAll) {
    CAPTURE(encodingName(e));
    for (std::uint32_t c = 0; c <= line.size(); ++c) {
      CHECK(characterToByteColumn(line, c, e) == c);
      CHECK(byteColumnToCharacter(line, c, e) == c);
    }
    // Past the end: clamped to the line length.
    CHECK(characterToByteColumn(line, 100, e) == line.size());
    CHECK(byteColumnToCharacter(line, 100, e) == line.size());
  }
}

TEST_CASE("multi-byte code points: é (2 bytes), 中 (3 bytes), 😀 (4 bytes, a UTF-16 surrogate pair)") {
  // Byte layout: a | é(1..2) | 中(3..5) | 😀(6..9) | b(10)
  const std::string line = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"
                           "b";
  REQUIRE(line.size() == 11);

  // Columns of the code point starts in each encoding.
  struct Row {
    std::size_t byte;
    std::uint32_t utf16;
    std::uint32_t utf32;
  };
  const Row rows[] = {{0, 0, 0}, {1, 1, 1}, {3, 2, 2}, {6, 3, 3}, {10, 5, 4}, {11, 6, 5}};
  for (const Row &r : rows) {
    CAPTURE(r.byte);
    CHECK(characterToByteColumn(line, r.utf16, OffsetEncoding::UTF16) == r.byte);
    CHECK(characterToByteColumn(line, r.utf32, OffsetEncoding::UTF32) == r.byte);
    CHECK(characterToByteColumn(line, static_cast<std::uint32_t>(r.byte), OffsetEncoding::UTF8) == r.byte);
    CHECK(byteColumnToCharacter(line, r.byte, OffsetEncoding::UTF16) == r.utf16);
    CHECK(byteColumnToCharacter(line, r.byte, OffsetEncoding::UTF32) == r.utf32);
    CHECK(byteColumnToCharacter(line, r.byte, OffsetEncoding::UTF8) == r.byte);
  }

  // UTF-16 character 4 is between the halves of 😀's surrogate pair: it lands after the code point.
  CHECK(characterToByteColumn(line, 4, OffsetEncoding::UTF16) == 10);
  // A byte column inside a code point rounds down to its start.
  CHECK(byteColumnToCharacter(line, 2, OffsetEncoding::UTF16) == 1);
  CHECK(byteColumnToCharacter(line, 8, OffsetEncoding::UTF16) == 3);
  CHECK(byteColumnToCharacter(line, 8, OffsetEncoding::UTF32) == 3);
  // Past the end.
  CHECK(characterToByteColumn(line, 7, OffsetEncoding::UTF16) == 11);
  CHECK(characterToByteColumn(line, 6, OffsetEncoding::UTF32) == 11);
  CHECK(byteColumnToCharacter(line, 50, OffsetEncoding::UTF16) == 6);
}

TEST_CASE("invalid UTF-8 counts one unit per bad byte and never crashes") {
  // A lone continuation byte, a truncated 3-byte sequence, a byte that is never valid, then 'z'.
  const std::string line = "\x80"
                           "\xE4\xB8"
                           "\xFF"
                           "z";
  REQUIRE(line.size() == 5);
  for (OffsetEncoding e : {OffsetEncoding::UTF16, OffsetEncoding::UTF32}) {
    CAPTURE(encodingName(e));
    for (std::uint32_t c = 0; c <= 5; ++c) {
      CHECK(characterToByteColumn(line, c, e) == c);
      CHECK(byteColumnToCharacter(line, c, e) == c);
    }
  }
  // A 4-byte lead at the very end of the line has no continuation bytes to read.
  const std::string truncated = "ab\xF0";
  CHECK(characterToByteColumn(truncated, 3, OffsetEncoding::UTF16) == 3);
  CHECK(byteColumnToCharacter(truncated, 3, OffsetEncoding::UTF16) == 3);
  // A lead byte followed by ASCII instead of a continuation byte.
  const std::string broken = "\xC3"
                             "A";
  CHECK(byteColumnToCharacter(broken, 2, OffsetEncoding::UTF16) == 2);
}

TEST_CASE("a code point after an ASCII run of any length (the ASCII prefix is read eight bytes at a time)") {
  for (std::uint32_t k = 0; k < 20; ++k) {
    CAPTURE(k);
    // k ASCII bytes, 😀 (4 bytes: 2 UTF-16 units, 1 UTF-32), 10 ASCII bytes.
    const std::string line = std::string(k, 'x') + "\xF0\x9F\x98\x80" + std::string(10, 'y');
    for (std::uint32_t col = 0; col <= line.size(); ++col) {
      CAPTURE(col);
      // Inside the code point rounds down to its start.
      std::uint32_t before = col <= k ? col : k, after = col >= k + 4 ? col - k - 4 : 0;
      std::uint32_t pair = col >= k + 4 ? 1 : 0;
      CHECK(byteColumnToCharacter(line, col, OffsetEncoding::UTF16) == before + 2 * pair + after);
      CHECK(byteColumnToCharacter(line, col, OffsetEncoding::UTF32) == before + pair + after);
      CHECK(byteColumnToCharacter(line, col, OffsetEncoding::UTF8) == col);
    }
  }
}

TEST_CASE("conversions are inverse at code point boundaries") {
  const std::string line = "k\xC3\xA9y \xF0\x9F\x98\x80 = \xE4\xB8\xAD";
  for (OffsetEncoding e : kAll) {
    CAPTURE(encodingName(e));
    const std::uint32_t end = byteColumnToCharacter(line, line.size(), e);
    for (std::uint32_t c = 0; c <= end; ++c) {
      const std::size_t byte = characterToByteColumn(line, c, e);
      // Mid-pair UTF-16 characters are not boundaries (they land after the pair).
      if (e == OffsetEncoding::UTF16 && c == 5) continue;
      CHECK(byteColumnToCharacter(line, byte, e) == c);
    }
  }
}

TEST_CASE("LineTable splits lines and strips \\n and \\r\\n") {
  const std::string text = "one\r\ntwo\n\nfour";
  const LineTable table(text);
  REQUIRE(table.lineCount() == 4);
  CHECK(table.lineText(0) == "one");
  CHECK(table.lineText(1) == "two");
  CHECK(table.lineText(2) == "");
  CHECK(table.lineText(3) == "four");
  CHECK(table.lineText(4) == "");
  CHECK(table.lineStart(0) == 0);
  CHECK(table.lineStart(1) == 5);
  CHECK(table.lineStart(2) == 9);
  CHECK(table.lineStart(3) == 10);
  CHECK(table.lineStart(9) == text.size());
}

TEST_CASE("LineTable line counts at the edges") {
  CHECK(LineTable("").lineCount() == 1);
  CHECK(LineTable("").lineText(0) == "");
  CHECK(LineTable("a").lineCount() == 1);
  // The position after a final newline is on a line of its own.
  const LineTable trailing("a\n");
  CHECK(trailing.lineCount() == 2);
  CHECK(trailing.lineText(1) == "");
  CHECK(trailing.offset({1, 0}) == 2);
  // A lone '\r' is not a line break, and a final '\r' without '\n' stays in the text.
  const LineTable cr("a\rb\r");
  CHECK(cr.lineCount() == 1);
  CHECK(cr.lineText(0) == "a\rb\r");
}

TEST_CASE("LineTable offset <-> (line, byte column), clamped") {
  const std::string text = "ab\r\ncde\nf";
  const LineTable table(text);
  CHECK(table.offset({0, 0}) == 0);
  CHECK(table.offset({0, 2}) == 2);
  CHECK(table.offset({0, 9}) == 2); // Clamped before "\r\n".
  CHECK(table.offset({1, 1}) == 5);
  CHECK(table.offset({2, 1}) == 9);
  CHECK(table.offset({7, 0}) == text.size());

  CHECK(table.lineColumn(0) == LineColumn{0, 0});
  CHECK(table.lineColumn(2) == LineColumn{0, 2});
  CHECK(table.lineColumn(3) == LineColumn{0, 2}); // Inside "\r\n": end of line 0.
  CHECK(table.lineColumn(4) == LineColumn{1, 0});
  CHECK(table.lineColumn(7) == LineColumn{1, 3});
  CHECK(table.lineColumn(8) == LineColumn{2, 0});
  CHECK(table.lineColumn(9) == LineColumn{2, 1});
  CHECK(table.lineColumn(1000) == LineColumn{2, 1});

  for (std::size_t offset = 0; offset <= text.size(); ++offset) {
    if (offset == 3) continue; // The '\r' is not addressable.
    CAPTURE(offset);
    CHECK(table.offset(table.lineColumn(offset)) == offset);
  }
}

TEST_CASE("LineTable LSP positions in each encoding") {
  const std::string text = "x\n\xF0\x9F\x98\x80y\n";
  const LineTable table(text);
  CHECK(table.offsetOfPosition(1, 0, OffsetEncoding::UTF16) == 2);
  CHECK(table.offsetOfPosition(1, 2, OffsetEncoding::UTF16) == 6);
  CHECK(table.offsetOfPosition(1, 1, OffsetEncoding::UTF32) == 6);
  CHECK(table.offsetOfPosition(1, 4, OffsetEncoding::UTF8) == 6);
  CHECK(table.offsetOfPosition(1, 99, OffsetEncoding::UTF16) == 7);
  CHECK(table.offsetOfPosition(2, 0, OffsetEncoding::UTF16) == 8);
  CHECK(table.offsetOfPosition(3, 5, OffsetEncoding::UTF16) == text.size());
  CHECK(table.characterOfOffset(7, OffsetEncoding::UTF16) == 3);
  CHECK(table.characterOfOffset(7, OffsetEncoding::UTF32) == 2);
  CHECK(table.characterOfOffset(7, OffsetEncoding::UTF8) == 5);
}

TEST_CASE("utf8Prefix never ends inside a UTF-8 sequence") {
  const std::string text = "ab\xc3\xa9\xf0\x9f\x98\x80z"; // a b é 😀 z
  CHECK(utf8Prefix(text, 100) == text);
  CHECK(utf8Prefix(text, 2) == "ab");
  CHECK(utf8Prefix(text, 3) == "ab");         // Inside é.
  CHECK(utf8Prefix(text, 4) == "ab\xc3\xa9"); // After é.
  for (std::size_t n : {5u, 6u, 7u})          // Inside 😀.
    CHECK(utf8Prefix(text, n) == "ab\xc3\xa9");
  CHECK(utf8Prefix(text, 8) == "ab\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(utf8Prefix(text, 0).empty());
}
