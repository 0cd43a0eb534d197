#include "server/format/Health.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace inductor::server {

std::string formatSeconds(double s) {
  char buf[32];
  if (s >= 10)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s >= 1)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.0f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f µs", s * 1e6);
  return buf;
}

std::string compileIdRange(const index::CompileHealth &health, const std::vector<uint32_t> &compiles) {
  // Per frame (and compiled autograd id), the frame compile ids in order; consecutive ones collapse.
  std::map<std::pair<int, int>, std::set<int>> byFrame;
  std::vector<std::pair<int, int>> order;
  std::set<std::string> other;
  for (uint32_t c : compiles) {
    const index::CompileId &id = health.compiles[c].id;
    if (!id.frameId) continue;
    auto key = std::make_pair(id.compiledAutogradId.value_or(-1), *id.frameId);
    if (!byFrame.count(key)) order.push_back(key);
    byFrame[key].insert(id.frameCompileId.value_or(0));
  }
  std::string out;
  for (const auto &key : order) {
    std::string prefix =
        (key.first >= 0 ? "!" + std::to_string(key.first) + "/" : "") + std::to_string(key.second) + "/";
    const std::set<int> &ids = byFrame[key];
    auto it = ids.begin();
    while (it != ids.end()) {
      int first = *it, last = *it;
      auto next = std::next(it);
      while (next != ids.end() && *next == last + 1) {
        last = *next;
        ++next;
      }
      if (!out.empty()) out += ", ";
      out += prefix + std::to_string(first);
      if (last != first) out += (last == first + 1 ? ", " : "–") + prefix + std::to_string(last);
      it = next;
    }
  }
  return "[" + out + "]";
}

std::optional<double> compileCost(const index::CompileHealth &health, const std::vector<uint32_t> &compiles) {
  std::optional<double> total;
  for (uint32_t c : compiles) {
    const index::FrameCompile &fc = health.compiles[c];
    for (const auto &part : {fc.compileSeconds, fc.backwardSeconds, fc.runtimeSeconds})
      if (part) total = total.value_or(0) + *part;
  }
  return total;
}

std::string functionSummary(const index::CompileHealth &health, const index::CompiledFunction &fn) {
  // Counted per compile id, as the ranges are: the ranks of a job compile the same frames side by side, so a
  // compile id is one compile however many ranks ran it (failed if it failed on any), and its time is the
  // longest rank's, not their sum.
  struct PerId {
    bool failed = false, notCompiled = false, recompile = false;
    size_t breaks = 0;
    std::optional<double> seconds;
  };
  std::map<std::string, PerId> ids;
  std::set<int> ranks;
  for (uint32_t c : fn.compiles) {
    const index::FrameCompile &fc = health.compiles[c];
    PerId &id = ids[fc.id.str()];
    if (fc.rank) ranks.insert(*fc.rank);
    id.failed |= fc.status == index::CompileStatus::Failed;
    id.notCompiled |= fc.status == index::CompileStatus::NotCompiled;
    id.recompile |= fc.recompile;
    size_t breaks = 0;
    for (uint32_t e : fc.events)
      breaks += health.events[e].kind == index::HealthEventKind::GraphBreak;
    id.breaks = std::max(id.breaks, breaks);
    if (auto cost = compileCost(health, {c})) id.seconds = std::max(id.seconds.value_or(0), *cost);
  }
  size_t failed = 0, notCompiled = 0, breaks = 0, recompiles = 0;
  std::optional<double> seconds;
  for (const auto &[name, id] : ids) {
    failed += id.failed;
    notCompiled += id.notCompiled;
    recompiles += id.recompile;
    breaks += id.breaks;
    if (id.seconds) seconds = seconds.value_or(0) + *id.seconds;
  }
  std::string s = compileIdRange(health, fn.compiles) + " " + std::to_string(ids.size()) +
                  (ids.size() == 1 ? " compile" : " compiles");
  if (failed) s += " · " + std::to_string(failed) + " failed";
  if (notCompiled) s += " · " + std::to_string(notCompiled) + " not compiled";
  if (breaks) s += " · " + std::to_string(breaks) + (breaks == 1 ? " graph break" : " graph breaks");
  if (recompiles) s += " · " + std::to_string(recompiles) + (recompiles == 1 ? " recompile" : " recompiles");
  if (seconds) s += " · " + formatSeconds(*seconds);
  if (ranks.size() > 1) s += " · " + std::to_string(ranks.size()) + " ranks";
  return s;
}

std::string compileSummary(const index::CompileHealth &health, uint32_t compile) {
  const index::FrameCompile &c = health.compiles[compile];
  std::string s(index::compileStatusName(c.status));
  if (c.attempts.size() > 1) s += " · " + std::to_string(c.attempts.size()) + " attempts";
  if (auto cost = compileCost(health, {compile})) s += " · " + formatSeconds(*cost);
  if (c.guardCount) s += " · " + std::to_string(*c.guardCount) + " guards";
  if (c.graphOpCount) s += " · " + std::to_string(*c.graphOpCount) + " ops";
  if (c.fxGraphCache != index::CacheOutcome::Unknown)
    s += " · FX graph cache " + std::string(index::cacheOutcomeName(c.fxGraphCache));
  if (c.aotAutogradCache != index::CacheOutcome::Unknown)
    s += " · AOTAutograd cache " + std::string(index::cacheOutcomeName(c.aotAutogradCache));
  return s;
}

std::optional<protocol::Location> placeLocation(TextCache &texts, const index::Index &index,
                                                const index::Origin &place) {
  return placeOrigin(texts, index, place).location;
}

std::string placeLabel(const index::Origin &place) {
  return shortOrigin(place);
}

} // namespace inductor::server
