// The runtime lookups of Runtime.h: pure functions of a built Index.
#include "index/runtime/Runtime.h"

#include "index/files/PathResolver.h"

#include <algorithm>

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

const LineTiming *lineTiming(const Index &index, std::string_view path, uint32_t line) {
  std::string p = normalizePath(path);
  for (const LineTiming &l : index.runtime().hotLines)
    if (l.line == line && normalizePath(l.path) == p) return &l;
  return nullptr;
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
