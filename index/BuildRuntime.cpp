// Step 5b of the build pipeline (see IndexBuilder.h): the runtime inputs. Profiler traces are joined to the
// launches of every compile (Profile.h) and summed into per-launch, per-compile and per-line times; printer
// run logs are mapped to launches (DebugPrinter.h), and the first NaN/Inf becomes diagnostics on the launch
// and its user lines (Runtime.h). Files are read only where the ReadPolicy allows.
#include "index/IndexBuilder.h"
#include "index/ReadPolicy.h"
#include "index/Runtime.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace inductor::index {

namespace detail {

std::string fxGraphCacheKey(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {};
  auto it = j.find("key");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace detail

namespace {

constexpr size_t kMaxRunLogCandidates = 256;
constexpr size_t kSniffBytes = 1 << 20;
constexpr uint64_t kMaxRunLogBytes = 1ull << 30;

std::string formatMicros(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f µs", double(ns) / 1000.0);
  return buf;
}

std::string baseName(const std::string &p) {
  return fs::path(p).filename().string();
}

/// The op of an FX node target: `torch.ops.aten.log.default` -> `log`.
std::string_view opOfTarget(std::string_view target) {
  if (target.rfind("torch.ops.", 0) == 0) target.remove_prefix(10);
  size_t dot = target.find('.');
  if (dot == std::string_view::npos) return target;
  std::string_view rest = target.substr(dot + 1);
  return rest.substr(0, rest.find('.'));
}

/// Ops that can turn finite inputs into NaN or Inf, for picking the user line that made a NaN among a fused
/// kernel's origins.
bool canMakeNonFinite(std::string_view op) {
  static const std::set<std::string_view> ops = {"log",          "log2",        "log10",
                                                 "log1p",        "sqrt",        "rsqrt",
                                                 "pow",          "div",         "true_divide",
                                                 "floor_divide", "reciprocal",  "acos",
                                                 "asin",         "acosh",       "atanh",
                                                 "exp",          "exp2",        "expm1",
                                                 "lgamma",       "digamma",     "polygamma",
                                                 "erfinv",       "fmod",        "remainder",
                                                 "xlogy",        "var",         "std",
                                                 "var_mean",     "std_mean",    "logit",
                                                 "tan",          "mvlgamma",    "special_xlog1py",
                                                 "_log_softmax", "log_softmax", "logsumexp",
                                                 "mean",         "cosh",        "sinh"};
  return ops.count(op) > 0 || op.rfind("special_", 0) == 0;
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

bool statsDiffer(const TensorStats &a, const TensorStats &b) {
  auto same = [](const std::optional<double> &x, const std::optional<double> &y) {
    if (!x || !y) return !x && !y;
    if (std::isnan(*x) || std::isnan(*y)) return std::isnan(*x) && std::isnan(*y);
    return *x == *y;
  };
  return !same(a.mean, b.mean) || !same(a.min, b.min) || !same(a.max, b.max) || !same(a.std, b.std) ||
         a.value != b.value;
}

bool isBufferName(std::string_view arg) {
  return arg.size() > 3 && arg.rfind("buf", 0) == 0 &&
         std::all_of(arg.begin() + 3, arg.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

void IndexBuilder::buildRuntime(const DiscoveredInputs &inputs) {
  auto data = std::make_shared<RuntimeData>();
  Index &idx = *index_;

  // Files: named by the options, found by discovery, and beside every trace log (its directory and the one
  // above, two levels down: `<case>/trace/*.log` has `<case>/profile/*.json.gz` and `<case>/run.log`).
  std::vector<std::string> policyRoots = options_.roots;
  policyRoots.insert(policyRoots.end(), options_.inputs.begin(), options_.inputs.end());
  policyRoots.insert(policyRoots.end(), options_.profiles.begin(), options_.profiles.end());
  policyRoots.insert(policyRoots.end(), options_.runLogs.begin(), options_.runLogs.end());
  for (const PathMapping &m : options_.pathMappings)
    policyRoots.push_back(m.to);
  ReadPolicy policy(policyRoots);

  std::set<std::string> profileSet, runLogSet, explicitRunLogs, explicitProfiles;
  std::vector<std::string> profiles, runLogCandidates;
  auto addProfile = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) explicitProfiles.insert(n);
    if (profileSet.insert(n).second) profiles.push_back(n);
  };
  auto addRunLog = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) explicitRunLogs.insert(n);
    if (runLogSet.insert(n).second) runLogCandidates.push_back(n);
  };
  auto expand = [&](const std::string &p, bool profile) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      DiscoveredInputs found = discoverInputs({p});
      for (const std::string &f : found.profiles)
        profile ? addProfile(f, true) : void();
      for (const std::string &f : found.runLogCandidates)
        profile ? void() : addRunLog(f, false);
      return;
    }
    if (!fs::exists(p, ec)) {
      diag(p, 0, profile ? "profile not found" : "run log not found");
      return;
    }
    profile ? addProfile(p, true) : addRunLog(p, true);
  };
  for (const std::string &p : options_.profiles)
    expand(p, true);
  for (const std::string &p : options_.runLogs)
    expand(p, false);
  for (const std::string &p : inputs.profiles)
    addProfile(p, false);
  for (const std::string &p : inputs.runLogCandidates)
    addRunLog(p, false);
  std::set<std::string> besideDirs;
  for (const auto &log : tables_->logs) {
    fs::path dir = fs::path(log->path()).parent_path();
    besideDirs.insert(dir.string());
    if (dir.has_parent_path()) besideDirs.insert(dir.parent_path().string());
  }
  for (const std::string &dir : besideDirs) {
    if (!policy.allows(dir)) continue;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    size_t seen = 0;
    for (; !ec && it != end && seen < 5000; it.increment(ec), ++seen) {
      std::error_code fe;
      if (it->is_directory(fe)) {
        if (it.depth() >= 1 || isSkippedDirectory(it->path().filename().string()))
          it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(fe)) continue;
      std::string name = it->path().filename().string();
      if (isProfileName(name))
        addProfile(it->path().string(), false);
      else if (isRunLogCandidateName(name))
        addRunLog(it->path().string(), false);
    }
  }

