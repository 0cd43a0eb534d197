#include "server/Counts.h"

#include "server/Health.h"

namespace inductor::server {

std::string compilesTitle(const index::CompileHealth &health, const std::vector<uint32_t> &compiles) {
  index::CompileCounts counts = index::countCompiles(health, compiles);
  std::string s = compileIdRange(health, compiles) + " " + counts.text();
  if (counts.seconds) s += " · " + formatSeconds(*counts.seconds);
  if (counts.ranks > 1) s += " · " + index::countText(counts.ranks, "rank");
  return s;
}

protocol::json countsJson(const index::IndexCounts &c) {
  return protocol::json{{"traces", c.traces},
                        {"compiles", c.compiles},
                        {"graphs", c.graphs},
                        {"frames", c.health.frames},
                        {"kernels", c.kernels},
                        {"launches", c.launches},
                        {"launchesWithOrigin", c.launchesWithOrigin},
                        {"problems", c.problems()},
                        {"graphBreaks", c.health.graphBreaks},
                        {"recompiles", c.health.recompiles},
                        {"failures", c.health.failures},
                        {"ranks", c.health.ranks}};
}

} // namespace inductor::server
