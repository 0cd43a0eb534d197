// tests/e2e/HoverTests.cpp: textDocument/hover on kernel launches, kernel definitions, user lines, and on
// positions where there is nothing to say (null).
#include "e2e/E2E.h"

namespace inductor::e2e {
namespace {

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

/// `model.py:16`, followed on the same line by the source text of that line.
void checkOriginMentioned(const std::string &md, const Frame &f) {
  std::vector<std::string> lines = splitLines(readFile(localPath(f.path)));
  std::string code = lines.at(f.line - 1);
  code.erase(0, code.find_first_not_of(" \t"));
  std::string base = f.path.substr(f.path.rfind('/') + 1) + ":" + std::to_string(f.line);
  bool found = false;
  for (const std::string &line : splitLines(md)) {
    size_t at = line.find(base);
    if (at != std::string::npos && line.find(code, at + base.size()) != std::string::npos) found = true;
  }
  CHECK_MESSAGE(found, "`" << base << "` followed by `" << code << "` in\n" << md);
}

void checkLaunchHovers(const char *caseName) {
  Session s(caseDir(caseName));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes =
      expectedOutputCodes(filesIn(caseDir(caseName) + "/trace"), &s.client);
  REQUIRE(!codes.empty());
  for (const ExpectedOutputCode &code : codes) {
    if (!code.path.empty()) s.client.didOpen(code.path);
    for (const LaunchSite &site : code.launches) {
      INFO(code.label() << " " << site.key());
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(code.uri, site.line, site.column));
      REQUIRE(hover.is_object());
      CHECK(hover["contents"]["kind"] == "markdown");
      std::string md = hover["contents"]["value"].get<std::string>();
      INFO(md);
      CHECK(contains(md, site.kernel));
      CHECK(contains(md, "debug handle"));
      CHECK(contains(md, "`" + std::to_string(site.handle) + "`"));
      if (!code.record.aoti) CHECK(contains(md, "[" + code.record.compileId + "]"));
      if (code.graphKind() != "AOT") CHECK(contains(md, code.graphKind()));
      if (code.record.rank) {
        // Ranks that wrote the very same file share one document, whose hover names one of them.
        bool someRank = false;
        for (const ExpectedOutputCode &other : codes)
          if (other.uri == code.uri && other.record.rank)
            someRank |= contains(md, "rank " + std::to_string(*other.record.rank));
        CHECK(someRank);
      }
      CHECK(contains(md, kernelKindOf(site.kernel)));
      for (const Frame &f : code.originsOf(site))
        checkOriginMentioned(md, f);
      CHECK(toLoc({{"uri", code.uri}, {"range", hover["range"]}}) == launchLoc(code.uri, code.text, site));
    }
  }
  s.client.shutdown();
}

TEST_CASE("hover: on every launch, name, debug handle, compile, graph kind, kernel kind and origin") {
  SUBCASE("mlp_train") {
    checkLaunchHovers("mlp_train");
  }
  SUBCASE("graph_break_dynamic") {
    checkLaunchHovers("graph_break_dynamic");
  }
  SUBCASE("cpu_inductor") {
    checkLaunchHovers("cpu_inductor");
  }
  SUBCASE("aoti_conv") {
    checkLaunchHovers("aoti_conv");
  }
  SUBCASE("multirank") {
    checkLaunchHovers("multirank");
  }
}

TEST_CASE("hover: the gelu launch of mlp_train, in full") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  const ExpectedOutputCode &forward = codes[0];
  s.client.didOpen(forward.path);
  for (const LaunchSite &site : forward.launches) {
    if (site.key() != "triton_poi_fused_gelu_1:3") continue;
    json hover =
        s.client.request("textDocument/hover", textDocumentPosition(forward.uri, site.line, site.column + 5));
    std::string md = hover["contents"]["value"].get<std::string>();
    INFO(md);
    CHECK(contains(md, "`triton_poi_fused_gelu_1`"));
    CHECK(contains(md, "pointwise kernel"));
    CHECK(contains(md, "debug handle `3`"));
    CHECK(contains(md, "[0/0] forward"));
    CHECK(contains(md, "`model.py:16` `h = F.gelu(self.fc1(h))`"));
  }
  s.client.shutdown();
}

