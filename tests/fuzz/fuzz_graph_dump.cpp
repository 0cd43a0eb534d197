// libFuzzer target: FX graph dumps (index/analysis/GraphDump.h: fx_graph_readable.py and graph payloads) and
// identifiers under a cursor. Properties: nodes and their origins lie inside the text.
#include "FuzzInput.h"
#include "index/analysis/GraphDump.h"
#include "index/support/TextLines.h"

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  uint32_t line = in.number(1000), column = in.number(1000);
  bool dotted = in.number(1) == 1;
  std::string_view text = in.rest();
  TextLines lines = splitLines(text);
  GraphDumpAnalysis a = analyzeGraphDump(lines);
  for (const GraphNodeDef &n : a.nodes) {
    fuzz::require(n.line < lines.size(), "node line inside the text");
    fuzz::require(!n.origin || *n.origin < a.origins.size(), "node origin indexes the origins");
  }
  if (line < lines.size()) {
    auto id = identifierAt(lines[line], line, column, dotted);
    if (id) fuzz::require(id->line == line, "identifier on the asked line");
  }
  return 0;
}
