// Tests for index/files/Runs.h: what a log's head and tail say (times, pid, rank), the grouping rule's edges,
// attribution of debug directories and runtime inputs, selection, and findRuns on the fixtures. Expected
// values are read from the fixtures' own text (first glog prefix, chromium "ts") by the test.
#include "index/files/Discovery.h"
#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/files/Runs.h"
#include "index/model/Index.h"
#include "index/trace/TraceLog.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace inductor::index;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "inductor-runs-XXXXXX").string();
    path = normalizePath(fs::path(::mkdtemp(pattern.data())).string());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string &relative, const std::string &text) const {
    fs::path p = fs::path(path) / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path;
};

constexpr int64_t kSecond = 1'000'000;

LogTimes log(std::string path, std::optional<int> rank, int64_t start, int64_t end, int pid = 1) {
  LogTimes t;
  t.path = std::move(path);
  t.rank = rank;
  t.startUs = start;
  t.endUs = end;
  t.pid = pid;
  return t;
}

/// A TORCH_TRACE record with a chromium_event payload at `ts` (epoch µs) whose prefix says `prefix`.
std::string chromiumRecord(const std::string &prefix, int pid, int64_t ts) {
  return "V" + prefix + " " + std::to_string(pid) +
         " torch/_dynamo/utils.py:2126] {\"chromium_event\": {}, \"frame_id\": 0, \"has_payload\": \"x\"}\n"
         "\t{\n\t\"name\": \"dynamo\",\n\t\"ts\": " +
         std::to_string(ts) + ".5,\n\t\"ph\": \"B\"\n\t}\n";
}

/// The first glog prefix's "ts" (the first chromium_event payload's) of a log, by regex: the oracle.
int64_t firstTs(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::regex ts("\"ts\": ([0-9]+)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, ts)) return std::stoll(m[1]);
  return 0;
}

} // namespace

TEST_CASE("Runs: a log's times come from the chromium ts, its prefixes and the time zone between them") {
  TempDir dir;
  // 2026-11-27 02:31:04.296625 UTC; the prefix is local time two hours ahead (UTC+2).
  int64_t ts = 1795746664296625;
  std::string text = chromiumRecord("1127 04:31:04.296000", 2145, ts) +
                     "V1127 04:31:25.786000 2145 torch/_dynamo/utils.py:1] {\"compilation_metrics\": {}}\n";
  std::string path = dir.write("dedicated_log_torch_trace_rank_3_abc.log", text);
  LogTimes t = readLogTimes(path, ReadPolicy::allowAll());
  CHECK(t.rank == 3);
  CHECK(t.pid == 2145);
  CHECK(t.startUs == ts);
  CHECK(t.localOffsetUs == -2 * 3600 * kSecond);
  CHECK(t.endUs == 1795746685786000);
  CHECK(formatUtcSeconds(t.startUs) == "2026-11-27 02:31:04");
}

TEST_CASE("Runs: a log without chromium events takes its prefix as UTC and the year of its mtime") {
  TempDir dir;
  std::string path = dir.write("x.log", "I0211 16:42:20.419000 2313073 torch/x.py:1] {\"str\": []}\n"
                                        "I0211 16:42:23.802000 2313073 torch/x.py:1] {\"str\": []}\n");
  LogTimes t = readLogTimes(path, ReadPolicy::allowAll());
  CHECK(!t.rank);
  CHECK(t.pid == 2313073);
  std::string id = formatUtcSeconds(t.startUs);
  CHECK(id.substr(4) == "-02-11 16:42:20");
  CHECK(t.endUs - t.startUs == 3383000);
}

