#include "index/model/Counts.h"

#include "index/model/Ranks.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace inductor::index {

std::string countText(size_t n, std::string_view one, std::string_view many) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

CompileCounts countCompiles(const CompileHealth &health, const std::vector<uint32_t> &compiles) {
  // A compile is its id within its function: the ranks of a job compile the same frames side by side, so
  // one id is one compile however many ranks ran it (a failure if it failed on any, its graph breaks the most
  // any rank had).
  struct PerCompile {
    bool recompile = false, failure = false;
    size_t breaks = 0;
    std::optional<double> seconds;
  };
  std::map<std::string, PerCompile> perCompile;
  std::set<std::string> frames;
  std::set<int> ranks;
  for (uint32_t ci : compiles) {
    if (ci >= health.compiles.size()) continue;
    const FrameCompile &c = health.compiles[ci];
    const CompiledFrame &f = health.frames[c.frame];
    std::string frame = f.frameId ? std::to_string(*f.frameId) : "?" + f.function;
    if (f.compiledAutogradId) frame = "!" + std::to_string(*f.compiledAutogradId) + "/" + frame;
    frames.insert(frame);
    if (c.rank) ranks.insert(*c.rank);
    PerCompile &p = perCompile[c.id.str() + "\n" + f.function];
    p.recompile |= c.recompile;
    size_t breaks = 0;
    for (uint32_t e : c.events) {
      breaks += health.events[e].kind == HealthEventKind::GraphBreak;
      p.failure |= health.events[e].kind == HealthEventKind::Failure;
    }
    p.breaks = std::max(p.breaks, breaks);
    std::optional<double> seconds;
    for (const auto &part : {c.compileSeconds, c.backwardSeconds, c.runtimeSeconds})
      if (part) seconds = seconds.value_or(0) + *part;
    if (seconds) p.seconds = std::max(p.seconds.value_or(0), *seconds);
  }
  CompileCounts out;
  out.compiles = perCompile.size();
  out.frames = frames.size();
  out.ranks = ranks.size();
  for (const auto &[key, p] : perCompile) {
    out.graphBreaks += p.breaks;
    out.recompiles += p.recompile;
    out.failures += p.failure;
    if (p.seconds) out.seconds = out.seconds.value_or(0) + *p.seconds;
  }
  return out;
}

std::string CompileCounts::text() const {
  std::string s = countText(compiles, "compile");
  if (failures) s += " · " + std::to_string(failures) + " failed";
  if (graphBreaks) s += " · " + countText(graphBreaks, "graph break");
  if (recompiles) s += " · " + countText(recompiles, "recompile");
  return s;
}

