// server/lsp/Compare.cpp: the custom request `inductor/compare`, what changed between the served run and a
// baseline run (index/compare/Compare.h), built by compareResult(), which explain --baseline --json writes as
// `comparison`.
//
//   params: {baseline?: string, current?: string} (run ids, "latest", "previous" or paths; default: the
//           server's baseline and the served run)
//   result: {baseline: {id, logs} | null, current: {id, logs}, reason, basisBefore, basisAfter,
//            events: [{change: "new"|"gone", kind: "graph break"|"recompile"|"failure", file, line, code,
//                      message}],
//            lines: [{file, line, text, change: "new"|"gone"|"changed"|"same", kernelsBefore, kernelsAfter,
//                     kernelsChanged, gpuTimeBeforeUs, gpuTimeAfterUs}]}
// (protocol::CompareParams -> protocol::CompareResult.) `line` is 1-based in the current file; a line or
// event whose text is no longer there keeps the baseline's. GPU times are µs per step when the run's profiles
// mark steps (basis*), else totals, null without a profile.
#include "index/compare/Compare.h"
#include "index/runtime/Runtime.h"
#include "protocol/URI.h"
#include "server/features/InductorRequests.h"
#include "server/format/CompareFormat.h"
#include "server/format/WireEnums.h"
#include "server/lsp/Server.h"

namespace inductor::server {

namespace {

std::optional<double> micros(const std::optional<uint64_t> &ns) {
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns) / 1000.0;
}

} // namespace

protocol::CompareResult compareResult(const index::Index &current, const index::Index *baseline,
                                      TextCache &texts, const std::string &whyNone) {
  protocol::CompareResult out;
  out.current = {runName(current, ""), current.traceFiles()};
  out.basisAfter = timeBasisOf(current);
  if (!baseline) {
    out.reason = whyNone.empty() ? "no baseline: no earlier run was found" : whyNone;
    return out;
  }
  index::CompareOptions options;
  // The user files as the user has them now: open documents first (TextCache).
  options.text = [&](const std::string &path) { return texts.lines(protocol::fileURI(path)); };
  options.baselineId = runName(*baseline, "");
  options.currentId = out.current.id;
  index::Comparison c = index::compareRuns(*baseline, current, options);
  out.baseline = protocol::CompareRun{c.baseline.id, c.baseline.logs};
  out.basisBefore = timeBasisOf(*baseline);
  for (const index::ComparedEvent &e : c.events)
    out.events.push_back({wireEnum(e.change), wireEnum(e.kind), e.path, e.line, e.code, e.message});
  for (const index::ComparedLine &l : c.lines)
    out.lines.push_back({l.path, l.line, l.text, wireEnum(l.change), l.kernelsBefore, l.kernelsAfter,
                         l.kernelsChanged, l.kernelCountBefore, l.kernelCountAfter, l.compilesBefore,
                         l.compilesAfter, micros(l.gpuNsBefore), micros(l.gpuNsAfter)});
  return out;
}

void Server::onCompare(const protocol::CompareParams &params, Reply reply) {
  withRuns(std::move(reply), [this, params](const index::Index &current, const index::Index *baseline,
                                            const Reply &reply) {
    TextCache texts(documents(), current);
    protocol::CompareResult out =
        compareResult(current, baseline, texts, baseline ? "" : workspace_.baselineWhyNone());
    // Runs are compared as served: the current run and its baseline (the `run` and `baseline` settings,
    // inductor.selectRun / inductor.selectBaseline pick others). Naming another run is said, not guessed.
    auto names = [](const std::optional<std::string> &asked, const index::Index *index,
                    std::string_view alias) {
      return !asked || *asked == alias || (index && *asked == index->run().id);
    };
    if (!names(params.current, &current, "latest") ||
        (params.baseline && !names(params.baseline, baseline, "previous"))) {
      out.baseline.reset();
      out.events.clear();
      out.lines.clear();
      out.reason = "only the served run and its baseline are compared: select others with the `run` and "
                   "`baseline` settings (inductor.selectRun, inductor.selectBaseline)";
    }
    reply(json(out));
  });
}

} // namespace inductor::server
