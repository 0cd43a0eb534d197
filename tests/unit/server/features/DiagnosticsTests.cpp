// In-process tests of server/features/Diagnostics.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::MiniTrace;

namespace {

protocol::DocumentDiagnosticReport diagnosticsOf(MiniTrace &t, const std::string &uri) {
  protocol::DocumentDiagnosticParams params;
  params.textDocument.uri = uri;
  return t.call(&server::documentDiagnostic, uri, params);
}

} // namespace

TEST_CASE("diagnostics: a graph break is a Warning on its model line, with PyTorch's code and page") {
  MiniTrace t(test::reluMulWithGraphBreak());
  protocol::DocumentDiagnosticReport r = diagnosticsOf(t, t.modelUri());
  REQUIRE(r.items.size() == 1);
  const protocol::Diagnostic &d = r.items[0];
  CHECK(d.range == t.model.range("relu"));
  CHECK(d.severity == protocol::DiagnosticSeverity::Warning);
  CHECK(d.source == "torch.compile");
  CHECK(d.message.find("print") != std::string::npos);
  REQUIRE(d.codeDescription);
  CHECK(d.codeDescription->href.find("gb0059") != std::string::npos);
  // Nothing on generated code, and the same report again is `unchanged` for its result id.
  CHECK(diagnosticsOf(t, t.outputCodeUri()).items.empty());
  protocol::DocumentDiagnosticParams again;
  again.textDocument.uri = t.modelUri();
  again.previousResultId = r.resultId;
  protocol::DocumentDiagnosticReport same = t.call(&server::documentDiagnostic, t.modelUri(), again);
  CHECK(same.unchanged);
  CHECK(same.items.empty());
}

TEST_CASE("diagnostics: the line edited since the trace loses its diagnostic rather than moving it") {
  MiniTrace t(test::reluMulWithGraphBreak());
  std::string edited = t.model.code();
  edited.replace(edited.find("y = x.relu()"), 12, "y = x.sigmoid()");
  std::ofstream(t.modelPath(), std::ios::binary) << edited;
  CHECK(diagnosticsOf(t, t.modelUri()).items.empty());
}

TEST_CASE("diagnostics: none without compile-health events") {
  MiniTrace t(test::reluMulTexts());
  CHECK(diagnosticsOf(t, t.modelUri()).items.empty());
}
