// tests/e2e/TritonCacheDirsTests.cpp: the `tritonCacheDirs` setting (initializationOptions). kernel_ir's
// traces and Inductor cache are copied into a workspace without the Triton cache, and its Triton cache into
// another folder outside the workspace: the kernels' resources are unknown until that folder is configured,
// and then every Triton launch's hover shows the values of the entry's metadata JSON, read by the test from
// the copy, with IR links into the configured folder.
#include "e2e/E2E.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

std::string fixtureRoot() {
  return fs::canonical(fixturesDir() + "/traces/kernel_ir").string();
}

/// kernel_ir without its Triton cache in `workspace`, the Triton cache (`triton/<rank>/<hash>/`) in `cache`.
void splitCopy(const std::string &workspace, const std::string &cache) {
  const std::string from = fixtureRoot();
  for (const char *part : {"trace", "torch_compile_debug", "inductor_cache", "model.py"})
    fs::copy(from + "/" + part, workspace + "/" + part, fs::copy_options::recursive);
  fs::remove_all(workspace + "/inductor_cache/triton");
  fs::copy(from + "/inductor_cache/triton", cache, fs::copy_options::recursive);
}

/// Kernel name -> (num_warps, num_stages, entry dir) of the entries of `cache` whose name is used once.
std::map<std::string, std::tuple<long, long, std::string>> entriesOf(const std::string &cache) {
  std::map<std::string, int> uses;
  std::map<std::string, std::tuple<long, long, std::string>> out;
  for (auto &f : fs::recursive_directory_iterator(cache)) {
    std::string n = f.path().filename().string();
    if (f.path().extension() != ".json" || n.rfind("__grp__", 0) == 0) continue;
    std::string text = readFile(f.path().string());
    std::smatch w, st;
    if (!std::regex_search(text, w, std::regex("\"num_warps\": (\\d+)")) ||
        !std::regex_search(text, st, std::regex("\"num_stages\": (\\d+)")))
      continue;
    std::string name = f.path().stem().string();
    ++uses[name];
    out[name] = {std::stol(w[1]), std::stol(st[1]), f.path().parent_path().string()};
  }
  for (const auto &[name, n] : uses)
    if (n > 1) out.erase(name); // Autotuned: several entries, the hover's is the chosen one.
  return out;
}

/// (line, column) of each `NAME.run(` of an output code, by kernel name.
std::vector<std::tuple<std::string, uint32_t, uint32_t>> launchesIn(const std::string &text) {
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> out;
  std::istringstream in(text);
  std::regex runRe(R"(^(\s+)(triton_\w+)\.run\()");
  uint32_t i = 0;
  for (std::string l; std::getline(in, l); ++i) {
    std::smatch m;
    if (std::regex_search(l, m, runRe)) out.emplace_back(m[2], i, static_cast<uint32_t>(m[1].length()) + 1);
  }
  return out;
}

} // namespace

TEST_CASE("tritonCacheDirs: a Triton cache outside the workspace is read only when configured") {
  TempDir workspace("ws"), cache("triton");
  splitCopy(workspace.path(), cache.path());
  std::map<std::string, std::tuple<long, long, std::string>> entries = entriesOf(cache.path());
  REQUIRE(entries.size() >= 4);
  std::vector<std::string> codes;
  for (auto &f : fs::recursive_directory_iterator(workspace.path() + "/torch_compile_debug"))
    if (f.path().filename() == "output_code.py") codes.push_back(f.path().string());
  std::sort(codes.begin(), codes.end());
  REQUIRE(!codes.empty());

  auto hovers = [&](Session &s, const std::function<void(const std::string &, const std::string &)> &check) {
    size_t n = 0;
    for (const std::string &path : codes)
      for (const auto &[kernel, line, column] : launchesIn(readFile(path))) {
        json hover =
            s.client.request("textDocument/hover", textDocumentPosition(fileURI(path), line, column));
        REQUIRE(hover.is_object());
        std::string k = kernel; // A copy: clang 14 cannot capture a structured binding in check's INFO.
        check(k, hover["contents"]["value"].get<std::string>());
        ++n;
      }
    return n;
  };

  SUBCASE("not configured: no resources, the IR folder is not read") {
    Session s(workspace.path());
    REQUIRE(s.client.waitForIndexed(120s).is_object());
    size_t n = hovers(s, [&](const std::string &kernel, const std::string &md) {
      INFO(kernel << "\n" << md);
      CHECK(md.find("**Triton:**") == std::string::npos);
      CHECK(md.find(cache.path()) == std::string::npos);
    });
    CHECK(n >= 8);
  }
  SUBCASE("configured: every launch's hover shows its entry's metadata and IR there") {
    Session s(workspace.path(), json{{"tritonCacheDirs", json::array({cache.path()})}});
    REQUIRE(s.client.waitForIndexed(120s).is_object());
    size_t checked = 0;
    size_t n = hovers(s, [&](const std::string &kernel, const std::string &md) {
      INFO(kernel << "\n" << md);
      CHECK(md.find("**Triton:** num_warps ") != std::string::npos);
      auto it = entries.find(kernel);
      if (it == entries.end()) return;
      const auto &[warps, stages, dir] = it->second;
      std::string want = "**Triton:** num_warps " + std::to_string(warps) + " · num_stages " +
                         std::to_string(stages) + " · ";
      CHECK(md.find(want) != std::string::npos);
      CHECK(md.find(fileURI(dir + "/" + kernel + ".ptx")) != std::string::npos);
      ++checked;
    });
    CHECK(n >= 8);
    CHECK(checked >= 4);
  }
}
