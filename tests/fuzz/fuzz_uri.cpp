// libFuzzer target: URIs (protocol/URI.h). Properties: a parsed URI serialises back to itself,
// percent-encoding round-trips, file paths round-trip through fileURI.
#include "FuzzInput.h"
#include "protocol/URI.h"

using namespace inductor;
using namespace inductor::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (auto uri = parseURI(text)) {
    auto again = parseURI(uri->toString());
    fuzz::require(again && *again == *uri, "parseURI(toString()) is the identity");
  }
  fuzz::require(percentDecode(percentEncode(text, false)) == text, "percent-encoding round-trips");
  fuzz::require(percentDecode(percentEncode(text, true)) == text, "percent-encoding keeping '/' round-trips");
  if (auto path = filePath(text)) {
    fuzz::require(!path->empty() && path->front() == '/', "file paths are absolute");
    fuzz::require(filePath(fileURI(*path)) == path, "file paths round-trip");
  }
  if (!text.empty() && text.front() == '/')
    fuzz::require(filePath(fileURI(text)) == std::string(text), "fileURI");
  return 0;
}
