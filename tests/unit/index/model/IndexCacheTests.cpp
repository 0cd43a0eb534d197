// Tests for IndexCache (index/model/Index.h): incremental builds of a log that grows. A real fixture log is
// copied to a temporary directory in steps (at record boundaries chosen so that a compile's output code
// arrives before its provenance, and at arbitrary bytes, mid-line); after each step an incremental build must
// describe exactly the index a fresh build of the same bytes describes, while reading only what was appended
// and analysing only new or changed compiles.
#include "index/model/Index.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdlib.h>
#include <thread>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);
const std::string kGraphBreakLog =
    kFixtures + "/traces/graph_break_dynamic/trace/dedicated_log_torch_trace_f78lg2bd.log";

/// A temporary directory holding one growing trace log, removed at the end.
struct GrowingLog {
  std::string dir, path;
  GrowingLog() {
    dir = (fs::temp_directory_path() / "inductor-cache-XXXXXX").string();
    REQUIRE(::mkdtemp(dir.data()) != nullptr);
    path = dir + "/dedicated_log_torch_trace_growing.log";
    std::ofstream(path, std::ios::binary | std::ios::trunc).flush();
  }
  void append(std::string_view bytes) const {
    std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
  }
  ~GrowingLog() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string describe(const Origin &o) {
  return o.path + ":" + std::to_string(o.line) + (o.exists ? "" : "?") + " `" + o.code + "` in " + o.function;
}

/// Everything an index holds that a query can see, as text (the work counters of the build excluded).
std::string describe(const Index &index) {
  std::ostringstream out;
  for (const std::string &t : index.traceFiles())
    out << "trace " << t << "\n";
  for (const Compile &c : index.compiles()) {
    out << "compile " << c.label() << " aoti=" << c.aoti << " aot=" << c.aotId
        << " out=" << c.outputCode.value << " post=" << c.postGradGraph.value
        << " pre=" << c.preGradGraph.value << " trace=" << c.traceFile << " graphs=";
    for (ArtifactId g : c.graphs)
      out << g.value << ",";
    out << "\n";
  }
  for (uint32_t i = 0; i < index.artifacts().size(); ++i) {
    const Artifact &a = index.artifacts()[i];
    out << "artifact " << i << " " << a.title << " kind=" << int(a.kind) << " compile=" << a.compile.value
        << " virtual=" << a.virtualName << " graph=" << a.graphName << " role=" << int(a.graphRole)
        << " at=" << a.traceFile << "/" << a.record << " text="
        << index.text(ArtifactId{i}).size()
        // Which compiles share one analysis (the ranks' copies, listed once): the same as in one build.
        << " copy=" << index.firstCopy(ArtifactId{i}).value
        << " equivalent=" << index.firstEquivalent(ArtifactId{i}).value << "\n";
    for (const std::string &p : a.paths)
      out << "  path " << p << "\n";
    for (const Launch &l : a.launches) {
      out << "  launch " << l.site.key() << " @" << l.site.line << ":" << l.site.column
          << " src=" << int(l.originSource) << " def=" << l.definition << " kind=" << int(l.kind)
          << " stacks=" << l.stacks.size() << " post=" << l.postGradNodes.size()
          << " pre=" << l.preGradNodes.size() << " aten=" << l.atenOps.size();
      for (const Origin &o : l.origins)
        out << " " << describe(o);
      out << "\n";
    }
    for (const Artifact::GraphNode &n : a.graphNodes)
      out << "  node " << n.name << " @" << n.line << ":" << n.column << " "
          << (n.origin ? describe(*n.origin) : "-") << "\n";
    out << "  kernels " << a.code.kernels.size() << "\n";
  }
  std::multiset<std::string> diags;
  for (const IndexDiagnostic &d : index.diagnostics())
    diags.insert(d.file + ":" + std::to_string(d.line) + ": " + d.message);
  for (const std::string &d : diags)
    out << "diag " << d << "\n";
  IndexStats s = index.stats();
  out << "stats " << s.traceFiles << " " << s.traceBytes << " " << s.compiles << " " << s.artifacts << " "
      << s.kernels << " " << s.launches << " " << s.launchesWithOrigin << " " << s.userLines << " "
      << s.corruptedRecords << " " << s.errors << "\n";
  // Compile health and runtime data: a build of part of a run reads neither; the next must read both.
  out << "health " << s.frameCompiles << " " << s.compiledFrames << " " << s.graphBreaks << " "
      << s.recompiles << " " << s.compileFailures << " runtime " << s.profiles << " " << s.runLogs << "\n";
  return out.str();
}

/// Where a record envelope containing `needle` starts, for every occurrence.
std::vector<size_t> recordStarts(const std::string &log, std::string_view needle) {
  std::vector<size_t> out;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) {
    size_t start = log.rfind('\n', at);
    out.push_back(start == std::string::npos ? 0 : start + 1);
  }
  return out;
}

} // namespace

