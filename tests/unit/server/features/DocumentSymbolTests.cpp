// In-process tests of server/features/DocumentSymbol.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::MiniTrace;

TEST_CASE("documentSymbol: output code's kernels, and its entry point with each launch as a child") {
  MiniTrace t(test::reluMulTexts());
  protocol::DocumentSymbolParams params;
  params.textDocument.uri = t.outputCodeUri();
  protocol::DocumentSymbolResult r = t.call(&server::documentSymbol, t.outputCodeUri(), params);
  CHECK(r.hierarchical);
  REQUIRE(r.symbols.size() == 2);
  const protocol::DocumentSymbol &kernel = r.symbols[0], &call = r.symbols[1];
  CHECK(kernel.name == "triton_poi_fused_mul_relu_0");
  CHECK(kernel.selectionRange == t.code.range("def"));
  CHECK(kernel.detail == "pointwise kernel");
  CHECK(call.name == "call");
  REQUIRE(call.children.size() == 1);
  CHECK(call.children[0].selectionRange == t.code.range("launch"));
  // Each symbol's range holds its name.
  for (const protocol::DocumentSymbol *s : {&kernel, &call, &call.children[0]}) {
    CHECK(s->range.start.line <= s->selectionRange.start.line);
    CHECK(s->selectionRange.end.line <= s->range.end.line);
  }
}

TEST_CASE("documentSymbol: a graph dump's FX nodes; nothing for a model file") {
  MiniTrace t(test::reluMulTexts());
  protocol::DocumentSymbolParams params;
  params.textDocument.uri = t.modelUri();
  CHECK(t.call(&server::documentSymbol, t.modelUri(), params).symbols.empty());
}
