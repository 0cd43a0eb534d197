#include "server/format/Counts.h"

#include "server/format/Health.h"

namespace inductor::server {

std::string compilesTitle(const index::CompileHealth &health, const std::vector<uint32_t> &compiles,
                          size_t runRanks) {
  index::CompileCounts counts = index::countCompiles(health, compiles);
  std::string s = compileIdRange(health, compiles) + " " + counts.text();
  if (counts.seconds) s += " · " + formatSeconds(*counts.seconds);
  if (counts.ranks > 1 && counts.ranks == runRanks)
    s += " · all " + index::countText(counts.ranks, "rank");
  else if (counts.ranks > 1 && counts.ranks < runRanks)
    s += " · " + std::to_string(counts.ranks) + " of " + index::countText(runRanks, "rank");
  else if (counts.ranks > 1)
    s += " · " + index::countText(counts.ranks, "rank");
  return s;
}

protocol::Counts protocolCounts(const index::IndexCounts &c) {
  protocol::Counts out;
  out.traces = c.traces;
  out.compiles = c.compiles;
  out.graphs = c.graphs;
  out.frames = c.health.frames;
  out.kernels = c.kernels;
  out.launches = c.launches;
  out.launchesWithOrigin = c.launchesWithOrigin;
  out.problems = c.problems();
  out.graphBreaks = c.health.graphBreaks;
  out.recompiles = c.health.recompiles;
  out.failures = c.health.failures;
  out.ranks = c.health.ranks;
  return out;
}

} // namespace inductor::server
