// tests/e2e/SymbolTests.cpp: textDocument/documentSymbol on output code (kernels, the entry function and its
// launches) and workspace/symbol (fuzzy search over every kernel of every compile).
#include "e2e/E2E.h"

namespace inductor::e2e {
namespace {

Loc nameLoc(const std::string &uri, uint32_t line, uint32_t column, size_t length) {
  return Loc{uri, line, column, line, static_cast<uint32_t>(column + length)};
}

TEST_CASE("documentSymbol: kernels, then the entry function with one child per launch (hierarchical)") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  for (const ExpectedOutputCode &code : codes) {
    INFO(code.label());
    s.client.didOpen(code.path);
    json symbols = s.client.request("textDocument/documentSymbol", {{"textDocument", {{"uri", code.uri}}}});
    REQUIRE(symbols.is_array());
    std::map<std::string, json> byName;
    for (const json &sym : symbols)
      byName[sym["name"].get<std::string>()] = sym;
    std::vector<KernelDef> defs = findKernelDefs(code.text);
    for (const KernelDef &d : defs) {
      INFO(d.name);
      REQUIRE(byName.count(d.name));
      const json &sym = byName[d.name];
      CHECK(sym["kind"] == 12); // Function.
      CHECK(sym["detail"] == kernelKindOf(d.name) + " kernel");
      CHECK(toLoc({{"uri", code.uri}, {"range", sym["selectionRange"]}}) ==
            nameLoc(code.uri, d.line, d.column, d.name.size()));
      // The whole symbol spans the kernel's definition, source included.
      CHECK(sym["range"]["start"]["line"].get<uint32_t>() <= d.line);
      CHECK(sym["range"]["end"]["line"].get<uint32_t>() > d.def->first);
    }
    REQUIRE(byName.count("call"));
    const json &call = byName["call"];
    CHECK(call["kind"] == 6); // Method.
    REQUIRE(call["children"].size() == code.launches.size());
    for (size_t i = 0; i < code.launches.size(); ++i) {
      const LaunchSite &l = code.launches[i];
      const json &child = call["children"][i];
      INFO(l.key());
      CHECK(child["name"] == l.key());
      CHECK(toLoc({{"uri", code.uri}, {"range", child["selectionRange"]}}) ==
            launchLoc(code.uri, code.text, l));
    }
    CHECK(symbols.size() == defs.size() + 1);
  }
  s.client.shutdown();
}

TEST_CASE("documentSymbol: flat SymbolInformation for a client without hierarchical support") {
  json caps = LSPClient::defaultCapabilities();
  caps["textDocument"]["documentSymbol"]["hierarchicalDocumentSymbolSupport"] = false;
  Session s(caseDir("cpu_inductor"), nullptr, caps);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("cpu_inductor") + "/trace"));
  REQUIRE(codes.size() == 1);
  const ExpectedOutputCode &code = codes[0];
  s.client.didOpen(code.path);
  json symbols = s.client.request("textDocument/documentSymbol", {{"textDocument", {{"uri", code.uri}}}});
  REQUIRE(symbols.is_array());
  std::set<std::pair<std::string, Loc>> got, want;
  for (const json &sym : symbols) {
    CHECK_FALSE(sym.contains("children"));
    REQUIRE(sym.contains("location"));
    std::string name = sym["name"].get<std::string>();
    got.insert(
        {name + (sym.contains("containerName") ? " in " + sym["containerName"].get<std::string>() : ""),
         toLoc(sym["location"])});
  }
  for (const KernelDef &d : findKernelDefs(code.text))
    want.insert({d.name, nameLoc(code.uri, d.line, d.column, d.name.size())});
  for (const LaunchSite &l : code.launches)
    want.insert({l.key() + " in call", launchLoc(code.uri, code.text, l)});
  for (const auto &w : want)
    CHECK_MESSAGE(got.count(w), w.first << " at " << show(w.second));
  CHECK(got.size() == want.size() + 1); // And the entry function `call` itself.
  s.client.shutdown();
}

TEST_CASE("workspace/symbol: a fuzzy query finds the kernel in every compile") {
  SUBCASE("mlp_train: `gelu` finds the forward gelu kernel and the backward gelu-backward kernel") {
    Session s(caseDir("mlp_train"));
    INFO(s.client.logTail());
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
    std::set<std::pair<std::string, Loc>> want;
    for (const ExpectedOutputCode &code : codes)
      for (const KernelDef &d : findKernelDefs(code.text))
        if (d.name.find("gelu") != std::string::npos)
          want.insert({d.name, nameLoc(code.uri, d.line, d.column, d.name.size())});
    REQUIRE(want.size() == 2);
    for (const char *query : {"gelu", "GELU", "poigelu"}) {
      INFO("query " << query);
      json symbols = s.client.request("workspace/symbol", {{"query", query}});
      REQUIRE(symbols.is_array());
      std::set<std::pair<std::string, Loc>> got;
      for (const json &sym : symbols)
        got.insert({sym["name"].get<std::string>(), toLoc(sym["location"])});
      if (std::string(query) == "poigelu") {
        CHECK(got.size() == 1); // Only the pointwise one is a subsequence match.
        CHECK(got.count(*want.begin()) + got.count(*want.rbegin()) == 1);
      } else {
        CHECK(got == want);
      }
    }
    json first = s.client.request("workspace/symbol", {{"query", "triton_poi_fused_gelu_1"}});
    REQUIRE(first.size() >= 1);
    CHECK(first[0]["name"] == "triton_poi_fused_gelu_1");
    CHECK(first[0]["kind"] == 12);
    CHECK(first[0]["containerName"] == "[0/0] forward · pointwise");
    s.client.shutdown();
  }
  SUBCASE("graph_break_dynamic: each kernel once per compile (recompiles included)") {
    Session s(caseDir("graph_break_dynamic"));
    INFO(s.client.logTail());
    std::vector<ExpectedOutputCode> codes =
        expectedOutputCodes(filesIn(caseDir("graph_break_dynamic") + "/trace"));
    std::map<std::string, std::set<std::pair<std::string, Loc>>> byKernel;
    for (const ExpectedOutputCode &code : codes)
      for (const KernelDef &d : findKernelDefs(code.text))
        byKernel[d.name].insert(
            {"[" + code.record.compileId + "]", nameLoc(code.uri, d.line, d.column, d.name.size())});
    REQUIRE(byKernel.size() == 3);
    for (const auto &entry : byKernel) {
      const auto &kernel = entry.first;
      const auto &want = entry.second;
      INFO(kernel);
      CHECK(want.size() == 2); // Compiled for the first size, then recompiled with dynamic shapes.
      json symbols = s.client.request("workspace/symbol", {{"query", kernel}});
      std::set<std::pair<std::string, Loc>> got;
      for (const json &sym : symbols)
        if (sym["name"] == kernel) {
          std::string container = sym.value("containerName", "");
          got.insert({container.substr(0, container.find(' ')), toLoc(sym["location"])});
        }
      CHECK(got == want);
    }
    s.client.shutdown();
  }
}

} // namespace
} // namespace inductor::e2e
