// tests/e2e/RankRowsTests.cpp: a model line's hover on a run of several ranks lists each graph once per
// version of its code, and a row never mixes ranks: the kernels and debug handles of a row `[0/0] forward ·
// ranks 0, 2` are those each of its ranks launched from the line, by the test's own reading of each rank's
// output code (TraceOracle: the `[Provenance debug handles]` comments and the stack-traces artifact of its
// compile).
#include "e2e/E2E.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

/// One row of a hover as printed: its compile id, graph kind, ranks, and per kernel the debug handles listed
/// (empty for a kernel launched once: the row names no handle then).
struct Row {
  std::string compile, kind;
  std::set<int> ranks;
  std::map<std::string, std::set<int>> kernels;
  bool complete = true; ///< No "… N more" cut its list.
};

std::vector<Row> rowsOf(const std::string &md) {
  std::vector<Row> out;
  std::regex header(R"(^\*\*\[([^\]]+)\] (\w+) · ranks? ([0-9, ]+)\*\*$)"),
      kernel(R"(^- \[`([^`]+)`\]\([^)]*\) · [^·]+(?: · ([0-9]+) launches, debug handles (.*))?$)"),
      handle(R"(\[([0-9]+)\]\()"), number("[0-9]+");
  Row *row = nullptr;
  for (const std::string &line : splitLines(md)) {
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      out.push_back({m[1], m[2], {}, {}, true});
      row = &out.back();
      std::string ranks = m[3];
      for (auto it = std::sregex_iterator(ranks.begin(), ranks.end(), number); it != std::sregex_iterator();
           ++it)
        row->ranks.insert(std::stoi(it->str()));
      continue;
    }
    if (!row) continue;
    if (line.empty() || line.rfind("**", 0) == 0 || line == "---") {
      row = nullptr;
      continue;
    }
    if (line.find("… ") != std::string::npos) {
      row->complete = false;
      continue;
    }
    if (std::regex_match(line, m, kernel)) {
      std::set<int> &handles = row->kernels[m[1]];
      std::string list = m[3];
      for (auto it = std::sregex_iterator(list.begin(), list.end(), handle); it != std::sregex_iterator();
           ++it)
        handles.insert(std::stoi((*it)[1]));
      if (list.find(", …") != std::string::npos) row->complete = false;
    }
  }
  return out;
}

} // namespace

TEST_CASE("rank rows: a model line's hover lists each version of a graph's code with its own ranks, kernels "
          "and debug handles") {
  size_t rows = 0, split = 0;
  for (const std::string &root : caseFolders()) {
    std::vector<std::string> logs = latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace"));
    if (logs.size() < 2) continue;
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs);
    // (local path, line) -> (compile id, graph kind, rank) -> kernel -> its debug handles.
    std::map<std::pair<std::string, uint32_t>,
             std::map<std::tuple<std::string, std::string, int>, std::map<std::string, std::set<int>>>>
        expected;
    for (const ExpectedOutputCode &c : codes) {
      if (!c.record.rank) continue;
      for (const LaunchSite &site : c.launches)
        for (const Frame &f : c.originsOf(site)) {
          std::string local = localPathIn(f.path, root);
          if (fs::path(local).filename() != "model.py") continue;
          expected[{local, f.line}][{c.record.compileId, c.graphKind(), *c.record.rank}][site.kernel].insert(
              site.handle);
        }
    }
    if (expected.empty()) continue;
    CAPTURE(root);
    Session s(root);
    INFO(s.client.logTail());
    std::string model = root + "/model.py";
    std::string uri = s.client.didOpen(model);
    std::vector<std::string> text = splitLines(readFile(model));
    for (const auto &[place, byGraph] : expected) {
      uint32_t line = place.second;
      if (line == 0 || line > text.size() || text[line - 1].find_first_not_of(" \t") == std::string::npos)
        continue;
      json hover = s.client.request(
          "textDocument/hover",
          textDocumentPosition(uri, line - 1,
                               static_cast<uint32_t>(text[line - 1].find_first_not_of(" \t"))));
      REQUIRE(hover.is_object());
      std::string md = hover["contents"]["value"];
      INFO("model.py:" << line << "\n" << md);
      std::vector<Row> printed = rowsOf(md);
      std::map<std::pair<std::string, std::string>, size_t> versions;
      for (const Row &row : printed) {
        ++versions[{row.compile, row.kind}];
        if (!row.complete) continue;
        INFO("row [" << row.compile << "] " << row.kind);
        for (int rank : row.ranks) {
          CAPTURE(rank);
          auto want = byGraph.find({row.compile, row.kind, rank});
          REQUIRE_MESSAGE(want != byGraph.end(), "a row names a rank that launched nothing from this line");
          std::set<std::string> names, got;
          for (const auto &[k, handles] : want->second)
            names.insert(k);
          for (const auto &[k, handles] : row.kernels)
            got.insert(k);
          CHECK(got == names);
          // A kernel launched more than once lists its handles: this rank's, never another's.
          for (const auto &[k, handles] : row.kernels)
            if (!handles.empty() && want->second.count(k)) CHECK(handles == want->second.at(k));
        }
        ++rows;
      }
      for (const auto &[graph, n] : versions)
        split += n > 1;
    }
  }
  MESSAGE(rows << " rows checked, " << split << " graphs shown as several versions");
  CHECK(rows >= 20);
  CHECK(split >= 1);
}