TEST_CASE("IndexCache: after every append, an incremental build is the fresh build, reading only new bytes") {
  const std::string full = readFile(kGraphBreakLog);
  REQUIRE(full.size() > 1000000);
  // Steps: right after each output code (its provenance comes later and must change its analysis), between
  // its two provenance artifacts, and at arbitrary bytes (mid-line, mid-payload).
  std::vector<size_t> cuts;
  for (size_t at : recordStarts(full, "{\"artifact\": {\"name\": \"triton_kernel_info\""))
    cuts.push_back(at);
  for (size_t at :
       recordStarts(full, "{\"artifact\": {\"name\": \"inductor_provenance_tracking_kernel_stack_t"))
    cuts.push_back(at);
  std::mt19937 rng(42);
  for (int i = 0; i < 4; ++i)
    cuts.push_back(std::uniform_int_distribution<size_t>(1, full.size() - 1)(rng));
  cuts.push_back(full.size());
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  REQUIRE(cuts.size() >= 12);

  GrowingLog log;
  IndexOptions options;
  options.inputs = {log.dir};
  IndexOptions parallel = options;
  parallel.jobs = 2;
  IndexCache cache;
  CHECK(cache.empty());
  size_t previous = 0, analysed = 0, compiles = 0, maxReread = 0;
  for (size_t cut : cuts) {
    CAPTURE(cut);
    log.append(std::string_view(full).substr(previous, cut - previous));
    bool first = cache.empty();
    auto incremental = Index::build(parallel, {}, nullptr, &cache);
    auto fresh = Index::build(options);
    REQUIRE(incremental);
    REQUIRE(fresh);
    CHECK(describe(*incremental) == describe(*fresh));
    CHECK_FALSE(cache.empty());

    IndexStats s = incremental->stats();
    IndexCache::BuildStats b = cache.lastBuild();
    CHECK(fresh->stats().traceBytesRead == cut);
    CHECK(fresh->stats().compilesAnalysed == fresh->stats().compiles);
    CHECK(s.traceBytesRead == b.bytesRead);
    CHECK(b.compilesAnalysed == s.compilesAnalysed);
    CHECK(b.compilesAnalysed + b.compilesReused == s.compiles);
    CHECK(b.logsOpened == (first ? 1u : 0u));
    CHECK(b.logsResumed == (first ? 0u : 1u));
    // Bytes read: the appended ones, plus the previous last record (its payload may have grown).
    CHECK(s.traceBytesRead >= cut - previous);
    if (!first) maxReread = std::max(maxReread, s.traceBytesRead - (cut - previous));
    // Only the compiles whose records were appended or grew are analysed: here at most two per step (the
    // provenance of one, the output code of the next).
    if (!first) CHECK(s.compilesAnalysed <= 2);
    analysed += s.compilesAnalysed;
    compiles += s.compiles;
    previous = cut;
  }
  CHECK(maxReread < 64 * 1024);
  CHECK(analysed < compiles);

  // Nothing appended: the log is reused as it is, nothing read, nothing analysed, the same index.
  auto again = Index::build(options, {}, nullptr, &cache);
  CHECK(again->stats().traceBytesRead == 0);
  CHECK(again->stats().compilesAnalysed == 0);
  CHECK(cache.lastBuild().logsReused == 1);
  CHECK(describe(*again) == describe(*Index::build(options)));

  // The graph nodes of kept analyses are kept with them: the same vectors, not made and placed again.
  auto third = Index::build(options, {}, nullptr, &cache);
  REQUIRE(third->artifacts().size() == again->artifacts().size());
  size_t graphs = 0;
  for (size_t i = 0; i < again->artifacts().size(); ++i) {
    const Artifact &a = again->artifacts()[i];
    if (a.kind != ArtifactKind::Graph || a.graphNodes.empty()) continue;
    ++graphs;
    CHECK(third->artifacts()[i].graphNodes.sharedWith(a.graphNodes));
  }
  CHECK(graphs >= 6);
  // A cleared cache keeps none.
  cache.clear();
  auto fourth = Index::build(options, {}, nullptr, &cache);
  for (size_t i = 0; i < fourth->artifacts().size(); ++i)
    if (!fourth->artifacts()[i].graphNodes.empty())
      CHECK_FALSE(fourth->artifacts()[i].graphNodes.sharedWith(again->artifacts()[i].graphNodes));
}

