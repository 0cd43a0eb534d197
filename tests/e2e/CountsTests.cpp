// tests/e2e/CountsTests.cpp: one trace tells one story in every view. On every case folder (the shared
// fixtures and this project's traces, iterated: a new case is covered the day it arrives), the counts of the
// status (`inductor/status` `counts`, what the status bar and `:Inductor status` show), `explain` (its
// summary line and `--json`), the compiled frames view (`inductor/compiles`: its summary and its functions)
// and the code lenses and hovers of model.py agree with each other and with the test's own reading of the
// traces (TraceOracle.h, HealthOracle.h):
//  - a compile is a compile id `frame/frame_compile_id` of a function (attempts together, the ranks that ran
//    it together); a trace without Dynamo compiles counts its graphs;
//  - a graph is an output code: per compile id (with its attempt) and graph kind, the most any rank logged,
//    plus each output code the server found only in files (which files are output code is the index's
//    decision: read from inductor/listArtifacts);
//  - kernels are distinct kernel names per graph, launches distinct launch sites (debug handle) per kernel
//  and
//    graph (where every output code announces its launches by provenance comments, which the oracle reads);
//  - problems are graph breaks (per compile, the most any rank had) + recompiles (compiles with a
//    frame_compile_id > 0 or recompile reasons) + failures (compiles with a failure event).
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

struct Case {
  std::string name, root;
  std::vector<std::string> logs;
};

/// Every case folder with a trace/ folder: the shared fixtures, then this project's traces.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string &dir : {fixturesDir() + "/traces", fs::canonical(INDUCTOR_TRACES_DIR).string()})
    for (const auto &e : fs::directory_iterator(dir)) {
      if (!e.is_directory() || !fs::exists(e.path() / "trace")) continue;
      out.push_back({e.path().filename().string(), e.path().string(),
                     latestRunLogs(filesIn((e.path() / "trace").string(), "dedicated_log_torch_trace"))});
    }
  std::sort(out.begin(), out.end(), [](const Case &a, const Case &b) { return a.name < b.name; });
  return out;
}

std::string runExplain(const std::string &args) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(
      popen((std::string(INDUCTOR_LS_BINARY) + " explain --no-python " + args + " 2>/dev/null").c_str(), "r"),
      pclose);
  std::array<char, 4096> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe.get()))
    out += buf.data();
  return out;
}

/// "8/1_2" -> "8/1".
std::string withoutAttempt(const std::string &id) {
  return id.substr(0, id.find('_'));
}

/// The frame compile id of "8/1" (or "!0/8/1"): 1.
int frameCompileId(const std::string &id) {
  size_t slash = id.rfind('/');
  return slash == std::string::npos ? 0 : std::atoi(id.c_str() + slash + 1);
}

/// The frame of "8/1" (or "!0/8/1"): "8" ("!0/8").
std::string frameOf(const std::string &id) {
  size_t slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(0, slash);
}

struct Expected {
  size_t compiles = 0, graphs = 0, frames = 0, graphBreaks = 0, recompiles = 0, failures = 0;
  std::optional<size_t> kernels, launches; ///< Known when every output code announces its launches.
  size_t problems() const { return graphBreaks + recompiles + failures; }
};

/// The counts of a case, from the traces and the output code files the server lists.
Expected expectedCounts(const Case &c, LSPClient &client) {
  Expected out;
  // Compile health: one compile per compile id and function, ranks together.
  struct PerCompile {
    bool recompile = false, failure = false;
    std::map<size_t, size_t> breaksByLog; // A log is one rank's.
  };
  std::map<std::string, PerCompile> compiles;
  std::set<std::string> frames;
  for (size_t logIndex = 0; logIndex < c.logs.size(); ++logIndex) {
    HealthExpectation h = expectedHealth(c.logs[logIndex]);
    std::map<std::string, std::string> keyOf; // Compile id -> key, in this log.
    for (const RecordedHealthCompile &rc : h.compiles) {
      std::string key = rc.id + "\n" + rc.function;
      keyOf[rc.id] = key;
      PerCompile &p = compiles[key];
      p.recompile |= rc.recompile || frameCompileId(rc.id) > 0;
      frames.insert(frameOf(rc.id));
    }
    for (const ExpectedHealthEvent &e : h.events) {
      auto it = keyOf.find(e.compile);
      if (it == keyOf.end()) continue;
      PerCompile &p = compiles[it->second];
      if (e.kind == "graph break") ++p.breaksByLog[logIndex];
      if (e.kind == "failure") p.failure = true;
    }
  }
  for (const auto &[key, p] : compiles) {
    size_t breaks = 0;
    for (const auto &[log, n] : p.breaksByLog)
      breaks = std::max(breaks, n);
    out.graphBreaks += breaks;
    out.recompiles += p.recompile;
    out.failures += p.failure;
  }
  out.frames = frames.size();

  // Graphs, kernels and launches: the logs' output code, then the output code only in files.
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(c.logs, &client);
  struct Graph {
    std::map<std::optional<int>, size_t> perRank;
    std::map<std::string, std::set<int>> sites; // kernel -> debug handles.
  };
  std::map<std::string, Graph> graphs;
  bool announced = true;
  auto addLaunches = [&](Graph &g, const std::string &text) {
    std::vector<LaunchSite> sites = findLaunches(text);
    if (sites.empty() && text.find(".run(") != std::string::npos) announced = false;
    for (const LaunchSite &s : sites) {
      if (s.handle < 0) announced = false;
      g.sites[s.kernel].insert(s.handle);
    }
  };
  for (const ExpectedOutputCode &code : codes) {
    Graph &g = graphs[code.record.compileId + "|" + code.graphKind()];
    ++g.perRank[code.record.rank];
    addLaunches(g, code.text);
  }
  for (const json &a : client.request("inductor/listArtifacts", json::object())) {
    // Found only in files: no log holds it (a log's output code without a compile id is AOTInductor's).
    if ((a["kind"] != "outputCode" && a["kind"] != "wrapperCode") || !a["trace"].is_null()) continue;
    Graph &g = graphs["file|" + a["uri"].get<std::string>()];
    g.perRank[std::nullopt] = 1;
    json content = client.request("inductor/artifactContent", {{"uri", a["uri"]}});
    addLaunches(g, content["text"].get<std::string>());
  }
  size_t kernels = 0, launches = 0;
  for (const auto &[key, g] : graphs) {
    size_t most = 0;
    for (const auto &[rank, n] : g.perRank)
      most = std::max(most, n);
    out.graphs += most;
    kernels += g.sites.size();
    for (const auto &[kernel, handles] : g.sites)
      launches += handles.size();
  }
  if (announced) {
    out.kernels = kernels;
    out.launches = launches;
  }
  out.compiles = compiles.empty() ? out.graphs : compiles.size();
  return out;
}

