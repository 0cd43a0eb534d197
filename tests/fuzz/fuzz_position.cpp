// libFuzzer target: LSP positions (protocol/Position.h) over any bytes, valid UTF-8 or not, and Position
// values decoded from JSON numbers of any size. Properties: conversions stay inside the text and invert each
// other at code point boundaries.
#include "FuzzInput.h"
#include "protocol/Position.h"
#include "protocol/Protocol.h"

using namespace inductor;
using namespace inductor::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  uint32_t line = in.number(70000), character = in.number(70000);
  OffsetEncoding encoding = static_cast<OffsetEncoding>(in.number(2));
  std::string_view text = in.rest();
  LineTable table(text);
  fuzz::require(table.lineCount() >= 1, "at least one line");
  size_t offset = table.offsetOfPosition(line, character, encoding);
  fuzz::require(offset <= text.size(), "offsets inside the text");
  LineColumn lc = table.lineColumn(offset);
  fuzz::require(table.offset(lc) == offset, "offset and (line, column) invert");
  uint32_t back = table.characterOfOffset(offset, encoding);
  fuzz::require(table.offsetOfPosition(lc.line, back, encoding) == offset, "position and offset invert");
  std::string_view lineText = table.lineText(lc.line);
  fuzz::require(characterToByteColumn(lineText, byteColumnToCharacter(lineText, lc.byteColumn, encoding),
                                      encoding) == lc.byteColumn,
                "columns invert at code point boundaries");
  // The same text as JSON numbers: any value decodes without undefined behaviour.
  json j = json::parse(text, nullptr, false);
  if (j.is_object() && j.size() < 64) {
    Position p;
    std::string error;
    (void)fromJSON(j, p, error);
  }
  return 0;
}
