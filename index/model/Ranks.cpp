// The ranks of a run compared (see Ranks.h).
#include "index/model/Ranks.h"

#include "index/files/PathResolver.h"
#include "index/model/IndexTables.h"
#include "index/support/TextLines.h"
#include "index/trace/TraceLog.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace inductor::index {

std::string_view rankDivergenceName(RankDivergenceKind kind) {
  switch (kind) {
  case RankDivergenceKind::Recompile:
    return "recompile";
  case RankDivergenceKind::GraphBreak:
    return "graph break";
  case RankDivergenceKind::Failure:
    return "failure";
  case RankDivergenceKind::DifferentCode:
    return "different code";
  case RankDivergenceKind::CollectiveSchedule:
    return "collective schedule";
  case RankDivergenceKind::MissingCompile:
    return "missing compile";
  case RankDivergenceKind::Cache:
    break;
  }
  return "cache";
}

std::string rankRanges(std::vector<int> ranks, size_t most) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string s;
  size_t pieces = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    if (pieces == most) return s + ", …";
    std::string piece = std::to_string(ranks[i]);
    if (j >= i + 2) { // A run of three or more.
      piece += "–" + std::to_string(ranks[j]);
      i = j + 1;
    } else {
      i = i + 1;
    }
    s += (pieces++ ? ", " : "") + piece;
  }
  return s;
}

std::string rankSubsetText(const std::vector<int> &ranks, size_t of) {
  if (ranks.size() == of && of > 1) return "all " + std::to_string(of) + " ranks";
  std::string s = (ranks.size() == 1 ? "rank " : "ranks ") + rankRanges(ranks, 8);
  if (ranks.size() == 1) s += " only";
  return s + " (" + std::to_string(ranks.size()) + " of " + std::to_string(of) + ")";
}

namespace {

/// The code a frame is of, the same on every rank (frame ids are per process: after ranks diverge, the same
/// function can get another frame id on one rank): co_name and its def line.
std::string frameKey(const CompileHealth &h, const CompiledFrame &f) {
  std::string key = f.function + "|" + f.recordedFile;
  if (f.def) key += ":" + std::to_string(h.places[*f.def].line);
  if (f.compiledAutogradId) key += "|!" + std::to_string(*f.compiledAutogradId);
  if (f.function.empty() && f.frameId) key += "|#" + std::to_string(*f.frameId);
  return key;
}

std::string placeKey(const CompileHealth &h, const HealthEvent &e) {
  if (!e.at) return {};
  const Origin &o = h.places[*e.at];
  return o.path + ":" + std::to_string(o.line);
}

bool isDivergentKind(HealthEventKind k) {
  return k == HealthEventKind::GraphBreak || k == HealthEventKind::Recompile || k == HealthEventKind::Failure;
}

RankDivergenceKind divergenceOf(HealthEventKind k) {
  return k == HealthEventKind::GraphBreak  ? RankDivergenceKind::GraphBreak
         : k == HealthEventKind::Recompile ? RankDivergenceKind::Recompile
                                           : RankDivergenceKind::Failure;
}

/// "recompiled", "graph break", "compile failed".
std::string_view eventVerb(HealthEventKind k) {
  return k == HealthEventKind::GraphBreak  ? "graph break"
         : k == HealthEventKind::Recompile ? "recompiled"
                                           : "compile failed";
}

/// Groups `items` (rank, key) by key; the largest group first (ties: the group of the lowest rank).
template <class Key>
std::vector<std::pair<Key, std::vector<int>>> groupRanks(std::vector<std::pair<int, Key>> items) {
  std::vector<std::pair<Key, std::vector<int>>> groups;
  std::map<Key, size_t> at;
  std::sort(items.begin(), items.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &[rank, key] : items) {
    auto [it, added] = at.try_emplace(key, groups.size());
    if (added) groups.push_back({key, {}});
    groups[it->second].second.push_back(rank);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto &a, const auto &b) { return a.second.size() > b.second.size(); });
  return groups;
}

