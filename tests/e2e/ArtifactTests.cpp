// tests/e2e/ArtifactTests.cpp: the custom requests inductor/listArtifacts and inductor/artifactContent, and
// documents of the `inductor-trace:` scheme (artifacts that exist only inside a log).
#include "e2e/E2E.h"

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

std::string trimEnd(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

TEST_CASE("listArtifacts: every output code of every compile, with compile id, graph kind and language") {
  size_t cases = 0, cpp = 0;
  for (const std::string &folder : caseFolders()) {
    INFO(folder);
    Session s(folder); // The folder as the workspace: its debug and cache copies are indexed too.
    INFO(s.client.logTail());
    // The served run's (a folder of several runs serves its latest).
    std::vector<ExpectedOutputCode> codes =
        expectedOutputCodes(latestRunLogs(filesIn(folder + "/trace", "dedicated_log_torch_trace")));
    json list = s.client.request("inductor/listArtifacts", json::object());
    REQUIRE(list.is_array());
    for (const ExpectedOutputCode &code : codes) {
      INFO(code.label());
      // By the trace's own words: AOTInductor's wrapper is C++ wrapper code, the rest output code, in the
      // language of the file name it was written to.
      std::string kind = code.record.aoti ? "wrapperCode" : "outputCode";
      std::string languageId = code.uri.ends_with(".cpp") ? "cpp" : "python";
      cpp += languageId == "cpp";
      bool found = false;
      for (const json &a : list) {
        // One entry per compile: several compiles can share a file (a recompile that generated the same
        // code, ranks writing one cache file), each listed with its own compile id and rank.
        if (a["uri"] != code.uri || a["kind"] != kind) continue;
        if (code.record.rank && a["rank"] != *code.record.rank) continue;
        if (!code.record.aoti && a["compileId"] != code.record.compileId) continue;
        CHECK(!found); // Once.
        found = true;
        CHECK(a["languageId"] == languageId);
        CHECK(a["graphKind"] == (code.record.aoti ? std::string("aot") : code.graphKind()));
        CHECK(!a["title"].get<std::string>().empty());
      }
      CHECK(found);
    }
    cases += !codes.empty();
    s.client.shutdown();
  }
  CHECK(cases >= 20);
  CHECK(cpp > 0); // aoti_conv's wrapper at least.
  MESSAGE(cases << " case folders' output code listed");
}

TEST_CASE("artifactContent: a post-grad graph that exists only in the log returns the log's payload") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<TraceRecord> records = readTraceLog(log);
  json list = s.client.request("inductor/listArtifacts", json::object());
  size_t postGrad = 0;
  for (const json &a : list) {
    std::string uri = a["uri"].get<std::string>();
    if (uri.rfind("inductor-trace:", 0) != 0) continue;
    INFO(uri);
    CHECK(a["kind"] == "graph");
    json content = s.client.request("inductor/artifactContent", {{"uri", uri}});
    REQUIRE(content.is_object());
    CHECK(content["languageId"] == "python");
    std::string text = content["text"].get<std::string>();
    // The URI names the log and the record's line (1-based): inductor-trace:/<log>/<line>/<title>.py.
    size_t first = uri.find('/', std::string("inductor-trace:/").size());
    uint32_t line = static_cast<uint32_t>(std::stoul(uri.substr(first + 1)));
    const TraceRecord *record = nullptr;
    for (const TraceRecord &r : records)
      if (r.line + 1 == line) record = &r;
    REQUIRE(record != nullptr);
    CHECK(trimEnd(text) == trimEnd(record->payload));
    if (uri.find("inductor_post_grad_graph") != std::string::npos) ++postGrad;
  }
  CHECK(postGrad == 2); // Forward and backward.
  s.client.shutdown();
}

TEST_CASE(
    "artifactContent: errors for an unknown URI and for missing params; hover works on the virtual doc") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  json unknown =
      s.client.requestRaw("inductor/artifactContent", {{"uri", "inductor-trace:/nope.log/1/x.py"}});
  REQUIRE(unknown.contains("error"));
  CHECK(unknown["error"]["code"] == -32602);
  json missing = s.client.requestRaw("inductor/artifactContent", json::object());
  REQUIRE(missing.contains("error"));
  CHECK(missing["error"]["code"] == -32602);
  // A node of the log-only post-grad graph: hover names it and its origin.
  json list = s.client.request("inductor/listArtifacts", json::object());
  size_t graphs = 0;
  for (const json &a : list) {
    std::string uri = a["uri"].get<std::string>();
    if (uri.find("forward-inductor_post_grad_graph") == std::string::npos) continue;
    ++graphs;
    std::string text =
        s.client.request("inductor/artifactContent", {{"uri", uri}})["text"].get<std::string>();
    auto positions = graphNodePositions(text);
    auto origins = graphNodeOrigins(text);
    REQUIRE(origins.count("addmm"));
    auto [line, column] = positions.at("addmm");
    json hover = s.client.request("textDocument/hover", textDocumentPosition(uri, line, column));
    REQUIRE(hover.is_object());
    std::string md = hover["contents"]["value"].get<std::string>();
    INFO(md);
    CHECK(md.find("`addmm`") != std::string::npos);
    CHECK(md.find("model.py:" + std::to_string(origins["addmm"].line)) != std::string::npos);
  }
  CHECK(graphs >= 1); // The log's forward post-grad graph is listed: the checks above ran.
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e

namespace inductor::e2e {
namespace {

TEST_CASE("listArtifacts: labels with compile and graph, the log of each compile, one entry per file copy") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  json list = s.client.request("inductor/listArtifacts", json::object());
  REQUIRE(list.is_array());
  std::set<std::string> uris;
  for (const json &a : list) {
    INFO(a.dump());
    // Graph dumps copied into the cache's `.debug/` and TORCH_COMPILE_DEBUG are one artifact.
    CHECK(uris.insert(a["uri"].get<std::string>()).second);
    if (a["kind"] == "kernel") {
      CHECK(a["compile"].is_null());
      continue;
    }
    // `[0/0] forward · output_code.py`: the compile's label, then the file (or where in the log).
    std::string label = a["label"], compile = a["compile"];
    CHECK(label.rfind(compile + " · ", 0) == 0);
    if (a["uri"].get<std::string>().rfind("file:", 0) == 0)
      CHECK(label.substr(label.rfind(' ') + 1) == fs::path(a["uri"].get<std::string>()).filename().string());
    else
      CHECK(label.find(" in the log") != std::string::npos);
    CHECK(a["trace"] == filesIn(caseDir("mlp_train") + "/trace").at(0));
    CHECK(a["compileIndex"].is_number());
  }
  for (const ExpectedOutputCode &code : codes) {
    bool found = false;
    for (const json &a : list)
      if (a["uri"] == code.uri) {
        found = true;
        CHECK(a["label"] == "[" + code.record.compileId + "] " + code.graphKind() + " · output_code.py");
      }
    CHECK_MESSAGE(found, code.uri);
  }
  // fx_graph_runnable.py is indexed too.
  bool runnable = false;
  for (const json &a : list)
    runnable |= a["graphName"] == "fx_graph_runnable.py";
  CHECK(runnable);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
