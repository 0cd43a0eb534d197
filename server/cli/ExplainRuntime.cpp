// server/cli/ExplainRuntime.cpp: the runtime part of `inductor-ls explain` (see Explain.h): GPU time per user
// line, per kernel launch and per compile, sorted, the launches by time left on the table (roofline), with
// the eager remainder and the join's caveats; the printer's statistics of every launch and the first NaN/Inf.
// Under `--json`, the hot lines and launches are inductor/hotLines' (ExplainJson.cpp); runtimeDetails() adds
// what only explain writes.
#include "index/model/Counts.h"
#include "protocol/Position.h"
#include "server/cli/Explain.h"
#include "server/features/InductorRequests.h"
#include "server/format/KernelFormat.h"
#include "server/format/RuntimeFormat.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

/// Calls `f(compile, artifact, launch index, values)` for each launch of an output code that has printed
/// tensor statistics, in compile and launch order (what both the text and the JSON list).
template <typename F> void forEachLaunchWithValues(const index::Index &index, F &&f) {
  for (const index::Compile &c : index.compiles()) {
    if (!c.outputCode.valid()) continue;
    const index::Artifact &a = index.artifact(c.outputCode);
    for (uint32_t l = 0; l < a.launches.size(); ++l)
      if (const index::LaunchValues *v = index::launchValues(index, {c.outputCode, l})) f(c, a, l, *v);
  }
}

std::string fileName(const std::string &p) {
  return fs::path(p).filename().string();
}

std::string launchName(const index::Launch &l) {
  return l.site.key();
}

std::string artifactFile(const index::Artifact &a) {
  return a.paths.empty() ? a.virtualName : a.paths.front();
}

std::string truncate(std::string s, size_t n) {
  if (s.size() > n) s = std::string(protocol::utf8Prefix(s, n - 3)) + "...";
  return s;
}

} // namespace

