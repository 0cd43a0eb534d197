// The runtime lookups of Runtime.h: pure functions of a built Index.
#include "index/runtime/Runtime.h"

#include "index/files/PathResolver.h"

#include <algorithm>
#include <unordered_set>

namespace inductor::index {

const LaunchTiming *launchTiming(const Index &index, LaunchRef ref) {
  const auto &m = index.runtime().launchTimes;
  auto it = m.find(RuntimeData::key(ref));
  return it == m.end() ? nullptr : &it->second;
}

const CompileTiming *compileTiming(const Index &index, CompileRef ref) {
  const auto &v = index.runtime().compileTimes;
  if (!ref.valid() || ref.value >= v.size() || v[ref.value].calls == 0) return nullptr;
  return &v[ref.value];
}

std::vector<TimedLaunch> hotLaunches(const Index &index) {
  std::vector<TimedLaunch> out;
  for (const Compile &c : index.compiles()) {
    if (!c.outputCode.valid()) continue;
    for (uint32_t l = 0; l < index.artifact(c.outputCode).launches.size(); ++l)
      if (const LaunchTiming *t = launchTiming(index, {c.outputCode, l}))
        out.push_back({{c.outputCode, l}, t});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TimedLaunch &a, const TimedLaunch &b) { return a.timing->ns > b.timing->ns; });
  return out;
}

const LaunchValues *launchValues(const Index &index, LaunchRef ref) {
  const auto &m = index.runtime().launchValues;
  auto it = m.find(RuntimeData::key(ref));
  return it == m.end() ? nullptr : &it->second;
}

LaunchesTiming timeOfLaunches(const Index &index, const std::vector<LaunchRef> &launches) {
  LaunchesTiming out;
  const RuntimeData &rt = index.runtime();
  std::unordered_set<uint64_t> seen;
  seen.reserve(launches.size());
  for (LaunchRef r : launches) {
    if (!seen.insert(RuntimeData::key(r)).second) continue;
    ++out.launches;
    const LaunchTiming *t = launchTiming(index, r);
    if (!t) continue;
    ++out.timedLaunches;
    out.ns += t->ns;
    const Artifact &a = index.artifact(r.artifact);
    if (const Compile *c = index.compileOf(r.artifact)) out.byKind[std::string(c->kindWord())] += t->ns;
    if (a.compile.valid()) out.byCompile[a.compile.value] += t->ns;
    out.perStep.resize(rt.times.steps.size(), 0);
    for (size_t s = 0; s < t->perStep.size() && s < out.perStep.size(); ++s)
      out.perStep[s] += t->perStep[s];
  }
  return out;
}

std::vector<const RuntimeDiagnostic *> runtimeDiagnosticsIn(const Index &index, std::string_view path,
                                                            const std::vector<ArtifactId> &artifacts) {
  std::vector<const RuntimeDiagnostic *> out;
  std::string p = path.empty() ? std::string() : normalizePath(path);
  for (const RuntimeDiagnostic &d : index.runtime().diagnostics) {
    const RuntimeLocation &loc = d.location;
    bool here = loc.artifact.valid()
                    ? std::find(artifacts.begin(), artifacts.end(), loc.artifact) != artifacts.end()
                    : !p.empty() && normalizePath(loc.path) == p;
    if (here) out.push_back(&d);
  }
  return out;
}

} // namespace inductor::index
