// tests/e2e/DocumentSyncTests.cpp: answers follow the text the editor has (didOpen/didChange/didClose), not
// only the file on disk.
#include "e2e/E2E.h"

namespace inductor::e2e {
namespace {

TEST_CASE("document sync: after an edit above a launch, the launch still navigates at its new position") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  const ExpectedOutputCode &forward = codes.at(0);
  s.client.didOpen(forward.path);
  const LaunchSite *gelu = nullptr;
  for (const LaunchSite &l : forward.launches)
    if (l.key() == "triton_poi_fused_gelu_1:3") gelu = &l;
  REQUIRE(gelu != nullptr);
  std::set<Loc> want = originLocs(forward.originsOf(*gelu));
  CHECK(toLocSet(s.client.request("textDocument/definition",
                                  textDocumentPosition(forward.uri, gelu->line, gelu->column))) == want);

  // Insert one comment line at the top: every launch moves down by one line.
  s.client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", forward.uri}, {"version", 2}}},
                   {"contentChanges",
                    {{{"range", {{"start", position(0, 0)}, {"end", position(0, 0)}}},
                      {"text", "# edited in the editor\n"}}}}});
  json moved = s.client.request("textDocument/definition",
                                textDocumentPosition(forward.uri, gelu->line + 1, gelu->column));
  CHECK_MESSAGE(toLocSet(moved) == want, "definition after the edit: " << moved.dump());
  // The launch's old position now holds the `#` of its provenance comment: nothing to say there.
  json stale = s.client.request("textDocument/definition",
                                textDocumentPosition(forward.uri, gelu->line, gelu->column));
  CHECK_MESSAGE(stale == json::array(), "definition on the `#` of the comment line: " << stale.dump());

  // Closing the document goes back to the file on disk.
  s.client.notify("textDocument/didClose", {{"textDocument", {{"uri", forward.uri}}}});
  CHECK(toLocSet(s.client.request("textDocument/definition",
                                  textDocumentPosition(forward.uri, gelu->line, gelu->column))) == want);
  s.client.shutdown();
}

TEST_CASE("document sync: an open document that is not indexed answers nothing, without errors") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::string uri = "file:///tmp/inductor-e2e-untitled/scratch.py";
  s.client.didOpen(uri, "python", "triton_poi_fused_gelu_1.run(buf5, buf6, 65536, stream=stream0)\n");
  CHECK(s.client.request("textDocument/definition", textDocumentPosition(uri, 0, 3)) == json::array());
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(uri, 0, 3)).is_null());
  CHECK(s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}) == json::array());
  CHECK(s.client.request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}}) == json::array());
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
