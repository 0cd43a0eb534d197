// server/cli/ExplainJson.cpp: `inductor-ls explain --json` (see Explain.h). Compile health and runtime are
// the custom requests' answers (server/features/InductorRequests.h), over the documents a session would lend
// them (StandaloneDocuments): the same texts, locations and encoding (UTF-16, the LSP default) as an editor
// gets.
#include "server/cli/Explain.h"

#include "server/features/InductorRequests.h"
#include "server/format/Counts.h"
#include "server/format/KernelFormat.h"
#include "server/text/Convert.h"
#include "server/text/TextCache.h"

#include <limits>

namespace inductor::server {

using protocol::json;

json explainJson(std::shared_ptr<const index::Index> index,
                 std::shared_ptr<const index::SourceReader> sources, long long milliseconds) {
  index::IndexStats stats = index->stats();
  json out;
  out["stats"] = {{"traceFiles", stats.traceFiles},
                  {"traceBytes", stats.traceBytes},
                  {"compiles", stats.compiles},
                  {"compilesAnalysed", stats.compilesAnalysed},
                  {"kernels", stats.kernels},
                  {"frameCompiles", stats.frameCompiles},
                  {"graphBreaks", stats.graphBreaks},
                  {"recompiles", stats.recompiles},
                  {"compileFailures", stats.compileFailures},
                  {"launches", stats.launches},
                  {"launchesWithOrigin", stats.launchesWithOrigin},
                  {"userLines", stats.userLines},
                  {"corruptedRecords", stats.corruptedRecords},
                  {"errors", stats.errors},
                  {"milliseconds", milliseconds}};
  // What every view counts (index/model/Counts.h); `stats` are the build's own numbers (per rank, per file).
  out["counts"] = countsJson(*index::countsOf(*index));
  out["launches"] = json::array();
  for (uint32_t i = 0; i < index->artifacts().size(); ++i) {
    const index::Artifact &a = index->artifacts()[i];
    for (const index::Launch &l : a.launches) {
      json origins = json::array();
      for (const index::Origin &o : l.origins)
        origins.push_back(
            {{"path", o.path}, {"line", o.line}, {"code", sourceText(o, *sources)}, {"exists", o.exists}});
      out["launches"].push_back({{"artifact", a.title},
                                 {"file", a.paths.empty() ? a.virtualName : a.paths.front()},
                                 {"line", l.site.line + 1},
                                 {"kernel", l.site.kernel},
                                 {"debugHandle", l.site.debugHandle ? json(*l.site.debugHandle) : nullptr},
                                 {"kind", std::string(index::displayName(l.kind))},
                                 {"origins", origins}});
    }
  }
  out["userLines"] = json::array();
  for (const auto &[path, lines] : userLineLaunches(*index))
    for (const auto &[line, launches] : lines) {
      json ks = json::array();
      for (index::LaunchRef r : launches) {
        const index::Launch &l = index->launch(r);
        const index::Compile *c = index->compileOf(r.artifact);
        ks.push_back({{"kernel", l.site.kernel},
                      {"debugHandle", l.site.debugHandle ? json(*l.site.debugHandle) : nullptr},
                      {"compile", c ? c->label() : ""}});
      }
      out["userLines"].push_back({{"path", path}, {"line", line}, {"kernels", ks}});
    }
  out["diagnostics"] = json::array();
  for (const auto &d : index->diagnostics())
    out["diagnostics"].push_back({{"file", d.file}, {"line", d.line + 1}, {"message", d.message}});

  // Compile health and runtime: what inductor/compiles and inductor/hotLines answer (every line and launch).
  StandaloneDocuments documents(sources);
  TextCache texts(documents.snapshot(), *index);
  out["compileHealth"] = compilesResult(*index, texts, "");
  json runtime = hotLinesResult(*index, texts, std::numeric_limits<uint64_t>::max(), "");
  runtime.update(runtimeDetails(*index));
  out["runtime"] = std::move(runtime);
  out["runs"] = json(runsResult(*index, nullptr))["runs"]; // inductor/runs' entries; the current one marked.
  out["ranks"] = ranksResult(*index);                      // inductor/ranks' answer.
  out["kernels"] =
      kernelEntries(*index); // Each Triton kernel source's resources (server/format/KernelFormat.h).
  return out;
}

} // namespace inductor::server
