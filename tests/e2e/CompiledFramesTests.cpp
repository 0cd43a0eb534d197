// tests/e2e/CompiledFramesTests.cpp: the shape of `inductor/compiles` that the Compiled Frames view (VS Code)
// and `:Inductor compiles` (Neovim) show: frames grouped by file and function with the user's names, on every
// case folder. Expected names come from the test's own reading of the logs (HealthOracle.h): a compile's
// function is its co_name; a `torch_dynamo_resume_in_<fn>_at_<line>` frame is listed under <fn>; a compile
// that logged no co_name is named by the other compiles of its frame id in the same log.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

/// <fn> of `torch_dynamo_resume_in_<fn>_at_<line>`, else the name itself.
std::string resumedFunction(const std::string &name) {
  const std::string prefix = "torch_dynamo_resume_in_";
  if (name.rfind(prefix, 0) != 0) return name;
  size_t at = name.rfind("_at_");
  return at == std::string::npos || at <= prefix.size() ? name
                                                        : name.substr(prefix.size(), at - prefix.size());
}

TEST_CASE("compiled frames: grouped by file and function, resumes under the function they resume, named") {
  size_t resumes = 0, unnamed = 0, cases = 0;
  std::vector<std::string> dirs = {fixturesDir() + "/traces", fs::canonical(INDUCTOR_TRACES_DIR).string()};
  for (const std::string &dir : dirs)
    for (const auto &entry : fs::directory_iterator(dir)) {
      if (!entry.is_directory() || !fs::exists(entry.path() / "trace")) continue;
      std::string root = entry.path().string();
      CAPTURE(root);
      std::vector<std::string> logs = latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace"));
      // compile id -> the functions the view may list it under (one per rank, which agree unless the ranks
      // diverged).
      std::map<std::string, std::set<std::string>> want;
      for (const std::string &log : logs) {
        HealthExpectation h = expectedHealth(log);
        std::map<std::pair<std::string, std::optional<int>>, std::string> byFrame; // (frame id, rank) -> name
        auto frameOf = [](const std::string &id) { return id.substr(0, id.rfind('/')); };
        for (const RecordedHealthCompile &c : h.compiles)
          if (!c.function.empty()) byFrame.try_emplace({frameOf(c.id), c.rank}, c.function);
        for (const RecordedHealthCompile &c : h.compiles) {
          std::string name = c.function;
          if (name.empty()) {
            auto it = byFrame.find({frameOf(c.id), c.rank});
            if (it == byFrame.end()) continue; // Nothing names it.
            name = it->second;
            ++unnamed;
          }
          if (resumedFunction(name) != name) ++resumes;
          want[c.id].insert(resumedFunction(name));
        }
      }
      Session s(root);
      INFO(s.client.logTail());
      json tree = s.client.request("inductor/compiles", json::object());
      REQUIRE(tree["functions"].is_array());
      const json &frames = tree["frames"];
      std::vector<int> listed(frames.size(), 0);
      std::set<std::string> seen;
      std::string lastFile;
      std::set<std::string> filesDone;
      for (const json &fn : tree["functions"]) {
        INFO(fn.dump());
        // Grouped by file: a file's functions are consecutive.
        std::string file = fn["path"].is_string() ? fn["path"].get<std::string>() : "";
        if (file != lastFile) {
          CHECK(filesDone.insert(file).second);
          lastFile = file;
        }
        if (fn["file"].is_string()) CHECK(file.ends_with("/" + fn["file"].get<std::string>()));
        std::string name = fn["function"];
        CHECK(!name.empty());
        CHECK(name.rfind("torch_dynamo_resume_in_", 0) != 0);
        for (const json &i : fn["frames"]) {
          const json &frame = frames.at(i.get<size_t>());
          ++listed[i.get<size_t>()];
          for (const json &c : frame["compiles"]) {
            std::string key = c["compileId"];
            seen.insert(key);
            if (auto it = want.find(key); it != want.end()) CHECK_MESSAGE(it->second.count(name), key);
            // A resumed frame says which line it resumes at.
            if (frame["function"].get<std::string>().rfind("torch_dynamo_resume_in_", 0) == 0)
              CHECK(frame["resumes"].is_object());
          }
        }
      }
      CHECK(std::all_of(listed.begin(), listed.end(), [](int n) { return n == 1; }));
      for (const auto &entry : want) {
        const auto key =
            entry.first; // A copy: clang 14 cannot capture a structured binding in CHECK_MESSAGE.
        CHECK_MESSAGE(seen.count(key), key);
      }
      ++cases;
      s.client.shutdown();
    }
  MESSAGE(cases << " cases, " << resumes << " resumed compiles, " << unnamed << " compiles without co_name");
  CHECK(resumes > 0);
  CHECK(unnamed > 0);
}

} // namespace
} // namespace inductor::e2e
