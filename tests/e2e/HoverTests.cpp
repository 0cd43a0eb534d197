// tests/e2e/HoverTests.cpp: textDocument/hover on kernel launches, kernel definitions, user lines, and on
// positions where there is nothing to say (null).
#include "e2e/E2E.h"

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

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
  size_t hovered = 0;
  for (const LaunchSite &site : forward.launches) {
    if (site.key() != "triton_poi_fused_gelu_1:3") continue;
    ++hovered;
    json hover =
        s.client.request("textDocument/hover", textDocumentPosition(forward.uri, site.line, site.column + 5));
    std::string md = hover["contents"]["value"].get<std::string>();
    INFO(md);
    CHECK(contains(md, "`triton_poi_fused_gelu_1`"));
    CHECK(contains(md, "pointwise kernel"));
    CHECK(contains(md, "debug handle `3`"));
    CHECK(contains(md, "[0/0] forward"));
    // The origin is a link to its line.
    CHECK(contains(md, "[model.py:16](" + fileURI(caseDir("mlp_train") + "/model.py") +
                           "#L16) `h = F.gelu(self.fc1(h))`"));
  }
  CHECK(hovered == 1); // The launch exists: the checks above ran.
  s.client.shutdown();
}

TEST_CASE("hover: on a user line, the distinct kernels by compile and graph, each a link") {
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
    // compile and graph -> kernel -> its launch sites, in text order.
    std::map<std::string, std::map<std::string, std::vector<LaunchRef>>> byCompile;
    for (const LaunchRef &l : launches)
      byCompile["[" + l.code->record.compileId + "] " + l.code->graphKind()][l.site->kernel].push_back(l);
    size_t kernels = 0;
    for (const auto &[compile, byKernel] : byCompile)
      kernels += byKernel.size();
    std::string head = "### " + std::to_string(kernels) + (kernels == 1 ? " kernel" : " kernels");
    if (launches.size() != kernels) head += ", " + std::to_string(launches.size()) + " launches";
    CHECK(md.rfind(head + " from line " + std::to_string(frame.line), 0) == 0);
    // One section per compile and graph; in it each kernel once, a link to its first launch, and each of
    // its launches a link by debug handle when there are several.
    for (const auto &compileEntry : byCompile) {
      // Named copies, not structured bindings: clang 14 cannot capture those in doctest's message lambdas.
      const std::string compile = compileEntry.first;
      const auto &byKernel = compileEntry.second;
      size_t section = md.find("**" + compile + "**");
      REQUIRE_MESSAGE(section != std::string::npos, compile);
      size_t next = md.find("\n\n**", section + 1);
      std::string body = md.substr(section, next == std::string::npos ? std::string::npos : next - section);
      for (const auto &kernelEntry : byKernel) {
        const std::string kernel = kernelEntry.first;
        auto sites = kernelEntry.second;
        std::sort(sites.begin(), sites.end(),
                  [](const LaunchRef &a, const LaunchRef &b) { return a.site->line < b.site->line; });
        auto link = [&](const std::string &text, const LaunchRef &l) {
          return "[" + text + "](" + l.code->uri + "#L" + std::to_string(l.site->line + 1) + ")";
        };
        CHECK_MESSAGE(contains(body, "- " + link("`" + kernel + "`", sites.front())),
                      kernel << " in " << compile);
        if (sites.size() > 1)
          for (const LaunchRef &l : sites)
            CHECK_MESSAGE(contains(body, link(std::to_string(l.site->handle), l)), l.site->key()
                                                                                       << " in " << compile);
      }
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

namespace inductor::e2e {
namespace {

TEST_CASE("hover: an extern kernel's ATen ops are those of its own post-grad nodes") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  size_t checked = 0;
  for (const ExpectedOutputCode &code : codes) {
    s.client.didOpen(code.path);
    // The post-grad graph of this output code, in its debug directory: node name -> `aten.op`.
    std::string graph = readFile(fs::path(code.path).parent_path().string() + "/fx_graph_transformed.py");
    std::map<std::string, std::string> opOf;
    std::regex node(R"(^\s+([A-Za-z_][A-Za-z0-9_]*)(: "[^"]*")? = torch\.ops\.(\w+)\.(\w+)\.)");
    for (const std::string &line : splitLines(graph)) {
      std::smatch m;
      if (std::regex_search(line, m, node)) opOf[m[1]] = std::string(m[3]) + "." + std::string(m[4]);
    }
    REQUIRE(!opOf.empty());
    for (const LaunchSite &site : code.launches) {
      if (site.kernel.rfind("extern_kernels.", 0) != 0) continue;
      INFO(code.label() << " " << site.key());
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(code.uri, site.line, site.column + 2));
      std::string md = hover["contents"]["value"];
      INFO(md);
      // Its post-grad nodes, as the hover lists them (each a link into the post-grad graph). The backward
      // graph of this run has no node mappings: its extern kernels know no post-grad nodes and keep the
      // comment's list.
      size_t at = md.find("**Post-grad FX nodes:** ");
      if (at == std::string::npos) continue;
      std::string nodes = md.substr(at, md.find("\n", at) - at);
      std::set<std::string> want;
      for (const auto &[name, op] : opOf)
        if (nodes.find("[`" + name + "`]") != std::string::npos) want.insert(op);
      REQUIRE(!want.empty());
      std::string aten = md.substr(md.find("**ATen:** "));
      aten = aten.substr(0, aten.find("\n"));
      std::set<std::string> got;
      std::regex span("`([^`]+)`");
      for (std::sregex_iterator it(aten.begin(), aten.end(), span), end; it != end; ++it)
        got.insert((*it)[1]);
      CHECK(got == want);
      ++checked;
    }
  }
  CHECK(checked >= 5); // The forward extern kernels (handles 2, 4, 6, 8, 10).
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
