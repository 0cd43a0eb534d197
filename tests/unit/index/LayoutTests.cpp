// The layout of index/ (index/README.md): folders are stages of the build pipeline, and a file includes only
// its own stage and earlier ones, so that a stage can be read (and tested) without the ones after it.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The pipeline order of index/README.md.
const std::vector<std::string> kStages = {"support", "trace",   "files",   "analysis", "health",
                                          "model",   "runtime", "compare", "builder"};

int stageOf(const std::string &name) {
  auto it = std::find(kStages.begin(), kStages.end(), name);
  return it == kStages.end() ? -1 : int(it - kStages.begin());
}

struct Include {
  std::string file;
  std::string stage;
  std::string target;
};

std::vector<Include> includesOf(const fs::path &file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  static const std::regex re(R"re(#include "index/([^"/]+)/([^"]+)")re");
  std::vector<Include> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({file.string(), (*it)[1].str(), (*it)[1].str() + "/" + (*it)[2].str()});
  return out;
}

std::vector<Include> flatIncludes(const fs::path &file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  static const std::regex re(R"re(#include "index/([^"/]+)")re");
  std::vector<Include> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({file.string(), "", (*it)[1].str()});
  return out;
}

} // namespace

TEST_CASE("index/ is grouped in pipeline stages, each including only itself and earlier stages") {
  fs::path root = fs::path(INDUCTOR_SOURCE_DIR) / "index";
  REQUIRE(fs::is_directory(root));
  size_t sources = 0;
  std::set<std::string> seen;
  for (const auto &entry : fs::directory_iterator(root)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file()) {
      // Only the overview may sit at the top: every source file belongs to a stage.
      CHECK_MESSAGE(name == "README.md", "a file outside the stage folders: " << entry.path().string());
      continue;
    }
    int stage = stageOf(name);
    CHECK_MESSAGE(stage >= 0, "a folder that is not a stage of index/README.md: " << name);
    if (stage < 0) continue;
    seen.insert(name);
    CHECK_MESSAGE(fs::exists(entry.path() / "README.md"), "stage without a README.md: " << name);
    for (const auto &file : fs::directory_iterator(entry.path())) {
      std::string ext = file.path().extension().string();
      if (ext != ".h" && ext != ".cpp") continue;
      ++sources;
      for (const Include &inc : includesOf(file.path())) {
        int target = stageOf(inc.stage);
        CHECK_MESSAGE(target >= 0, inc.file << " includes index/" << inc.target << ", not in a stage");
        CHECK_MESSAGE(target <= stage, inc.file << " (stage " << name << ") includes index/" << inc.target
                                                << ", a later stage");
      }
      for (const Include &inc : flatIncludes(file.path()))
        CHECK_MESSAGE(false, inc.file << " includes index/" << inc.target << " outside the stage folders");
    }
  }
  CHECK(seen.size() == kStages.size());
  CHECK(sources > 40);
}

TEST_CASE("tests/unit/index/ mirrors the stages: each test file in the folder of the stage it tests") {
  const fs::path tests = fs::path(INDUCTOR_SOURCE_DIR) / "tests/unit/index";
  const fs::path index = fs::path(INDUCTOR_SOURCE_DIR) / "index";
  size_t files = 0;
  for (const auto &entry : fs::directory_iterator(tests)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file()) {
      // Only this file, which tests the layout of all of index/, sits at the top.
      CHECK_MESSAGE(name == "LayoutTests.cpp", "a test outside the stage folders: " << entry.path().string());
      continue;
    }
    CHECK_MESSAGE(stageOf(name) >= 0, "tests/unit/index/" << name << " is not a stage of index/README.md");
    for (const auto &file : fs::directory_iterator(entry.path())) {
      std::string base = file.path().filename().string();
      if (!base.ends_with("Tests.cpp")) continue;
      ++files;
      // `XTests.cpp` tests index/<stage>/X.h or .cpp, or a part of one that its header says (the first lines
      // name the file: `index/model/Index.h` for RankCopiesTests).
      std::string tested = base.substr(0, base.size() - 9);
      bool named = fs::exists(index / name / (tested + ".h")) || fs::exists(index / name / (tested + ".cpp"));
      if (!named) {
        std::ifstream in(file.path());
        std::string head(600, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        named = head.find("index/" + name + "/") != std::string::npos;
      }
      CHECK_MESSAGE(named, file.path().string() << " names no file of index/" << name);
    }
  }
  CHECK(files > 25);
}
