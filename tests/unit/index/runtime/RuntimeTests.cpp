// Tests for index/runtime/Runtime.h: the runtime step of Index::build on the real fixtures. Which profiles
// and run logs are found (beside the traces, under the roots, named by the options) and which are refused
// (ReadPolicy); times per launch, compile and line; several runs in one workspace; damaged inputs; reuse
// across incremental builds.
#include "index/files/PathResolver.h"
#include "index/model/Index.h"
#include "index/runtime/Runtime.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

const std::string kTraces = normalizePath(INDUCTOR_FIXTURES_DIR) + "/traces";
const std::string kMlp = kTraces + "/profiled_mlp";

std::shared_ptr<const Index> build(IndexOptions options, IndexCache *cache = nullptr) {
  options.jobs = 2;
  return Index::build(options, {}, nullptr, cache);
}

bool hasDiagnostic(const Index &index, const std::string &needle) {
  for (const IndexDiagnostic &d : index.diagnostics())
    if (d.message.find(needle) != std::string::npos) return true;
  return false;
}

size_t timedLaunches(const Index &index) {
  size_t n = 0;
  for (const Compile &c : index.compiles())
    for (uint32_t l = 0; l < index.artifact(c.outputCode).launches.size(); ++l)
      n += launchTiming(index, {c.outputCode, l}) != nullptr;
  return n;
}

} // namespace

TEST_CASE("Runtime: profiled_mlp — the profile under the root is joined to every launch") {
  IndexOptions o;
  o.inputs = {kMlp};
  auto index = build(o);
  const RuntimeData &rt = index->runtime();
  REQUIRE(rt.times.profiles.size() == 1);
  CHECK(rt.times.profiles[0].path == kMlp + "/profile.json");
  CHECK(index->stats().profiles == 1);
  CHECK(timedLaunches(*index) == index->stats().launches);
  CHECK(rt.times.caveats.empty());
  CHECK(!rt.times.stepsMarked());
  // Six user lines with a timed launch.
  size_t timedLines = 0;
  for (const std::string &path : index->userFiles())
    for (const UserLine &ul : index->userLines(path))
      timedLines += timeOfLaunches(*index, ul.launches).timed();
  CHECK(timedLines == 6);
  CHECK(rt.times.eagerNs > 0);
  uint64_t compiled = 0;
  for (uint32_t c = 0; c < index->compiles().size(); ++c) {
    const CompileTiming *t = compileTiming(*index, {c});
    REQUIRE(t);
    CHECK(t->calls == 3);
    CHECK(t->launchesMissed == 0);
    compiled += t->ns;
    uint64_t launches = 0;
    const Artifact &a = index->artifact(index->compiles()[c].outputCode);
    for (uint32_t l = 0; l < a.launches.size(); ++l)
      launches += launchTiming(*index, {index->compiles()[c].outputCode, l})->ns;
    CHECK(launches + t->otherNs == t->ns);
  }
  CHECK(compiled + rt.times.eagerNs == rt.times.totalNs);
  // A user line's time: each of its launches once, whatever their order or repetition.
  std::vector<LaunchRef> launches = index->launchesForLine(kMlp + "/model.py", 17);
  LaunchesTiming line = timeOfLaunches(*index, launches);
  CHECK(line.launches == 10);
  CHECK(line.timedLaunches == 10);
  CHECK(line.byKind.size() == 2);
  std::vector<LaunchRef> twice = launches;
  twice.insert(twice.end(), launches.rbegin(), launches.rend());
  LaunchesTiming again = timeOfLaunches(*index, twice);
  CHECK(again.ns == line.ns);
  CHECK(again.timedLaunches == line.timedLaunches);
  CHECK(again.byKind == line.byKind);
  CHECK(again.perStep == line.perStep);
  uint64_t sum = 0, byCompile = 0;
  for (LaunchRef r : launches)
    sum += launchTiming(*index, r)->ns;
  for (const auto &[c, ns] : line.byCompile)
    byCompile += ns;
  CHECK(line.ns == sum);
  CHECK(byCompile == sum);
  CHECK(rt.runLogs.empty()); // run.log holds no printer output.
  CHECK(rt.diagnostics.empty());
}