std::vector<int> minorityRanks(const auto &groups) {
  std::vector<int> out;
  for (size_t g = 1; g < groups.size(); ++g)
    out.insert(out.end(), groups[g].second.begin(), groups[g].second.end());
  std::sort(out.begin(), out.end());
  return out;
}

/// A line with the device it names made neutral (`cuda:1`, `index=1`, `_DeviceGuard(1`, `get_raw_stream(1`,
/// `stream1`: the forms PyTorch writes the device in, as Index::firstEquivalent knows them), for comparing
/// the code of ranks on a host's different GPUs.
std::string withoutDevice(std::string_view line) {
  std::string out(line);
  for (std::string_view form : {"cuda:", "index=", "_DeviceGuard(", "get_raw_stream(", "stream"}) {
    for (size_t at = out.find(form); at != std::string::npos; at = out.find(form, at + 1)) {
      size_t d = at + form.size();
      if (form == "stream" && at > 0 && (isIdentChar(out[at - 1]))) continue;
      size_t end = d;
      while (end < out.size() && isDigit(out[end]))
        ++end;
      if (end > d) out.replace(d, end - d, "#");
    }
  }
  return out;
}

/// The first node of graph `b` whose line differs from the same node of graph `a` and that names a model
/// line; nullopt when none does.
std::optional<Origin> firstDifferingNode(const Index &index, ArtifactId a, ArtifactId b) {
  if (!a.valid() || !b.valid()) return std::nullopt;
  const Artifact &ga = index.artifact(a), &gb = index.artifact(b);
  std::string ta = index.text(a), tb = index.text(b);
  std::vector<std::string_view> la = splitLines(ta), lb = splitLines(tb);
  for (size_t i = 0; i < gb.graphNodes.size(); ++i) {
    const Artifact::GraphNode &nb = gb.graphNodes[i];
    std::string_view textB = nb.line < lb.size() ? lb[nb.line] : std::string_view();
    std::string_view textA;
    if (i < ga.graphNodes.size() && ga.graphNodes[i].line < la.size()) textA = la[ga.graphNodes[i].line];
    if (i < ga.graphNodes.size() && (textA == textB || withoutDevice(textA) == withoutDevice(textB)))
      continue;
    if (nb.origin) return *nb.origin;
  }
  return std::nullopt;
}

/// The first lines that differ between two texts, for hovers: at most 4 of each.
std::string firstDifferingLines(std::string_view a, std::string_view b, int rankA, int rankB) {
  std::vector<std::string_view> la = splitLines(a), lb = splitLines(b);
  size_t i = 0;
  while (i < la.size() && i < lb.size() && (la[i] == lb[i] || withoutDevice(la[i]) == withoutDevice(lb[i])))
    ++i;
  if (i == la.size() && i == lb.size()) return {};
  std::string out = "First difference at line " + std::to_string(i + 1) + ":\n";
  auto side = [&](const std::vector<std::string_view> &lines, int rank) {
    out += "rank " + std::to_string(rank) + ":\n";
    for (size_t k = i; k < lines.size() && k < i + 4; ++k)
      out += "    " + std::string(lines[k].substr(0, 200)) + "\n";
  };
  side(la, rankA);
  side(lb, rankB);
  return out;
}

/// The op names of an `inductor_collective_schedule` payload (a JSON list of strings).
std::vector<std::string> collectiveOps(std::string_view payload) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = payload.find('"', pos)) != std::string_view::npos && out.size() < 4096) {
    size_t end = payload.find('"', pos + 1);
    if (end == std::string_view::npos) break;
    out.emplace_back(payload.substr(pos + 1, end - pos - 1));
    pos = end + 1;
  }
  return out;
}

/// An op name as kept and shown: at most kMaxOpBytes bytes (a name is ~50; a hostile log's can be MBs).
constexpr size_t kMaxOpBytes = 200;
std::string boundedOp(std::string_view op) {
  if (op.size() <= kMaxOpBytes) return std::string(op);
  return std::string(op.substr(0, kMaxOpBytes)) + "… (" + std::to_string(op.size()) + " bytes)";
}

