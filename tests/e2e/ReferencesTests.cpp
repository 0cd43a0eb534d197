// tests/e2e/ReferencesTests.cpp: textDocument/references on user source lines (every launch site of every
// kernel generated from the line, in every compile and rank, byte-identical copies of one rank's output code
// listed once) and on kernels in generated code.
#include "e2e/E2E.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

json referenceParams(const std::string &uri, uint32_t line, uint32_t character, bool includeDeclaration) {
  json p = textDocumentPosition(uri, line, character);
  p["context"] = {{"includeDeclaration", includeDeclaration}};
  return p;
}

std::vector<Loc> sorted(std::vector<Loc> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string show(const std::vector<Loc> &v) {
  return show(std::set<Loc>(v.begin(), v.end()));
}

/// Every user line of the case's model.py that the traces attribute launches to: references there are
/// exactly those launches. Returns the number of user lines checked.
size_t checkUserLineReferences(LSPClient &client, const std::string &root,
                               const std::vector<ExpectedOutputCode> &codes) {
  const std::string caseName = fs::path(root).filename().string();
  std::string model = root + "/model.py";
  std::string uri = client.didOpen(model);
  std::vector<std::string> lines = splitLines(readFile(model));
  std::set<uint32_t> userLines;
  for (const auto &entry : launchesByUserLine(codes)) {
    const auto &frame = entry.first;
    const auto &launches = entry.second;
    if (localPathIn(frame.path, root) != model) continue;
    userLines.insert(frame.line - 1);
    std::vector<Loc> expected;
    expected.reserve(launches.size());
    for (const LaunchRef &l : launches)
      expected.push_back(l.loc());
    INFO(caseName << " model.py:" << frame.line << "  " << lines[frame.line - 1]);
    uint32_t indent = static_cast<uint32_t>(lines[frame.line - 1].find_first_not_of(' '));
    json result =
        client.request("textDocument/references", referenceParams(uri, frame.line - 1, indent, false));
    REQUIRE(result.is_array());
    std::vector<Loc> got = toLocs(result);
    std::set<Loc> gotSet(got.begin(), got.end()), expectedSet(expected.begin(), expected.end());
    // One location each, not one per rank: neither ranks that wrote the very same output code file nor
    // ranks whose log-only copies are byte-identical repeat a location.
    CHECK_MESSAGE(got.size() == gotSet.size(),
                  "duplicate locations: " << got.size() << " for " << gotSet.size() << " distinct");
    CHECK_MESSAGE(std::includes(expectedSet.begin(), expectedSet.end(), gotSet.begin(), gotSet.end()),
                  "got " << show(got) << "\nwant among " << show(expected));
    // Every launch is answered, by itself or by the same place in a copy of its output code's text (or of
    // another rank's, the same up to the device).
    for (const LaunchRef &l : launches) {
      bool covered = gotSet.count(l.loc()) > 0;
      for (const ExpectedOutputCode &c : codes)
        if (!covered && &c != l.code && (c.text == l.code->text || sameUpToDevice(c, *l.code))) {
          Loc copy = l.loc();
          copy.uri = c.uri;
          covered = gotSet.count(copy) > 0;
        }
      CHECK_MESSAGE(covered, "missing " << show(l.loc()) << "\ngot " << show(got));
    }
  }
  // Lines that produced no kernel have no references: the first line, and blank lines.
  for (uint32_t line = 0; line < lines.size(); ++line) {
    if (userLines.count(line) || (line > 0 && !lines[line].empty())) continue;
    INFO(caseName << " model.py line " << line + 1 << " (no kernels)");
    CHECK(client.request("textDocument/references", referenceParams(uri, line, 0, false)) == json::array());
  }
  return userLines.size();
}

/// Pinned numbers of user lines for the first cases (a regression check on the oracle too).
const std::map<std::string, size_t> kPinnedUserLines = {{"mlp_train", 6},    {"graph_break_dynamic", 5},
                                                        {"cpu_inductor", 4}, {"aoti_conv", 4},
                                                        {"multirank", 1},    {"profiled_mlp", 6}};

/// The user lines whose references were compared.
size_t checkCase(const std::string &root) {
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes =
      expectedOutputCodes(latestRunLogs(filesIn(root + "/trace")), &s.client);
  REQUIRE(!codes.empty());
  size_t n = checkUserLineReferences(s.client, root, codes);
  if (auto pin = kPinnedUserLines.find(fs::path(root).filename().string()); pin != kPinnedUserLines.end())
    CHECK(n == pin->second);
  s.client.shutdown();
  return n;
}

TEST_CASE("references: mlp_train model.py line 16 has every launch of forward and backward") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  std::string uri = s.client.didOpen(caseDir("mlp_train") + "/model.py");
  // `h = F.gelu(self.fc1(h))`, 0-based line 15: 4 launches in the forward graph, 6 in the backward graph.
  std::vector<Loc> expected;
  size_t forward = 0, backward = 0;
  std::map<Frame, std::vector<LaunchRef>> byLine = launchesByUserLine(codes);
  for (const LaunchRef &l : byLine[Frame{"/tmp/work/mlp_train/model.py", 16}]) {
    expected.push_back(l.loc());
    (l.code->graphKind() == "forward" ? forward : backward) += 1;
  }
  CHECK(forward == 4);
  CHECK(backward == 6);
  for (uint32_t character : {8u, 12u, 30u}) { // Anywhere on the line.
    INFO("character " << character);
    std::vector<Loc> got =
        toLocs(s.client.request("textDocument/references", referenceParams(uri, 15, character, true)));
    CHECK(got.size() == 10);
    CHECK(sorted(got) == sorted(expected));
  }
  s.client.shutdown();
}

