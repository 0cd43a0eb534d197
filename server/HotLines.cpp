// server/HotLines.cpp: the custom request `inductor/hotLines`, the per-line time table for editors' views
// (VS Code's hottest-lines picker, Neovim's quickfix list); built by hotLinesResult(), which explain --json
// writes as the core of `runtime`.
//
//   params: {limit?: number (default 200), uri?: string (only the lines of that user file)}
//   result: {basis: "perStep" | "total" | "none", basisText, steps: [names], stepNs, totalNs, eagerNs,
//            unjoinedNs, caveats: [...], profiles: [paths],
//            lines: [{location: Location|null, path, line (1-based), code, ns, perStepNs, stepNs, percent,
//                     label, launches, byKind: {forward: ns, ...}}], largest first,
//            kernels: [{location, kernel, compile, ns, perStepNs, stepNs, percent, label, numGb, flop,
//                       achievedGbPerS, achievedTflopPerS, peakPercent, bound, timeLeftNs, roofline}],
//                       largest
//            first (not with `uri`), peak: the peaks used, kernelsByTimeLeft: [same], most time left first}
// (protocol::HotLinesParams -> protocol::HotLinesResult.) `ns` is the total over the profiles; `perStepNs` is
// ns divided by the step count when steps are marked (else equal to ns); `label` is what the lens shows
// ("133 µs/step", "400 µs total"). Without profiles: lines is empty and basis is "none".
#include "protocol/URI.h"
#include "server/Convert.h"
#include "server/InductorRequests.h"
#include "server/KernelFormat.h"
#include "server/RuntimeFormat.h"
#include "server/Server.h"

#include <filesystem>

namespace inductor::server {

protocol::HotLinesResult hotLinesResult(const index::Index &index, TextCache &texts, uint64_t limit,
                                        const std::string &onlyPath) {
  const index::RuntimeData &rt = index.runtime();
  const index::RuntimeTimes &times = rt.times;
  protocol::HotLinesResult out;
  out.basis = !times.present() ? "none" : times.stepsMarked() ? "perStep" : "total";
  out.basisText = times.present() ? timeBasis(times) : "no profiler trace found";
  out.steps = times.steps;
  out.stepNs = times.stepNs;
  out.totalNs = times.totalNs;
  out.eagerNs = times.eagerNs;
  out.unjoinedNs = times.unjoinedNs;
  out.caveats = times.caveats;
  for (const index::ProfileInfo &p : times.profiles)
    out.profiles.push_back(p.path);
  std::string only = onlyPath.empty() ? std::string() : index::normalizePath(onlyPath);
  for (const index::LineTiming &l : rt.hotLines) {
    if (out.lines.size() >= limit) break;
    if (!only.empty() && index::normalizePath(l.path) != only) continue;
    index::Origin o;
    o.path = l.path;
    o.line = l.line;
    o.code = l.code;
    std::error_code ec;
    o.exists = std::filesystem::exists(l.path, ec);
    // Where the line is now (null when it is gone from the file), and its text.
    PlacedOrigin placed = placeOrigin(texts, index, o);
    out.lines.push_back({placed.location, l.path, placed.line, placed.code, l.ns, times.perStep(l.ns),
                         l.perStep, times.percent(l.ns), timeText(times, l.ns), l.launches, l.byKind});
  }
  index::PeakChoice peak = index::peakOf(times);
  out.peak = peakText(peak);
  auto kernel = [&](const index::TimedLaunch &t) {
    const index::Launch &l = index.launch(t.ref);
    const index::Compile *c = index.compileOf(t.ref.artifact);
    uint64_t ns = t.timing->ns;
    protocol::HotKernel k;
    k.location = launchLocation(texts, index, t.ref);
    k.kernel = l.site.kernel + (l.site.debugHandle ? ":" + std::to_string(*l.site.debugHandle) : "");
    k.compile = c ? c->label() : "";
    k.ns = ns;
    k.perStepNs = times.perStep(ns);
    k.stepNs = t.timing->perStep;
    k.percent = times.percent(ns);
    k.label = timeText(times, ns);
    addLaunchPerf(index, t.ref, peak, k);
    return k;
  };
  if (only.empty() && times.present()) {
    std::vector<index::TimedLaunch> launches = index::hotLaunches(index);
    for (size_t i = 0; i < launches.size() && i < limit; ++i)
      out.kernels.push_back(kernel(launches[i]));
    std::vector<index::LaunchTimeLeft> left = index::launchesByTimeLeft(index);
    for (size_t i = 0; i < left.size() && i < limit; ++i)
      if (const index::LaunchTiming *t = index::launchTiming(index, left[i].ref))
        out.kernelsByTimeLeft.push_back(kernel({left[i].ref, t}));
  }
  return out;
}

void Server::onHotLines(const protocol::HotLinesParams &params, Reply reply) {
  std::string only;
  if (params.uri)
    if (auto p = protocol::filePath(*params.uri)) only = *p;
  withIndex(std::move(reply),
            [this, limit = params.limit, only](const index::Index &index, const Reply &reply) {
              TextCache texts(documents(), index);
              reply(json(hotLinesResult(index, texts, limit, only)));
            });
}

} // namespace inductor::server
