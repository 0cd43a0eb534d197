// server/format/Counts.h: the counts of index/model/Counts.h (the one definition of a compile, a graph, a
// kernel, a launch and a problem) as the views write them: inductor/status, inductor/compiles, `explain` and
// the code lenses and hovers of compiled functions.
#pragma once

#include "index/model/Counts.h"
#include "protocol/InductorProtocol.h"

#include <cstdint>
#include <string>
#include <vector>

namespace inductor::server {

/// The title of some compiles (a compiled function's, a frame's): "[8/0–8/4] 5 compiles · 1 failed · 4 graph
/// breaks · 2 recompiles · 2.3 s · all 2 ranks", counted by index::countCompiles. `runRanks`: the ranks of
/// the run (IndexCounts' health.ranks); ranks that all compiled them are said once, "all 4 ranks", some of
/// them "3 of 4 ranks".
std::string compilesTitle(const index::CompileHealth &health, const std::vector<uint32_t> &compiles,
                          size_t runRanks = 0);

/// The counts of a whole index, as inductor/status (`counts`), inductor/compiles (`summary`) and
/// `explain --json` (`counts`) send them: {traces, compiles, graphs, frames, kernels, launches,
/// launchesWithOrigin, problems, graphBreaks, recompiles, failures, ranks}.
protocol::Counts protocolCounts(const index::IndexCounts &counts);
inline protocol::json countsJson(const index::IndexCounts &counts) {
  return protocolCounts(counts);
}

} // namespace inductor::server