TEST_CASE("Runs: the tail of a large log gives its last record") {
  TempDir dir;
  std::string text = chromiumRecord("1127 02:31:04.296000", 7, 1795746664296625);
  std::string filler =
      "V1127 02:31:05.000000 7 torch/x.py:1] {\"artifact\": {}}\n\t" + std::string(200, 'x') + "\n";
  for (int i = 0; i < 1000; ++i)
    text += filler;
  text += "V1127 02:40:00.000000 7 torch/x.py:1] {\"compilation_metrics\": {}}\n\t" + std::string(100, 'y') +
          "\n";
  std::string path = dir.write("big.log", text);
  LogTimes t = readLogTimes(path, ReadPolicy::allowAll());
  CHECK(formatUtcSeconds(t.endUs) == "2026-11-27 02:40:00");
}

TEST_CASE("Runs: grouping edges") {
  int64_t t0 = 1795746664 * kSecond;
  SUBCASE("two logs without rank are two runs, even overlapping") {
    auto runs = groupLogs({log("/a", std::nullopt, t0, t0 + 10 * kSecond),
                           log("/b", std::nullopt, t0 + kSecond, t0 + 5 * kSecond)});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].logs == std::vector<std::string>{"/a"});
    CHECK(runs[0].ranks.empty());
  }
  SUBCASE("two logs of the same rank are never one run") {
    auto runs =
        groupLogs({log("/a", 0, t0, t0 + 10 * kSecond), log("/b", 0, t0 + kSecond, t0 + 5 * kSecond)});
    CHECK(runs.size() == 2);
  }
  SUBCASE("ranks whose spans overlap are one run, listed by rank") {
    auto runs = groupLogs(
        {log("/r1", 1, t0 + 2 * kSecond, t0 + 80 * kSecond, 11), log("/r0", 0, t0, t0 + 6 * kSecond, 10)});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].ranks == std::vector<int>{0, 1});
    CHECK(runs[0].logs == std::vector<std::string>{"/r0", "/r1"});
    CHECK(runs[0].pids == std::vector<int>{10, 11});
    CHECK(runs[0].startUs == t0);
    CHECK(runs[0].endUs == t0 + 80 * kSecond);
    CHECK(runs[0].id == formatUtcSeconds(t0));
  }
  SUBCASE("a rank starting within the window after the others ended joins; later it does not") {
    auto joined = groupLogs(
        {log("/r0", 0, t0, t0 + kSecond), log("/r1", 1, t0 + kSecond + kRankWindowUs, t0 + 200 * kSecond)});
    CHECK(joined.size() == 1);
    auto apart = groupLogs({log("/r0", 0, t0, t0 + kSecond),
                            log("/r1", 1, t0 + 2 * kSecond + kRankWindowUs, t0 + 200 * kSecond)});
    CHECK(apart.size() == 2);
  }
  SUBCASE("a rerun of a two-rank job soon after is a second run of the same ranks") {
    auto runs = groupLogs({log("/a0", 0, t0, t0 + 5 * kSecond), log("/a1", 1, t0 + kSecond, t0 + 5 * kSecond),
                           log("/b0", 0, t0 + 10 * kSecond, t0 + 15 * kSecond),
                           log("/b1", 1, t0 + 11 * kSecond, t0 + 15 * kSecond)});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].logs == std::vector<std::string>{"/a0", "/a1"});
    CHECK(runs[1].logs == std::vector<std::string>{"/b0", "/b1"});
  }
  SUBCASE("a ranked log does not join a run without ranks") {
    auto runs =
        groupLogs({log("/a", std::nullopt, t0, t0 + 5 * kSecond), log("/r0", 0, t0, t0 + 5 * kSecond)});
    CHECK(runs.size() == 2);
  }
  SUBCASE("runs starting in the same second get .2; logs of unknown times join the newest run") {
    auto runs = groupLogs({log("/a", std::nullopt, t0, t0 + 5), log("/b", std::nullopt, t0 + 10, t0 + 20),
                           log("/c", 0, 0, 0), log("/d", 1, 0, 0)});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].id == formatUtcSeconds(t0));
    CHECK(runs[1].id == formatUtcSeconds(t0) + ".2");
    CHECK(runs[0].logs == std::vector<std::string>{"/a"});
    CHECK(runs[1].logs.size() == 3);
  }
  SUBCASE("logs of unknown times alone are one run") {
    auto runs = groupLogs({log("/c", 0, 0, 0), log("/d", std::nullopt, 0, 0)});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].id == "unknown 1");
    CHECK(runs[0].logs.size() == 2);
  }
}

