// server/features/RuntimeDiagnostics.cpp: runtime findings as LSP diagnostics (see RuntimeFeatures.h);
// published with the compile-health ones by server/features/Diagnostics.cpp.
#include "server/features/RuntimeFeatures.h"

#include "index/runtime/Runtime.h"
#include "protocol/URI.h"

#include <filesystem>

namespace inductor::server {

namespace {

std::optional<protocol::Location> toLocation(const index::Index &index, TextCache &texts,
                                             const index::RuntimeLocation &l) {
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
  return placeOrigin(texts, index, o).location;
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
  Target target = resolveTarget(index, uri, texts);
  if (target.kind == Target::Kind::None) return out;
  if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, uri);
  std::string path = target.kind == Target::Kind::UserFile ? target.path : std::string();
  for (const index::RuntimeDiagnostic *d : index::runtimeDiagnosticsIn(index, path, target.all)) {
    protocol::Diagnostic diag;
    index::RuntimeLocation here = d->location;
    // A diagnostic found on another copy of this text is shown here.
    if (here.artifact.valid()) here.artifact = target.artifact;
    std::optional<protocol::Location> at = toLocation(index, texts, here);
    if (!at) continue; // The user line is no longer in the file.
    diag.range = at->range;
    diag.severity = severityOf(d->severity);
    diag.code = d->code;
    diag.source = "inductor-ls";
    diag.message = d->message;
    for (const auto &[loc, message] : d->related)
      if (auto l = toLocation(index, texts, loc)) diag.relatedInformation.push_back({*l, message});
    out.push_back(std::move(diag));
  }
  return out;
}

} // namespace inductor::server