/// The collectives of one side of a schedule divergence around the first that differs (`at`): a few before
/// it and after it, each name bounded, and how many more there are. A detail is one divergence's, shown in
/// hovers and `inductor/ranks`: writing both whole schedules into each made it quadratic in the ranks.
std::string scheduleWindow(const std::vector<std::string> &ops, size_t at, int rank) {
  constexpr size_t kBefore = 2, kAfter = 4;
  std::string out;
  size_t from = at > kBefore ? at - kBefore : 0, to = std::min(ops.size(), at + kAfter);
  std::string who = "rank " + std::to_string(rank) + ": ";
  if (from > 0) out += who + "… " + std::to_string(from) + " before\n";
  for (size_t i = from; i < to; ++i)
    out += who + std::to_string(i + 1) + ". " + boundedOp(ops[i]) + "\n";
  if (to < ops.size()) out += who + "… " + std::to_string(ops.size() - to) + " more\n";
  return out;
}

/// "all_reduce_" of "torch.ops._c10d_functional.all_reduce_.default".
std::string_view shortOp(std::string_view op) {
  if (op.size() > 8 && op.substr(op.size() - 8) == ".default") op.remove_suffix(8);
  if (size_t dot = op.rfind('.'); dot != std::string_view::npos) op.remove_prefix(dot + 1);
  return op;
}

/// What an event says, the same on every rank that had the same outcome: its title with the device it names
/// made neutral (withoutDevice; ranks on a host's other GPUs fail a guard on their own `cuda:N`). The title
/// is the reason's first line without the `N/M: ` of the cached compile it failed against (frame ids are per
/// process), with "(against N earlier compiles)": failing against more compiles is another outcome.
std::string reasonKey(const HealthEvent &e) {
  return withoutDevice(e.title);
}

struct Per {
  uint32_t compile = 0; // CompileHealth::compiles
  int rank = 0;
};

} // namespace

