// The profiles half of step 5b (see BuildRuntime.cpp): each profiler trace is read and joined to the launches
// of every compile on the workers (Profile.h), then summed in order into per-launch, per-compile and per-line
// times with the caveats of the join (Runtime.h). A profile whose file and compiles did not change since the
// previous build (IndexCache) is not read again.
#include "index/builder/IndexBuilder.h"
#include "index/files/ReadPolicy.h"
#include "index/runtime/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace inductor::index {

namespace {

std::string formatMicros(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f µs", double(ns) / 1000.0);
  return buf;
}

JoinGraph joinGraphOf(GraphKind k) {
  switch (k) {
  case GraphKind::Forward:
    return JoinGraph::Forward;
  case GraphKind::Backward:
    return JoinGraph::Backward;
  case GraphKind::Inference:
    return JoinGraph::Inference;
  case GraphKind::Unknown:
    break;
  }
  return JoinGraph::Unknown;
}

/// What a join result depends on besides the file: every compile's key, ids, graph, rank and launch ops.
uint64_t joinSignature(const std::vector<JoinCompile> &compiles) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) { h = (h ^ std::hash<std::string_view>{}(s)) * 1099511628211ull; };
  for (const JoinCompile &c : compiles) {
    mix(c.cacheKey);
    mix(std::to_string(c.frameId.value_or(-1)) + "/" + std::to_string(c.frameCompileId.value_or(-1)) + "/" +
        std::to_string(static_cast<int>(c.graph)) + "/" + std::to_string(c.rank.value_or(-1)));
    for (const auto &ops : c.launchOps)
      for (const std::string &op : ops)
        mix(op);
    mix("|");
  }
  return h;
}

} // namespace

using namespace detail;

