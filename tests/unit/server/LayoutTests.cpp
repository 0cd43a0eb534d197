// The layout of server/ (server/README.md) and of the repository's layers: each folder includes only those
// below it, so that a layer can be read and tested without the ones above (as
// tests/unit/index/LayoutTests.cpp checks index/'s stages). What is checked is the `#include "..."` lines of
// every source file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Include {
  std::string file;   ///< Relative to the source root.
  std::string target; ///< As written: "server/text/Convert.h".
};

std::vector<Include> includesUnder(const std::string &dir) {
  static const std::regex re(R"re(#include "([^"]+)")re");
  std::vector<Include> out;
  fs::path root(INDUCTOR_SOURCE_DIR);
  for (const auto &e : fs::recursive_directory_iterator(root / dir)) {
    if (!e.is_regular_file()) continue;
    std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".h") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    std::string rel = fs::relative(e.path(), root).string();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
      out.push_back({rel, (*it)[1].str()});
  }
  return out;
}

/// The layer of a path: "index", "protocol", "server/<folder>", or "server" for the files at its top.
std::string layerOf(const std::string &path) {
  for (const char *top : {"index/", "protocol/"})
    if (path.starts_with(top)) return std::string(top, std::string(top).size() - 1);
  if (!path.starts_with("server/")) return "";
  size_t slash = path.find('/', 7);
  return slash == std::string::npos ? "server" : path.substr(0, slash);
}

} // namespace

TEST_CASE("layout: each layer includes only the layers below it") {
  // What each layer may include besides itself (server/README.md). `server` is the files at server/'s top:
  // the log (Logger.h), which every layer of the server may use, and main.cpp.
  const std::map<std::string, std::set<std::string>> allowed = {
      {"protocol", {}},
      {"index", {}},
      {"server", {"protocol", "index", "server/lsp", "server/cli"}},
      {"server/text", {"protocol", "index", "server"}},
      {"server/format", {"protocol", "index", "server", "server/text"}},
      {"server/features", {"protocol", "index", "server", "server/text", "server/format"}},
      {"server/workspace", {"protocol", "index", "server", "server/text", "server/format"}},
      {"server/lsp",
       {"protocol", "index", "server", "server/text", "server/format", "server/features",
        "server/workspace"}},
      {"server/cli",
       {"protocol", "index", "server", "server/text", "server/format", "server/features",
        "server/workspace"}},
  };
  size_t checked = 0;
  for (const char *dir : {"protocol", "index", "server"}) {
    for (const Include &i : includesUnder(dir)) {
      std::string from = layerOf(i.file), to = layerOf(i.target);
      if (to.empty() || to == from) continue; // The standard library, a dependency, the layer itself.
      auto rule = allowed.find(from);
      REQUIRE_MESSAGE(rule != allowed.end(), "a folder the layout does not know: " << i.file);
      CHECK_MESSAGE(rule->second.count(to), i.file << " includes " << i.target << " (" << to << ")");
      ++checked;
    }
  }
  CHECK(checked > 100); // The walk saw the sources.
}

TEST_CASE("layout: the LSP session's header is the lsp folder's alone") {
  // server/lsp/Server.h is the session: features, the workspace and the command line never see it (they
  // take a FeatureContext or a WorkspaceClient); main.cpp makes the one Server.
  for (const char *dir : {"server", "bench"})
    for (const Include &i : includesUnder(dir))
      if (i.target == "server/lsp/Server.h")
        CHECK_MESSAGE((layerOf(i.file) == "server/lsp" || i.file == "server/main.cpp"), i.file);
}
