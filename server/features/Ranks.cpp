// server/features/Ranks.cpp: the custom request `inductor/ranks`, where the ranks of a distributed run
// diverge.
//
//   inductor/ranks {run?} -> {count, divergences: [{kind, ranks, of, compileId, file, line, message,
//   detail}]} (protocol::RanksParams -> protocol::RanksResult; built by ranksResult(), which explain --json
//   writes as `ranks`). kind: "recompile", "graph break", "failure", "different code", "collective schedule",
//   "missing compile", "cache"; file: the local absolute path of the user line that caused it (null when
//   unknown); line: 1-based, as recorded. Each divergence once (index/model/Ranks.h says how they are found).
// `run` names the run to compare; the served index is one run, which is answered whatever `run` says.
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/format/WireEnums.h"

#include "index/model/Ranks.h"

namespace inductor::server {

protocol::RanksResult ranksResult(const index::Index &index) {
  const index::RankReport &report = index.ranks();
  protocol::RanksResult out;
  out.count = report.ranks.size();
  for (const index::RankDivergence &d : report.divergences) {
    protocol::RankDivergenceEntry &e = out.divergences.emplace_back();
    e.kind = wireEnum(d.kind);
    e.ranks.assign(d.ranks.begin(), d.ranks.end());
    e.of = d.of;
    e.compileId = d.compileId;
    if (d.at) {
      e.file = d.at->path;
      e.line = d.at->line;
    }
    e.message = d.message;
    e.detail = d.detail;
  }
  return out;
}

protocol::RanksResult ranks(const FeatureContext &ctx, const protocol::RanksParams &) {
  return ranksResult(ctx.index);
}

} // namespace inductor::server