TEST_CASE("Runtime: beside the traces, named by the options, refused outside the roots") {
  SUBCASE("a trace directory input with the case as root: the profile beside it is read") {
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    o.roots = {kMlp};
    CHECK(build(o)->runtime().times.profiles.size() == 1);
  }
  SUBCASE("outside every root: not read") {
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    CHECK(build(o)->runtime().times.profiles.empty());
  }
  SUBCASE("named by `profiles`: read") {
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    o.profiles = {kMlp + "/profile.json"};
    auto index = build(o);
    CHECK(index->runtime().times.profiles.size() == 1);
    CHECK(timedLaunches(*index) == 29);
  }
  SUBCASE("named but missing, or not a profile: said so") {
    TempDir t;
    std::string notes = t.write("notes.json", R"({"hello": 1})");
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    o.profiles = {t.path + "/missing.json", notes};
    o.runLogs = {notes};
    auto index = build(o);
    CHECK(index->runtime().times.profiles.empty());
    CHECK(hasDiagnostic(*index, "profile not found"));
    CHECK(hasDiagnostic(*index, "not a profiler trace"));
    CHECK(hasDiagnostic(*index, "no output of the intermediate value debug printer"));
  }
  SUBCASE("a CPU-only profile: no GPU time shown, and said so") {
    TempDir t;
    std::string cpu = t.write("cpu.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
        "pid": 1, "tid": 1, "ts": 1.0, "dur": 5.0, "args": {"External id": 1}}]})");
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    o.profiles = {cpu};
    auto index = build(o);
    CHECK(!index->runtime().times.present());
    CHECK(hasDiagnostic(*index, "profile has no GPU activity"));
  }
  SUBCASE("a folder named by `profiles`: every JSON profile in it, whatever its name") {
    TempDir t;
    fs::copy_file(kMlp + "/profile.json", t.path + "/run7.json");
    IndexOptions o;
    o.inputs = {kMlp + "/trace"};
    o.profiles = {t.path};
    CHECK(build(o)->runtime().times.profiles.size() == 1);
  }
}

TEST_CASE("Runtime: a damaged profile gives what it holds and says so") {
  TempDir t;
  std::string text = readFile(kMlp + "/profile.json");
  // Cut inside the event after the last kernel (Kineto writes the device activities last).
  size_t cut = text.find("\n  {", text.rfind("\"cat\": \"kernel\"")) + 20;
  REQUIRE(cut < text.size());
  std::string profile = t.write("profile.json", text.substr(0, cut));
  IndexOptions o;
  o.inputs = {kMlp + "/trace"};
  o.profiles = {profile};
  auto index = build(o);
  const RuntimeTimes &times = index->runtime().times;
  REQUIRE(times.profiles.size() == 1);
  CHECK(times.profiles[0].truncated);
  CHECK(hasDiagnostic(*index, "profile read in part"));
  REQUIRE(!times.caveats.empty());
  CHECK(times.caveats[0].find("read only in part") != std::string::npos);
  CHECK(times.totalNs > 0);
}