void printRuntime(const index::Index &index, TextCache &texts) {
  const index::RuntimeData &rt = index.runtime();
  const index::RuntimeTimes &times = rt.times;
  if (times.present()) {
    std::string files;
    for (const index::ProfileInfo &p : times.profiles)
      files += (files.empty() ? "" : ", ") + fileName(p.path);
    std::printf("\nGPU time from %s: %s\n", files.c_str(), timeBasis(times).c_str());
    uint64_t compiled = times.totalNs - times.eagerNs - times.unjoinedNs;
    std::printf("  all device time %s: compiled code %s (%s), eager %s (%s)",
                timeText(times, times.totalNs).c_str(), timeText(times, compiled).c_str(),
                percentText(times.percent(compiled)).c_str(), timeText(times, times.eagerNs).c_str(),
                percentText(times.percent(times.eagerNs)).c_str());
    if (times.unjoinedNs)
      std::printf(", compiled but not joined %s", timeText(times, times.unjoinedNs).c_str());
    std::printf("\n");
    if (times.stepsMarked())
      for (size_t s = 0; s < times.steps.size(); ++s)
        std::printf("  %-28s %s\n", times.steps[s].c_str(), formatDuration(times.stepNs[s]).c_str());
    if (times.outsideStepsNs)
      std::printf("  (%s of device time ran outside every ProfilerStep and is not counted)\n",
                  formatDuration(times.outsideStepsNs).c_str());
    for (const std::string &c : times.caveats)
      std::printf("  note: %s\n", c.c_str());

    // The lines inductor/hotLines gives (and the lenses show), the first 30.
    protocol::HotLinesResult hot = hotLinesResult(index, texts, 30, "");
    if (!hot.lines.empty()) std::printf("\nHottest user lines (%s)\n", timeBasis(times).c_str());
    for (const protocol::HotLine &l : hot.lines) {
      std::string where = fileName(l.path) + ":" + std::to_string(l.line);
      std::string split;
      for (const auto &[kind, ns] : l.byKind)
        split += (split.empty() ? "" : ", ") + kind + " " + formatDuration(times.perStep(ns));
      std::printf("  %-16s %-48s %14s %6s  %s (%s)\n", where.c_str(),
                  truncate(std::string(index::trim(l.code)), 48).c_str(), l.label.c_str(),
                  percentText(l.percent).c_str(), index::countText(l.launches, "launch", "launches").c_str(),
                  split.c_str());
    }

    std::vector<index::TimedLaunch> launches = index::hotLaunches(index);
    if (!launches.empty()) std::printf("\nHottest kernel launches (%s)\n", timeBasis(times).c_str());
    for (size_t i = 0; i < launches.size() && i < 30; ++i) {
      const index::Launch &l = index.launch(launches[i].ref);
      const index::Compile *c = index.compileOf(launches[i].ref.artifact);
      std::string origin =
          l.origins.empty() ? "(no user origin)"
                            : fileName(l.origins.front().path) + ":" + std::to_string(l.origins.front().line);
      std::printf("  %-20s %-58s %14s %6s  -> %s\n", c ? c->label().c_str() : "?",
                  truncate(launchName(l), 58).c_str(), timeText(times, launches[i].timing->ns).c_str(),
                  percentText(times.percent(launches[i].timing->ns)).c_str(), origin.c_str());
    }

    // Where tuning pays most: the time each launch took beyond the roofline's least time at the GPU's peaks.
    std::vector<index::LaunchTimeLeft> left = index::launchesByTimeLeft(index);
    index::PeakChoice peak = index::peakOf(times);
    std::printf("\nTime left on the table (roofline; peaks %s)\n", peakText(peak).c_str());
    if (left.empty())
      std::printf("  none known: %s\n",
                  !peak.peak
                      ? "no peaks for this GPU"
                      : "no launch has Inductor's estimates (run with TORCHINDUCTOR_BENCHMARK_KERNEL=1)");
    for (size_t i = 0; i < left.size() && i < 30; ++i) {
      const index::Compile *c = index.compileOf(left[i].ref.artifact);
      std::printf("  %-20s %-58s %14s left  %s\n", c ? c->label().c_str() : "?",
                  truncate(launchName(index.launch(left[i].ref)), 58).c_str(),
                  timeText(times, *left[i].perf.timeLeftNs).c_str(),
                  kernelPerfText(left[i].perf, peak).c_str());
    }

    bool anyCompile = false;
    for (uint32_t c = 0; c < index.compiles().size(); ++c) {
      const index::CompileTiming *t = index::compileTiming(index, {c});
      if (!t) continue;
      if (!anyCompile) std::printf("\nCompiles\n");
      anyCompile = true;
      std::printf("  %-24s %14s over %u calls", index.compiles()[c].label().c_str(),
                  timeText(times, t->ns).c_str(), t->calls);
      if (t->otherNs) std::printf(", other ops %s", timeText(times, t->otherNs).c_str());
      if (t->graphReplays)
        std::printf(", CUDA graph replays %s (per launch unknown)",
                    timeText(times, t->graphReplayNs).c_str());
      std::printf("\n");
      for (size_t k = 0; k < t->replayKernels.size() && k < 8; ++k)
        std::printf("      in replays: %-50s %s\n", truncate(t->replayKernels[k].first, 50).c_str(),
                    timeText(times, t->replayKernels[k].second).c_str());
    }
    if (!times.eagerOps.empty()) {
      std::printf("\nEager remainder by op\n");
      for (size_t i = 0; i < times.eagerOps.size() && i < 10; ++i)
        std::printf("  %-60s %14s\n", truncate(times.eagerOps[i].first, 60).c_str(),
                    timeText(times, times.eagerOps[i].second).c_str());
    }
  }

  if (!rt.runLogs.empty()) {
    for (const index::RunLogInfo &r : rt.runLogs)
      std::printf("\nTensor statistics from %s: %zu printed launches in %zu calls%s\n",
                  fileName(r.path).c_str(), r.launchEvents, r.calls,
                  r.unmatched ? (", " + std::to_string(r.unmatched) + " unmatched").c_str() : "");
    forEachLaunchWithValues(index, [&](const index::Compile &c, const index::Artifact &a, uint32_t l,
                                       const index::LaunchValues &v) {
      std::printf("  %-20s %5u  %-52s %s%s\n", c.label().c_str(), a.launches[l].site.line + 1,
                  truncate(launchName(a.launches[l]), 52).c_str(), launchStatsText(v).c_str(),
                  v.calls > 1 ? ("  (" + std::to_string(v.calls) + " calls)").c_str() : "");
    });
  }
  if (!rt.diagnostics.empty()) std::printf("\nRuntime findings\n");
  for (const index::RuntimeDiagnostic &d : rt.diagnostics) {
    std::string where =
        d.location.artifact.valid() ? artifactFile(index.artifact(d.location.artifact)) : d.location.path;
    std::string message = d.message;
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::printf("  %s:%u: %s: %s\n", fileName(where).c_str(), d.location.line + 1,
                d.severity == index::RuntimeDiagnostic::Severity::Error ? "error" : "warning",
                message.c_str());
  }
}

