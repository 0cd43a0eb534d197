// Tests for server/RuntimeFormat.h: how durations, shares and tensor statistics read in hints, lenses and
// hovers.
#include "server/RuntimeFormat.h"

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