LaunchSummary summarizeLaunches(const Index &index, const std::vector<LaunchRef> &launches) {
  LaunchSummary out;
  // Group key: compile id (ranks merged) and graph kind. Kernel key: its name. Launch key: the debug handle,
  // else the line, since ranks may differ in nothing else.
  struct GroupState {
    std::set<int> ranks;
    bool anyRank = false;
    std::unordered_map<std::string_view, size_t> kernelIndex; // Views of the index's kernel names.
    /// Per kernel: site -> the versions of the code (Index::firstEquivalent) it was seen in.
    std::vector<std::unordered_map<int64_t, std::vector<uint32_t>>> siteKeys;
    /// Per version of the code (by Index::firstEquivalent): its ranks, and its own kernels and sites.
    struct Version {
      std::set<int> ranks;
      std::unordered_map<std::string_view, size_t> kernelIndex;
      std::vector<std::set<int64_t>> sites;
      std::vector<LaunchSummary::Kernel> kernels;
    };
    std::vector<uint32_t> versionOrder;
    std::unordered_map<uint32_t, Version> versions;
  };
  std::vector<GroupState> state;
  std::map<std::string, size_t> groupIndex;
  // The group of each artifact, found once: a many-rank line has thousands of launches in a few artifacts.
  std::unordered_map<uint32_t, size_t> groupOfArtifact;
  for (LaunchRef r : launches) {
    const Launch &l = index.launch(r);
    auto [ait, newArtifact] = groupOfArtifact.try_emplace(r.artifact.value, 0);
    if (newArtifact) {
      const Compile *c = index.compileOf(r.artifact);
      std::string label = c ? c->label(/*withRank=*/false) : "unknown compile";
      std::string kind = c ? std::string(c->kindWord()) : "other";
      std::string key = label;
      key.append("\n").append(kind);
      // Output code found only in files has no compile id: each is a graph of its own.
      if (c && c->id.empty())
        key.append("\n").append(std::to_string(index.artifact(r.artifact).compile.value));
      auto [git, fresh] = groupIndex.try_emplace(key, out.groups.size());
      if (fresh) {
        LaunchSummary::Group g;
        g.kindWord = kind;
        g.label = label;
        // Without a compile id, the graph is a compile of its own (its label tells it apart).
        g.compile = c && !c->id.empty() ? c->id.str() : "\n" + key;
        out.groups.push_back(std::move(g));
        state.emplace_back();
      }
      ait->second = git->second;
      if (c && c->rank) {
        state[git->second].ranks.insert(*c->rank);
        state[git->second].anyRank = true;
      }
    }
    LaunchSummary::Group &g = out.groups[ait->second];
    GroupState &st = state[ait->second];
    auto [kit, newKernel] = st.kernelIndex.try_emplace(l.site.kernel, g.kernels.size());
    if (newKernel) {
      g.kernels.push_back({l.site.kernel, l.kind, {}, {}});
      st.siteKeys.emplace_back();
    }
    int64_t site = l.site.debugHandle ? int64_t{*l.site.debugHandle} : -1 - int64_t{l.site.line};
    auto [sit, newSite] = st.siteKeys[kit->second].try_emplace(site);
    uint32_t version = index.firstEquivalent(r.artifact).value;
    // This version's row: its ranks, kernels and sites alone.
    auto [vit, newVersion] = st.versions.try_emplace(version);
    if (newVersion) st.versionOrder.push_back(version);
    GroupState::Version &v = vit->second;
    if (const Compile *c = index.compileOf(r.artifact); c && c->rank) v.ranks.insert(*c->rank);
    auto [vk, newVersionKernel] = v.kernelIndex.try_emplace(l.site.kernel, v.kernels.size());
    if (newVersionKernel) {
      v.kernels.push_back({l.site.kernel, l.kind, {}, {}});
      v.sites.emplace_back();
    }
    if (v.sites[vk->second].insert(site).second) v.kernels[vk->second].launches.push_back(r);
    if (std::find(sit->second.begin(), sit->second.end(), version) != sit->second.end()) continue;
    sit->second.push_back(version);
    (newSite ? g.kernels[kit->second].launches : g.kernels[kit->second].variants).push_back(r);
  }
  std::set<std::string> compiles;
  for (size_t i = 0; i < state.size(); ++i) {
    GroupState &st = state[i];
    LaunchSummary::Group &g = out.groups[i];
    compiles.insert(g.compile);
    if (g.compile.starts_with("\n")) g.compile.clear();
    auto ranksText = [](const std::set<int> &ranks) {
      std::string out;
      for (int rank : ranks)
        out += (out.empty() ? "" : ", ") + std::to_string(rank);
      return (ranks.size() == 1 ? " · rank " : " · ranks ") + out;
    };
    std::string label = g.label;
    if (st.anyRank) g.label += ranksText(st.ranks);
    if (st.versionOrder.size() < 2) {
      g.rows.push_back({g.label, g.kernels});
      for (LaunchSummary::Kernel &k : g.rows.back().kernels)
        k.variants.clear();
      continue;
    }
    for (uint32_t version : st.versionOrder) {
      GroupState::Version &v = st.versions[version];
      g.rows.push_back({label + (v.ranks.empty() ? "" : ranksText(v.ranks)), std::move(v.kernels)});
    }
  }
  out.compiles = compiles.size();
  for (const LaunchSummary::Group &g : out.groups) {
    out.kernels += g.kernels.size();
    for (const LaunchSummary::Kernel &k : g.kernels)
      out.launches += k.launches.size();
  }
  return out;
}