/// "5 compiles" at the start of a summary after its compile ids ("[0/0–0/4] 5 compiles · ...").
size_t compilesIn(const std::string &summary) {
  std::smatch m;
  std::regex re(R"(^\[[^\]]*\] ([0-9]+) compiles?( |$))");
  return std::regex_search(summary, m, re) ? std::stoul(m[1]) : SIZE_MAX;
}

/// The counts of a user line's lens title: "4 kernels, 10 launches over 3 compiles · 2 forward · 2 backward".
struct LensCounts {
  size_t kernels = 0, launches = 0, compiles = 1, splitKernels = 0;
  std::string head; ///< The counts before the split: what the hover's heading repeats.
};
std::optional<LensCounts> parseLineLens(const std::string &withChanges) {
  std::string title = withoutComparison(withChanges);
  std::smatch m;
  std::regex re(
      R"(^(([0-9]+) kernels?(, ([0-9]+) launch(es)?)?( over ([0-9]+) compiles)?)((?: · [0-9]+ (?:forward|backward|inference|AOT|other))*))");
  if (!std::regex_search(title, m, re)) return std::nullopt;
  LensCounts out;
  out.head = m[1];
  out.kernels = std::stoul(m[2]);
  out.launches = m[4].matched ? std::stoul(m[4]) : out.kernels;
  out.compiles = m[7].matched ? std::stoul(m[7]) : 1;
  std::string split = m[8];
  std::regex part(R"( · ([0-9]+) )");
  for (auto it = std::sregex_iterator(split.begin(), split.end(), part); it != std::sregex_iterator(); ++it)
    out.splitKernels += std::stoul((*it)[1]);
  return out;
}

