// tests/e2e/ReadmeTests.cpp: the README is a surface too. Its `explain` example is what the binary prints on
// the project's own example trace today, and the commands of its Development section name binaries where the
// build puts them.
//
// The example is compared line by line, in order, with these conventions of the README's text: a line `…`
// stands for any number of lines; a line ending in `…` is the start of the printed line; `run_…/` is any
// debug folder's name; `in N ms` any time; the `Python:` line any interpreter (each machine has its own).
#include "e2e/E2E.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

std::string run(const std::string &cmd) {
  std::string out;
  if (FILE *p = ::popen(cmd.c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
      out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

/// The lines of the README's fenced block that starts with `first` (the line after the fence).
std::vector<std::string> fencedBlock(const std::vector<std::string> &readme, const std::string &first) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < readme.size(); ++i) {
    if (readme[i].rfind("```", 0) != 0 || readme[i + 1] != first) continue;
    for (size_t j = i + 1; j < readme.size() && readme[j].rfind("```", 0) != 0; ++j)
      out.push_back(readme[j]);
    break;
  }
  return out;
}

/// A line in the README's conventions (see the file comment) as a regular expression for the printed line.
std::regex lineRegex(std::string line) {
  bool prefix = line.size() >= 3 && line.compare(line.size() - 3, 3, "…") == 0;
  if (prefix) line = line.substr(0, line.size() - 3);
  if (line.rfind("Python: ", 0) == 0) {
    line = "Python: ";
    prefix = true;
  }
  std::string re;
  static const std::string special = R"(\^$.|?*+()[]{})";
  for (size_t i = 0; i < line.size(); ++i) {
    static const std::string anyRun = "run_…/";
    if (line.compare(i, anyRun.size(), anyRun) == 0) {
      re += "run_[^/]+/";
      i += anyRun.size() - 1;
    } else if (special.find(line[i]) != std::string::npos) {
      re += std::string("\\") + line[i];
    } else {
      re += line[i];
    }
  }
  re = std::regex_replace(re, std::regex(R"(in [0-9]+ ms)"), "in [0-9]+ ms");
  return std::regex(prefix ? re + ".*" : re);
}

} // namespace

TEST_CASE("README: the explain example is what explain prints on examples/transformer") {
  std::string source = INDUCTOR_SOURCE_DIR;
  std::vector<std::string> readme = splitLines(readFile(source + "/README.md"));
  std::vector<std::string> example = fencedBlock(readme, "$ build/inductor-ls explain examples/transformer");
  REQUIRE(example.size() > 10);
  // As the README runs it: from the repository's root.
  std::vector<std::string> printed = splitLines(
      run("cd '" + source + "' && '" + INDUCTOR_LS_BINARY + "' explain examples/transformer 2>/dev/null"));
  REQUIRE(printed.size() > 20);
  size_t at = 0;
  bool skipping = false;
  size_t matched = 0;
  for (size_t i = 1; i < example.size(); ++i) {
    const std::string &want = example[i];
    if (want == "…") {
      skipping = true;
      continue;
    }
    std::regex re = lineRegex(want);
    INFO("README line: " << want);
    size_t found = at;
    if (skipping) {
      while (found < printed.size() && !std::regex_match(printed[found], re))
        ++found;
    }
    REQUIRE_MESSAGE(found < printed.size(), "not printed next, in order");
    CHECK_MESSAGE(std::regex_match(printed[found], re), "printed instead: " << printed[found]);
    at = found + 1;
    skipping = false;
    ++matched;
  }
  CHECK(matched >= 10);
}

TEST_CASE("README: the Development section's binaries are where the build puts them") {
  std::string source = INDUCTOR_SOURCE_DIR;
  std::string build = fs::path(INDUCTOR_LS_BINARY).parent_path().string();
  std::vector<std::string> readme = splitLines(readFile(source + "/README.md"));
  // The first fenced block under "## Development".
  std::vector<std::string> block;
  auto heading = std::find(readme.begin(), readme.end(), "## Development");
  REQUIRE(heading != readme.end());
  auto fence =
      std::find_if(heading, readme.end(), [](const std::string &l) { return l.rfind("```", 0) == 0; });
  REQUIRE(fence != readme.end());
  for (auto l = fence + 1; l != readme.end() && l->rfind("```", 0) != 0; ++l)
    block.push_back(*l);
  REQUIRE(!block.empty());
  size_t named = 0;
  std::regex path(R"(\bbuild/([A-Za-z0-9_./-]+))");
  for (const std::string &line : block)
    for (auto it = std::sregex_iterator(line.begin(), line.end(), path); it != std::sregex_iterator(); ++it) {
      std::string rest = (*it)[1];
      if (rest.find('.') != std::string::npos) continue; // Not a binary (a path to a file of the sources).
      INFO(line);
      CHECK_MESSAGE(fs::exists(build + "/" + rest), "build/" << rest << " is not in " << build);
      ++named;
    }
  CHECK(named >= 4);
}