TEST_CASE("Runs: selection by latest, previous, id and path") {
  int64_t t0 = 1795746664 * kSecond;
  auto runs = groupLogs({log("/t/a.log", std::nullopt, t0, t0 + 5 * kSecond),
                         log("/t/b.log", std::nullopt, t0 + 50 * kSecond, t0 + 60 * kSecond)});
  runs[0].debugDirs = {"/d/run_2026_11_27_02_31_04_304173-pid_1"};
  CHECK(selectRun(runs, "latest") == 1u);
  CHECK(selectRun(runs, "") == 1u);
  CHECK(selectRun(runs, "previous") == 0u);
  CHECK(selectRun(runs, runs[0].id) == 0u);
  CHECK(selectRun(runs, "/t/a.log") == 0u);
  CHECK(selectRun(runs, "/d/run_2026_11_27_02_31_04_304173-pid_1/torchinductor/x/output_code.py") == 0u);
  CHECK(!selectRun(runs, "2020-01-01 00:00:00"));
  runs.pop_back();
  CHECK(!selectRun(runs, "previous"));
  CHECK(!selectRun({}, "latest"));
}

TEST_CASE(
    "Runs: a folder holding a run's logs selects it (issue 42), the newest of several; else none, said") {
  int64_t t0 = 1795746664 * kSecond;
  auto runs = groupLogs({log("/t/run1/a.log", 0, t0, t0 + 5 * kSecond),
                         log("/t/run1/b.log", 1, t0 + kSecond, t0 + 5 * kSecond),
                         log("/t/run2/c.log", 0, t0 + 50 * kSecond, t0 + 60 * kSecond)});
  REQUIRE(runs.size() == 2);
  CHECK(selectRun(runs, "/t/run1") == 0u);
  CHECK(selectRun(runs, "/t/run1/") == 0u);
  CHECK(selectRun(runs, "/t/run2") == 1u);
  CHECK(selectRun(runs, "/t") == 1u); // Both runs' logs: the newest.
  CHECK(!selectRun(runs, "/t/run3"));
  CHECK(!selectRun(runs, "/t/run")); // A prefix of a folder's name is no folder.
  std::string why = noRunMatches("/t/run3", runs);
  CHECK(why.rfind("\"/t/run3\" names no run: ", 0) == 0);
  CHECK(why.find("2 runs found: " + runs[0].id + ", " + runs[1].id) != std::string::npos);
  runs.pop_back();
  CHECK(noRunMatches("previous", runs).find("no run before the latest; 1 run found") != std::string::npos);
}