  // Profiles: read and joined on the workers, summed in order.
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
  struct ProfileResult {
    std::optional<ChromeTrace> trace;
    ProfileJoin join;
    std::string error;
    bool refused = false;
  };
  std::vector<ProfileResult> results(profiles.size());
  if (!profiles.empty()) report(0, profiles.size(), "reading profiles");
  parallelFor(profiles.size(), [&](size_t i) {
    ProfileResult &r = results[i];
    if (!policy.allows(profiles[i])) {
      r.refused = true;
      return;
    }
    auto trace = readChromeTrace(profiles[i]);
    if (!trace) {
      r.error = trace.error().message;
      return;
    }
    if (!trace->sawTraceEvents) return; // A JSON file that only looked like a profile by name.
    r.join = joinProfile(*trace, joinCompiles);
    // Keep only what the summary needs: the events are large.
    ChromeTrace summary;
    summary.path = trace->path;
    summary.skippedEvents = trace->skippedEvents;
    summary.truncated = trace->truncated;
    summary.problem = trace->problem;
    summary.sawTraceEvents = true;
    r.trace = std::move(summary);
  });
  if (cancelled()) return;

  RuntimeTimes &times = data->times;
  size_t stepProfiles = 0;
  for (const ProfileResult &r : results)
    if (r.trace && !r.join.steps.empty()) ++stepProfiles;
  data->compileTimes.resize(idx.compiles_.size());
  std::map<std::string, uint64_t> eagerOps;
  std::vector<std::vector<uint64_t>> compileSteps(idx.compiles_.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const ProfileResult &r = results[i];
    if (r.refused) {
      diag(profiles[i], 0, "profile not read: outside the workspace and the trace inputs");
      continue;
    }
    if (!r.error.empty()) {
      if (explicitProfiles.count(profiles[i])) diag(profiles[i], 0, "cannot read profile: " + r.error);
      continue;
    }
    if (!r.trace) {
      if (explicitProfiles.count(profiles[i])) diag(profiles[i], 0, "not a profiler trace (no traceEvents)");
      continue;
    }
    const ProfileJoin &j = r.join;
    ProfileInfo info;
    info.path = profiles[i];
    info.steps = j.steps.size();
    info.totalNs = j.totalNs;
    info.eagerNs = j.eagerNs;
    info.unjoinedNs = j.unjoinedNs;
    info.outsideStepsNs = j.outsideStepsNs;
    info.calls = j.calls;
    info.unjoinedCalls = static_cast<uint32_t>(j.unjoined.size());
    info.activities = j.kernelActivities;
    info.unlinkedActivities = j.unlinkedActivities;
    info.skippedEvents = r.trace->skippedEvents;
    info.truncated = r.trace->truncated;
    info.problem = r.trace->problem;
    if (info.truncated) {
      diag(profiles[i], 0, "profile read in part: " + info.problem);
      times.caveats.push_back(baseName(info.path) + " was read only in part (" + info.problem + ").");
    }
    if (j.calls == 0 && j.totalNs > 0)
      times.caveats.push_back(baseName(info.path) +
                              " has no `## Call CompiledFxGraph` ranges: no compiled call could be joined "
                              "(profile made without CPU activity, of AOTInductor, or of eager code).");
    if (j.unlinkedActivities)
      times.caveats.push_back(baseName(info.path) + ": " + std::to_string(j.unlinkedActivities) +
                              " device activities have no CPU launch in the profile; they count as eager.");
    if (!j.unjoined.empty()) {
      uint64_t ns = 0;
      for (const UnjoinedCall &u : j.unjoined)
        ns += u.ns;
      times.caveats.push_back(
          baseName(info.path) + ": " + std::to_string(j.unjoined.size()) + " compiled calls (" +
          formatMicros(ns) +
          ") name an FX graph cache key no indexed compile has (first: " + j.unjoined.front().key + ").");
    }
    size_t stepOffset = times.steps.size();
    for (size_t s = 0; s < j.steps.size(); ++s) {
      times.steps.push_back(stepProfiles > 1 ? baseName(info.path) + ": " + j.steps[s] : j.steps[s]);
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
      CompileTiming &t = data->compileTimes[c];
      t.ns += ct.ns;
      t.otherNs += ct.otherNs;
      t.graphReplayNs += ct.graphReplayNs;
      t.calls += ct.calls;
      t.graphReplays += ct.graphReplays;
      t.launchesMissed = std::max(t.launchesMissed, ct.launchesMissed);
      t.byCompileId = t.byCompileId || ct.byCompileId;
      for (const auto &[name, ns] : ct.replayKernels) {
        auto it = std::find_if(t.replayKernels.begin(), t.replayKernels.end(),
                               [&](const auto &p) { return p.first == name; });
        if (it == t.replayKernels.end())
          t.replayKernels.emplace_back(name, ns);
        else
          it->second += ns;
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
        LaunchTiming &t2 = data->launchTimes[RuntimeData::key({code, l})];
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
  for (size_t c = 0; c < data->compileTimes.size(); ++c) {
    data->compileTimes[c].perStep = std::move(compileSteps[c]);
    data->compileTimes[c].perStep.resize(times.steps.size(), 0);
  }
  for (auto &[k, t] : data->launchTimes)
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
      CompileTiming &t = data->compileTimes[c];
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

  // Per user line: the sum over its launches.
  if (times.present()) {
    std::map<std::pair<std::string, uint32_t>, LineTiming> lines;
    for (uint32_t c = 0; c < idx.compiles_.size(); ++c) {
      const Compile &comp = idx.compiles_[c];
      if (!comp.outputCode.valid()) continue;
      const Artifact &a = idx.artifacts_[comp.outputCode.value];
      for (uint32_t l = 0; l < a.launches.size(); ++l) {
        auto it = data->launchTimes.find(RuntimeData::key({comp.outputCode, l}));
        for (const Origin &o : a.launches[l].origins) {
          LineTiming &lt = lines[{normalizePath(o.path), o.line}];
          lt.path = o.path;
          lt.line = o.line;
          if (lt.code.empty()) lt.code = o.code;
          ++lt.launches;
          if (it == data->launchTimes.end()) continue;
          ++lt.timedLaunches;
          lt.ns += it->second.ns;
          lt.byKind[std::string(comp.kindWord())] += it->second.ns;
          lt.perStep.resize(times.steps.size(), 0);
          for (size_t s = 0; s < it->second.perStep.size() && s < lt.perStep.size(); ++s)
            lt.perStep[s] += it->second.perStep[s];
        }
      }
    }
    for (auto &[k, lt] : lines)
      if (lt.timedLaunches) data->hotLines.push_back(std::move(lt));
    std::stable_sort(data->hotLines.begin(), data->hotLines.end(),
                     [](const LineTiming &a, const LineTiming &b) { return a.ns > b.ns; });
  }
  idx.stats_.profiles = times.profiles.size();

  // Run logs of the printer.
  size_t sniffed = 0;
  for (const std::string &path : runLogCandidates) {
    if (cancelled()) return;
    bool isExplicit = explicitRunLogs.count(path) > 0;
    if (!isExplicit && ++sniffed > kMaxRunLogCandidates) break;
    if (!policy.allows(path)) {
      if (isExplicit) diag(path, 0, "run log not read: outside the workspace and the trace inputs");
      continue;
    }
    auto file = MappedFile::open(path);
    if (!file) {
      if (isExplicit) diag(path, 0, "cannot read run log: " + file.error().message);
      continue;
    }
    std::string_view text = file->text();
    if (!looksLikePrinterLog(text.substr(0, kSniffBytes))) {
      if (isExplicit) diag(path, 0, "no output of the intermediate value debug printer in this run log");
      continue;
    }
    bool cut = text.size() > kMaxRunLogBytes;
    if (cut) text = text.substr(0, kMaxRunLogBytes);
    RunLog log = parseRunLog(text);
    if (cut || log.truncated) diag(path, 0, "run log read in part (size limits)");
    // The compiles of this run: those whose trace or output code lies in the run log's folder tree (a
    // workspace may hold several runs whose kernels share names); all compiles when none does.
    std::string dir = normalizePath(fs::path(path).parent_path().string());
    std::vector<uint32_t> scope;
    for (uint32_t c = 0; c < idx.compiles_.size(); ++c) {
      const Compile &comp = idx.compiles_[c];
      bool near = !comp.traceFile.empty() && isWithin(normalizePath(comp.traceFile), dir);
      if (!near && comp.outputCode.valid())
        for (const std::string &p : idx.artifacts_[comp.outputCode.value].paths)
          near = near || isWithin(normalizePath(p), dir);
      if (near) scope.push_back(c);
    }
    if (scope.empty())
      for (uint32_t c = 0; c < idx.compiles_.size(); ++c)
        scope.push_back(c);
    std::vector<PrinterCompile> printerCompiles;
    for (uint32_t c : scope) {
      PrinterCompile pc;
      if (idx.compiles_[c].outputCode.valid())
        for (const Launch &l : idx.artifacts_[idx.compiles_[c].outputCode.value].launches)
          pc.launchKernels.push_back(l.site.kernel);
      printerCompiles.push_back(std::move(pc));
    }
    PrinterMapping mapping = mapRunLog(log, printerCompiles);
    RunLogInfo info;
    info.path = path;
    info.records = log.records.size();
    info.launchEvents = mapping.launches.size();
    info.unmatched = mapping.unmatched;
    info.malformed = log.malformed;
    info.truncated = cut || log.truncated;
    info.calls = mapping.calls.size();
    if (mapping.unmatched)
      diag(path, 0,
           std::to_string(mapping.unmatched) +
               " printed launches match no launch of the indexed output code");

    auto refOf = [&](const PrinterLaunch &pl) -> std::optional<LaunchRef> {
      if (pl.compile == kNoLaunch) return std::nullopt;
      const Compile &comp = idx.compiles_[scope[pl.compile]];
      if (!comp.outputCode.valid()) return std::nullopt;
      return LaunchRef{comp.outputCode, pl.launch};
    };
    // Statistics of each launch: the first call's arguments, and counts over all calls.
    std::map<uint32_t, std::set<std::string>> seenBuffers; // Per call.
    for (const PrinterLaunch &pl : mapping.launches) {
      auto ref = refOf(pl);
      std::set<std::string> &seen = seenBuffers[pl.call];
      std::vector<ArgValues> args;
      bool nonFinite = false;
      auto argOf = [&](const std::string &name) -> ArgValues & {
        for (ArgValues &a : args)
          if (a.arg == name) return a;
        args.push_back({name, std::nullopt, std::nullopt, false});
        return args.back();
      };
      for (uint32_t r : pl.before) {
        const PrinterRecord &rec = log.records[r];
        ArgValues &a = argOf(rec.arg);
        a.before = rec.stats;
        if (isBufferName(rec.arg) && !seen.count(rec.arg)) a.output = true;
      }
      for (uint32_t r : pl.after) {
        const PrinterRecord &rec = log.records[r];
        ArgValues &a = argOf(rec.arg);
        a.after = rec.stats;
        nonFinite = nonFinite || rec.stats.nonFinite();
        if (!a.before || statsDiffer(*a.before, rec.stats)) a.output = true;
      }
      for (const ArgValues &a : args)
        seen.insert(a.arg);
      if (!ref) continue;
      LaunchValues &v = data->launchValues[RuntimeData::key(*ref)];
      ++v.calls;
      if (nonFinite) ++v.nonFiniteCalls;
      if (v.args.empty()) {
        v.args = std::move(args);
        v.runLog = path;
        uint32_t first = !pl.before.empty() ? pl.before.front() : !pl.after.empty() ? pl.after.front() : 0;
        v.line = first < log.records.size() ? log.records[first].line : 0;
      }
    }

    // Diagnostics: where NaN/Inf first shows up, and a launch the run did not finish.
    auto launchLocation = [&](LaunchRef ref) {
      RuntimeLocation loc;
      loc.artifact = ref.artifact;
      const Artifact &a = idx.artifacts_[ref.artifact.value];
      if (!a.paths.empty()) loc.path = a.paths.front();
      const KernelLaunch &site = a.launches[ref.index].site;
      loc.line = site.line;
      loc.column = site.column;
      loc.endColumn = std::max(site.endColumn, site.column);
      loc.launch = ref.index;
      return loc;
    };
    auto launchName = [&](LaunchRef ref) {
      const KernelLaunch &site = idx.artifacts_[ref.artifact.value].launches[ref.index].site;
      return site.kernel + (site.debugHandle ? ":" + std::to_string(*site.debugHandle) : "");
    };
    auto userLocation = [&](const Origin &o) {
      RuntimeLocation loc;
      loc.path = o.path;
      loc.line = o.line > 0 ? o.line - 1 : 0;
      return loc;
    };
    auto originText = [&](const Origin &o) {
      std::string s = baseName(o.path) + ":" + std::to_string(o.line);
      std::string code(trim(o.code));
      if (!code.empty()) s += " " + code;
      return s;
    };
    auto joinArgs = [](const std::vector<std::string> &args) {
      std::string s;
      for (size_t i = 0; i < args.size() && i < 4; ++i)
        s += (i ? ", " : "") + args[i];
      if (args.size() > 4) s += ", …";
      return s;
    };
    std::string logName = baseName(path);
    if (auto origin = firstNonFinite(log, mapping)) {
      std::string what = origin->nan ? "NaN" : "Inf";
      std::optional<LaunchRef> ref =
          origin->launch != kNoLaunch ? refOf(mapping.launches[origin->launch]) : std::nullopt;
      uint32_t logLine = 0;
      if (origin->launch != kNoLaunch) {
        const PrinterLaunch &pl = mapping.launches[origin->launch];
        const auto &recs =
            origin->kind == NonFiniteOrigin::Kind::Produced && !pl.after.empty() ? pl.after : pl.before;
        if (!recs.empty()) logLine = log.records[recs.front()].line;
      }
      std::string where = logName + ":" + std::to_string(logLine + 1);
      if (origin->kind == NonFiniteOrigin::Kind::Produced && ref) {
        const Launch &l = idx.artifacts_[ref->artifact.value].launches[ref->index];
        const Compile *comp = idx.compileOf(ref->artifact);
        // The user lines to blame: among the launch's origins, those whose FX nodes compute an op that can
        // make NaN/Inf from finite values (log, sqrt, div...); all origins when none can be told.
        std::vector<Origin> suspects;
        if (comp && comp->postGradGraph.valid()) {
          const Artifact &g = idx.artifacts_[comp->postGradGraph.value];
          for (const std::string &node : l.postGradNodes)
            for (const Artifact::GraphNode &n : g.graphNodes)
              if (n.name == node && n.origin && canMakeNonFinite(opOfTarget(n.target)))
                for (const Origin &o : l.origins)
                  if (o.line == n.origin->line && normalizePath(o.path) == normalizePath(n.origin->path) &&
                      std::find(suspects.begin(), suspects.end(), o) == suspects.end())
                    suspects.push_back(o);
        }
        if (suspects.empty()) suspects = l.origins;
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Error;
        d.code = origin->nan ? "first-nan" : "first-inf";
        d.location = launchLocation(*ref);
        d.message = "first " + what + ": " + launchName(*ref);
        if (!suspects.empty()) d.message += " ← " + originText(suspects.front());
        d.message += "\n" + joinArgs(origin->args) + " holds " + what +
                     " after this launch while its inputs were finite (" + where +
                     (comp ? ", " + comp->label() : "") + ").";
        for (const Origin &o : suspects)
          d.related.push_back({userLocation(o), "user line of " + launchName(*ref)});
        data->diagnostics.push_back(d);
        for (const Origin &o : suspects) {
          RuntimeDiagnostic u;
          u.severity = RuntimeDiagnostic::Severity::Error;
          u.code = d.code;
          u.location = userLocation(o);
          u.message = "first " + what + ": " + launchName(*ref) + " ← this line\n" + joinArgs(origin->args) +
                      " holds " + what + " after the kernel while its inputs were finite (" + where +
                      (comp ? ", " + comp->label() : "") + ").";
          u.related.push_back({launchLocation(*ref), "the launch in the output code"});
          data->diagnostics.push_back(std::move(u));
        }
      } else if (origin->kind == NonFiniteOrigin::Kind::InInputs && ref) {
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Warning;
        d.code = "nan-in-inputs";
        d.location = launchLocation(*ref);
        d.message =
            what + " reaches " + launchName(*ref) + " through " + joinArgs(origin->args) +
            ": no printed launch made it (a graph input, a parameter, or a kernel the printer skipped; " +
            where + ").";
        data->diagnostics.push_back(std::move(d));
      } else if (origin->kind == NonFiniteOrigin::Kind::GraphInput && origin->call != kNoLaunch) {
        const PrinterCall &call = mapping.calls[origin->call];
        const Compile &comp = idx.compiles_[scope[call.compile]];
        if (comp.outputCode.valid()) {
          const Artifact &a = idx.artifacts_[comp.outputCode.value];
          RuntimeDiagnostic d;
          d.severity = RuntimeDiagnostic::Severity::Warning;
          d.code = "nan-graph-input";
          d.location.artifact = comp.outputCode;
          if (!a.paths.empty()) d.location.path = a.paths.front();
          if (!a.code.entries.empty()) d.location.line = a.code.entries.front().line;
          uint32_t inputLine = call.inputs.empty() ? 0 : log.records[call.inputs.front()].line;
          d.message = "graph input " + joinArgs(origin->args) + " holds " + what + " when " + comp.label() +
                      " starts (" + logName + ":" + std::to_string(inputLine + 1) + ").";
          data->diagnostics.push_back(std::move(d));
        }
      }
    }
    if (uint32_t e = unfinishedLaunch(log, mapping); e != kNoLaunch)
      if (auto ref = refOf(mapping.launches[e])) {
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Warning;
        d.code = "unfinished-launch";
        d.location = launchLocation(*ref);
        d.message =
            "the run log ends inside this launch (before_launch printed, no after_launch): the process "
            "likely died here (" +
            logName + ").";
        data->diagnostics.push_back(std::move(d));
      }
    data->runLogs.push_back(std::move(info));
  }
  idx.stats_.runLogs = data->runLogs.size();
  index_->runtime_ = std::move(data);
}

} // namespace inductor::index
