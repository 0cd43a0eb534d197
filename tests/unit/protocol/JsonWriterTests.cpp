// Tests for protocol/JsonWriter.h: the text equals what nlohmann's dump writes for the same value (strings
// with escapes and invalid UTF-8 included), and the LSP shapes read back as their to_json.
#include "protocol/JsonWriter.h"

#include "protocol/Transport.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace inductor::protocol;

namespace {

std::string nlohmannText(const json &j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

TEST_CASE("JsonWriter: commas, keys and nesting as nlohmann writes them") {
  JsonWriter w;
  w.beginObject().key("a").beginArray().endArray().key("b").beginArray();
  w.value(int64_t{-3}).value(uint32_t{7}).value(true).value(false).null();
  w.beginObject().endObject().beginArray().value("x").beginArray().endArray().endArray();
  w.endArray().key("c").raw(R"({"k":[1,2]})").key("d").dump(json{{"z", 1}, {"y", {nullptr}}});
  w.endObject();
  std::string text = w.take();
  CHECK(text == R"({"a":[],"b":[-3,7,true,false,null,{},["x",[]]],"c":{"k":[1,2]},"d":{"y":[null],"z":1}})");
  CHECK(nlohmannText(json::parse(text)) == text); // Keys written in sorted order here: the same text.
  CHECK(w.size() == 0);
  w.beginArray().value("after take").endArray();
  CHECK(w.take() == R"(["after take"])");
}

TEST_CASE("JsonWriter: strings are escaped as nlohmann escapes them, invalid UTF-8 replaced") {
  std::vector<std::string> strings = {
      "",
      "file:///home/u/model.py",
      "inductor-trace:/0_0/output_code.py",
      "4 kernels, 10 launches · 2 forward · 2 backward",
      "quote \" backslash \\ slash /",
      std::string("nul \0 inside", 12),
      "tab\tnewline\ncarriage\rbell\x07 esc\x1b del\x7f",
      "emoji 😀 and 日本語",
      "truncated \xe6\x97",
      "lone continuation \x80 and \xff",
      "overlong \xc0\xaf",
  };
  // And random bytes, biased to the special ones.
  std::mt19937 rng(7);
  const char special[] = {'"', '\\', '\n', '\x01', '\x7f', '\x80', '\xc3', '\xa9', '\xe2', '\xf0', 'a', ' '};
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    for (int n = static_cast<int>(rng() % 12); n > 0; --n)
      s += rng() % 2 ? special[rng() % sizeof special] : static_cast<char>(rng() % 256);
    strings.push_back(s);
  }
  for (const std::string &s : strings) {
    JsonWriter w;
    w.value(s);
    CHECK_MESSAGE(w.take() == nlohmannText(json(s)),
                  json(s).dump(-1, ' ', true, json::error_handler_t::replace));
    JsonWriter k;
    k.beginObject().key(s).null().endObject();
    CHECK(k.take() == nlohmannText(json{{s, nullptr}}));
  }
}

TEST_CASE("JsonWriter: every byte at every place of an eight-byte word (the plain-ASCII test reads words)") {
  for (int byte = 0; byte < 256; ++byte)
    for (size_t at = 0; at < 19; ++at) {
      std::string s(19, 'a');
      s[at] = static_cast<char>(byte);
      JsonWriter w;
      w.value(s);
      CAPTURE(byte);
      CAPTURE(at);
      CHECK(w.take() == nlohmannText(json(s)));
    }
}

TEST_CASE("JsonWriter: positions, ranges, locations and commands read back as their to_json") {
  Location l{"file:///m%20x/model.py", Range{Position{15, 8}, Position{15, 31}}};
  JsonWriter w;
  write(w, l);
  CHECK(json::parse(w.take()) == json(l));
  Command c{"model.py:16  h = F.gelu(self.fc1(h))", "inductor.showLocations", json::array({"u", 1})};
  write(w, c);
  CHECK(json::parse(w.take()) == json(c));
  Command bare{"t", "inductor.reindex", nullptr};
  write(w, bare);
  CHECK(json::parse(w.take()) == json(bare));
  CHECK(!json::parse(nlohmannText(json(bare))).contains("arguments"));
}

TEST_CASE("JSONTransport::sendText writes the text (whole or in pieces) as one frame") {
  char *buffer = nullptr;
  size_t size = 0;
  std::FILE *out = open_memstream(&buffer, &size);
  REQUIRE(out != nullptr);
  {
    JSONTransport t(stdin, out, JSONTransport::Style::Standard);
    t.sendText(R"({"id":1,"jsonrpc":"2.0","result":[]})");
    t.sendText(R"({"id":2,"result":)", "[1,2]", "}"); // An envelope around a result, in three pieces.
  }
  std::fclose(out);
  std::string written(buffer, size);
  std::free(buffer);
  CHECK(written == "Content-Length: 36\r\n\r\n{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":[]}"
                   "Content-Length: 23\r\n\r\n{\"id\":2,\"result\":[1,2]}");
}