TEST_CASE("hover: on a user line, the kernels grouped by compile") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  std::string uri = s.client.didOpen(caseDir("mlp_train") + "/model.py");
  for (const auto &entry : launchesByUserLine(codes)) {
    const auto &frame = entry.first;
    const auto &launches = entry.second;
    INFO("model.py:" << frame.line);
    json hover = s.client.request("textDocument/hover", textDocumentPosition(uri, frame.line - 1, 10));
    REQUIRE(hover.is_object());
    std::string md = hover["contents"]["value"].get<std::string>();
    INFO(md);
    CHECK(contains(md, std::to_string(launches.size()) + " kernel launch"));
    CHECK(contains(md, "line " + std::to_string(frame.line)));
    // One section per compile, in which each of its kernels is listed with its debug handle.
    std::map<std::string, std::vector<const LaunchSite *>> byCompile;
    for (const LaunchRef &l : launches)
      byCompile["[" + l.code->record.compileId + "] " + l.code->graphKind()].push_back(l.site);
    for (const auto &entry : byCompile) {
      const auto &compile = entry.first;
      const auto &sites = entry.second;
      size_t section = md.find("**" + compile + "**");
      REQUIRE_MESSAGE(section != std::string::npos, compile);
      size_t next = md.find("\n\n**", section + 1);
      std::string body = md.substr(section, next == std::string::npos ? std::string::npos : next - section);
      for (const LaunchSite *site : sites)
        CHECK_MESSAGE(contains(body, "`" + site->kernel + "` (" + std::to_string(site->handle) + ")"),
                      site->key() << " in " << compile);
    }
    CHECK(hover["range"]["start"]["line"] == frame.line - 1);
  }
  s.client.shutdown();
}

TEST_CASE("hover: nothing to say is null") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  std::string model = s.client.didOpen(caseDir("mlp_train") + "/model.py");
  // model.py line 1 is a comment; line 3 `import torch`; line 50 `main()`.
  for (uint32_t line : {0u, 2u, 49u}) {
    INFO("model.py line " << line + 1);
    CHECK(s.client.request("textDocument/hover", textDocumentPosition(model, line, 2)).is_null());
  }
  // Output code: the imports at the top, and a `del` statement between launches.
  const ExpectedOutputCode &forward = codes.at(0);
  s.client.didOpen(forward.path);
  std::vector<std::string> lines = splitLines(forward.text);
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(forward.uri, 2, 3)).is_null());
  uint32_t del = forward.launches.at(0).line + 1;
  REQUIRE(lines.at(del).find("del ") != std::string::npos);
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(forward.uri, del, 13)).is_null());
  // A file the index does not know.
  std::string readme = fixturesDir() + "/README.md";
  std::string uri = s.client.didOpen(readme);
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(uri, 0, 0)).is_null());
  s.client.shutdown();
}

TEST_CASE("hover: on a kernel definition, its kind and its launches") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  for (const ExpectedOutputCode &code : codes) {
    s.client.didOpen(code.path);
    for (const KernelDef &d : findKernelDefs(code.text)) {
      INFO(code.label() << " " << d.name);
      size_t launches = 0;
      for (const LaunchSite &l : code.launches)
        launches += l.kernel == d.name;
      json hover = s.client.request("textDocument/hover", textDocumentPosition(code.uri, d.line, d.column));
      REQUIRE(hover.is_object());
      std::string md = hover["contents"]["value"].get<std::string>();
      INFO(md);
      CHECK(contains(md, "`" + d.name + "`"));
      CHECK(contains(md, kernelKindOf(d.name)));
      CHECK(contains(md, "launched " + std::to_string(launches) + (launches == 1 ? " time" : " times")));
    }
  }
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