TEST_CASE("IndexCache: an earlier index keeps serving after later incremental builds") {
  const std::string full = readFile(kGraphBreakLog);
  size_t half = recordStarts(full, "{\"dynamo_start\"")[3];
  GrowingLog log;
  log.append(std::string_view(full).substr(0, half));
  IndexOptions options;
  options.inputs = {log.dir};
  IndexCache cache;
  auto before = Index::build(options, {}, nullptr, &cache);
  std::string described = describe(*before);
  REQUIRE(before->compiles().size() == 3);

  log.append(std::string_view(full).substr(half));
  auto after = Index::build(options, {}, nullptr, &cache);
  CHECK(after->compiles().size() == 6);
  CHECK(after->stats().compilesAnalysed == 3);
  // The first index still reads its own mapping of the log (texts of log-only artifacts included).
  CHECK(describe(*before) == described);
  after.reset();
  cache.clear();
  CHECK(cache.empty());
  CHECK(describe(*before) == described);
}

TEST_CASE("IndexCache: a replaced log, other options, clear(): everything is read and analysed again") {
  const std::string full = readFile(kGraphBreakLog);
  GrowingLog log;
  log.append(full);
  IndexOptions options;
  options.inputs = {log.dir};
  IndexCache cache;
  auto first = Index::build(options, {}, nullptr, &cache);
  REQUIRE(first->stats().compiles == 6);

  SUBCASE("replaced under the same path by a shorter log") {
    size_t cut = recordStarts(full, "{\"dynamo_start\"")[2];
    std::string other = log.path + ".new";
    std::ofstream(other, std::ios::binary) << std::string_view(full).substr(0, cut);
    fs::rename(other, log.path);
    auto next = Index::build(options, {}, nullptr, &cache);
    CHECK(cache.lastBuild().logsOpened == 1);
    CHECK(next->stats().traceBytesRead == cut);
    CHECK(next->stats().compilesAnalysed == next->stats().compiles);
    CHECK(describe(*next) == describe(*Index::build(options)));
  }
  SUBCASE("other path mappings") {
    options.pathMappings = {{"/nonexistent/prefix", "/elsewhere"}};
    auto next = Index::build(options, {}, nullptr, &cache);
    CHECK(next->stats().traceBytesRead == full.size());
    CHECK(next->stats().compilesAnalysed == 6);
  }
  SUBCASE("clear()") {
    cache.clear();
    auto next = Index::build(options, {}, nullptr, &cache);
    CHECK(next->stats().traceBytesRead == full.size());
    CHECK(next->stats().compilesAnalysed == 6);
  }
  SUBCASE("a cancelled build leaves the cache as it was") {
    log.append("V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126] {\"chromium_event\": {}}\n");
    std::atomic<bool> cancelled{true};
    Index::build(options, {}, &cancelled, &cache);
    auto next = Index::build(options, {}, nullptr, &cache);
    CHECK(cache.lastBuild().logsResumed == 1);
    CHECK(next->stats().compilesAnalysed == 0);
    CHECK(describe(*next) == describe(*Index::build(options)));
  }
}

