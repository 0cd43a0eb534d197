// Tests for server/format/RuntimeFormat.h: how durations, shares and tensor statistics read in hints, lenses
// and hovers.
#include "server/format/RuntimeFormat.h"

#include "index/files/PathResolver.h"
#include "index/model/Index.h"
#include "index/runtime/Runtime.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace inductor;
using namespace inductor::server;

TEST_CASE("RuntimeFormat: durations, per step or total, shares") {
  CHECK(formatDuration(850) == "850 ns");
  CHECK(formatDuration(41234) == "41.2 µs");
  CHECK(formatDuration(133000) == "133 µs");
  CHECK(formatDuration(1310000) == "1.31 ms");
  CHECK(formatDuration(2050000000) == "2.05 s");
  index::RuntimeTimes totals;
  CHECK(timeText(totals, 133000) == "133 µs total");
  CHECK(timeBasis(totals) == "totals over the profiled region (no ProfilerStep marks)");
  index::RuntimeTimes steps;
  steps.steps = {"ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5"};
  CHECK(timeText(steps, 399000) == "133 µs/step");
  CHECK(timeBasis(steps) == "per step over 3 steps (ProfilerStep#3 … ProfilerStep#5)");
  CHECK(percentText(9.04) == "9.0%");
  CHECK(percentText(31.6) == "32%");
  CHECK(percentText(0.04) == "<0.1%");
  CHECK(percentText(0) == "0%");
}

TEST_CASE("RuntimeFormat: statistics as the hints show them") {
  CHECK(statNumber(0.0527) == "0.053");
  CHECK(statNumber(-2.1248) == "\u22122.1");
  CHECK(statNumber(1234567.0) == "1.2e+06");
  CHECK(statNumber(NAN) == "NaN");
  CHECK(statNumber(-INFINITY) == "\u2212Inf");
  CHECK(shortDtype("float32") == "f32");
  CHECK(shortDtype("bfloat16") == "bf16");
  CHECK(shortDtype("complex64") == "complex64");
  index::ArgValues buf;
  buf.arg = "buf1";
  buf.output = true;
  index::TensorStats s;
  s.hasShape = true;
  s.shape = {4, 128};
  s.dtype = "float32";
  s.mean = 0.05;
  s.min = -2.1;
  s.max = 1.9;
  buf.after = s;
  CHECK(statsText(buf) == "buf1 4\u00d7128 f32 \u03bc 0.05 [\u22122.1, 1.9]");
  s.mean = NAN;
  buf.after = s;
  CHECK(statsText(buf) == "buf1 4\u00d7128 f32 NaN");
  index::ArgValues scalar;
  scalar.arg = "512L";
  index::TensorStats v;
  v.tensor = false;
  v.value = "512";
  scalar.before = v;
  CHECK(statsText(scalar) == "512L = 512");
  index::LaunchValues values;
  values.args = {scalar, buf};
  CHECK(launchStatsText(values) == "buf1 4\u00d7128 f32 NaN");
  std::string table = statsTable(values);
  CHECK(table.find("| `buf1` (out) | \u2014 | 4\u00d7128 f32 NaN") != std::string::npos);
}

TEST_CASE("RuntimeFormat: while the profile is joined, the lens and hovers say so instead of a time") {
  // Issue 45: the server serves profiled_mlp's index before its profile is joined (deferProfiles). A line's
  // lens and hover and a launch's hover say the time is coming; once joined, they show it.
  index::IndexOptions o;
  o.inputs = {index::normalizePath(INDUCTOR_FIXTURES_DIR) + "/traces/profiled_mlp"};
  o.jobs = 1;
  o.deferProfiles = true;
  index::IndexCache cache;
  auto early = index::Index::build(o, {}, nullptr, &cache);
  o.deferProfiles = false;
  auto joined = index::Index::build(o, {}, nullptr, &cache);
  REQUIRE(early->runtime().times.deferred == 1);
  REQUIRE(joined->runtime().times.deferred == 0);
  CHECK(joiningProfilesText(early->runtime().times) == "joining the profile");
  CHECK(joiningProfilesText(joined->runtime().times).empty());
  size_t checked = 0;
  for (const index::Compile &c : joined->compiles()) {
    for (uint32_t l = 0; l < joined->artifact(c.outputCode).launches.size(); ++l) {
      index::LaunchRef ref{c.outputCode, l};
      if (!index::launchTiming(*joined, ref)) continue;
      // The same compile and launch in the early index (the builds number compiles and artifacts alike).
      std::vector<index::LaunchRef> one{ref};
      CHECK(lensTimeSuffix(*early, one) == " · GPU time: joining the profile");
      CHECK(launchTimeMarkdown(*early, ref) == "\n\n**GPU time** joining the profile…");
      CHECK(userLineTimeMarkdown(*early, one) == "\n\n**GPU time** joining the profile…");
      CHECK(lensTimeSuffix(*joined, one).find(" µs") != std::string::npos);
      CHECK(launchTimeMarkdown(*joined, ref).find("of all device time") != std::string::npos);
      ++checked;
    }
  }
  CHECK(checked > 0);
  // A line with no launches says nothing either way.
  CHECK(lensTimeSuffix(*early, {}).empty());
}
