// server/features/Diagnostics.cpp: the diagnostics of a document, from two sources, for both ways of sending
// them.
//  - Compile health (source "torch.compile"): graph breaks (Warning, also those that made Dynamo skip a frame
//    and run it eagerly), recompiles (Information; Warning once the recompile limit is reached), the
//    recompile limit itself (Warning, code `recompile-limit`, on the function's def line), compile failures
//    (Error: the call raised) and dynamic-shape specialisations (Information), one per line and kind, merged
//    over compiles and ranks (Index::healthDiagnostics; the rules are in docs/policy.md, "Compile health").
//  - Runtime findings (source "inductor-ls", server/features/RuntimeDiagnostics.cpp): the first NaN/Inf of a
//  printer
//    run log, on its launch and on the user line that made it.
// Both are placed where their lines are now (placeOrigin): a recorded line that is gone gets none.
//  - Push (server/lsp/Publish.cpp): after every index build, textDocument/publishDiagnostics for each user
//  file with compile-health
//    events that exists here and each open document, and an empty list for documents that had some and no
//    longer do; when a document opens, its own.
//  - Pull (clients with textDocument.diagnostic): textDocument/diagnostic and workspace/diagnostic, with
//    result ids so unchanged reports stay small; workspace/diagnostic/refresh after every build. A pulling
//    client gets no pushes, which would show every diagnostic twice.
#include "server/features/Features.h"
#include "server/features/RuntimeFeatures.h"
#include "server/format/CompareFormat.h"
#include "server/format/Health.h"
#include "server/text/Convert.h"

#include "index/files/PathResolver.h"
#include "index/model/Ranks.h"
#include "index/runtime/Runtime.h"
#include "protocol/URI.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