TEST_CASE("IndexCache: import roots count only where an analysis depended on them") {
  GrowingLog log;
  log.append(readFile(kGraphBreakLog));
  IndexOptions options;
  options.inputs = {log.dir};
  IndexCache cache;

  SUBCASE("mapped paths: the build does not wait for them, and other roots later keep every analysis") {
    options.pathMappings = {{"/tmp/work/graph_break_dynamic", kFixtures + "/traces/graph_break_dynamic"}};
    IndexOptions late = options;
    std::promise<std::vector<std::string>> roots;
    late.pythonPathsLater = roots.get_future().share();
    // The order of events, not a duration: pythonPathsNeeded is called before anything waits for the roots,
    // so a build that waited would call it before it returns. It answers at once (a build that waits is
    // caught, not hung); otherwise the roots come after the build.
    std::atomic<bool> building{true}, askedWhileBuilding{false}, answered{false};
    auto answer = [&] {
      if (!answered.exchange(true)) roots.set_value({"/nonexistent/site-packages"});
    };
    late.pythonPathsNeeded = [&] {
      if (building) askedWhileBuilding = true;
      answer();
    };
    auto first = Index::build(late, {}, nullptr, &cache);
    building = false;
    CHECK_FALSE(askedWhileBuilding);
    answer();
    REQUIRE(first->stats().compiles == 6);
    CHECK(first->stats().launchesWithOrigin > 0);
    IndexOptions known = options;
    known.pythonPaths = {"/other/site-packages"};
    auto next = Index::build(known, {}, nullptr, &cache);
    CHECK(next->stats().compilesAnalysed == 0);
    CHECK(describe(*next) == describe(*first));
  }
  SUBCASE("unmapped paths: other roots analyse again") {
    options.pythonPaths = {"/nonexistent/site-packages"};
    auto first = Index::build(options, {}, nullptr, &cache);
    REQUIRE(first->stats().compiles == 6);
    auto same = Index::build(options, {}, nullptr, &cache);
    CHECK(same->stats().compilesAnalysed == 0);
    options.pythonPaths = {"/other/site-packages"};
    auto next = Index::build(options, {}, nullptr, &cache);
    CHECK(next->stats().compilesAnalysed == 6);
  }
}

