// tests/e2e/DocumentLinkTests.cpp: textDocument/documentLink on `# File: PATH:LINE` comments (graph dumps,
// output code), definition on such a comment, and the graph documents that carry no comments of their own
// (fx_graph_runnable.py): lenses and definitions like the other graph dumps. Expected targets come from the
// comments themselves, the recorded paths mapped to the fixture folder.
#include "e2e/E2E.h"

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

/// `# File: PATH:LINE in FUNCTION, code: CODE` comments of a text: (0-based line, path, 1-based line, the
/// byte range of PATH:LINE on the line).
struct Comment {
  uint32_t line = 0;
  std::string path;
  uint32_t target = 0;
  size_t begin = 0, end = 0;
};
std::vector<Comment> fileComments(const std::string &text) {
  std::vector<Comment> out;
  std::regex re(R"(# File: (.*):(\d+) in )");
  std::vector<std::string> lines = splitLines(text);
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, re)) continue;
    Comment c;
    c.line = i;
    c.path = m[1];
    c.target = static_cast<uint32_t>(std::stoul(m[2]));
    c.begin = static_cast<size_t>(m.position(1));
    c.end = static_cast<size_t>(m.position(2) + m.length(2));
    out.push_back(c);
  }
  return out;
}

std::string forwardDebugDir() {
  for (const auto &run : fs::directory_iterator(caseDir("mlp_train") + "/torch_compile_debug"))
    for (const auto &e : fs::directory_iterator(run.path() / "torchinductor"))
      if (e.path().filename().string().rfind("model__0_forward", 0) == 0) return e.path().string();
  return "";
}

TEST_CASE("documentLink: every `# File:` comment of a graph dump links to the local line") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  CHECK(s.initializeResult["capabilities"]["documentLinkProvider"] == json{{"resolveProvider", false}});
  for (const char *name : {"fx_graph_readable.py", "fx_graph_transformed.py"}) {
    std::string path = forwardDebugDir() + "/" + name;
    INFO(path);
    std::string uri = s.client.didOpen(path);
    std::vector<Comment> comments = fileComments(readFile(path));
    REQUIRE(!comments.empty());
    json links = s.client.request("textDocument/documentLink", {{"textDocument", {{"uri", uri}}}});
    REQUIRE(links.is_array());
    std::vector<std::string> lines = splitLines(readFile(path));
    size_t linked = 0;
    for (const Comment &c : comments) {
      std::string local = localPath(c.path);
      if (!fs::exists(local)) continue; // torch/nn/... frames of the recording machine: no link.
      ++linked;
      json want = {{"range",
                    {{"start", position(c.line, units(lines[c.line].substr(0, c.begin)))},
                     {"end", position(c.line, units(lines[c.line].substr(0, c.end)))}}},
                   {"target", fileURI(local) + "#L" + std::to_string(c.target)}};
      bool found = false;
      for (const json &l : links)
        found |= l["range"] == want["range"] && l["target"] == want["target"];
      CHECK_MESSAGE(found, "no link " << want.dump() << " in " << links.dump());
      // Definition on the comment's path goes to the same line, as the link does.
      json def =
          s.client.request("textDocument/definition",
                           textDocumentPosition(uri, c.line, units(lines[c.line].substr(0, c.begin + 3))));
      CHECK(toLocSet(def) == std::set<Loc>{originLoc(Frame{c.path, c.target})});
    }
    CHECK(linked > 0);
    CHECK(links.size() == linked);
  }
  s.client.shutdown();
}

TEST_CASE("documentLink: comments whose file is not on this machine get no link, and any document is read") {
  TempDir dir("links");
  // A graph dump the index does not know, naming a file that exists here and one that does not.
  std::string model = caseDir("mlp_train") + "/model.py";
  std::string text = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        # File: " +
                     model +
                     ":16 in forward, code: h = F.gelu(self.fc1(h))\n"
                     "        gelu = torch.ops.aten.gelu.default(x)\n"
                     "        # File: /nowhere/else/model.py:3 in forward, code: y = x\n"
                     "        y = x\n";
  std::string path = dir.write("graph.py", text);
  Session s(dir.path());
  INFO(s.client.logTail());
  std::string uri = s.client.didOpen(path);
  json links = s.client.request("textDocument/documentLink", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(links.size() == 1);
  CHECK(links[0]["target"] == fileURI(model) + "#L16");
  CHECK(links[0]["tooltip"] == "Open model.py:16");
  s.client.shutdown();
}

TEST_CASE("fx_graph_runnable.py: definitions and lenses as in the other graph dumps") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::string dir = forwardDebugDir();
  std::string readable = readFile(dir + "/fx_graph_readable.py");
  std::string runnable = readFile(dir + "/fx_graph_runnable.py");
  // The origin of each node of the readable graph, from its comments: node name -> 1-based model line.
  std::map<std::string, Frame> originOf;
  std::regex assign(R"(^\s+([A-Za-z_][A-Za-z0-9_]*)(: "[^"]*")? = torch\.ops\.)");
  std::optional<Frame> current;
  for (const std::string &line : splitLines(readable)) {
    std::smatch m;
    if (std::vector<Comment> c = fileComments(line + "\n"); !c.empty())
      current = Frame{c[0].path, c[0].target};
    else if (std::regex_search(line, m, assign) && current)
      originOf[m[1]] = *current;
  }
  REQUIRE(originOf.size() > 10);
  std::string uri = s.client.didOpen(dir + "/fx_graph_runnable.py");
  std::vector<std::string> lines = splitLines(runnable);
  size_t checked = 0;
  std::set<uint32_t> firstOfRun; // Lines where the origin changes: where lenses go.
  std::optional<Frame> previous;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, assign)) continue;
    auto it = originOf.find(m[1]);
    if (it == originOf.end()) continue;
    if (!previous || !(*previous == it->second)) firstOfRun.insert(i);
    previous = it->second;
    json def = s.client.request("textDocument/definition",
                                textDocumentPosition(uri, i, static_cast<uint32_t>(m.position(1)) + 1));
    CHECK_MESSAGE(toLocSet(def) == std::set<Loc>{originLoc(it->second)}, m[1] << " at line " << i + 1);
    ++checked;
  }
  CHECK(checked == originOf.size());
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(lenses.is_array());
  std::set<uint32_t> originLenses;
  for (const json &l : lenses) {
    uint32_t line = l["range"]["start"]["line"];
    std::string title = l["command"]["title"];
    if (title.find("model.py:") == 0) {
      originLenses.insert(line);
      CHECK(l["command"]["arguments"][2].size() == 1);
    } else {
      // The kernels computing the nodes of that run: `N kernels` or `N kernels, M launches`.
      CHECK_MESSAGE(std::regex_match(title, std::regex(R"(\d+ kernels?(, \d+ launch(es)?)?)")), title);
      CHECK(!l["command"]["arguments"][2].empty());
    }
  }
  CHECK(originLenses == firstOfRun);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