TEST_CASE("Runtime: the printer's run logs of several runs in one workspace map to their own compiles") {
  // Two runs (index/files/Runs.h): an index is of one of them, with that run's run log only, whose NaN is
  // found in its own output code (jit_printer and cppwrap_printer share kernel names).
  for (const char *which : {"previous", "latest"}) {
    CAPTURE(which);
    IndexOptions o;
    o.inputs = {kTraces + "/jit_printer", kTraces + "/cppwrap_printer"};
    o.run = which;
    auto index = build(o);
    REQUIRE(index->runs().size() == 2);
    REQUIRE(index->run().logs.size() == 1);
    std::string folder = index->run().logs[0].find("/jit_printer/") != std::string::npos
                             ? "/jit_printer/"
                             : "/cppwrap_printer/";
    const RuntimeData &rt = index->runtime();
    std::map<std::string, size_t> userErrors;
    for (const RuntimeDiagnostic &d : rt.diagnostics)
      if (!d.location.artifact.valid() && d.code == "first-nan") ++userErrors[d.location.path];
    CHECK(userErrors.size() == 1);
    CHECK(userErrors[kTraces + folder + "model.py"] == 1);
    for (const RuntimeDiagnostic &d : rt.diagnostics) {
      if (!d.location.artifact.valid()) continue;
      const Compile *c = index->compileOf(d.location.artifact);
      REQUIRE(c);
      CHECK(c->traceFile.find(folder) != std::string::npos);
    }
    size_t logs = 0;
    for (const RunLogInfo &r : rt.runLogs)
      logs += r.records > 0;
    CHECK(logs == 1);
  }
}

TEST_CASE("Runtime: the first NaN of jit_printer is an Error on its launch and on model.py:16") {
  IndexOptions o;
  o.inputs = {kTraces + "/jit_printer"};
  auto index = build(o);
  const RuntimeData &rt = index->runtime();
  REQUIRE(rt.diagnostics.size() == 2);
  const RuntimeDiagnostic &launch = rt.diagnostics[0];
  CHECK(launch.severity == RuntimeDiagnostic::Severity::Error);
  CHECK(launch.location.artifact.valid());
  REQUIRE(launch.location.launch != UINT32_MAX);
  const Launch &l = index->launch({launch.location.artifact, launch.location.launch});
  CHECK(l.site.kernel == "triton_poi_fused_addmm_log_relu_sub_0");
  CHECK(launch.message.rfind(
            "first NaN: triton_poi_fused_addmm_log_relu_sub_0:2 ← model.py:16 h = torch.log(h - 0.5)", 0) ==
        0);
  // The fused kernel came from lines 15 and 16; only 16 computes an op that makes NaN from finite values.
  REQUIRE(launch.related.size() == 1);
  CHECK(launch.related[0].first.line == 15);
  const RuntimeDiagnostic &user = rt.diagnostics[1];
  CHECK(user.location.path == kTraces + "/jit_printer/model.py");
  CHECK(user.location.line == 15);
  const LaunchValues *v = launchValues(*index, {launch.location.artifact, launch.location.launch});
  REQUIRE(v);
  CHECK(v->calls == 1);
  CHECK(v->nonFiniteCalls == 1);
  REQUIRE(!v->args.empty());
  CHECK(v->args[0].arg == "buf1");
  CHECK(v->args[0].output);
  CHECK(v->args[0].after->hasNan());
  CHECK(!v->args[0].before->nonFinite());
}

TEST_CASE("Runtime: an incremental build reuses an unchanged profile's join") {
  IndexCache cache;
  IndexOptions o;
  o.inputs = {kMlp};
  auto first = build(o, &cache);
  CHECK(cache.lastBuild().profilesRead == 1);
  auto second = build(o, &cache);
  CHECK(cache.lastBuild().profilesRead == 0);
  CHECK(cache.lastBuild().profilesReused == 1);
  CHECK(second->runtime().times.totalNs == first->runtime().times.totalNs);
  CHECK(timedLaunches(*second) == timedLaunches(*first));
  cache.clear();
  build(o, &cache);
  CHECK(cache.lastBuild().profilesRead == 1);
}

