// server/features/Runs.cpp: the runs of the traces as the views show them (index/files/Runs.h):
// inductor/runs's answer and the runs line of the status readers and explain (server/lsp/Runs.cpp binds the
// request; the runs and the baseline are the workspace's: server/workspace/Runs.cpp).
#include "server/features/InductorRequests.h"

#include <cstdio>

namespace inductor::server {

namespace {

/// "2026-11-27T02:31:04.296625Z", or nullopt for an unknown time.
std::optional<std::string> isoTime(int64_t us) {
  if (us == 0) return std::nullopt;
  std::string s = index::formatUtcSeconds(us);
  s[10] = 'T';
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(((us % 1000000) + 1000000) % 1000000));
  return s + frac + "Z";
}

} // namespace

protocol::RunsResult runsResult(const index::Index &current, const index::Index *baseline) {
  protocol::RunsResult result;
  for (const index::Run &run : current.runs()) {
    protocol::RunEntry e;
    e.id = run.id;
    e.startTime = isoTime(run.startUs);
    e.endTime = isoTime(run.endUs);
    e.ranks = run.ranks;
    e.logs = run.logs;
    e.current = run.id == current.run().id;
    e.baseline = baseline && run.id == baseline->run().id;
    result.runs.push_back(std::move(e));
  }
  return result;
}

std::string runsSummary(const index::Index &current) {
  const std::vector<index::Run> &runs = current.runs();
  if (runs.size() < 2) return {};
  std::string s = "run " + current.run().id + (current.run().id == runs.back().id ? " (the latest; " : " (");
  s += std::to_string(runs.size() - 1) + (runs.size() == 2 ? " other run: " : " other runs: ");
  bool first = true;
  for (const index::Run &run : runs) {
    if (run.id == current.run().id) continue;
    s += (first ? "" : ", ") + run.id;
    first = false;
  }
  return s + ")";
}

} // namespace inductor::server
