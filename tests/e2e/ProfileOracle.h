// tests/e2e/ProfileOracle.h: the test's own join of a torch.profiler Chrome trace to output code, written
// from the rules with nlohmann's DOM and none of index/'s code, from which the runtime tests derive
// their expected times.
//
// A device activity (`kernel`, `gpu_memcpy`, `gpu_memset`) is tied through its `External id` to the CPU op of
// that id; the `## Call CompiledFxGraph <key> ##` range around that op (same thread, by time) names the
// output code whose FX graph cache key is <key> (the `fx_graph_cache_miss`/`_hit` artifact logged after it);
// inside the call, the call's direct children in time order align with the launches (the i-th launch takes
// the next child named as the profiler names it: the Triton kernel, `aten::mm` for `extern_kernels.mm`,
// `aten::X` for `torch.ops.aten.X.default`); activities under a child are summed into its launch. Activities
// under no call are eager. With `ProfilerStep#N` ranges, only activities launched inside a step count, per
// step. Times are nanoseconds, rounded from the µs the file prints.
#pragma once

#include "e2e/TraceOracle.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace inductor::e2e {

/// The FX graph cache key of each output code of a log: the key of the first `fx_graph_cache_miss`/`_hit`
/// artifact after it in the same compile. By the output code's envelope line.
std::map<uint32_t, std::string> cacheKeysOf(const std::string &tracePath);

/// The profiler's op name for a launch of `kernel` (see the file comment).
std::string profilerOpName(const std::string &kernel);

struct OracleJoin {
  /// Per cache key: ns of each launch (in the order given), over all calls; and per step.
  std::map<std::string, std::vector<int64_t>> launchNs;
  std::map<std::string, std::vector<std::vector<int64_t>>> launchStepNs;
  /// Launches never found in a call of their compile (per key).
  std::map<std::string, size_t> missed;
  std::map<std::string, size_t> calls;
  int64_t totalNs = 0, eagerNs = 0, otherNs = 0;
  std::vector<std::string> steps;
  std::vector<int64_t> stepNs;
};

/// Joins `profile` (the parsed JSON) to the launches of each output code, given by cache key as kernel names
/// in launch order.
OracleJoin joinByOracle(const json &profile, const std::map<std::string, std::vector<std::string>> &launches);

/// Reads a profile, plain or gzip.
json readProfile(const std::string &path);

} // namespace inductor::e2e