TEST_CASE(
    "IndexCache: the first rank alone (deferRanksOver), then every rank over its cache, is the fresh build") {
  for (const char *name : {"multirank", "ranks_agree", "ranks_diverge"}) {
    CAPTURE(name);
    const std::string trace = kFixtures + "/traces/" + name + "/trace";
    // The rank of each log from its name (`_rank_N_`, as torch/_logging/_internal.py names it).
    std::map<int, std::string> byRank;
    for (const auto &e : fs::directory_iterator(trace)) {
      std::string file = e.path().filename().string();
      size_t at = file.find("_rank_");
      if (at != std::string::npos) byRank[std::stoi(file.substr(at + 6))] = normalizePath(e.path().string());
    }
    REQUIRE(byRank.size() >= 2);
    IndexOptions options;
    options.roots = {kFixtures + "/traces/" + name};
    options.inputs = {trace};
    IndexCache cache;
    options.deferRanksOver = byRank.size() - 1;
    auto first = Index::build(options, {}, nullptr, &cache);
    CHECK(first->stats().ranks == byRank.size());
    CHECK(first->stats().ranksDeferred == byRank.size() - 1);
    CHECK(first->traceFiles() == std::vector<std::string>{byRank.begin()->second});
    REQUIRE_FALSE(first->compiles().empty());
    for (const Compile &c : first->compiles())
      CHECK(c.rank == byRank.begin()->first);
    CHECK(first->stats().profiles + first->stats().runLogs == 0); // Every rank's: read with every rank.

    options.deferRanksOver = 0;
    options.reuseDiscovery = true; // As the server's second build: the first one's discovery and runs.
    auto all = Index::build(options, {}, nullptr, &cache);
    options.reuseDiscovery = false;
    CHECK(cache.lastBuild().discoveryReused);
    CHECK(all->stats().ranksDeferred == 0);
    CHECK(all->stats().ranks == byRank.size());
    CHECK(cache.lastBuild().logsReused == 1);
    CHECK(cache.lastBuild().logsOpened == byRank.size() - 1);
    CHECK(describe(*all) == describe(*Index::build(options)));

    // A log-only document of the highest rank open: that rank is read first.
    IndexCache openCache;
    options.deferRanksOver = 1;
    options.firstDocuments = [&] {
      return std::vector<IndexOptions::FirstDocument>{
          {fs::path(byRank.rbegin()->second).filename().string() + "/1/x-output_code.py", ""}};
    };
    auto open = Index::build(options, {}, nullptr, &openCache);
    options.firstDocuments = {};
    CHECK(open->traceFiles() == std::vector<std::string>{byRank.rbegin()->second});
    CHECK(open->stats().rankRead == byRank.rbegin()->first);
    CHECK(first->stats().rankRead == byRank.begin()->first);

    options.deferRanksOver = byRank.size(); // Not more ranks than that: every rank at once.
    auto whole = Index::build(options);
    CHECK(whole->stats().ranksDeferred == 0);
    CHECK(whole->traceFiles().size() == byRank.size());
    // deferRanksFromBytes: only a run whose logs hold that much in all.
    uintmax_t bytes = 0;
    for (const auto &[rank, path] : byRank)
      bytes += fs::file_size(path);
    options.deferRanksOver = 1;
    options.deferRanksFromBytes = bytes + 1;
    CHECK(Index::build(options)->stats().ranksDeferred == 0);
    options.deferRanksFromBytes = bytes;
    CHECK(Index::build(options)->stats().ranksDeferred == byRank.size() - 1);
  }
}

