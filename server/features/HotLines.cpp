// server/features/HotLines.cpp: the custom request `inductor/hotLines`, the per-line time table for editors'
// views (VS Code's hottest-lines picker, Neovim's quickfix list); built by hotLinesResult(), which explain
// --json writes as the core of `runtime`.
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
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/format/KernelFormat.h"
#include "server/format/RuntimeFormat.h"
#include "server/format/WireEnums.h"
#include "server/text/Convert.h"

#include <filesystem>

namespace inductor::server {

protocol::HotLinesResult hotLinesResult(const index::Index &index, TextCache &texts, uint64_t limit,
                                        const std::string &onlyPath) {
  const index::RuntimeData &rt = index.runtime();
  const index::RuntimeTimes &times = rt.times;
  protocol::HotLinesResult out;
  out.basis = timeBasisOf(index);
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
  // Every user line with a timed launch, as it is now: the launch sets the code lenses count
  // (allUserLinesNow), each timed once (index::timeOfLaunches). A line recorded at two numbers (an FX graph
  // cache hit replays the stack traces of an earlier run) is one line, where its text is now.
  struct Timed {
    std::string path, uri;
    uint32_t line = 0; // 1-based, now.
    index::LaunchesTiming time;
  };
  std::vector<Timed> timed;
  if (times.present())
    for (const std::string &path : index.userFiles()) {
      if (!only.empty() && path != only) continue;
      std::string uri = protocol::fileURI(path);
      // Held here: a range-for over `*f()` destroys f's shared_ptr before the loop, and the text's views keep
      // no copy for an index older than the newest they served (TextViews::derived).
      std::shared_ptr<const UserLinesNow> userLines = allUserLinesNow(texts, index, uri, path);
      for (const auto &[line, launches] : *userLines) {
        index::LaunchesTiming t = index::timeOfLaunches(index, launches);
        if (t.timed()) timed.push_back({path, uri, line, std::move(t)});
      }
    }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const Timed &a, const Timed &b) { return a.time.ns > b.time.ns; });
  for (const Timed &t : timed) {
    if (out.lines.size() >= limit) break;
    std::optional<protocol::Location> location;
    std::string code;
    std::error_code ec;
    if (std::filesystem::exists(t.path, ec)) {
      location = protocol::Location{t.uri, texts.lineRange(t.uri, t.line - 1)};
      code = std::string(index::trim(texts.lineText(t.uri, t.line - 1)));
    } else {
      // Not on this machine: the line as recorded, in its recorded source (placeOrigin says where).
      index::Origin o;
      o.path = t.path;
      o.line = t.line;
      for (const index::RecordedLine &r : index.recordedLines(t.path))
        if (r.line == t.line && !r.code.empty()) o.code = std::string(r.code);
      PlacedOrigin placed = placeOrigin(texts, index, o);
      location = placed.location;
      code = placed.code;
    }
    out.lines.push_back({location, t.path, t.line, code, t.time.ns, times.perStep(t.time.ns), t.time.perStep,
                         times.percent(t.time.ns), timeText(times, t.time.ns), t.time.timedLaunches,
                         t.time.byKind});
  }
  index::PeakChoice peak = index::peakOf(times);
  out.peak = peakText(peak);
  auto kernel = [&](const index::TimedLaunch &t) {
    const index::Launch &l = index.launch(t.ref);
    const index::Compile *c = index.compileOf(t.ref.artifact);
    uint64_t ns = t.timing->ns;
    protocol::HotKernel k;
    k.location = launchLocation(texts, index, t.ref);
    k.kernel = l.site.key();
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

protocol::HotLinesResult hotLines(const FeatureContext &ctx, const protocol::HotLinesParams &params) {
  std::string only;
  if (params.uri)
    if (auto p = protocol::filePath(*params.uri)) only = *p;
  return hotLinesResult(ctx.index, ctx.texts, params.limit, only);
}

} // namespace inductor::server
