// server/lsp/Status.cpp: the custom request `inductor/status` (protocol::StatusResult), answered at once,
// also while indexing (the status says whether it is); the same object is the `inductor/status` notification
// the server sends while it builds and when it serves an index (Server::sendStatus), which the status bar
// and `:Inductor status` show.
//
//   inductor/status {} -> {indexing, ready, builds, waitingRequests (requests queued until the index is
//   ready), progress {percentage, message} | null, python {interpreter, source, environments, trusted,
//   importRoots, error, kept}, notices [{kind, type, message}] (server/workspace/Notices.h), traces,
//   compiles, kernels, launches, errors, userLines; once an index is served: launchesWithOrigin,
//   corruptedRecords, traceBytes, traceBytesRead, compilesAnalysed, frameCompiles, graphBreaks, recompiles,
//   compileFailures, launchesWithMissingSource, firstMissingSource, profiles, runLogs, counts
//   (server/format/Counts.h)}
// Everything but waitingRequests is the workspace's (Workspace::status()).
#include "server/lsp/Server.h"

namespace inductor::server {

protocol::StatusResult Server::status() const {
  protocol::StatusResult s = workspace_.status();
  std::lock_guard<std::mutex> lock(queueMutex_);
  s.waitingRequests = waiting_.size();
  return s;
}

void Server::sendStatus(bool force) {
  // Made and sent under one lock: a request thread's status made just before the builder served an index
  // (indexing) must not reach the client after the builder's (served), where it would stay the last word.
  std::lock_guard<std::mutex> lock(statusMutex_);
  auto now = std::chrono::steady_clock::now();
  if (!force && now - lastStatus_ < std::chrono::milliseconds(250)) return;
  lastStatus_ = now;
  sendNotification("inductor/status", json(status()));
}

void Server::onStatus(const protocol::NoParams &, Reply reply) {
  // Answered at once, also while indexing: the status says whether it is.
  const Reply answer = std::move(reply);
  answer(json(status()));
}

} // namespace inductor::server