TEST_CASE("Runs: debug directories and run logs go by pid, then by time; ambiguous ones to none") {
  TempDir dir;
  int64_t t0 = 1795746664 * kSecond; // 2026-11-27 02:31:04 UTC
  auto runs = groupLogs({log(dir.path + "/a.log", std::nullopt, t0, t0 + 20 * kSecond, 100),
                         log(dir.path + "/b.log", std::nullopt, t0 + 40 * kSecond, t0 + 70 * kSecond, 200)});
  DiscoveredInputs found;
  auto unit = [&](const std::string &runDir) {
    CompileFiles c;
    c.outputCode = dir.path + "/" + runDir + "/torchinductor/g/output_code.py";
    return c;
  };
  found.compiles = {
      unit("run_2026_11_27_02_31_04_304173-pid_100"), unit("run_2026_11_27_02_31_45_000000-pid_200"),
      unit("run_2026_11_27_02_31_10_000000-pid_999"), unit("run_2026_11_27_09_00_00_000000-pid_999")};
  std::string logA = dir.write("out_a.txt", "W1127 02:31:19.846000 100 torch/_inductor/debug.py:520] x\n");
  std::string logB =
      dir.write("out_b.txt", "see torch_compile_debug/run_2026_11_27_02_31_45_000000-pid_200/x\n");
  std::string logNone = dir.write("out_c.txt", "nothing here\n");
  auto none = attributeInputs(runs, found, {}, {logA, logB, logNone}, ReadPolicy::allowAll());
  CHECK(runs[0].debugDirs == std::vector<std::string>{dir.path + "/run_2026_11_27_02_31_04_304173-pid_100",
                                                      dir.path + "/run_2026_11_27_02_31_10_000000-pid_999"});
  CHECK(runs[1].debugDirs == std::vector<std::string>{dir.path + "/run_2026_11_27_02_31_45_000000-pid_200"});
  CHECK(runs[0].runLogs == std::vector<std::string>{logA});
  CHECK(runs[1].runLogs == std::vector<std::string>{logB});
  std::vector<std::string> left;
  for (const Unattributed &u : none)
    left.push_back(u.path);
  CHECK(left == std::vector<std::string>{dir.path + "/run_2026_11_27_09_00_00_000000-pid_999", logNone});
}

TEST_CASE("Runs: the fixtures' folders") {
  auto runsOf = [](const std::string &relative) {
    IndexOptions o;
    o.inputs = {kFixtures + "/" + relative};
    return findRuns(o);
  };
  SUBCASE("runs_gpt: two runs, ids from each log's first timestamp, each with its own files") {
    auto runs = runsOf("traces/runs_gpt");
    REQUIRE(runs.size() == 2);
    std::vector<std::string> logs;
    for (auto &e : fs::directory_iterator(kFixtures + "/traces/runs_gpt/trace"))
      logs.push_back(e.path().string());
    std::sort(logs.begin(), logs.end(), [](auto &a, auto &b) { return firstTs(a) < firstTs(b); });
    for (size_t i = 0; i < 2; ++i) {
      CAPTURE(i);
      REQUIRE(runs[i].logs.size() == 1);
      CHECK(runs[i].logs[0] == normalizePath(logs[i]));
      CHECK(runs[i].id == formatUtcSeconds(firstTs(logs[i])));
      CHECK(runs[i].ranks.empty());
      REQUIRE(runs[i].debugDirs.size() == 1);
      REQUIRE(runs[i].profiles.size() == 1);
      REQUIRE(runs[i].runLogs.size() == 1);
      // The base run's files are the first's, the new run's the second's (named so in the fixture).
      std::string which = i == 0 ? "base" : "new";
      CHECK(runs[i].debugDirs[0].find("torch_compile_debug_" + which) != std::string::npos);
      CHECK(runs[i].profiles[0].find("profile_" + which) != std::string::npos);
      CHECK(runs[i].runLogs[0].find("run_" + which) != std::string::npos);
    }
    CHECK(runs[0].endUs < runs[1].startUs);
  }
  SUBCASE("one run of several ranks") {
    for (auto [folder, ranks] : {std::pair{"traces/ranks_diverge", 4}, std::pair{"traces/ranks_agree", 4},
                                 std::pair{"traces/multirank", 2}}) {
      std::string name = folder;
      int n = ranks;
      CAPTURE(name);
      auto runs = runsOf(name);
      REQUIRE(runs.size() == 1);
      CHECK(runs[0].ranks.size() == static_cast<size_t>(n));
      CHECK(runs[0].logs.size() == static_cast<size_t>(n));
      CHECK(runs[0].debugDirs.size() == static_cast<size_t>(n == 2 ? 2 : 4));
    }
  }
  SUBCASE("tlparse's messy multi-rank folder: two ranks, one run") {
    auto runs = runsOf("tlparse-inputs/multi_rank_messy_input");
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].ranks == std::vector<int>{0, 1});
  }
}