TEST_CASE("Runtime: deferProfiles serves the index without reading a profile; the next build joins it") {
  // Issue 45: navigation never waits for a profile. The index without it says how many profiles wait and
  // has no time at all (not zeros); the build after it, over the same cache, reads and joins them.
  IndexOptions o;
  o.inputs = {kMlp};
  auto whole = build(o);
  REQUIRE(timedLaunches(*whole) > 0);
  IndexCache cache;
  o.deferProfiles = true;
  auto early = build(o, &cache);
  CHECK(early->runtime().times.deferred == 1);
  CHECK(!early->runtime().times.present());
  CHECK(timedLaunches(*early) == 0);
  CHECK(cache.lastBuild().profilesRead == 0);
  CHECK(early->stats().launches == whole->stats().launches); // Navigation is all there.
  o.deferProfiles = false;
  auto joined = build(o, &cache);
  CHECK(joined->runtime().times.deferred == 0);
  CHECK(cache.lastBuild().profilesRead == 1);
  CHECK(cache.lastBuild().logsReused == 1);
  CHECK(joined->runtime().times.totalNs == whole->runtime().times.totalNs);
  CHECK(timedLaunches(*joined) == timedLaunches(*whole));
  // A profile the cache holds is not deferred: an incremental build keeps its times.
  o.deferProfiles = true;
  auto again = build(o, &cache);
  CHECK(again->runtime().times.deferred == 0);
  CHECK(timedLaunches(*again) == timedLaunches(*whole));
}

TEST_CASE("Runtime: a growing log joins the kept profile again without reading it again") {
  // A trace being written rebuilds about once a second; the profile beside it did not change and must not
  // be read (inflated, parsed) again each time, only joined to the compiles the log gained.
  TempDir dir;
  fs::copy(kMlp, dir.path, fs::copy_options::recursive);
  IndexCache cache;
  IndexOptions o;
  o.inputs = {normalizePath(dir.path)};
  auto first = build(o, &cache);
  CHECK(cache.lastBuild().profilesRead == 1);
  std::string log;
  for (const auto &e : fs::directory_iterator(dir.path + "/trace"))
    log = e.path().string();
  REQUIRE(!log.empty());
  // The log's records again, as frame 9: new compiles (with their output code), the same profile.
  std::string text = readFile(log);
  for (size_t at = 0; (at = text.find("\"frame_id\": 0,", at)) != std::string::npos;)
    text.replace(at, 14, "\"frame_id\": 9,");
  std::ofstream(log, std::ios::app) << text;
  auto second = build(o, &cache);
  CHECK(second->compiles().size() > first->compiles().size());
  CHECK(cache.lastBuild().profilesRead == 0);
  CHECK(cache.lastBuild().profilesReused == 0);
  CHECK(cache.lastBuild().profilesRejoined == 1);
  CHECK(second->runtime().times.totalNs == first->runtime().times.totalNs);
  CHECK(timedLaunches(*second) == timedLaunches(*first));
}

TEST_CASE("runtime: FIFOs named as a profile and a run log are reported and skipped, the build ends") {
  // Finding 3 of issue 33: `profiles`/`runLogs` naming a FIFO made the build wait for a writer for ever.
  TempDir t;
  const std::string profile = t.path + "/profile.json", runLog = t.path + "/run.log";
  REQUIRE(::mkfifo(profile.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(runLog.c_str(), 0600) == 0);
  IndexOptions o;
  o.inputs = {kMlp + "/trace"};
  o.profiles = {profile};
  o.runLogs = {runLog};
  std::shared_ptr<const Index> index;
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> built = done->get_future();
  std::thread builder([&, done] {
    index = build(o);
    done->set_value();
  });
  // A guard so that the code before the fix fails instead of hanging the suite: after a minute the FIFOs'
  // write ends are opened (where a reader waits, that succeeds), which releases a blocked open, until the
  // build ends.
  if (built.wait_for(std::chrono::minutes(1)) != std::future_status::ready) {
    FAIL_CHECK("the build blocked on a FIFO");
    do {
      for (const std::string &f : {profile, runLog})
        if (int w = ::open(f.c_str(), O_WRONLY | O_NONBLOCK); w >= 0) ::close(w);
    } while (built.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready);
  }
  builder.join();
  REQUIRE(index);
  CHECK(index->compiles().size() > 0); // The rest is served.
  CHECK(hasDiagnostic(*index, "profile not read: not a regular file (a FIFO)"));
  CHECK(hasDiagnostic(*index, "run log not read: not a regular file (a FIFO)"));
}
