// server/Status.cpp: the custom request `inductor/status` (protocol::StatusResult), answered at once, also
// while indexing (the status says whether it is); the same object is the `inductor/status` notification
// the server sends while it builds and when it serves an index (Server::sendStatus), which the status bar
// and `:Inductor status` show.
//
//   inductor/status {} -> {indexing, ready, builds, waitingRequests (requests queued until the index is
//   ready), progress {percentage, message} | null, python {interpreter, source, environments, trusted,
//   importRoots, error, kept}, notices [{kind, type, message}] (server/Notices.h), traces, compiles, kernels,
//   launches, errors, userLines; once an index is served: launchesWithOrigin, corruptedRecords, traceBytes,
//   traceBytesRead, compilesAnalysed, frameCompiles, graphBreaks, recompiles, compileFailures,
//   launchesWithMissingSource, firstMissingSource, profiles, runLogs, counts (server/Counts.h)}
#include "server/Counts.h"
#include "server/Server.h"

namespace inductor::server {

json Server::statusJson() const {
  protocol::StatusResult s;
  std::lock_guard<std::mutex> lock(indexMutex_);
  s.indexing = indexing_;
  {
    std::lock_guard<std::mutex> py(pythonMutex_);
    s.python.interpreter = python_.interpreter;
    s.python.source = python_.source;
    for (const StaticEnvironment &e : python_.environments)
      s.python.environments.push_back({e.prefix, e.source, e.importRoots});
    s.python.trusted = trusted_;
    s.python.importRoots = python_.importRoots;
    s.python.error = python_.error;
    s.python.kept = python_.kept;
  }
  s.waitingRequests = waiting_.size() + waitingForProfiles_.size();
  s.builds = builds_;
  if (indexing_) s.progress = protocol::BuildProgress{progressPercent_, progressMessage_};
  s.ready = index_ != nullptr;
  for (const json &n : notices_) // As Server::publishNotices keeps them.
    s.notices.push_back({n.value("kind", ""), n.value("type", 3), n.value("message", "")});
  if (index_) {
    index::IndexStats st = index_->stats();
    // The counts every view shows (index/model/Counts.h): a client reading the top level (Neovim's
    // :checkhealth, an older status bar) says what one reading `counts` says.
    std::shared_ptr<const index::IndexCounts> counts = index::countsOf(*index_);
    s.traces = counts->traces;
    s.compiles = counts->compiles;
    s.kernels = counts->kernels;
    s.launches = counts->launches;
    s.errors = st.errors;
    s.userLines = st.userLines;
    protocol::StatusServed &served = s.served.emplace();
    served.launchesWithOrigin = st.launchesWithOrigin;
    served.corruptedRecords = st.corruptedRecords;
    // The work of the last build: an incremental one reads only what was appended.
    served.traceBytes = st.traceBytes;
    served.traceBytesRead = st.traceBytesRead;
    served.compilesAnalysed = st.compilesAnalysed;
    // Compile health: every Dynamo compile (with or without output code) and its events.
    served.frameCompiles = st.frameCompiles;
    served.graphBreaks = st.graphBreaks;
    served.recompiles = st.recompiles;
    served.compileFailures = st.compileFailures;
    served.launchesWithMissingSource = st.launchesWithMissingSource;
    if (!st.firstMissingSource.empty()) served.firstMissingSource = st.firstMissingSource;
    served.profiles = st.profiles;
    served.runLogs = st.runLogs;
    served.counts = protocolCounts(*counts);
    served.problemLines = counts->problemLines;
    served.rankDivergences = counts->rankDivergences;
    if (!index_->run().id.empty()) s.run = index_->run().id;
    s.otherRuns = index_->runs().empty() ? 0 : index_->runs().size() - 1;
    if (baseline_ && baseline_->run().id != index_->run().id) s.baseline = baseline_->run().id;
  }
  return json(s);
}

void Server::onStatus(const protocol::NoParams &, Reply reply) {
  // Answered at once, also while indexing: the status says whether it is.
  const Reply answer = std::move(reply);
  answer(statusJson());
}

} // namespace inductor::server
