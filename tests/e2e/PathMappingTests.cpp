// tests/e2e/PathMappingTests.cpp: recorded paths (`/tmp/work/<case>/...`, from the machine that ran the
// model) mapped to local files, (a) by `pathMappings` and (b) by suffix matching against the workspace
// folders.
#include "e2e/E2E.h"

namespace inductor::e2e {
namespace {

/// The launches of every output code of `log`, each with its log-only URI and its expected origins.
std::vector<ExpectedOutputCode> logOnlyOutputCodes(LSPClient &client, const std::string &log) {
  std::vector<ExpectedOutputCode> out;
  for (OutputCodeRecord &r : readOutputCodes(log)) {
    ExpectedOutputCode e;
    e.uri = findVirtualOutputCode(client, r.payload);
    e.text = r.payload;
    e.launches = findLaunches(e.text);
    e.record = std::move(r);
    out.push_back(std::move(e));
  }
  return out;
}

/// Loc of an origin whose file is `local` (which holds the same text as the recorded file).
Loc originAt(const std::string &local, const Frame &recorded) {
  Loc l = originLoc(Frame{local, recorded.line});
  return l;
}

TEST_CASE(
    "pathMappings: /tmp/work/mlp_train mapped to a temp dir holding model.py (suffix matching cannot)") {
  TempDir mapped("mapped"), workspace("workspace");
  std::string model = mapped.write("model.py", readFile(caseDir("mlp_train") + "/model.py"));
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  json options = {{"traceDirs", {caseDir("mlp_train") + "/trace"}},
                  {"pathMappings", {{{"from", "/tmp/work/mlp_train"}, {"to", mapped.path()}}}}};
  Session s(workspace.path(), options);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = logOnlyOutputCodes(s.client, log);
  REQUIRE(codes.size() == 2);
  size_t checked = 0;
  for (const ExpectedOutputCode &code : codes) {
    INFO(code.label());
    REQUIRE(code.uri.rfind("inductor-trace:", 0) == 0); // The cache files are not under the mapping's target.
    for (const LaunchSite &site : code.launches) {
      INFO(site.key());
      std::set<Loc> want;
      for (const Frame &f : code.originsOf(site)) {
        REQUIRE(f.path == "/tmp/work/mlp_train/model.py");
        want.insert(originAt(model, f));
      }
      std::set<Loc> got = toLocSet(s.client.request("textDocument/definition",
                                                    textDocumentPosition(code.uri, site.line, site.column)));
      CHECK_MESSAGE(got == want, "got " << show(got) << "\nwant " << show(want));
      ++checked;
    }
  }
  CHECK(checked == 29);
  // And back: references from the mapped model.py reach the launches in the log-only output code.
  std::string uri = s.client.didOpen(model);
  json refs = s.client.request("textDocument/references", {{"textDocument", {{"uri", uri}}},
                                                           {"position", position(15, 8)},
                                                           {"context", {{"includeDeclaration", false}}}});
  CHECK(refs.size() == 10);
  for (const Loc &l : toLocs(refs))
    CHECK(l.uri.rfind("inductor-trace:", 0) == 0);
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  size_t kernelLenses = 0;
  for (const json &l : lenses)
    kernelLenses += l["command"]["command"] == "inductor.showLaunchSites";
  CHECK(kernelLenses == 6);
  s.client.shutdown();
}

TEST_CASE("pathMappings: without the mapping, origins keep the recorded path (file absent here)") {
  TempDir workspace("workspace");
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  Session s(workspace.path(), json{{"traceDirs", {caseDir("mlp_train") + "/trace"}}});
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = logOnlyOutputCodes(s.client, log);
  REQUIRE(codes.size() == 2);
  const ExpectedOutputCode &forward = codes[0];
  const LaunchSite &site = forward.launches.at(0);
  std::set<Loc> got = toLocSet(
      s.client.request("textDocument/definition", textDocumentPosition(forward.uri, site.line, site.column)));
  std::set<Loc> want;
  // Empty range at the start of the line of the text the trace recorded (never a file:// URI of a file that
  // is not here).
  for (const Frame &f : forward.originsOf(site))
    want.insert(
        Loc{"inductor-trace:/recorded-source" + fileURI(f.path).substr(7), f.line - 1, 0, f.line - 1, 0});
  CHECK_MESSAGE(got == want, "got " << show(got) << "\nwant " << show(want));
  json hover =
      s.client.request("textDocument/hover", textDocumentPosition(forward.uri, site.line, site.column));
  REQUIRE(hover.is_object());
  std::string md = hover["contents"]["value"].get<std::string>();
  INFO(md);
  CHECK(md.find("not on this machine") != std::string::npos);
  CHECK(md.find("/tmp/work/mlp_train/model.py") != std::string::npos);
  CHECK(md.find("h = self.norm(x)") != std::string::npos); // The source text the trace recorded.
  s.client.shutdown();
}

TEST_CASE("suffix matching: workspace = the fixture case, no mappings: origins are the local model.py") {
  for (const char *caseName : {"mlp_train", "cpu_inductor", "multirank"}) {
    INFO(caseName);
    Session s(caseDir(caseName));
    INFO(s.client.logTail());
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir(caseName) + "/trace"));
    REQUIRE(!codes.empty());
    const ExpectedOutputCode &code = codes[0];
    const LaunchSite &site = code.launches.at(0);
    json result =
        s.client.request("textDocument/definition", textDocumentPosition(code.uri, site.line, site.column));
    REQUIRE(result.size() >= 1);
    for (const Loc &l : toLocs(result)) {
      CHECK(l.uri == fileURI(caseDir(caseName) + "/model.py"));
      CHECK(l.endChar > l.startChar); // The file was found: the range spans the line's text.
    }
    s.client.shutdown();
  }
}

} // namespace
} // namespace inductor::e2e
