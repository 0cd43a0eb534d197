#include "index/support/TextLines.h"

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

TEST_CASE("TextLines: identifiers, and the characters of a line outside string literals") {
  CHECK(identLength("x = abc_1(", 4) == 5);
  CHECK(identLength("x = 1abc", 4) == 0);
  CHECK(dottedLength("extern_kernels.mm(a)", 0) == 17);
  CHECK(dottedLength("a.b.", 0) == 3);

  auto code = [](std::string_view line, size_t from = 0) {
    std::string out;
    CodeChars c(line, from);
    for (size_t i = c.next(); i != std::string_view::npos; i = c.next())
      out += line[i];
    return std::make_pair(out, c.inString());
  };
  CHECK(code(R"(f("a, b", 'c\'d') # e)") == std::make_pair(std::string("f(, ) # e"), false));
  CHECK(code(R"(x = "a\"b" + y)") == std::make_pair(std::string("x =  + y"), false));
  CHECK(code(R"(x = 'open)") == std::make_pair(std::string("x = "), true));
  CHECK(code(R"(s = "\\" + t)") == std::make_pair(std::string("s =  + t"), false)); // An escaped backslash.
  CHECK(code("x = 'a' + b", 7).first == " + b"); // From a column outside literals.

  std::string_view printed = R"(_print("before_launch - k - buf1", buf1); k.run(buf1))";
  CHECK(insideStringLiteral(printed, printed.find("k -")));
  CHECK_FALSE(insideStringLiteral(printed, printed.find("k.run")));
  CHECK(insideStringLiteral(printed, printed.find('"'))); // A quote belongs to its literal.
  CHECK_FALSE(insideStringLiteral(printed, printed.size()));
}