RankReport compareRanks(const Index &index, const std::vector<const TraceLog *> &logs) {
  const CompileHealth &h = index.compileHealth();
  RankReport report;
  report.compileOf.assign(h.compiles.size(), UINT32_MAX);
  std::set<int> ranks;
  for (const FrameCompile &fc : h.compiles)
    if (fc.rank) ranks.insert(*fc.rank);
  for (const Compile &c : index.compiles())
    if (c.rank) ranks.insert(*c.rank);
  for (const std::string &path : index.traceFiles())
    if (auto r = TraceLog::rankFromFileName(path)) ranks.insert(*r);
  report.ranks.assign(ranks.begin(), ranks.end());
  const size_t of = report.ranks.size();
  if (of < 2) return report;

  // Compiles by (frame code, frame_compile_id), per rank the first.
  std::map<std::pair<std::string, int>, std::vector<Per>> byKey;
  std::vector<std::string> frameKeys(h.frames.size());
  for (uint32_t f = 0; f < h.frames.size(); ++f)
    frameKeys[f] = frameKey(h, h.frames[f]);
  // Ranks that compiled each frame (any compile id).
  std::map<std::string, std::set<int>> frameRanks;
  for (uint32_t c = 0; c < h.compiles.size(); ++c) {
    const FrameCompile &fc = h.compiles[c];
    if (!fc.rank) continue;
    byKey[{frameKeys[fc.frame], fc.id.frameCompileId.value_or(-1)}].push_back({c, *fc.rank});
    frameRanks[frameKeys[fc.frame]].insert(*fc.rank);
  }
  // Per rank its first compile of a key (a log read twice, or two logs of one rank, adds nothing).
  for (auto &[key, v] : byKey) {
    std::stable_sort(v.begin(), v.end(), [](const Per &a, const Per &b) { return a.rank < b.rank; });
    v.erase(std::unique(v.begin(), v.end(), [](const Per &a, const Per &b) { return a.rank == b.rank; }),
            v.end());
  }

  // Compile-health events on some ranks only: per outcome (frame, frame_compile_id, kind, line, reasonKey),
  // the ranks that had it. Ranks whose compile of one id recompiled (or broke, or failed) for other reasons
  // are other outcomes: each divergence names only ranks whose logs give its reason.
  struct EventRanks {
    std::set<int> ranks;
    std::vector<uint32_t> events;
    std::string frame;
    bool sameTitle = true; ///< Every event's title is the first's (not only up to the device).
  };
  using EventKey = std::tuple<std::string, int, int, std::string, std::string>;
  std::map<EventKey, EventRanks> byEvent;
  std::vector<EventKey> eventOrder;
  for (uint32_t c = 0; c < h.compiles.size(); ++c) {
    const FrameCompile &fc = h.compiles[c];
    if (!fc.rank) continue;
    for (uint32_t e : fc.events) {
      const HealthEvent &ev = h.events[e];
      if (!isDivergentKind(ev.kind)) continue;
      EventKey key{frameKeys[fc.frame], fc.id.frameCompileId.value_or(-1), static_cast<int>(ev.kind),
                   placeKey(h, ev), reasonKey(ev)};
      auto [it, added] = byEvent.try_emplace(key);
      if (added) eventOrder.push_back(key);
      it->second.ranks.insert(*fc.rank);
      if (!it->second.events.empty())
        it->second.sameTitle &= h.events[it->second.events.front()].title == ev.title;
      it->second.events.push_back(e);
      it->second.frame = frameKeys[fc.frame];
    }
  }
  // Ranks with a divergent event per (frame, kind): what explains a compile only they made.
  std::map<std::pair<std::string, int>, std::set<int>> explained;
  for (const auto &key : eventOrder) {
    const EventRanks &er = byEvent[key];
    const std::set<int> &compiled = frameRanks[er.frame];
    if (er.ranks.size() >= compiled.size()) continue;
    RankDivergence d;
    const HealthEvent &first = h.events[er.events.front()];
    d.kind = divergenceOf(first.kind);
    d.ranks.assign(er.ranks.begin(), er.ranks.end());
    d.of = of;
    d.compileId = h.compiles[first.compile].id.str();
    if (first.shownAt) d.at = h.places[*first.shownAt];
    // The title as the ranks logged it; where they differ in the device only, with the device neutral.
    d.message = std::string(eventVerb(first.kind)) + " on " + rankSubsetText(d.ranks, of) + ": " +
                (er.sameTitle ? first.title : std::get<4>(key));
    d.severity = HealthSeverity::Warning;
    d.events = er.events;
    report.divergences.push_back(std::move(d));
    explained[{er.frame, static_cast<int>(first.kind)}].insert(er.ranks.begin(), er.ranks.end());
  }
  // A resumed frame's graph break explains the resume function's compiles on those ranks.
  std::map<std::string, std::set<int>> breaksByFunction;
  for (const auto &[key, ranksOf] : explained)
    if (key.second == static_cast<int>(HealthEventKind::GraphBreak))
      breaksByFunction[key.first.substr(0, key.first.find('|'))].insert(ranksOf.begin(), ranksOf.end());

  // Collective schedules per (log, compile id): the digests of each graph's schedule, in order.
  std::map<std::pair<uint32_t, std::string>, std::vector<const TraceRecord *>> schedules;
  // Cache outcomes per (log, compile id), each graph's in order (the forward can hit and the backward miss).
  std::map<std::pair<uint32_t, std::string>, std::vector<std::string_view>> cacheRecords;
  for (uint32_t l = 0; l < logs.size(); ++l) {
    if (!logs[l]) continue;
    for (const TraceRecord &r : logs[l]->records())
      if (r.kind == TraceKind::Artifact && r.name == "inductor_collective_schedule")
        schedules[{l, r.compileId.str()}].push_back(&r);
      else if (r.kind == TraceKind::Artifact &&
               (r.name.rfind("fx_graph_cache_", 0) == 0 || r.name.rfind("aotautograd_cache_", 0) == 0))
        cacheRecords[{l, r.compileId.str()}].push_back(r.name);
  }
  auto scheduleKey = [&](const FrameCompile &fc) {
    std::string key;
    auto it = schedules.find({fc.traceFile, fc.id.str()});
    if (it == schedules.end()) return key;
    for (const TraceRecord *r : it->second) {
      if (r->payloadHash)
        key += r->payloadHash->hex();
      else
        key += std::to_string(std::hash<std::string>{}(logs[fc.traceFile]->payloadText(*r)));
      key += ';';
    }
    return key;
  };
  auto scheduleOps = [&](const FrameCompile &fc) {
    std::vector<std::string> ops;
    auto it = schedules.find({fc.traceFile, fc.id.str()});
    if (it == schedules.end()) return ops;
    for (const TraceRecord *r : it->second)
      for (std::string &op : collectiveOps(logs[fc.traceFile]->payloadText(*r)))
        ops.push_back(std::move(op));
    return ops;
  };

  // In compile id order (the frames' ids of the lowest rank), not the keys'.
  std::vector<const std::pair<const std::pair<std::string, int>, std::vector<Per>> *> order;
  for (const auto &entry : byKey)
    order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [&](const auto *a, const auto *b) {
    return h.compiles[a->second.front().compile].id < h.compiles[b->second.front().compile].id;
  });
  for (const auto *entry : order) {
    const auto &key = entry->first;
    const std::vector<Per> &pers = entry->second;
    const FrameCompile &firstFc = h.compiles[pers.front().compile];
    const uint32_t frame = firstFc.frame;
    RankCompile rc;
    rc.compileId = firstFc.id.str();
    for (const Per &p : pers) {
      rc.ranks.push_back(p.rank);
      report.compileOf[p.compile] = static_cast<uint32_t>(report.compiles.size());
    }
    std::sort(rc.ranks.begin(), rc.ranks.end());
    std::map<int, uint32_t> compileOfRank;
    for (const Per &p : pers)
      compileOfRank[p.rank] = p.compile;
    auto defPlace = [&]() -> std::optional<Origin> {
      if (h.frames[frame].def) return h.places[*h.frames[frame].def];
      return std::nullopt;
    };

    // Outcomes: status and events (kind and line) of each rank's compile.
    std::vector<std::pair<int, std::string>> outcomeItems;
    for (const Per &p : pers) {
      const FrameCompile &fc = h.compiles[p.compile];
      std::string sig(compileStatusName(fc.status));
      for (uint32_t e : fc.events)
        if (isDivergentKind(h.events[e].kind))
          sig += "|" + std::to_string(static_cast<int>(h.events[e].kind)) + "@" + placeKey(h, h.events[e]) +
                 "\n" + reasonKey(h.events[e]);
      outcomeItems.push_back({p.rank, sig});
    }
    auto outcomes = groupRanks(outcomeItems);
    for (const auto &[sig, rs] : outcomes) {
      RankGroup g;
      g.ranks = rs;
      g.status = h.compiles[compileOfRank[rs.front()]].status;
      for (int r : rs)
        g.compiles.push_back(compileOfRank[r]);
      rc.outcomes.push_back(std::move(g));
    }

    // Generated code, compared only between ranks of the same outcome (a graph break makes other code).
    for (const RankGroup &g : rc.outcomes) {
      std::vector<std::pair<int, std::string>> codeItems;
      for (size_t i = 0; i < g.ranks.size(); ++i) {
        const FrameCompile &fc = h.compiles[g.compiles[i]];
        std::vector<std::pair<std::string, uint32_t>> outs;
        for (uint32_t o : fc.outputs) {
          const Compile &c = index.compiles()[o];
          outs.push_back(
              {c.label(false), c.outputCode.valid() ? index.firstEquivalent(c.outputCode).value : 0});
        }
        std::sort(outs.begin(), outs.end());
        std::string sig;
        for (const auto &[label, id] : outs)
          sig += label + "=" + std::to_string(id) + ";";
        codeItems.push_back({g.ranks[i], sig});
      }
      auto code = groupRanks(codeItems);
      for (const auto &[sig, rs] : code)
        rc.code.push_back(rs);
      for (size_t k = 1; k < code.size(); ++k) {
        // The first output whose code differs from the majority's, and where its Dynamo graph differs.
        const FrameCompile &ref = h.compiles[compileOfRank[code[0].second.front()]];
        const FrameCompile &other = h.compiles[compileOfRank[code[k].second.front()]];
        RankDivergence d;
        d.kind = RankDivergenceKind::DifferentCode;
        d.ranks = code[k].second;
        d.of = of;
        d.compileId = rc.compileId;
        d.severity = HealthSeverity::Information;
        std::string graph;
        for (uint32_t o : other.outputs) {
          const Compile &co = index.compiles()[o];
          auto match = std::find_if(ref.outputs.begin(), ref.outputs.end(), [&](uint32_t r) {
            return index.compiles()[r].label(false) == co.label(false);
          });
          if (match == ref.outputs.end()) continue;
          const Compile &cr = index.compiles()[*match];
          if (!co.outputCode.valid() || !cr.outputCode.valid() ||
              index.firstEquivalent(co.outputCode) == index.firstEquivalent(cr.outputCode))
            continue;
          graph = co.label(false);
          d.at = firstDifferingNode(index, cr.preGradGraph, co.preGradGraph);
          if (!d.at) d.at = firstDifferingNode(index, cr.postGradGraph, co.postGradGraph);
          d.detail = firstDifferingLines(index.text(cr.outputCode), index.text(co.outputCode),
                                         cr.rank.value_or(-1), co.rank.value_or(-1));
          break;
        }
        if (!d.at) d.at = defPlace();
        d.message = "different generated code on " + rankSubsetText(d.ranks, of) + " for " +
                    (graph.empty() ? "[" + rc.compileId + "]" : graph) + " (the others agree)";
        report.divergences.push_back(std::move(d));
      }
    }

    // FX graph and AOTAutograd cache outcomes.
    std::vector<std::pair<int, std::string>> cacheItems;
    for (const Per &p : pers) {
      const FrameCompile &fc = h.compiles[p.compile];
      std::string outcome;
      if (auto it = cacheRecords.find({fc.traceFile, fc.id.str()}); it != cacheRecords.end()) {
        for (std::string_view name : it->second) {
          if (!outcome.empty()) outcome += ", ";
          bool fx = name.rfind("fx_graph_cache_", 0) == 0;
          outcome += std::string(fx ? "FX graph " : "AOTAutograd ") + std::string(name.substr(fx ? 15 : 18));
        }
      } else if (fc.fxGraphCache != CacheOutcome::Unknown) {
        outcome = "FX graph " + std::string(cacheOutcomeName(fc.fxGraphCache));
      }
      cacheItems.push_back({p.rank, outcome});
    }
    auto cache = groupRanks(cacheItems);
    for (const auto &[name, rs] : cache)
      rc.cache.push_back({name, rs});
    if (cache.size() > 1) {
      RankDivergence d;
      d.kind = RankDivergenceKind::Cache;
      d.ranks = minorityRanks(cache);
      d.of = of;
      d.compileId = rc.compileId;
      d.severity = HealthSeverity::Hint;
      d.at = defPlace();
      std::string theirs = cache[1].first.empty() ? "unknown" : cache[1].first;
      std::string others = cache[0].first.empty() ? "unknown" : cache[0].first;
      d.message = "cache " + theirs + " on " + rankSubsetText(d.ranks, of) + "; " + others + " on the others";
      report.divergences.push_back(std::move(d));
    }

    // Collective schedules, across every rank that compiled the id.
    std::vector<std::pair<int, std::string>> schedItems;
    // A rank that logged no schedule for the id (an FX graph cache hit skips the scheduler) is not compared.
    for (const Per &p : pers)
      if (std::string k = scheduleKey(h.compiles[p.compile]); !k.empty()) schedItems.push_back({p.rank, k});
    auto sched = groupRanks(schedItems);
    // The majority's schedule, read once for every group that differs from it.
    std::vector<std::string> a;
    if (!sched.empty()) a = scheduleOps(h.compiles[compileOfRank[sched.front().second.front()]]);
    for (const std::string &op : a)
      rc.collectives.push_back(boundedOp(op));
    for (size_t k = 1; k < sched.size(); ++k) {
      const FrameCompile &ref = h.compiles[compileOfRank[sched[0].second.front()]];
      const FrameCompile &other = h.compiles[compileOfRank[sched[k].second.front()]];
      std::vector<std::string> b = scheduleOps(other);
      size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
      RankDivergence d;
      d.kind = RankDivergenceKind::CollectiveSchedule;
      d.ranks = sched[k].second;
      d.of = of;
      d.compileId = rc.compileId;
      d.severity = HealthSeverity::Error;
      std::string theirs = i < b.size() ? std::string(shortOp(b[i])) : "none";
      std::string others = i < a.size() ? std::string(shortOp(a[i])) : "none";
      d.message = "collective schedule differs on " + rankSubsetText(d.ranks, of) + ": collective " +
                  std::to_string(i + 1) + " is " + theirs + " there, " + others + " on the others";
      d.detail = scheduleWindow(a, i, ref.rank.value_or(-1));
      d.detail += scheduleWindow(b, i, other.rank.value_or(-1));
      // The line that issued it: the launch of that op in the rank's output code (its n-th), else the def.
      if (i < b.size()) {
        std::string_view op = shortOp(b[i]);
        size_t nth =
            static_cast<size_t>(std::count_if(b.begin(), b.begin() + static_cast<long>(i),
                                              [&](const std::string &x) { return shortOp(x) == op; }));
        for (uint32_t o : other.outputs) {
          const Compile &co = index.compiles()[o];
          if (!co.outputCode.valid() || d.at) continue;
          for (const Launch &l : index.artifact(co.outputCode).launches)
            if (l.site.kernel.find(op) != std::string::npos && nth-- == 0) {
              if (!l.origins.empty()) d.at = l.origins.front();
              break;
            }
        }
      }
      if (!d.at) d.at = defPlace();
      report.divergences.push_back(std::move(d));
    }

    // A compile some ranks did not make, unless a recompile or graph break of theirs explains it.
    if (rc.ranks.size() < of) {
      const std::string &fk = key.first;
      const std::set<int> &recompiled = explained[{fk, static_cast<int>(HealthEventKind::Recompile)}];
      const std::set<int> &failed = explained[{fk, static_cast<int>(HealthEventKind::Failure)}];
      const std::set<int> &broke = breaksByFunction[h.frames[frame].function];
      bool resume = h.frames[frame].resumeOf.has_value() ||
                    h.frames[frame].function.rfind("torch_dynamo_resume_in_", 0) == 0;
      std::string resumed = resume ? h.frames[frame].function.substr(23) : std::string();
      if (size_t at = resumed.find("_at_"); at != std::string::npos) resumed.resize(at);
      const std::set<int> &brokeResumed = resume ? breaksByFunction[resumed] : broke;
      bool isExplained = std::all_of(rc.ranks.begin(), rc.ranks.end(), [&](int r) {
        return (key.second > 0 && recompiled.count(r)) || failed.count(r) ||
               (resume && brokeResumed.count(r));
      });
      if (!isExplained) {
        RankDivergence d;
        d.kind = RankDivergenceKind::MissingCompile;
        d.of = of;
        d.compileId = rc.compileId;
        d.severity = HealthSeverity::Warning;
        d.at = defPlace();
        if (rc.ranks.size() * 2 <= of) {
          d.ranks = rc.ranks;
          d.message =
              "[" + rc.compileId + "] compiled on " + rankSubsetText(d.ranks, of) + ", not on the others";
        } else {
          for (int r : report.ranks)
            if (!std::binary_search(rc.ranks.begin(), rc.ranks.end(), r)) d.ranks.push_back(r);
          d.message = "[" + rc.compileId + "] not compiled on " + rankSubsetText(d.ranks, of);
        }
        report.divergences.push_back(std::move(d));
      }
    }
    report.compiles.push_back(std::move(rc));
  }
  std::stable_sort(report.divergences.begin(), report.divergences.end(),
                   [](const RankDivergence &a, const RankDivergence &b) { return a.kind < b.kind; });
  return report;
}

const RankReport &Index::ranks() const {
  static const RankReport empty;
  if (!tables_) return empty;
  std::call_once(tables_->ranksOnce, [&] {
    std::vector<const TraceLog *> logs;
    for (const auto &log : tables_->logs)
      logs.push_back(log.get());
    tables_->ranks = std::make_shared<const RankReport>(compareRanks(*this, logs));
  });
  return *tables_->ranks;
}

} // namespace inductor::index
