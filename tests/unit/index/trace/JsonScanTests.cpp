// Tests for index/trace/JsonScan.h: walks over objects and arrays, raw values, decoding, and bounded nesting.
#include "index/trace/JsonScan.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace inductor::index;

TEST_CASE("json_scan: members and elements in order, raw values, keys undecoded") {
  std::vector<std::pair<std::string, std::string>> members;
  CHECK(json_scan::walkObject(R"( {"a": 1, "b" : [1, {"x": "]"}], "c\"d": "s\u00e9", "a": null} )",
                              [&](std::string_view k, std::string_view v) { members.emplace_back(k, v); }));
  CHECK(members == std::vector<std::pair<std::string, std::string>>{
                       {"a", "1"}, {"b", R"([1, {"x": "]"}])"}, {R"(c\"d)", R"("s\u00e9")"}, {"a", "null"}});
  std::string scratch;
  CHECK(json_scan::decodeKey(R"(c\"d)", scratch) == std::optional<std::string_view>(R"(c"d)"));
  CHECK(json_scan::string(R"("s\u00e9")", scratch) == std::optional<std::string_view>("s\xc3\xa9"));
  CHECK(json_scan::string(R"("plain")", scratch) == std::optional<std::string_view>("plain"));
  CHECK_FALSE(json_scan::string("12", scratch));

  std::vector<std::string> elements;
  CHECK(json_scan::walkArray("[1,\"2\", [3], {}]", [&](std::string_view v) { elements.emplace_back(v); }));
  CHECK(elements == std::vector<std::string>{"1", "\"2\"", "[3]", "{}"});
  CHECK(json_scan::walkArray("[]", [](std::string_view) { FAIL("no element"); }));
  CHECK(json_scan::walkObject("{}", [](std::string_view, std::string_view) { FAIL("no member"); }));
}

TEST_CASE("json_scan: a member callback returning false stops the walk; what follows is not read") {
  std::vector<std::string> keys;
  auto until = [&](std::string_view last) {
    keys.clear();
    return [&keys, last](std::string_view k, std::string_view) {
      keys.emplace_back(k);
      return k != last;
    };
  };
  // Stopped at "b": the rest, malformed here, is neither read nor checked.
  CHECK(json_scan::walkObject(R"({"a": 1, "b": 2, "c": [1, 2 ...)", until("b")));
  CHECK(keys == std::vector<std::string>{"a", "b"});
  // Never stopped: the whole object is read and checked.
  CHECK(json_scan::walkObject(R"({"a": 1, "b": 2, "c": 3})", until("x")));
  CHECK(keys == std::vector<std::string>{"a", "b", "c"});
  CHECK_FALSE(json_scan::walkObject(R"({"a": 1, "b": 2, "c": [1, 2 ...)", until("x")));
  // A member before the stop is still checked.
  CHECK_FALSE(json_scan::walkObject(R"({"a": [1,, "b": 2})", until("b")));
}

TEST_CASE("json_scan: malformed text is refused") {
  const auto object = [](std::string_view text) {
    return json_scan::walkObject(text, [](std::string_view, std::string_view) {});
  };
  for (const char *text : {"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x", "[1]", "{\"a\":tru}",
                           "{\"a\":\"unterminated}", "{\"a\":[1,2}", "{a:1}"}) {
    CAPTURE(text);
    CHECK_FALSE(object(text));
  }
  CHECK(json_scan::isValue(" [1, {\"a\": null}] "));
  CHECK_FALSE(json_scan::isValue("[1] [2]"));
}

TEST_CASE("json_scan: nesting is bounded, so hostile depth cannot overflow the stack") {
  const auto nested = [](int depth) {
    return std::string(size_t(depth), '[') + std::string(size_t(depth), ']');
  };
  CHECK(json_scan::isValue(nested(json_scan::kMaxDepth)));
  CHECK_FALSE(json_scan::isValue(nested(json_scan::kMaxDepth + 2)));
  CHECK_FALSE(json_scan::isValue(nested(1000000)));
  CHECK_FALSE(
      json_scan::walkObject("{\"a\": " + nested(1000000) + "}", [](std::string_view, std::string_view) {}));
}

TEST_CASE("json_scan: numbers") {
  CHECK(json_scan::integer("42") == 42);
  CHECK(json_scan::integer("-7") == -7);
  CHECK_FALSE(json_scan::integer("1.5"));
  CHECK_FALSE(json_scan::integer("99999999999"));
  CHECK_FALSE(json_scan::integer("null"));
  CHECK(json_scan::number("2.0") == 2.0);
  CHECK(json_scan::number("-1e3") == -1000.0);
  CHECK_FALSE(json_scan::number("1e999")); // Not finite.
  CHECK_FALSE(json_scan::number("\"2\""));
}

TEST_CASE("json_scan::string decodes escapes exactly as nlohmann does, and rejects what it rejects") {
  std::string scratch;
  auto same = [&](const std::string &token) {
    nlohmann::json expected = nlohmann::json::parse(token, nullptr, /*allow_exceptions=*/false);
    auto got = json_scan::string(token, scratch);
    if (expected.is_string()) {
      REQUIRE(got);
      CHECK(*got == expected.get<std::string>());
    } else {
      CHECK_FALSE(got);
    }
  };
  for (const char *token :
       {R"("a\nb")", R"("\"\\\/\b\f\n\r\t")", R"("\u0041\u00e9\u20ac")", R"("\ud83d\ude00!")",
        R"("\uD83D\uDE00")", R"("x\u0000y")", R"("\ud83d")", R"("\ude00")", R"("\ud83dx")",
        R"("\ud83d\u0041")", R"("\u12")", R"("\u12g4")", R"("\x")", R"("end\")", R"("é\n😀")"})
    same(token);
  // Random tokens of escapes and plain text (deterministic).
  const std::vector<std::string> parts = {"a",
                                          "Z",
                                          " ",
                                          "\\n",
                                          "\\t",
                                          "\\\"",
                                          "\\\\",
                                          "\\/",
                                          "\\u0041",
                                          "\\u00E9",
                                          "\\ud83d\\ude00",
                                          "\\ud800",
                                          "\\udc00",
                                          "\\q",
                                          "\xc3\xa9",
                                          "\\u00"};
  uint32_t state = 12345;
  for (int round = 0; round < 2000; ++round) {
    std::string token = "\"";
    for (int k = 0; k < 6; ++k) {
      state = state * 1664525u + 1013904223u;
      token += parts[(state >> 8) % parts.size()];
    }
    same(token + "\"");
  }
}