TEST_CASE("counts: status, explain, the compiles view, lenses and hovers agree, on every case folder") {
  size_t checked = 0;
  for (const Case &c : cases()) {
    CAPTURE(c.name);
    Session s(c.root);
    INFO(s.client.logTail());
    // inductor/compiles waits for the index; the status answers at once (also while indexing).
    json tree = s.client.request("inductor/compiles", json::object());
    json status = s.client.request("inductor/status", json::object());
    REQUIRE(status["counts"].is_object());
    const json &counts = status["counts"];
    Expected e = expectedCounts(c, s.client);

    // The oracle.
    CHECK(counts["compiles"] == e.compiles);
    CHECK(counts["graphs"] == e.graphs);
    if (!c.logs.empty() && e.frames) CHECK(counts["frames"] == e.frames);
    CHECK(counts["graphBreaks"] == e.graphBreaks);
    CHECK(counts["recompiles"] == e.recompiles);
    CHECK(counts["failures"] == e.failures);
    CHECK(counts["problems"] == e.problems());
    if (e.kernels) {
      CHECK(counts["kernels"] == *e.kernels);
      CHECK(counts["launches"] == *e.launches);
    }
    // The top level, which Neovim's :checkhealth and clients that predate `counts` read, is the same counts.
    for (const char *key : {"traces", "compiles", "kernels", "launches"}) {
      CAPTURE(key);
      CHECK(counts[key] == status[key]);
    }

    // explain: --json, and its summary line in words.
    json explained = json::parse(runExplain("--json '" + c.root + "'"), nullptr, false);
    REQUIRE(explained.is_object());
    CHECK(explained["counts"] == counts);
    std::string text = runExplain("'" + c.root + "'");
    std::smatch m;
    std::regex line(
        R"(Indexed [0-9]+ trace files? \([0-9.]+ MB\), ([0-9]+) compiles?(?: \(([0-9]+) graphs? with output code\))?, ([0-9]+) kernels?, ([0-9]+) kernel launch(?:es)? \(([0-9]+) with a user origin\), [0-9]+ user source lines? with kernels, ([0-9]+) problems?)");
    REQUIRE_MESSAGE(std::regex_search(text, m, line), text.substr(0, 400));
    CHECK(std::stoul(m[1]) == counts["compiles"].get<size_t>());
    if (m[2].matched) CHECK(std::stoul(m[2]) == counts["graphs"].get<size_t>());
    CHECK(std::stoul(m[3]) == counts["kernels"].get<size_t>());
    CHECK(std::stoul(m[4]) == counts["launches"].get<size_t>());
    CHECK(std::stoul(m[5]) == counts["launchesWithOrigin"].get<size_t>());
    CHECK(std::stoul(m[6]) == counts["problems"].get<size_t>());
    if (counts["problems"].get<size_t>() > 0)
      CHECK(text.find(std::to_string(counts["graphBreaks"].get<size_t>()) + " graph break") !=
            std::string::npos);

    // The compiles view: its summary is the status's counts; its functions add up to its compiles, each
    // frame in exactly one function, each function named.
    CHECK(tree["summary"] == counts);
    REQUIRE(tree["functions"].is_array());
    size_t compilesInFunctions = 0;
    std::vector<int> listed(tree["frames"].size(), 0);
    for (const json &fn : tree["functions"]) {
      INFO(fn.dump());
      CHECK(!fn["function"].get<std::string>().empty());
      CHECK(!fn["function"].get<std::string>().starts_with("torch_dynamo_resume_in_"));
      size_t n = compilesIn(fn["summary"].get<std::string>());
      REQUIRE(n != SIZE_MAX);
      compilesInFunctions += n;
      for (const json &i : fn["frames"])
        ++listed.at(i.get<size_t>());
    }
    CHECK(std::all_of(listed.begin(), listed.end(), [](int n) { return n == 1; }));
    if (counts["graphs"] != counts["compiles"] || !tree["frames"].empty())
      CHECK(compilesInFunctions == tree["summary"]["compiles"].get<size_t>());

    // model.py: the lens of each compiled function is its entry in the compiles view, word for word; the
    // lens of each user line adds up (its split is its kernels, `over N compiles` the compiles of its
    // launches) and its hover says the same counts.
    std::string model = c.root + "/model.py";
    if (fs::exists(model)) {
      std::string uri = s.client.didOpen(model);
      json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
      REQUIRE(lenses.is_array());
      for (const json &fn : tree["functions"]) {
        if (!fn["location"].is_object() || fn["location"]["uri"] != uri) continue;
        const json *lens = nullptr;
        // The lens of that function: its arguments name the function and its recorded def line (the lens
        // itself may sit on the `def` below a decorator).
        for (const json &l : lenses)
          if (l["command"]["command"] == "inductor.showCompiles" &&
              l["command"]["arguments"][2]["function"] == fn["function"] &&
              l["command"]["arguments"][2]["line"] ==
                  fn["location"]["range"]["start"]["line"].get<uint32_t>() + 1)
            lens = &l;
        REQUIRE_MESSAGE(lens, fn.dump());
        CHECK((*lens)["command"]["title"] == fn["summary"]);
      }
      // The compiles of each model line's launches, by the oracle.
      std::map<uint32_t, std::set<std::string>> lineCompiles; // 0-based line -> compile ids.
      std::vector<ExpectedOutputCode> codes = expectedOutputCodes(c.logs, &s.client);
      for (const auto &[frame, launches] : launchesByUserLine(codes))
        if (frame.path.ends_with("/" + c.name + "/model.py"))
          for (const LaunchRef &l : launches)
            lineCompiles[frame.line - 1].insert(withoutAttempt(l.code->record.compileId));
      for (const json &l : lenses) {
        if (l["command"]["command"] != "inductor.showLaunchSites") continue;
        std::string title = l["command"]["title"];
        INFO(title);
        std::optional<LensCounts> lc = parseLineLens(title);
        REQUIRE(lc);
        CHECK(lc->splitKernels == lc->kernels);
        uint32_t at = l["range"]["start"]["line"];
        if (auto it = lineCompiles.find(at); it != lineCompiles.end() && e.kernels)
          CHECK(lc->compiles == it->second.size());
        json hover = s.client.request("textDocument/hover",
                                      {{"textDocument", {{"uri", uri}}}, {"position", l["range"]["start"]}});
        REQUIRE(hover.is_object());
        std::string md = hover["contents"]["value"];
        CHECK_MESSAGE(md.find("### " + lc->head + " from line " + std::to_string(at + 1)) !=
                          std::string::npos,
                      md.substr(0, 300));
      }
    }
    ++checked;
    s.client.shutdown();
  }
  CHECK(checked >= 20);
}

} // namespace
} // namespace inductor::e2e
