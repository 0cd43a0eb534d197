// tests/e2e/EntryPointTests.cpp: the user's own file when the compiled code lives in an installed package
// (transformers' generate compiling its forward, a Hugging Face model compiled whole, FSDP2 over compiled
// decoder layers). The expected entry lines come from HealthOracle's reading of each compile's `dynamo_start`
// stack: when the compile's co_filename is under `site-packages/` or `dist-packages/`, the innermost frame
// of its stack that is not; every such line of a file here gets a lens naming the compiled function and its
// compiles, and a hover linking into the library, and no other line does.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

bool installed(const std::string &recorded) {
  return recorded.find("/site-packages/") != std::string::npos ||
         recorded.find("/dist-packages/") != std::string::npos;
}

/// `<fn>` of `torch_dynamo_resume_in_<fn>_at_<N>` (torch/_dynamo/resume_execution.py names the code that
/// runs after a graph break so), else the name itself.
std::string userFunction(const std::string &name) {
  std::smatch m;
  static const std::regex resume(R"(^torch_dynamo_resume_in_(.+)_at_[0-9]+$)");
  return std::regex_match(name, m, resume) ? m[1].str() : name;
}

/// An expected entry line: the compile ids that entered there, and the compiled functions (name, recorded
/// co_filename, co_firstlineno).
struct ExpectedEntry {
  std::set<std::string> compiles;
  std::set<std::tuple<std::string, std::string, uint32_t>> functions;
};

} // namespace

TEST_CASE("entry points: a user line that called compiled code of an installed package has a lens and hover "
          "naming it, on every case folder") {
  size_t cases = 0, checked = 0;
  for (const std::string &root : caseFolders()) {
    std::vector<std::string> logs = latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace"));
    // (local path, line) -> what entered there.
    std::map<std::pair<std::string, uint32_t>, ExpectedEntry> expected;
    std::set<std::string> files;
    for (const std::string &log : logs)
      for (const RecordedHealthCompile &c : expectedHealth(log).compiles) {
        if (!installed(c.file) || c.function.empty()) continue;
        for (auto f = c.startStack.rbegin(); f != c.startStack.rend(); ++f) {
          // Installed packages (transformers, torch), the standard library, synthetic files: not the user's.
          if (installed(f->path) || !isModelFrame(f->path)) continue;
          std::string local = localPathIn(f->path, root);
          ExpectedEntry &e = expected[{local, f->line}];
          e.compiles.insert(c.id);
          e.functions.insert({c.function, c.file, c.firstLine});
          files.insert(local);
          break;
        }
      }
    if (fs::exists(root + "/model.py")) files.insert(root + "/model.py");
    std::string name = fs::path(root).filename().string();
    CAPTURE(name);
    Session s(root);
    INFO(s.client.logTail());
    bool any = false;
    for (const std::string &file : files) {
      if (!fs::exists(file)) continue;
      std::string uri = s.client.didOpen(file);
      json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
      REQUIRE(lenses.is_array());
      std::map<uint32_t, std::string> got; // 1-based line -> title.
      for (const json &l : lenses) {
        std::string title = l["command"]["title"];
        if (title.rfind("calls compiled ", 0) != 0) continue;
        CHECK(l["command"]["command"] == "inductor.showCompiles");
        got[l["range"]["start"]["line"].get<uint32_t>() + 1] = title;
      }
      std::set<uint32_t> want;
      for (const auto &[key, e] : expected)
        if (key.first == file) want.insert(key.second);
      std::set<uint32_t> lines;
      for (const auto &[line, title] : got)
        lines.insert(line);
      CHECK_MESSAGE(lines == want, file);
      for (const auto &[key, e] : expected) {
        if (key.first != file || !got.count(key.second)) continue;
        const std::string &title = got[key.second];
        const std::string where = file + ":" + std::to_string(key.second) + " " + title; // (clang 14's INFO)
        INFO(where);
        // The compiled functions by name (the code after a graph break, `torch_dynamo_resume_in_<fn>_at_<N>`,
        // under its function), their compiles counted per compile id (ranks together).
        std::set<std::string> functions;
        for (const auto &[function, defFile, defLine] : e.functions)
          functions.insert(userFunction(function));
        CHECK(std::any_of(functions.begin(), functions.end(),
                          [&](const std::string &f) { return title.find(f) != std::string::npos; }));
        std::smatch m;
        REQUIRE(std::regex_search(title, m, std::regex(R"( · ([0-9]+) compiles?\b)")));
        CHECK(std::stoul(m[1]) == e.compiles.size());
        // The hover links each compiled function's def line in the library, where it is here.
        std::vector<std::string> text = splitLines(readFile(file));
        size_t column = text.at(key.second - 1).find_first_not_of(" \t");
        json hover = s.client.request(
            "textDocument/hover", textDocumentPosition(uri, key.second - 1, static_cast<uint32_t>(column)));
        REQUIRE(hover.is_object());
        std::string md = hover["contents"]["value"];
        INFO(md);
        CHECK(md.find("### Calls compiled code of an installed package") != std::string::npos);
        for (const std::string &f : functions)
          CHECK(md.find("`" + f + "`") != std::string::npos);
        for (const auto &[function, defFile, defLine] : e.functions) {
          std::string local = localPathIn(defFile, root);
          if (fs::exists(local) && !function.starts_with("torch_dynamo_resume_in_"))
            CHECK(md.find("(" + fileURI(local) + "#L" + std::to_string(defLine) + ")") != std::string::npos);
        }
        ++checked;
        any = true;
      }
    }
    cases += any;
  }
  MESSAGE(cases << " case folders with entry points, " << checked << " entry lines checked");
  CHECK(cases >= 5);
}