std::vector<LaunchRef> LaunchSummary::sites() const {
  std::vector<LaunchRef> out;
  out.reserve(launches);
  for (const Group &g : groups)
    for (const Kernel &k : g.kernels)
      out.insert(out.end(), k.launches.begin(), k.launches.end());
  return out;
}

std::vector<LaunchRef> LaunchSummary::locations() const {
  std::vector<LaunchRef> out = sites();
  for (const Group &g : groups)
    for (const Kernel &k : g.kernels)
      out.insert(out.end(), k.variants.begin(), k.variants.end());
  return out;
}

std::string LaunchSummary::counts() const {
  std::string out = countText(kernels, "kernel");
  if (launches != kernels) out += ", " + countText(launches, "launch", "launches");
  if (compiles > 1) out += " over " + countText(compiles, "compile");
  return out;
}

std::string LaunchSummary::byKind() const {
  std::map<std::string, size_t> n;
  for (const Group &g : groups)
    n[g.kindWord] += g.kernels.size();
  std::string out;
  for (const char *k : {"forward", "backward", "inference", "AOT", "other"})
    if (auto it = n.find(k); it != n.end()) out += " · " + std::to_string(it->second) + " " + k;
  return out;
}

/// `torch_dynamo_resume_in_<fn>_at_<line>` (torch/_dynamo/resume_execution.py names the code that runs after
/// a graph break so): <fn> and <line>; nullopt for other names.
std::optional<std::pair<std::string, uint32_t>> parseResumeName(std::string_view name) {
  constexpr std::string_view prefix = "torch_dynamo_resume_in_";
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  size_t at = name.rfind("_at_");
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  std::string_view digits = name.substr(at + 4);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::make_pair(std::string(name.substr(0, at)),
                        static_cast<uint32_t>(std::stoul(std::string(digits))));
}

FunctionGroups groupFunctions(const CompileHealth &h) {
  FunctionGroups out;
  size_t n = h.frames.size();
  out.name.resize(n);
  out.def.resize(n);
  out.function.resize(n);
  // A frame id is one code object in one process (log and rank).
  using Key = std::tuple<uint32_t, int, int, int>;
  auto keyOf = [](const CompiledFrame &f) -> std::optional<Key> {
    if (!f.frameId) return std::nullopt;
    return Key{f.traceFile, f.rank.value_or(-1), f.compiledAutogradId.value_or(-1), *f.frameId};
  };
  std::map<Key, uint32_t> named;
  for (uint32_t fi = 0; fi < n; ++fi)
    if (auto k = keyOf(h.frames[fi]); k && !h.frames[fi].function.empty()) named.try_emplace(*k, fi);
  std::map<std::tuple<uint32_t, int, std::string>, uint32_t> byName; // (log, rank, name) -> first frame.
  for (uint32_t fi = 0; fi < n; ++fi) {
    const CompiledFrame &f = h.frames[fi];
    out.name[fi] = f.function;
    out.def[fi] = f.def;
    if (auto k = keyOf(f); k && (f.function.empty() || !f.def))
      if (auto it = named.find(*k); it != named.end()) {
        if (f.function.empty()) out.name[fi] = h.frames[it->second].function;
        if (!f.def) out.def[fi] = h.frames[it->second].def;
      }
    if (!out.name[fi].empty()) byName.try_emplace({f.traceFile, f.rank.value_or(-1), out.name[fi]}, fi);
  }
  // Nothing names it: its frame id is what the trace knows.
  for (uint32_t fi = 0; fi < n; ++fi)
    if (out.name[fi].empty())
      out.name[fi] =
          h.frames[fi].frameId ? "(frame " + std::to_string(*h.frames[fi].frameId) + ")" : "(unknown)";
  std::map<std::string, uint32_t> functionOf; // name, def path and line -> index into functions.
  for (uint32_t fi = 0; fi < n; ++fi) {
    uint32_t owner = fi;
    for (int hops = 0; h.frames[owner].resumeOf && hops < 64; ++hops)
      owner = *h.frames[owner].resumeOf;
    // A resume function whose frame the build did not link: the function its name says, in the same log.
    std::string name = out.name[owner];
    if (auto r = parseResumeName(name)) {
      const CompiledFrame &f = h.frames[owner];
      if (auto it = byName.find({f.traceFile, f.rank.value_or(-1), r->first}); it != byName.end())
        owner = it->second;
      name = r->first;
    }
    std::optional<uint32_t> def = out.def[owner];
    std::string key = name;
    if (def) key += "\n" + h.places[*def].path + "\n" + std::to_string(h.places[*def].line);
    auto [it, fresh] = functionOf.try_emplace(key, static_cast<uint32_t>(out.functions.size()));
    if (fresh) out.functions.push_back({name, def, {}, {}});
    FunctionGroups::Function &fn = out.functions[it->second];
    fn.frames.push_back(fi);
    fn.compiles.insert(fn.compiles.end(), h.frames[fi].compiles.begin(), h.frames[fi].compiles.end());
    out.function[fi] = it->second;
  }
  return out;
}