TEST_CASE("references: every user line of every case folder (fixtures and build/traces)") {
  // Counted, so that a sweep that finds no case or no line fails instead of passing empty.
  size_t cases = 0, eligible = 0, lines = 0, casesWithLines = 0;
  for (const std::string &root : caseFolders()) {
    if (!fs::exists(root + "/model.py")) continue;
    ++eligible;
    CAPTURE(root);
    size_t n = checkCase(root);
    ++cases;
    lines += n;
    casesWithLines += n > 0;
  }
  MESSAGE("references sweep: " << cases << " cases, " << lines << " user lines compared");
  CHECK(cases == eligible);
  CHECK(cases >= 10);
  CHECK(casesWithLines * 2 > cases); // Most cases' model lines became kernels.
}

TEST_CASE("references: graph_break_dynamic lines reached by recompiles list launches of every compile id") {
  Session s(caseDir("graph_break_dynamic"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes =
      expectedOutputCodes(filesIn(caseDir("graph_break_dynamic") + "/trace"));
  REQUIRE(codes.size() == 6);
  std::string uri = s.client.didOpen(caseDir("graph_break_dynamic") + "/model.py");
  size_t recompiledLines = 0;
  for (const auto &entry : launchesByUserLine(codes)) {
    const auto &frame = entry.first;
    const auto &launches = entry.second;
    std::set<std::string> compileIds, uris;
    for (const LaunchRef &l : launches) {
      compileIds.insert(l.code->record.compileId);
      uris.insert(l.code->uri);
    }
    if (compileIds.size() < 2) continue;
    ++recompiledLines;
    INFO("model.py:" << frame.line << " compiles " << json(compileIds).dump());
    std::set<Loc> got =
        toLocSet(s.client.request("textDocument/references", referenceParams(uri, frame.line - 1, 4, false)));
    std::set<std::string> gotUris;
    for (const Loc &l : got)
      gotUris.insert(l.uri);
    CHECK(gotUris == uris); // One output code per compile id, each with its own launch.
  }
  CHECK(recompiledLines >= 3); // Each of the three frames was recompiled for dynamic shapes.
  s.client.shutdown();
}

TEST_CASE("references: on a kernel in output code, its launches (and its definition when asked)") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  for (const ExpectedOutputCode &code : codes) {
    s.client.didOpen(code.path);
    for (const KernelDef &def : findKernelDefs(code.text)) {
      INFO(code.label() << " " << def.name);
      std::vector<Loc> launches;
      for (const LaunchSite &l : code.launches)
        if (l.kernel == def.name) launches.push_back(launchLoc(code.uri, code.text, l));
      Loc decl{code.uri, def.line, def.column, def.line, static_cast<uint32_t>(def.column + def.name.size())};
      std::vector<Loc> withDecl = launches;
      withDecl.push_back(decl);
      CHECK(sorted(toLocs(s.client.request("textDocument/references",
                                           referenceParams(code.uri, def.line, def.column, true)))) ==
            sorted(withDecl));
      CHECK(sorted(toLocs(s.client.request("textDocument/references",
                                           referenceParams(code.uri, def.line, def.column, false)))) ==
            sorted(launches));
      // From one launch: every launch of the same kernel.
      for (const LaunchSite &l : code.launches)
        if (l.kernel == def.name) {
          CHECK(sorted(toLocs(s.client.request("textDocument/references",
                                               referenceParams(code.uri, l.line, l.column, false)))) ==
                sorted(launches));
          break;
        }
    }
  }
  s.client.shutdown();
}

TEST_CASE("references: on an FX node of a post-grad graph, the launches of the kernels that compute it") {
  // The oracle: each compile's `inductor_provenance_tracking_node_mappings` (postToCppCode: post-grad node ->
  // `kernel:debug handle`), the graph and output code of the same compile, all in log order.
  std::string log = filesIn(caseDir("mlp_train") + "/trace")[0];
  std::vector<std::string> graphs;
  std::vector<json> mappings;
  for (const TraceRecord &r : readTraceLog(log)) {
    if (r.malformed || !r.envelope.contains("artifact")) continue;
    std::string name = r.envelope["artifact"].value("name", "");
    if (name == "inductor_post_grad_graph") graphs.push_back(r.payload);
    if (name == "inductor_provenance_tracking_node_mappings")
      mappings.push_back(json::parse(r.payload, nullptr, false));
  }
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  REQUIRE(codes.size() == 2);
  REQUIRE(graphs.size() == 2);
  REQUIRE(mappings.size() == 2);
  json list = s.client.request("inductor/listArtifacts", json::object());
  size_t nodes = 0;
  for (size_t g = 0; g < graphs.size(); ++g) {
    INFO(codes[g].label());
    REQUIRE(mappings[g].is_object());
    const json &postToCode = mappings[g]["postToCppCode"];
    if (!postToCode.is_object()) continue; // This graph's mapping names no kernels (mlp_train's backward).
    // The graph as the server serves it: the log-only document whose text is this graph.
    std::string uri;
    for (const json &a : list)
      if (a["uri"].get<std::string>().find("inductor_post_grad_graph") != std::string::npos &&
          s.client.request("inductor/artifactContent", {{"uri", a["uri"]}})["text"] == graphs[g])
        uri = a["uri"].get<std::string>();
    REQUIRE_FALSE(uri.empty());
    std::map<std::string, std::pair<uint32_t, uint32_t>> positions = graphNodePositions(graphs[g]);
    for (auto it = postToCode.begin(); it != postToCode.end(); ++it) {
      INFO("node " << it.key());
      auto pos = positions.find(it.key());
      REQUIRE(pos != positions.end());
      std::vector<Loc> expected;
      for (const json &key : it.value())
        for (const LaunchSite &l : codes[g].launches)
          if (l.key() == key.get<std::string>())
            expected.push_back(launchLoc(codes[g].uri, codes[g].text, l));
      CHECK(expected.size() == it.value().size()); // Each mapped kernel is launched in this output code.
      std::vector<Loc> got = toLocs(s.client.request(
          "textDocument/references", referenceParams(uri, pos->second.first, pos->second.second, false)));
      CHECK_MESSAGE(sorted(got) == sorted(expected), "got " << show(got) << "\nwant " << show(expected));
      ++nodes;
    }
  }
  CHECK(nodes >= 10);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
