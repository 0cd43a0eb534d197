// tests/e2e/RanksTests.cpp: ranks that disagree (issue 29). inductor/ranks over the real binary on real
// multi-rank traces, against the test's own reading of the ranks' logs (TraceOracle.h) and model.py:
//  - a `recompile_reasons` artifact on some ranks only: a recompile on those ranks, on the innermost model
//    frame of its "User stack trace:";
//  - a `dynamo_graph_break_reason` on some ranks only: a graph break, at its "Graph break in user code at
//    F:L";
//  - among the ranks that logged neither for a compile id, output code that differs from the majority's
//    (the same compile id and graph, in log order): different code, on the line of the first `# File:`
//    comment above the first node of the Dynamo graph (`dynamo_output_graph`) that differs.
// Traces whose ranks agree (ranks_agree, multirank, the project's NCCL traces) give none of those kinds.
#include "e2e/E2E.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <set>

namespace inductor::e2e {
namespace {

struct Expected {
  std::string kind;
  std::vector<int64_t> ranks;
  std::string file;
  uint32_t line = 0;
  friend auto operator<=>(const Expected &, const Expected &) = default;
};

std::string show(const Expected &e) {
  std::string s = e.kind + " [";
  for (int64_t r : e.ranks)
    s += std::to_string(r) + " ";
  return s + "] " + e.file + ":" + std::to_string(e.line);
}

int rankOf(const std::string &path) {
  std::smatch m;
  static const std::regex re("_rank_([0-9]+)_");
  REQUIRE(std::regex_search(path, m, re));
  return std::stoi(m[1]);
}

std::string artifactName(const TraceRecord &r) {
  if (!r.envelope.contains("artifact")) return {};
  return r.envelope["artifact"].value("name", "");
}

std::string compileIdOf(const TraceRecord &r) {
  auto num = [&](const char *k) {
    return r.envelope.contains(k) && r.envelope[k].is_number() ? std::to_string(r.envelope[k].get<int>())
                                                               : "-";
  };
  return num("frame_id") + "/" + num("frame_compile_id");
}

/// The divergences of kinds recompile, graph break and different code, from the logs and model.py.
std::set<Expected> oracle(const std::string &root) {
  std::map<int, std::vector<TraceRecord>> logs;
  for (const std::string &f : filesIn(root + "/trace", "dedicated_log_torch_trace"))
    logs[rankOf(f)] = readTraceLog(f);
  std::map<std::pair<std::string, uint32_t>, std::vector<int64_t>> recompiles, breaks;
  std::map<std::string, std::set<int>> eventful; // compile id -> ranks that logged a break or recompile
  const std::regex fileLine(R"re(File "([^"]+)", line ([0-9]+))re");
  const std::regex breakAt(R"(Graph break in user code at (\S+):([0-9]+))");
  for (const auto &[rank, records] : logs)
    for (const TraceRecord &r : records) {
      std::string name = artifactName(r);
      if (name == "recompile_reasons") {
        eventful[compileIdOf(r)].insert(rank);
        std::string stack = r.payload.substr(std::min(r.payload.size(), r.payload.find("User stack trace:")));
        std::optional<Frame> innermost;
        for (std::sregex_iterator it(stack.begin(), stack.end(), fileLine), end; it != end; ++it)
          if (!isLibraryFrame((*it)[1]))
            innermost = Frame{(*it)[1], static_cast<uint32_t>(std::stoul((*it)[2]))};
        if (!innermost) innermost = Frame{"", 0}; // Not said: compared as one place.
        recompiles[{innermost->path.empty() ? "" : localPathIn(innermost->path, root), innermost->line}]
            .push_back(rank);
      } else if (name == "dynamo_graph_break_reason") {
        eventful[compileIdOf(r)].insert(rank);
        std::smatch m;
        if (std::regex_search(r.payload, m, breakAt))
          breaks[{localPathIn(m[1], root), static_cast<uint32_t>(std::stoul(m[2]))}].push_back(rank);
        else
          breaks[{"", 0}].push_back(rank);
      }
    }
  std::set<Expected> out;
  const size_t of = logs.size();
  for (auto *kind : {&recompiles, &breaks})
    for (auto &[where, ranks] : *kind) {
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      if (ranks.size() < of)
        out.insert({kind == &recompiles ? "recompile" : "graph break", ranks, where.first, where.second});
    }
  // Output code and Dynamo graphs per (compile id, n-th in the compile), per rank.
  std::map<std::pair<std::string, int>, std::map<int, std::string>> code, graphs;
  for (const auto &[rank, records] : logs) {
    std::map<std::string, int> nthCode, nthGraph;
    for (const TraceRecord &r : records) {
      std::string id = compileIdOf(r);
      if (r.envelope.contains("inductor_output_code")) code[{id, nthCode[id]++}][rank] = r.payload;
      if (r.envelope.contains("dynamo_output_graph")) graphs[{id, nthGraph[id]++}][rank] = r.payload;
    }
  }
  std::map<std::string, std::set<int>> differing; // compile id -> ranks whose code differs
  for (const auto &[key, byRank] : code) {
    std::map<std::string, std::vector<int>> groups;
    for (const auto &[rank, text] : byRank)
      if (!eventful[key.first].count(rank)) groups[text].push_back(rank);
    if (groups.size() < 2) continue;
    size_t majority = 0;
    for (const auto &[text, ranks] : groups)
      majority = std::max(majority, ranks.size());
    for (const auto &[text, ranks] : groups)
      if (ranks.size() < majority) differing[key.first].insert(ranks.begin(), ranks.end());
  }
  for (const auto &[id, ranks] : differing) {
    // The reference: a rank of the same compile id whose code is the majority's and that had no event.
    int ref = -1;
    for (const auto &[rank, records] : logs)
      if (!ranks.count(rank) && !eventful[id].count(rank) && ref < 0) ref = rank;
    REQUIRE(ref >= 0);
    int other = *ranks.begin();
    std::vector<std::string> a = splitLines(graphs[{id, 0}][ref]), b = splitLines(graphs[{id, 0}][other]);
    const std::regex comment(R"(# File: (\S+):([0-9]+) in )");
    std::optional<Frame> at, last;
    for (size_t i = 0; i < a.size() && i < b.size() && !at; ++i) {
      std::smatch m;
      if (std::regex_search(b[i], m, comment)) {
        last = isLibraryFrame(m[1])
                   ? std::nullopt
                   : std::optional<Frame>(Frame{m[1], static_cast<uint32_t>(std::stoul(m[2]))});
        continue;
      }
      if (a[i] == b[i] || b[i].find(" = ") == std::string::npos) continue;
      if (last) at = last;
    }
    REQUIRE(at);
    out.insert({"different code", std::vector<int64_t>(ranks.begin(), ranks.end()),
                localPathIn(at->path, root), at->line});
  }
  return out;
}

std::set<Expected> served(const json &result, const std::set<std::string> &kinds) {
  std::set<Expected> out;
  for (const json &d : result["divergences"])
    if (kinds.count(d["kind"].get<std::string>()))
      out.insert({d["kind"], d["ranks"].get<std::vector<int64_t>>(),
                  d["file"].is_string() ? d["file"].get<std::string>() : "",
                  d["line"].is_number() ? d["line"].get<uint32_t>() : 0});
  return out;
}

json explainRanks(const std::string &root) {
  std::string cmd = "cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --json --no-python '" + root +
                    "' 2>/dev/null";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::array<char, 65536> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0)
    out.append(buf.data(), n);
  json j = json::parse(out, nullptr, false);
  REQUIRE(j.is_object());
  return j["ranks"];
}

const std::set<std::string> kOutcomeKinds = {"recompile", "graph break", "different code"};

} // namespace

TEST_CASE("ranks: ranks_diverge gives exactly its three divergences, on the lines and ranks of the logs") {
  const std::string root = caseDir("ranks_diverge");
  std::set<Expected> expected = oracle(root);
  std::string shown;
  for (const Expected &e : expected)
    shown += show(e) + "; ";
  INFO("oracle: " << shown);
  // The oracle itself: one of each kind, on three different ranks.
  REQUIRE(expected.size() == 3);
  std::set<std::string> kinds;
  std::set<int64_t> ranks;
  for (const Expected &e : expected) {
    kinds.insert(e.kind);
    ranks.insert(e.ranks.begin(), e.ranks.end());
  }
  CHECK(kinds == kOutcomeKinds);
  CHECK(ranks.size() == 3);

  Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
  json result = s.client.request("inductor/ranks", json::object());
  REQUIRE(result.is_object());
  CHECK(result["count"] == 4);
  std::set<Expected> got = served(result, kOutcomeKinds);
  std::string gotText;
  for (const Expected &e : got)
    gotText += show(e) + "; ";
  INFO("served: " << gotText);
  CHECK(got == expected);
  for (const json &d : result["divergences"]) {
    CHECK(d["of"] == 4);
    CHECK(d["kind"] != "failure");
    CHECK(d["kind"] != "collective schedule");
  }
  // Each divergence on its line as a diagnostic: a Warning naming the rank (recompile, graph break), an
  // Information (different code).
  json report =
      s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(root + "/model.py")}}}});
  for (const Expected &e : expected) {
    INFO(show(e));
    std::string rank = "rank " + std::to_string(e.ranks.front()) + " only (1 of 4)";
    bool found = false;
    for (const json &d : report["items"]) {
      if (d["range"]["start"]["line"] != e.line - 1) continue;
      std::string message = d["message"];
      if (message.find(rank) == std::string::npos) continue;
      found = true;
      CHECK(d["severity"] == (e.kind == "different code" ? 3 : 2));
    }
    CHECK(found);
  }
  // Once per divergence: no two diagnostics of the file say the same first line.
  std::set<std::pair<int, std::string>> firstLines;
  for (const json &d : report["items"]) {
    std::string m = d["message"];
    CHECK(firstLines.insert({d["range"]["start"]["line"].get<int>(), m.substr(0, m.find('\n'))}).second);
  }
  // explain --json writes the same answer under `ranks`.
  CHECK(explainRanks(root) == result);
  s.client.shutdown();
}

TEST_CASE("ranks: traces whose ranks agree give no recompile, graph break or different code divergence") {
  std::vector<std::string> roots = {caseDir("ranks_agree"), caseDir("multirank")};
  for (const char *name : {"ddp_gpt2", "fsdp_llama"})
    roots.push_back(std::string(INDUCTOR_TRACES_DIR) + "/" + name);
  for (const std::string &root : roots) {
    INFO(root);
    REQUIRE(oracle(root).empty()); // The oracle agrees that nothing diverges in these.
    Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
    json result = s.client.request("inductor/ranks", json::object());
    REQUIRE(result.is_object());
    CHECK(result["count"].get<int>() >= 2);
    for (const json &d : result["divergences"]) {
      INFO(d.dump());
      CHECK(!kOutcomeKinds.count(d["kind"].get<std::string>()));
      CHECK(d["kind"] != "collective schedule");
    }
    s.client.shutdown();
  }
}

} // namespace inductor::e2e
