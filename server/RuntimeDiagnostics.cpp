// server/RuntimeDiagnostics.cpp: runtime findings as LSP diagnostics (see RuntimeFeatures.h), and a minimal
// push publisher for them: textDocument/publishDiagnostics for a document when it opens and for every open
// document when an index is ready. FIXME(issue 9): the compile-health diagnostics publisher (push and pull)
// takes runtimeDiagnostics() in, and this publisher goes.
#include "server/RuntimeFeatures.h"

#include "index/Runtime.h"
#include "protocol/URI.h"
#include "server/Server.h"

#include <filesystem>

namespace inductor::server {

namespace {

protocol::Location toLocation(const index::Index &index, TextCache &texts, const index::RuntimeLocation &l) {
  if (l.artifact.valid()) {
    if (l.launch != UINT32_MAX && l.launch < index.artifact(l.artifact).launches.size())
      return launchLocation(texts, index, {l.artifact, l.launch});
    protocol::Location loc;
    loc.uri = texts.uriOf(index, l.artifact);
    loc.range = texts.lineRange(loc.uri, l.line);
    return loc;
  }
  index::Origin o;
  o.path = l.path;
  o.line = l.line + 1;
  std::error_code ec;
  o.exists = std::filesystem::exists(l.path, ec);
  return originLocation(texts, o);
}

protocol::DiagnosticSeverity severityOf(index::RuntimeDiagnostic::Severity s) {
  switch (s) {
  case index::RuntimeDiagnostic::Severity::Error:
    return protocol::DiagnosticSeverity::Error;
  case index::RuntimeDiagnostic::Severity::Warning:
    return protocol::DiagnosticSeverity::Warning;
  case index::RuntimeDiagnostic::Severity::Information:
    break;
  }
  return protocol::DiagnosticSeverity::Information;
}

} // namespace

std::vector<protocol::Diagnostic> runtimeDiagnostics(const index::Index &index, TextCache &texts,
                                                     const std::string &uri) {
  std::vector<protocol::Diagnostic> out;
  Target target = resolveTarget(index, uri);
  if (target.kind == Target::Kind::None) return out;
  if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, uri);
  std::string path = target.kind == Target::Kind::UserFile ? target.path : std::string();
  for (const index::RuntimeDiagnostic *d : index::runtimeDiagnosticsIn(index, path, target.all)) {
    protocol::Diagnostic diag;
    index::RuntimeLocation here = d->location;
    // A diagnostic found on another copy of this text is shown here.
    if (here.artifact.valid()) here.artifact = target.artifact;
    diag.range = toLocation(index, texts, here).range;
    diag.severity = severityOf(d->severity);
    diag.code = d->code;
    diag.source = "inductor-ls";
    diag.message = d->message;
    for (const auto &[loc, message] : d->related)
      diag.relatedInformation.push_back({toLocation(index, texts, loc), message});
    out.push_back(std::move(diag));
  }
  return out;
}

void Server::publishRuntimeDiagnostics(const index::Index &index, const std::vector<std::string> &uris) {
  std::lock_guard<std::mutex> lock(runtimePublishMutex_);
  TextCache texts(*this);
  for (const std::string &uri : uris) {
    protocol::PublishDiagnosticsParams p;
    p.uri = uri;
    p.diagnostics = runtimeDiagnostics(index, texts, uri);
    if (p.diagnostics.empty() && !runtimePublished_.count(uri)) continue;
    if (p.diagnostics.empty())
      runtimePublished_.erase(uri);
    else
      runtimePublished_.insert(uri);
    sendNotification("textDocument/publishDiagnostics", json(p));
  }
}

void Server::publishRuntimeDiagnosticsForOpenDocuments(const index::Index &index) {
  std::vector<std::string> uris;
  {
    std::lock_guard<std::mutex> lock(docsMutex_);
    for (const auto &[uri, doc] : docs_)
      uris.push_back(uri);
  }
  {
    std::lock_guard<std::mutex> lock(runtimePublishMutex_);
    for (const std::string &u : runtimePublished_)
      if (std::find(uris.begin(), uris.end(), u) == uris.end()) uris.push_back(u);
  }
  publishRuntimeDiagnostics(index, uris);
}

} // namespace inductor::server