namespace inductor::server {

namespace {

protocol::DiagnosticSeverity severityOf(index::HealthSeverity s) {
  return static_cast<protocol::DiagnosticSeverity>(static_cast<int>(s));
}

/// The diagnostics of one user file.
std::vector<protocol::Diagnostic> fileDiagnostics(const index::Index &index, TextCache &texts,
                                                  const std::string &path, const index::Index *baseline) {
  std::vector<protocol::Diagnostic> out;
  // Events the baseline run did not have (index/compare/Compare.h): said on their diagnostics.
  std::vector<uint32_t> fresh = baseline ? index::newEvents(*baseline, index) : std::vector<uint32_t>{};
  for (const index::HealthDiagnostic &h : index.healthDiagnostics(path)) {
    protocol::Diagnostic d;
    const index::Origin &at = index.place(*index.compileHealth().events[h.events.front()].shownAt);
    // A recorded line that is no longer in the file gets no diagnostic rather than one on another line.
    std::optional<protocol::Location> where = placeLocation(texts, index, at);
    if (!where) continue;
    d.range = where->range;
    d.severity = severityOf(h.severity);
    d.code = h.code;
    if (!h.href.empty()) d.codeDescription = protocol::CodeDescription{h.href};
    d.source = "torch.compile";
    d.message = h.message;
    if (baseline) markNewSinceBaseline(d, h.events, fresh, runName(*baseline, "baseline"));
    for (const auto &[place, what] : h.related)
      if (auto l = placeLocation(texts, index, index.place(place)))
        d.relatedInformation.push_back({*l, what});
    out.push_back(std::move(d));
  }
  // Ranks that diverge (index/model/Ranks.h) in what compile health has no event for: different generated
  // code (Information), a collective schedule that differs (Error: the hang), a compile some ranks only
  // made. Recompiles, graph breaks and failures of some ranks are the health diagnostics above; cache
  // outcomes only hovers and views show.
  for (const index::RankDivergence &r : index.ranks().divergences) {
    if (r.kind != index::RankDivergenceKind::DifferentCode &&
        r.kind != index::RankDivergenceKind::CollectiveSchedule &&
        r.kind != index::RankDivergenceKind::MissingCompile)
      continue;
    if (!r.at || index::normalizePath(r.at->path) != index::normalizePath(path)) continue;
    std::optional<protocol::Location> where = placeLocation(texts, index, *r.at);
    if (!where) continue;
    protocol::Diagnostic d;
    d.range = where->range;
    d.severity = severityOf(r.severity);
    std::string code(index::rankDivergenceName(r.kind));
    std::replace(code.begin(), code.end(), ' ', '-');
    d.code = "ranks-" + code;
    d.source = "torch.compile";
    d.message = r.message;
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace

/// Every diagnostic of the document at `uri`: compile health when it is a user file, runtime findings.
std::vector<protocol::Diagnostic> documentDiagnostics(const index::Index &index, TextCache &texts,
                                                      const std::string &uri, const index::Index *baseline) {
  Target target = resolveTarget(index, uri, texts);
  std::vector<protocol::Diagnostic> out;
  if (target.kind == Target::Kind::UserFile) out = fileDiagnostics(index, texts, target.path, baseline);
  for (protocol::Diagnostic &d : runtimeDiagnostics(index, texts, uri))
    out.push_back(std::move(d));
  return out;
}

namespace {

/// A result id for a report: equal reports get equal ids.
std::string resultId(const std::vector<protocol::Diagnostic> &items) {
  return std::to_string(std::hash<std::string>{}(json(items).dump()));
}

} // namespace

/// The documents diagnostics are reported for without being open: the user files with compile-health events
/// that exist here, and where runtime findings are (user files that exist here, generated code).
std::vector<std::string> reportedUris(const index::Index &index, TextCache &texts) {
  std::set<std::string> out;
  for (const index::RankDivergence &r : index.ranks().divergences)
    if (r.at && r.at->exists && r.kind != index::RankDivergenceKind::Cache)
      out.insert(protocol::fileURI(r.at->path));
  for (const std::string &path : index.healthPaths()) {
    auto diags = index.healthDiagnostics(path);
    if (!diags.empty() &&
        index.place(*index.compileHealth().events[diags.front().events.front()].shownAt).exists)
      out.insert(protocol::fileURI(path));
  }
  for (const index::RuntimeDiagnostic &d : index.runtime().diagnostics) {
    if (d.location.artifact.valid()) {
      out.insert(texts.uriOf(index, d.location.artifact));
    } else if (std::error_code ec; !d.location.path.empty() && std::filesystem::exists(d.location.path, ec)) {
      out.insert(protocol::fileURI(d.location.path));
    }
  }
  return {out.begin(), out.end()};
}

protocol::DocumentDiagnosticReport documentDiagnostic(const FeatureContext &ctx,
                                                      const protocol::DocumentDiagnosticParams &params) {
  protocol::DocumentDiagnosticReport report;
  report.items = documentDiagnostics(ctx.index, ctx.texts, ctx.uri, ctx.baseline);
  report.resultId = resultId(report.items);
  if (params.previousResultId == report.resultId) {
    report.unchanged = true;
    report.items.clear();
  }
  return report;
}

protocol::WorkspaceDiagnosticReport workspaceDiagnostic(const FeatureContext &ctx,
                                                        const protocol::WorkspaceDiagnosticParams &params) {
  std::map<std::string, std::string> previous;
  for (const protocol::PreviousResultId &p : params.previousResultIds)
    previous[p.uri] = p.value;
  protocol::WorkspaceDiagnosticReport out;
  std::set<std::string> reported;
  for (const std::string &uri : reportedUris(ctx.index, ctx.texts)) {
    protocol::WorkspaceDocumentDiagnosticReport item;
    item.uri = uri;
    if (auto doc = ctx.texts.openDocument(item.uri)) item.version = static_cast<std::int32_t>(doc->version);
    item.report.items = documentDiagnostics(ctx.index, ctx.texts, item.uri, ctx.baseline);
    item.report.resultId = resultId(item.report.items);
    if (auto it = previous.find(item.uri); it != previous.end() && it->second == item.report.resultId) {
      item.report.unchanged = true;
      item.report.items.clear();
    }
    reported.insert(item.uri);
    out.items.push_back(std::move(item));
  }
  // Files the client has diagnostics for that no longer have any.
  for (const auto &[uri, id] : previous) {
    if (reported.count(uri)) continue;
    protocol::WorkspaceDocumentDiagnosticReport item;
    item.uri = uri;
    item.report.resultId = resultId({});
    if (id == item.report.resultId) item.report.unchanged = true;
    out.items.push_back(std::move(item));
  }
  return out;
}

} // namespace inductor::server