protocol::json runtimeDetails(const index::Index &index) {
  using protocol::json;
  const index::RuntimeData &rt = index.runtime();
  const index::RuntimeTimes &times = rt.times;
  json out;
  out["profileDetails"] = json::array();
  for (const index::ProfileInfo &p : times.profiles)
    out["profileDetails"].push_back({{"path", p.path},
                                     {"steps", p.steps},
                                     {"totalNs", p.totalNs},
                                     {"eagerNs", p.eagerNs},
                                     {"unjoinedNs", p.unjoinedNs},
                                     {"calls", p.calls},
                                     {"truncated", p.truncated}});
  out["outsideStepsNs"] = times.outsideStepsNs;
  out["compiles"] = json::array();
  for (uint32_t c = 0; c < index.compiles().size(); ++c)
    if (const index::CompileTiming *t = index::compileTiming(index, {c}))
      out["compiles"].push_back({{"compile", index.compiles()[c].label()},
                                 {"ns", t->ns},
                                 {"otherNs", t->otherNs},
                                 {"graphReplayNs", t->graphReplayNs},
                                 {"calls", t->calls},
                                 {"graphReplays", t->graphReplays},
                                 {"launchesMissed", t->launchesMissed},
                                 {"perStep", t->perStep}});
  out["eagerOps"] = json::array();
  for (const auto &[op, ns] : times.eagerOps)
    out["eagerOps"].push_back({{"op", op}, {"ns", ns}});
  auto statsJson = [](const std::optional<index::TensorStats> &s) -> json {
    if (!s) return nullptr;
    json j;
    if (!s->tensor) return json{{"value", s->value}};
    auto num = [](const std::optional<double> &v) -> json {
      if (!v) return nullptr;
      if (std::isnan(*v)) return "nan";
      if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
      return *v;
    };
    j["shape"] = s->hasShape ? json(s->shape) : json(nullptr);
    j["dtype"] = s->dtype;
    j["numel"] = s->numel ? json(*s->numel) : json(nullptr);
    j["mean"] = num(s->mean);
    j["min"] = num(s->min);
    j["max"] = num(s->max);
    j["std"] = num(s->std);
    return j;
  };
  out["values"] = json::array();
  forEachLaunchWithValues(index, [&](const index::Compile &c, const index::Artifact &a, uint32_t l,
                                     const index::LaunchValues &v) {
    json args = json::array();
    for (const index::ArgValues &arg : v.args)
      args.push_back({{"arg", arg.arg},
                      {"output", arg.output},
                      {"before", statsJson(arg.before)},
                      {"after", statsJson(arg.after)}});
    out["values"].push_back({{"file", artifactFile(a)},
                             {"line", a.launches[l].site.line + 1},
                             {"kernel", a.launches[l].site.kernel},
                             {"compile", c.label()},
                             {"calls", v.calls},
                             {"args", args}});
  });
  out["diagnostics"] = json::array();
  for (const index::RuntimeDiagnostic &d : rt.diagnostics) {
    std::string where =
        d.location.artifact.valid() ? artifactFile(index.artifact(d.location.artifact)) : d.location.path;
    out["diagnostics"].push_back(
        {{"file", where},
         {"line", d.location.line + 1},
         {"code", d.code},
         {"severity", d.severity == index::RuntimeDiagnostic::Severity::Error ? "error" : "warning"},
         {"message", d.message}});
  }
  return out;
}

} // namespace inductor::server