IndexCounts countIndex(const Index &index) {
  IndexCounts out;
  out.traces = index.traceFiles().size();
  // Graphs: per graph (compile id with attempt and kind, without the rank), the most output codes any rank
  // has (DDPOptimizer splits one compile into several output codes of one id).
  std::map<std::string, std::map<int, size_t>> perGraph;
  size_t withoutId = 0;
  for (const Compile &c : index.compiles()) {
    // Output code found only in files (no compile id) is a graph of its own.
    if (c.id.empty())
      ++withoutId;
    else
      ++perGraph[c.label(/*withRank=*/false)][c.rank.value_or(-1)];
  }
  out.graphs = withoutId;
  for (const auto &[label, ranks] : perGraph) {
    size_t most = 0;
    for (const auto &[rank, n] : ranks)
      most = std::max(most, n);
    out.graphs += most;
  }
  std::vector<LaunchRef> all;
  for (uint32_t a = 0; a < index.artifacts().size(); ++a)
    for (uint32_t l = 0; l < index.artifacts()[a].launches.size(); ++l)
      all.push_back({{a}, l});
  LaunchSummary launches = summarizeLaunches(index, all);
  out.kernels = launches.kernels;
  out.launches = launches.launches;
  for (LaunchRef r : launches.sites())
    out.launchesWithOrigin += !index.launch(r).origins.empty();
  const CompileHealth &h = index.compileHealth();
  std::vector<uint32_t> compiles(h.compiles.size());
  for (uint32_t i = 0; i < compiles.size(); ++i)
    compiles[i] = i;
  out.health = countCompiles(h, compiles);
  out.compiles = out.health.compiles ? out.health.compiles : out.graphs;
  // The diagnostics every client lists (Index::healthDiagnostics, per file) and the ranks' divergences (the
  // report diagnostics read anyway, computed once per index).
  for (const std::string &path : index.healthPaths())
    for (const HealthDiagnostic &d : index.healthDiagnostics(path))
      out.problemLines += d.kind != HealthEventKind::Specialization;
  if (out.health.ranks > 1)
    for (const RankDivergence &d : index.ranks().divergences)
      out.rankDivergences += d.kind != RankDivergenceKind::Cache;
  return out;
}

std::shared_ptr<const IndexCounts> countsOf(const Index &index) {
  // A server holds one index at a time (and a build's next one): a few entries are enough.
  static std::mutex mutex;
  static std::vector<std::pair<uint64_t, std::shared_ptr<const IndexCounts>>> kept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto &[serial, counts] : kept)
      if (serial == index.serial()) return counts;
  }
  auto counts = std::make_shared<const IndexCounts>(countIndex(index));
  std::lock_guard<std::mutex> lock(mutex);
  if (kept.size() >= 4) kept.erase(kept.begin());
  kept.emplace_back(index.serial(), counts);
  return counts;
}

} // namespace inductor::index
