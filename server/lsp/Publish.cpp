// server/lsp/Publish.cpp: diagnostics pushed to clients that do not pull them
// (textDocument/publishDiagnostics), and the refresh asked of those that do. What a document's diagnostics
// are: server/features/Diagnostics.cpp.
#include "server/features/Features.h"
#include "server/lsp/Server.h"

#include <set>

namespace inductor::server {

void Server::publishDiagnostics(const index::Index &index, const std::vector<std::string> &uris) {
  if (capabilities_.diagnosticPull) return;
  std::lock_guard<std::mutex> lock(publishedMutex_);
  TextCache texts(documents(), index);
  std::shared_ptr<const index::Index> base =
      workspace_.baselineIndex(); // Null until the baseline run is indexed.
  const index::Index *compared = comparedBaseline(index, base.get());
  for (const std::string &uri : uris) {
    protocol::PublishDiagnosticsParams p;
    p.uri = uri;
    p.diagnostics = documentDiagnostics(index, texts, uri, compared);
    if (p.diagnostics.empty() && !publishedUris_.count(uri)) continue;
    if (p.diagnostics.empty())
      publishedUris_.erase(uri);
    else
      publishedUris_.insert(uri);
    sendNotification("textDocument/publishDiagnostics", json(p));
  }
}

void Server::publishAllDiagnostics(const index::Index &index) {
  if (capabilities_.diagnosticPull) {
    if (capabilities_.diagnosticRefreshSupport) sendRequest("workspace/diagnostic/refresh", nullptr);
    return;
  }
  std::set<std::string> uris;
  {
    TextCache texts(documents(), index);
    for (const std::string &uri : reportedUris(index, texts))
      uris.insert(uri);
  }
  {
    std::lock_guard<std::mutex> lock(docsMutex_);
    for (const auto &entry : docs_)
      uris.insert(entry.first);
  }
  {
    std::lock_guard<std::mutex> lock(publishedMutex_);
    uris.insert(publishedUris_.begin(), publishedUris_.end());
  }
  publishDiagnostics(index, std::vector<std::string>(uris.begin(), uris.end()));
}

} // namespace inductor::server
