// libFuzzer target: protocol/JsonWriter.h. Properties: a string (any bytes: document text, recorded source
// lines and paths end up in titles and URIs) is written as nlohmann's dump writes it, invalid UTF-8 replaced,
// and the whole text of a value holding it parses back.
#include "FuzzInput.h"
#include "protocol/JsonWriter.h"

using namespace inductor;
using namespace inductor::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  const std::string expected = json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  JsonWriter w;
  w.value(text);
  fuzz::require(w.take() == expected, "a string is written as nlohmann writes it");
  w.beginObject().key(text).beginArray().value(text).value(int64_t{-1}).null().endArray().endObject();
  json parsed = json::parse(w.take(), nullptr, /*allow_exceptions=*/false);
  fuzz::require(parsed.is_object() && parsed.size() == 1, "the text of an object parses back");
  fuzz::require(parsed.begin().value().size() == 3, "with its array");
  fuzz::require(parsed.begin().value()[0].dump(-1, ' ', false, json::error_handler_t::replace) == expected,
                "and its string");
  return 0;
}
