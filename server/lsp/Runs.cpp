// server/lsp/Runs.cpp: requests that read two runs: withRuns (the current run and its baseline, for
// inductor/compare and inductor/runs), withIndexFor (a document of an earlier run answered from that run's
// index) and inductor/runs. The runs and the baseline are the workspace's (server/workspace/Runs.cpp).
//
//   inductor/runs {} -> {runs: [{id, startTime, endTime, ranks, logs, current, baseline}]} (oldest first)
#include "protocol/URI.h"
#include "server/features/InductorRequests.h"
#include "server/lsp/Server.h"

namespace inductor::server {

void Server::withRuns(
    Reply reply,
    std::function<void(const index::Index &current, const index::Index *baseline, const Reply &)> task) {
  withIndex(std::move(reply), [this, task = std::move(task)](const index::Index &current, const Reply &r) {
    std::shared_ptr<const index::Index> baseline = workspace_.baselineIndex(); // Held until the task returns.
    // A baseline kept from another current run that is now the current one compares nothing.
    if (baseline && baseline->run().id == current.run().id) baseline = nullptr;
    task(current, baseline.get(), r);
  });
}

bool holds(const index::Index &index, const std::string &uri) {
  if (auto path = protocol::filePath(uri)) return index.findByPath(*path).has_value();
  auto parsed = protocol::parseURI(uri);
  if (!parsed || parsed->scheme != "inductor-trace" || parsed->path.size() < 2) return false;
  return index.findByVirtualName(std::string_view(parsed->path).substr(1)).has_value();
}

void Server::withIndexFor(const std::string &uri, Reply reply,
                          std::function<void(const index::Index &, const Reply &)> task, bool navigation) {
  Needs needs;
  if (navigation) needs.navigatesIn = uri;
  withIndex(
      std::move(reply),
      [this, uri, task = std::move(task)](const index::Index &current, const Reply &r) {
        // Output code or a graph of the baseline run navigates within its own run; anything else (user files
        // included) is answered from the current run.
        std::shared_ptr<const index::Index> baseline = workspace_.baselineIndex();
        if (baseline && baseline->run().id != current.run().id && !holds(current, uri) &&
            holds(*baseline, uri))
          return task(*baseline, r);
        if (auto path = protocol::filePath(uri); path && current.runs().size() > 1 && !holds(current, uri))
          if (auto other = workspace_.otherRunIndex(current, *path); other && holds(*other, uri))
            return task(*other, r);
        task(current, r);
      },
      std::move(needs));
}

void Server::onRuns(const protocol::NoParams &, Reply reply) {
  withRuns(std::move(reply), [](const index::Index &current, const index::Index *baseline, const Reply &r) {
    r(json(runsResult(current, baseline)));
  });
}

} // namespace inductor::server
