// Tests for index/trace/CompileId.h: printing as torch/_guards.py and tlparse do, tolerant parsing, ordering,
// hashing.
#include "index/trace/CompileId.h"

#include <doctest/doctest.h>

#include <set>
#include <unordered_set>

using namespace inductor::index;

namespace {
CompileId id(std::optional<int> frame, std::optional<int> frameCompile, std::optional<int> attempt = 0,
             std::optional<int> ca = std::nullopt) {
  return CompileId{frame, frameCompile, attempt, ca};
}

// parse(text) prints back as `expected` (traceStr, so the attempt shows); "" expects nullopt.
void checkParse(std::string_view text, std::string_view expected) {
  CAPTURE(text);
  auto parsed = CompileId::parse(text);
  if (expected.empty()) {
    CHECK_FALSE(parsed);
    return;
  }
  REQUIRE(parsed);
  CHECK(parsed->traceStr() == expected);
}
} // namespace

TEST_CASE("CompileId: str() as CompileId.__str__, traceStr() as TraceId.__str__") {
  CHECK(id(0, 1).str() == "0/1");
  CHECK(id(0, 1, 2).str() == "0/1");
  CHECK(id(0, 1, 2).traceStr() == "0/1_2");
  CHECK(id(0, 1, 0).traceStr() == "0/1");
  CHECK(id(0, 1, std::nullopt, 3).str() == "!3/0/1");
  CHECK(id(std::nullopt, std::nullopt, std::nullopt, 3).str() == "!3");
  CHECK(id(std::nullopt, 2, std::nullopt).str() == "-/2");
  CHECK(CompileId{}.str() == "");
  CHECK(CompileId{}.empty());
  CHECK_FALSE(id(0, 0).empty());
}

TEST_CASE("CompileId: dirName() as tlparse's frame_compile_attempt directories") {
  CHECK(id(0, 0, 0).dirName() == "0_0_0");
  CHECK(id(1, 2, 3).dirName() == "1_2_3");
  CHECK(id(1, 2, std::nullopt).dirName() == "1_2_-");
  CHECK(id(0, 1, 0, 4).dirName() == "!4_0_1_0");
  CHECK(CompileId{}.dirName() == "-_-_-");
}

TEST_CASE("CompileId::parse is tolerant") {
  checkParse("0/1", "0/1");
  checkParse("[0/1]", "0/1");
  checkParse(" [0/1] ", "0/1");
  checkParse("0/1_1", "0/1_1");
  checkParse("[0/1_2]", "0/1_2");
  checkParse("!0/1/2", "!0/1/2");
  checkParse("[!0/0/1]", "!0/0/1");
  checkParse("!7", "!7");
  checkParse("0/1/5", "0/1"); // An extra component is ignored.
  checkParse("12/345_6", "12/345_6");
  checkParse("-/3", "-/3");
  checkParse("", "");
  checkParse("None", "");
  checkParse("abc", "");
  checkParse("0", "");
  checkParse("-/-", "");
  checkParse("!x", "");
  auto ca = CompileId::parse("!2/0/1");
  REQUIRE(ca);
  CHECK(ca->compiledAutogradId == 2);
  CHECK(ca->frameId == 0);
  CHECK(ca->frameCompileId == 1);
  CHECK_FALSE(ca->attempt);
}

TEST_CASE("CompileId: str() and parse() round-trip") {
  for (const CompileId &c : {id(0, 0, std::nullopt), id(3, 14, std::nullopt), id(1, 2, std::nullopt, 5)}) {
    CAPTURE(c.str());
    auto back = CompileId::parse(c.str());
    REQUIRE(back);
    CHECK(*back == c);
  }
}

TEST_CASE("CompileId: equality, ordering and hashing") {
  CHECK(id(0, 1) == id(0, 1));
  CHECK(id(0, 1) != id(0, 1, 1));
  CHECK(id(0, 1) != id(0, 1, 0, 0));
  CHECK(id(0, 1) < id(0, 2));
  CHECK(id(0, 9) < id(1, 0));
  CHECK(id(0, 1, 0) < id(0, 1, 1));
  CHECK(CompileId{} < id(0, 0)); // Missing sorts first.
  std::set<CompileId> ordered{id(1, 0), id(0, 1), id(0, 0)};
  CHECK(ordered.begin()->str() == "0/0");
  std::unordered_set<CompileId> hashed{id(0, 0), id(0, 0), id(0, 1), id(0, 0, 0, 1), CompileId{}};
  CHECK(hashed.size() == 4);
  CHECK(std::hash<CompileId>()(id(0, 1)) == std::hash<CompileId>()(id(0, 1)));
}