TEST_CASE(
    "IndexCache: the open document's compile alone (firstDocuments), then every compile over its cache, "
    "is the fresh build") {
  size_t checked = 0;
  for (const auto &caseDir : fs::directory_iterator(kFixtures + "/traces")) {
    const std::string trace = caseDir.path().string() + "/trace";
    if (!fs::is_directory(trace)) continue;
    CAPTURE(trace);
    // The document wanted first: the last output code record of the first log by name, found by its line
    // (torch/_inductor/graph.py logs it as `{"inductor_output_code": ...}`), named as its virtual document.
    std::vector<std::string> logs;
    for (const auto &e : fs::directory_iterator(trace))
      if (e.path().extension() == ".log") logs.push_back(e.path().string());
    std::sort(logs.begin(), logs.end());
    if (logs.empty()) continue;
    std::ifstream in(logs.front());
    std::string text;
    size_t line = 0, outputCodes = 0, wantedLine = 0;
    std::string payload; // The wanted record's payload: its lines that follow, each after a tab.
    bool inWanted = false;
    while (std::getline(in, text)) {
      ++line;
      if (!text.empty() && text.front() == '\t') {
        if (inWanted) payload += text.substr(1) + "\n";
        continue;
      }
      inWanted = false;
      if (text.find("{\"inductor_output_code\": ") != std::string::npos) {
        ++outputCodes;
        wantedLine = line;
        inWanted = true;
        payload.clear();
      }
    }
    if (outputCodes < 2) continue; // Nothing to leave out.
    const std::string prefix =
        fs::path(logs.front()).filename().string() + "/" + std::to_string(wantedLine) + "/";
    IndexOptions options;
    options.roots = {caseDir.path().string()};
    options.inputs = {trace};
    const auto fresh = Index::build(options);
    IndexCache cache;
    options.firstDocuments = [&] {
      return std::vector<IndexOptions::FirstDocument>{{prefix + "whatever-output_code.py", ""}};
    };
    auto first = Index::build(options, {}, nullptr, &cache);
    REQUIRE(first->stats().compilesDeferred > 0);
    CHECK(first->stats().partial());
    CHECK(first->stats().compiles + first->stats().compilesDeferred == fresh->stats().compiles);
    // Only the wanted output code's compile (one, unless a copy shares its record: never here).
    REQUIRE(first->compiles().size() == 1);
    CHECK(first->artifact(first->compiles().front().outputCode).virtualName.rfind(prefix, 0) == 0);
    CHECK(first->stats().profiles + first->stats().runLogs == 0); // The run's figures: with every compile.

    // The same document as a file (a copy of the output code, anywhere): found by its text, with every
    // compile that logged the same text (a recompile, another rank), as Index::matchGeneratedCode finds them.
    options.firstDocuments = [&] {
      return std::vector<IndexOptions::FirstDocument>{{"/elsewhere/c1.py", payload}};
    };
    IndexCache byText;
    auto firstByText = Index::build(options, {}, nullptr, &byText);
    CHECK(firstByText->stats().compilesDeferred <= first->stats().compilesDeferred);
    bool wantedByText = false;
    for (const Compile &c : firstByText->compiles()) {
      const Artifact &code = firstByText->artifact(c.outputCode);
      wantedByText = wantedByText || code.virtualName.rfind(prefix, 0) == 0;
      CHECK(fresh->matchGeneratedCode(payload, false).exact);
    }
    CHECK(wantedByText);
    CHECK(firstByText->compiles().size() == fresh->matchGeneratedCode(payload, false).artifacts.size());

    options.firstDocuments = {};
    options.reuseDiscovery = true; // As the server's second build.
    auto all = Index::build(options, {}, nullptr, &cache);
    CHECK(cache.lastBuild().discoveryReused);
    CHECK(cache.lastBuild().logsReused == first->traceFiles().size()); // The run's (runs_gpt has two).
    CHECK(cache.lastBuild().compilesReused >= 1);
    CHECK_FALSE(all->stats().partial());
    CHECK(describe(*all) == describe(*fresh));

    // deferCompilesFromBytes: only logs that hold that much in all; an unknown document defers nothing.
    uintmax_t bytes = 0;
    for (const std::string &log : first->traceFiles())
      bytes += fs::file_size(log);
    options.reuseDiscovery = false;
    options.firstDocuments = [&] { return std::vector<IndexOptions::FirstDocument>{{prefix + "x.py", ""}}; };
    options.deferCompilesFromBytes = bytes + 1;
    IndexCache other;
    CHECK(Index::build(options, {}, nullptr, &other)->stats().compilesDeferred == 0);
    options.deferCompilesFromBytes = bytes;
    IndexCache again;
    CHECK(Index::build(options, {}, nullptr, &again)->stats().compilesDeferred > 0);
    options.firstDocuments = [&] {
      return std::vector<IndexOptions::FirstDocument>{{"nope.log/1/x.py", ""},
                                                      {"/not/recorded.py", "x = 1\n"}};
    };
    IndexCache none;
    CHECK(Index::build(options, {}, nullptr, &none)->stats().compilesDeferred == 0);
    ++checked;
  }
  CHECK(checked >= 3);
}