void IndexBuilder::buildProfiles(const RuntimeFiles &files, const ReadPolicy &policy, RuntimeData &data) {
  Index &idx = *index_;
  std::vector<JoinCompile> joinCompiles;
  joinCompiles.reserve(idx.compiles_.size());
  for (const Compile &c : idx.compiles_) {
    JoinCompile jc;
    jc.cacheKey = c.cacheKey;
    jc.frameId = c.id.frameId;
    jc.frameCompileId = c.id.frameCompileId;
    jc.graph = joinGraphOf(c.graphKind);
    jc.rank = c.rank;
    if (c.outputCode.valid())
      for (const Launch &l : idx.artifacts_[c.outputCode.value].launches)
        jc.launchOps.push_back(profilerOpNames(l.site.kernel));
    joinCompiles.push_back(std::move(jc));
  }
  // Read and joined on the workers (or reused from the previous build), summed below in order.
  uint64_t signature = joinSignature(joinCompiles);
  std::vector<std::shared_ptr<const CachedProfile>> results(files.profiles.size());
  std::vector<char> refused(files.profiles.size(), 0);
  std::atomic<size_t> reused{0}, rejoined{0}, deferred{0};
  if (!files.profiles.empty()) report(Step::ReadingFiles, 0.5, "reading profiles");
  parallelFor(files.profiles.size(), [&](size_t i) {
    const std::string &path = files.profiles[i];
    if (!policy.allows(path)) {
      refused[i] = 1;
      return;
    }
    auto stamp = MappedFile::stampOf(path);
    // The parsed profile of the previous build, when the file did not change: kept across builds, so a log
    // that grows (a rebuild a second) never makes it read again, only joined to the new compiles.
    std::shared_ptr<const ChromeTrace> parsed;
    if (cache_ && stamp)
      if (auto it = cache_->state_->profiles.find(path); it != cache_->state_->profiles.end()) {
        if (it->second->stamp == *stamp && it->second->signature == signature) {
          results[i] = it->second;
          ++reused;
          return;
        }
        if (it->second->stamp == *stamp && it->second->trace) parsed = it->second->trace;
      }
    if (!parsed && options_.deferProfiles) { // Read by the next build (IndexOptions::deferProfiles).
      ++deferred;
      return;
    }
    auto r = std::make_shared<CachedProfile>();
    if (stamp) r->stamp = *stamp;
    r->signature = signature;
    if (parsed) {
      ++rejoined;
    } else {
      auto trace = readChromeTrace(path);
      if (!trace) {
        r->error = trace.error().message;
      } else if (trace->sawTraceEvents) { // Else a JSON file that only looked like a profile by name.
        parsed = std::make_shared<const ChromeTrace>(std::move(*trace));
      }
    }
    if (parsed) {
      r->isProfile = true;
      r->trace = parsed;
      r->join = joinProfile(*parsed, joinCompiles);
      r->skippedEvents = parsed->skippedEvents;
      r->cutStrings = parsed->cutStrings;
      r->cutWhitespace = parsed->cutWhitespace;
      r->truncated = parsed->truncated;
      r->problem = parsed->problem;
    }
    results[i] = std::move(r);
  });
  if (cancelled()) return;
  size_t read = 0;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i]) {
      next_.profiles[files.profiles[i]] = results[i];
      ++read;
    }
  next_.last.profilesReused = reused;
  next_.last.profilesRejoined = rejoined;
  next_.last.profilesRead = read - reused - rejoined;

  RuntimeTimes &times = data.times;
  times.deferred = deferred;
  size_t stepProfiles = 0;
  for (const auto &r : results)
    if (r && r->isProfile && !r->join.steps.empty()) ++stepProfiles;
  data.compileTimes.resize(idx.compiles_.size());
  std::map<std::string, uint64_t> eagerOps;
  std::vector<std::vector<uint64_t>> compileSteps(idx.compiles_.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (refused[i]) {
      diag(files.profiles[i], 0, "profile not read: outside the workspace and the trace inputs");
      continue;
    }
    if (!results[i]) continue; // Deferred to the next build.
    const CachedProfile &r = *results[i];
    if (!r.error.empty()) {
      if (files.explicitProfiles.count(files.profiles[i]))
        diag(files.profiles[i], 0, "cannot read profile: " + r.error);
      continue;
    }
    if (!r.isProfile) {
      if (files.explicitProfiles.count(files.profiles[i]))
        diag(files.profiles[i], 0, "not a profiler trace (no traceEvents)");
      continue;
    }
    // Hostile or damaged input (ProfileReadOptions): said whatever else is said of the profile; the rest of
    // it is served.
    std::string cutNote;
    if (r.cutStrings || r.cutWhitespace) {
      const ProfileReadOptions limits;
      auto size = [](size_t bytes) {
        return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                       : std::to_string(bytes >> 10) + " KiB";
      };
      cutNote = std::to_string(r.cutStrings) + " strings or numbers over " + size(limits.maxTokenBytes) +
                " not kept, " + std::to_string(r.cutWhitespace) + " whitespace runs over " +
                size(limits.maxWhitespaceRun) + " shortened, " + std::to_string(r.skippedEvents) +
                " events skipped";
      diag(files.profiles[i], 0, "profile read with cuts: " + cutNote);
    }
    const ProfileJoin &j = r.join;
    if (j.kernelActivities == 0 && j.outsideStepsNs == 0) {
      // A CPU-only profile (or one of another device kind): nothing to join, and zeros would read as fast
      // code.
      diag(files.profiles[i], 0, "profile has no GPU activity (kernels, copies): no GPU time to show");
      continue;
    }
    ProfileInfo info;
    info.path = files.profiles[i];
    if (r.trace) // The GPUs it ran on, each distinct model once (Roofline.h picks the peaks of one).
      for (const DeviceProperties &d : r.trace->devices) {
        bool known = false;
        for (const DeviceProperties &e : times.devices)
          known = known || (e.name == d.name && e.computeMajor == d.computeMajor &&
                            e.computeMinor == d.computeMinor && e.numSms == d.numSms);
        if (!known && times.devices.size() < 64) times.devices.push_back(d);
      }
    info.steps = j.steps.size();
    info.totalNs = j.totalNs;
    info.eagerNs = j.eagerNs;
    info.unjoinedNs = j.unjoinedNs;
    info.outsideStepsNs = j.outsideStepsNs;
    info.calls = j.calls;
    info.unjoinedCalls = static_cast<uint32_t>(j.unjoined.size());
    info.activities = j.kernelActivities;
    info.unlinkedActivities = j.unlinkedActivities;
    info.skippedEvents = r.skippedEvents;
    info.cutStrings = r.cutStrings;
    info.cutWhitespace = r.cutWhitespace;
    info.truncated = r.truncated;
    info.problem = r.problem;
    if (info.truncated) {
      diag(files.profiles[i], 0, "profile read in part: " + info.problem);
      times.caveats.push_back(runtimeBaseName(info.path) + " was read only in part (" + info.problem + ").");
    }
    if (!cutNote.empty())
      times.caveats.push_back(runtimeBaseName(info.path) + " was read with cuts (" + cutNote + ").");
    if (j.calls == 0 && j.totalNs > 0)
      times.caveats.push_back(runtimeBaseName(info.path) +
                              " has no `## Call CompiledFxGraph` ranges: no compiled call could be joined "
                              "(profile made without CPU activity, of AOTInductor, or of eager code).");
    if (j.unlinkedActivities)
      times.caveats.push_back(runtimeBaseName(info.path) + ": " + std::to_string(j.unlinkedActivities) +
                              " device activities have no CPU launch in the profile; they count as eager.");
    if (!j.unjoined.empty()) {
      uint64_t ns = 0;
      for (const UnjoinedCall &u : j.unjoined)
        ns += u.ns;
      times.caveats.push_back(
          runtimeBaseName(info.path) + ": " + std::to_string(j.unjoined.size()) + " compiled calls (" +
          formatMicros(ns) +
          ") name an FX graph cache key no indexed compile has (first: " + j.unjoined.front().key + ").");
    }
    size_t stepOffset = times.steps.size();
    for (size_t s = 0; s < j.steps.size(); ++s) {
      times.steps.push_back(stepProfiles > 1 ? runtimeBaseName(info.path) + ": " + j.steps[s] : j.steps[s]);
      times.stepNs.push_back(j.stepNs[s]);
    }
    times.totalNs += j.totalNs;
    times.eagerNs += j.eagerNs;
    times.unjoinedNs += j.unjoinedNs;
    times.outsideStepsNs += j.outsideStepsNs;
    for (const auto &[op, ns] : j.eagerOps)
      eagerOps[op] += ns;
    for (size_t c = 0; c < j.compiles.size(); ++c) {
      const CompileTime &ct = j.compiles[c];
      CompileTiming &t = data.compileTimes[c];
      t.ns += ct.ns;
      t.otherNs += ct.otherNs;
      t.graphReplayNs += ct.graphReplayNs;
      t.calls += ct.calls;
      t.graphReplays += ct.graphReplays;
      t.launchesMissed = std::max(t.launchesMissed, ct.launchesMissed);
      t.byCompileId = t.byCompileId || ct.byCompileId;
      t.bySequence = t.bySequence || ct.bySequence;
      for (const auto &entry : ct.replayKernels) {
        auto it = std::find_if(t.replayKernels.begin(), t.replayKernels.end(),
                               [&](const auto &p) { return p.first == entry.first; });
        if (it == t.replayKernels.end())
          t.replayKernels.push_back(entry);
        else
          it->second += entry.second;
      }
      auto &cs = compileSteps[c];
      cs.resize(stepOffset + j.steps.size(), 0);
      for (size_t s = 0; s < ct.perStep.size(); ++s)
        cs[stepOffset + s] += ct.perStep[s];
      if (ct.calls == 0) continue;
      ArtifactId code = idx.compiles_[c].outputCode;
      for (uint32_t l = 0; l < ct.launches.size(); ++l) {
        const LaunchTime &lt = ct.launches[l];
        if (lt.calls == 0) continue;
        LaunchTiming &t2 = data.launchTimes[RuntimeData::key({code, l})];
        t2.ns += lt.ns;
        t2.activities += lt.activities;
        t2.calls += lt.calls;
        t2.perStep.resize(stepOffset + j.steps.size(), 0);
        for (size_t s = 0; s < lt.perStep.size(); ++s)
          t2.perStep[stepOffset + s] += lt.perStep[s];
      }
    }
    times.profiles.push_back(std::move(info));
  }
  // Per-step arrays of every entry cover every step.
  for (size_t c = 0; c < data.compileTimes.size(); ++c) {
    data.compileTimes[c].perStep = std::move(compileSteps[c]);
    data.compileTimes[c].perStep.resize(times.steps.size(), 0);
  }
  for (auto &[k, t] : data.launchTimes)
    t.perStep.resize(times.steps.size(), 0);
  times.eagerOps.assign(eagerOps.begin(), eagerOps.end());
  std::sort(times.eagerOps.begin(), times.eagerOps.end(), [](const auto &a, const auto &b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (times.eagerOps.size() > 20) times.eagerOps.resize(20);
  if (times.present()) {
    bool aoti = false;
    for (size_t c = 0; c < idx.compiles_.size(); ++c) {
      const Compile &comp = idx.compiles_[c];
      CompileTiming &t = data.compileTimes[c];
      std::sort(t.replayKernels.begin(), t.replayKernels.end(),
                [](const auto &a, const auto &b) { return a.second > b.second; });
      aoti = aoti || comp.aoti;
      if (t.graphReplays)
        times.caveats.push_back(
            comp.label() + ": " + std::to_string(t.graphReplays) + " of " + std::to_string(t.calls) +
            " calls replayed a CUDA graph, whose kernels cannot be tied to single launches: "
            "the profile gives the replay's total only (" +
            formatMicros(t.graphReplayNs) + "), never a per-launch time.");
      if (t.launchesMissed)
        times.caveats.push_back(
            comp.label() + ": " + std::to_string(t.launchesMissed) +
            " launches were not found in its profiled calls; their time, if any, is under "
            "the compile's other time.");
      if (t.bySequence)
        times.caveats.push_back(
            comp.label() + ": no FX graph cache key or compile id ties its calls to it; they were tied by "
                           "their whole launch sequence, which no other compile has.");
      if (t.byCompileId)
        times.caveats.push_back(
            comp.label() + ": the trace has no FX graph cache key for it; its calls were tied by compile id "
                           "and launch order.");
    }
    if (aoti)
      times.caveats.push_back(
          "AOTInductor code runs without `## Call CompiledFxGraph` ranges: its kernels count "
          "as eager time.");
  }

  idx.stats_.profiles = times.profiles.size();
}

} // namespace inductor::index
