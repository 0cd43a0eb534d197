#include "index/TextLines.h"

#include <doctest/doctest.h>

#include <string>

using namespace inductor::index;

TEST_CASE("TextLines: splitLines") {
  CHECK(splitLines("").empty());
  CHECK(splitLines("a") == TextLines{"a"});
  CHECK(splitLines("a\nb\n") == TextLines{"a", "b"});
  CHECK(splitLines("a\nb") == TextLines{"a", "b"});
  CHECK(splitLines("\n") == TextLines{""});
  CHECK(splitLines("\n\n") == TextLines{"", ""});
  CHECK(splitLines("a\r\nb\r\n") == TextLines{"a", "b"});
  // Only a '\r' right before '\n' (or at the end) is a line terminator.
  CHECK(splitLines("a\rb\r") == TextLines{"a\rb"});
  std::string text = "x = 1\n\ty = 2\n";
  TextLines lines = splitLines(text);
  REQUIRE(lines.size() == 2);
  // Views point into the text: no copies.
  CHECK(lines[1].data() == text.data() + 6);
}

TEST_CASE("TextLines: character helpers") {
  CHECK(isIdentStart('_'));
  CHECK(isIdentStart('Z'));
  CHECK_FALSE(isIdentStart('1'));
  CHECK(isIdentChar('1'));
  CHECK(isIdentChar('\xc3'));
  CHECK_FALSE(isIdentChar('.'));
  CHECK(indentOf("  \tx") == 3);
  CHECK(indentOf("") == 0);
  CHECK(trim(" \t x y \r") == "x y");
  CHECK(trim("   ").empty());
}