TEST_CASE("Runs: a debug directory's time and pid out of range are refused, never overflowed") {
  // Issue 43: `run_999999999_12_31_…` made parseDebugRunDir overflow a signed 64-bit value (UBSan), and a
  // pid of ten digits an int; such a name holds no time, and says so.
  TempDir dir;
  int64_t t0 = 1795746664 * kSecond; // 2026-11-27 02:31:04 UTC
  auto runs = groupLogs({log(dir.path + "/a.log", std::nullopt, t0, t0 + 20 * kSecond, 100),
                         log(dir.path + "/b.log", std::nullopt, t0 + 40 * kSecond, t0 + 70 * kSecond, 200)});
  DiscoveredInputs found;
  for (std::string name :
       {"run_999999999_12_31_23_59_59_999999-pid_100", "run_2026_11_27_25_31_04_0-pid_100",
        "run_2026_11_27_02_31_04_0-pid_99999999999", "run_0000_11_27_02_31_04_000000-pid_100"}) {
    CompileFiles c;
    c.outputCode = dir.path + "/" + name + "/torchinductor/g/output_code.py";
    found.compiles.push_back(c);
  }
  auto none = attributeInputs(runs, found, {}, {}, ReadPolicy::allowAll());
  CHECK(runs[0].debugDirs.empty());
  CHECK(runs[1].debugDirs.empty());
  REQUIRE(none.size() == 4);
  for (const Unattributed &u : none)
    CHECK(u.why == "debug directory of no run found (its name holds no valid time and pid: "
                   "run_YYYY_MM_DD_HH_MM_SS_us-pid_P)");
}

TEST_CASE("Runs: a log's rank is read as the index reads it: every digit, negative envelopes too") {
  // Issue 43: ranks of 7+ digits were cut to 6 (so 1000000 and 1000001 were one rank: two runs of one job)
  // and negative envelope ranks dropped (a log without rank: a run of its own), while the index gave the
  // compiles their whole rank.
  TempDir dir;
  std::string record = "V1127 02:31:04.000000 100 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {}, ";
  std::string a = dir.write("dedicated_log_torch_trace_rank_1000000_a.log", record + "\"frame_id\": 0}\n");
  std::string b = dir.write("dedicated_log_torch_trace_rank_1000001_b.log", record + "\"frame_id\": 0}\n");
  std::string c = dir.write("dedicated_log_torch_trace_c.log", record + "\"rank\": -1, \"frame_id\": 0}\n");
  std::string d = dir.write("dedicated_log_torch_trace_d.log", record + "\"rank\": 3, \"frame_id\": 0}\n");
  std::string e =
      dir.write("dedicated_log_torch_trace_rank_12345678901_e.log", record + "\"frame_id\": 0}\n");
  CHECK(readLogTimes(a, ReadPolicy::allowAll()).rank == 1000000);
  CHECK(readLogTimes(b, ReadPolicy::allowAll()).rank == 1000001);
  CHECK(readLogTimes(c, ReadPolicy::allowAll()).rank == -1);
  CHECK(readLogTimes(d, ReadPolicy::allowAll()).rank == 3);
  // Too many digits for an int: no rank from the name (never its first digits).
  CHECK_FALSE(readLogTimes(e, ReadPolicy::allowAll()).rank);
  CHECK(TraceLog::rankFromFileName(a) == 1000000);
  CHECK_FALSE(TraceLog::rankFromFileName(e));
  auto runs = groupLogs({readLogTimes(a, ReadPolicy::allowAll()), readLogTimes(b, ReadPolicy::allowAll()),
                         readLogTimes(c, ReadPolicy::allowAll()), readLogTimes(d, ReadPolicy::allowAll())});
  REQUIRE(runs.size() == 1); // One job of four ranks.
  CHECK(runs[0].ranks == std::vector<int>{-1, 3, 1000000, 1000001});
}
