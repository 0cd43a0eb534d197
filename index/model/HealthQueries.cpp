// The compile-health queries of a built Index (see Index.h and CompileHealth.h): pure functions of the model.
#include "index/analysis/ModelFrames.h"
#include "index/model/IndexTables.h"
#include "index/model/Ranks.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace inductor::index {

namespace {

void appendUnique(std::vector<std::string> &v, const std::string &s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

/// "in 2 compiles: [0/0], [0/1] · all 2 ranks"; `of`: the ranks of the run.
std::string whereText(const CompileHealth &h, const std::vector<uint32_t> &compiles, size_t ranks,
                      size_t of) {
  std::vector<std::string> ids;
  for (uint32_t c : compiles)
    appendUnique(ids, "[" + h.compiles[c].id.str() + "]");
  std::string s = ids.size() == 1 ? "in compile " : "in " + std::to_string(ids.size()) + " compiles: ";
  for (size_t i = 0; i < ids.size() && i < 8; ++i)
    s += (i ? ", " : "") + ids[i];
  if (ids.size() > 8) s += ", …";
  // Ranks that agree are named once: "all 4 ranks" (a subset is a divergence, named by its own line).
  if (ranks > 1 && ranks == of)
    s += " · all " + std::to_string(ranks) + " ranks";
  else if (ranks > 1)
    s += " · " + std::to_string(ranks) + " of " + std::to_string(of) + " ranks";
  return s;
}

/// The distinct titles of `events`, in order, joined by "; ".
std::string joinedTitles(const CompileHealth &h, const std::vector<uint32_t> &events) {
  std::vector<std::string> titles;
  for (uint32_t e : events)
    appendUnique(titles, h.events[e].title);
  std::string out;
  for (size_t i = 0; i < titles.size(); ++i)
    out += (i ? "; " : "") + titles[i];
  return out;
}

/// PyTorch's explanations and hints of `events`, each distinct one once, in order.
std::vector<std::string> detailsOf(const CompileHealth &h, const std::vector<uint32_t> &events) {
  std::vector<std::string> details;
  for (uint32_t e : events) {
    appendUnique(details, h.events[e].explanation);
    for (const std::string &hint : h.events[e].hints)
      appendUnique(details, "Hint: " + hint);
  }
  return details;
}

std::string message(const CompileHealth &h, HealthEventKind kind, bool limit,
                    const std::vector<uint32_t> &events, const std::vector<uint32_t> &compiles, size_t ranks,
                    size_t of) {
  std::string m;
  if (limit) {
    // "recompile limit (3) reached: this function runs eagerly from now on", then PyTorch's explanation.
    m = joinedTitles(h, events);
    for (const std::string &d : detailsOf(h, events))
      m += "\n" + d;
    m += "\n(" + whereText(h, compiles, ranks, of) + ")";
    return m;
  }
  switch (kind) {
  case HealthEventKind::GraphBreak: {
    m = "Graph break: " + joinedTitles(h, events);
    for (const std::string &d : detailsOf(h, events))
      m += "\n" + d;
    break;
  }
  case HealthEventKind::Recompile: {
    bool limitReached = false;
    for (uint32_t e : events)
      limitReached |= h.events[e].limitReached;
    // Compile ids, not compiles: every rank of a job recompiles the same frame (whereText counts the ranks).
    std::set<std::string> distinct;
    for (uint32_t c : compiles)
      distinct.insert(h.compiles[c].id.str());
    m = "recompiled " + std::to_string(distinct.size()) + "× — " + joinedTitles(h, events);
    if (limitReached) m += "\nThe recompile limit was reached: later calls run without compiling.";
    break;
  }
  case HealthEventKind::Failure: {
    m = "Compile failed: " + joinedTitles(h, events);
    std::vector<std::string> details = detailsOf(h, events);
    // The first lines of the reason, when the title is all there is (a backend's exception message).
    if (details.empty()) {
      const HealthEvent &first = h.events[events.front()];
      std::string_view rest = first.text;
      size_t nl = rest.find('\n');
      for (int lines = 0; nl != std::string_view::npos && lines < 3; ++lines) {
        rest.remove_prefix(nl + 1);
        nl = rest.find('\n');
        std::string_view line = trim(rest.substr(0, nl));
        if (line.empty()) break;
        details.push_back(std::string(line));
      }
    }
    for (const std::string &d : details)
      m += "\n" + d;
    break;
  }
  case HealthEventKind::Specialization: {
    m = "Dynamic shape specialized: " + joinedTitles(h, events);
    break;
  }
  }
  m += "\n(" + whereText(h, compiles, ranks, of) + ")";
  return m;
}

} // namespace

std::vector<HealthDiagnostic> Index::healthDiagnostics(std::string_view path) const {
  std::vector<HealthDiagnostic> out;
  auto it = health_.byPath.find(normalizePath(path));
  if (it == health_.byPath.end()) return out;
  // One diagnostic per line and group: failures, graph breaks, the recompile limit (a Recompile event that
  // made the function run eagerly: a Warning of its own, never merged into the guard failures of the line),
  // recompiles, specialisations.
  struct Group {
    HealthEventKind kind;
    bool limit;
  };
  static constexpr Group kGroups[] = {{HealthEventKind::Failure, false},
                                      {HealthEventKind::GraphBreak, false},
                                      {HealthEventKind::Recompile, true},
                                      {HealthEventKind::Recompile, false},
                                      {HealthEventKind::Specialization, false}};
  // The ranks of the run (Ranks.h): an event some ranks only had leads with which (a divergence).
  const RankReport &rankReport = ranks();
  const size_t of = rankReport.ranks.size();
  auto isLimit = [](const HealthEvent &ev) { return ev.kind == HealthEventKind::Recompile && ev.ranEagerly; };
  for (const auto &[line, events] : it->second.events) {
    for (const Group &group : kGroups) {
      const HealthEventKind kind = group.kind;
      HealthDiagnostic d;
      d.kind = kind;
      d.line = line;
      d.severity = HealthSeverity::Hint;
      std::set<int> ranks;
      for (uint32_t e : events) {
        const HealthEvent &ev = health_.events[e];
        if (ev.kind != kind || isLimit(ev) != group.limit) continue;
        d.events.push_back(e);
        if (std::find(d.compiles.begin(), d.compiles.end(), ev.compile) == d.compiles.end())
          d.compiles.push_back(ev.compile);
        if (health_.compiles[ev.compile].rank) ranks.insert(*health_.compiles[ev.compile].rank);
        d.severity = std::min(d.severity, ev.severity);
      }
      if (d.events.empty()) continue;
      d.ranks = ranks.size();
      const HealthEvent &first = health_.events[d.events.front()];
      switch (kind) {
      case HealthEventKind::GraphBreak:
        d.code = first.id.empty() ? "graph-break" : first.id;
        d.href = first.url;
        break;
      case HealthEventKind::Recompile:
        // The limit's code names what its link is about (PyTorch's "Dynamo recompile limit exceeded" page).
        d.code = group.limit ? "recompile-limit" : "recompile";
        if (group.limit) d.href = first.url;
        break;
      case HealthEventKind::Failure:
        d.code = first.failType.empty() ? "compile-failure" : first.failType;
        d.href = first.url;
        break;
      case HealthEventKind::Specialization:
        d.code = "specialization";
        break;
      }
      d.message = message(health_, kind, group.limit, d.events, d.compiles, d.ranks, of);
      // Every divergence about its events, each with its own ranks and reason ("recompiled on rank 1 only
      // (1 of 4): grad_mode", "recompiled on rank 3 only (1 of 4): size mismatch"), in the report's order:
      // at least a Warning, whatever the kind's own.
      // The same divergence in several compiles of the line (rank 1 recompiled [0/2] and [0/3] for one
      // reason) is one line: the compiles are named below.
      std::vector<std::string_view> diverged;
      for (const RankDivergence &div : rankReport.divergences) {
        bool about = std::any_of(div.events.begin(), div.events.end(), [&](uint32_t e) {
          return std::find(d.events.begin(), d.events.end(), e) != d.events.end();
        });
        if (!about) continue;
        d.severity = std::min(d.severity, HealthSeverity::Warning);
        if (std::find(diverged.begin(), diverged.end(), div.message) == diverged.end())
          diverged.push_back(div.message);
      }
      std::string lines;
      for (std::string_view text : diverged)
        lines.append(text).append("\n");
      d.message = lines + d.message;
      if (std::all_of(d.events.begin(), d.events.end(),
                      [&](uint32_t e) { return health_.events[e].shownAt != health_.events[e].at; })) {
        // Shown on the call that led there: say where it happened.
        const Origin &at = health_.places[*first.at];
        d.message = "in this call, at " + std::filesystem::path(at.path).filename().string() + ":" +
                    std::to_string(at.line) + " (a file not on this machine): " + d.message;
      }
      // The user traceback (outermost first), then the places related to it.
      for (uint32_t p : first.stack)
        if (p != *first.shownAt)
          d.related.push_back({p, "in " + (health_.places[p].function.empty() ? std::string("user code")
                                                                              : health_.places[p].function)});
      for (uint32_t p : first.related)
        d.related.push_back({p, kind == HealthEventKind::Recompile
                                    ? "the guard that failed was installed here"
                                    : "raised here"});
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<std::string> Index::healthPaths() const {
  std::vector<std::string> out;
  std::set<uint32_t> seen;
  for (const HealthEvent &e : health_.events)
    if (e.shownAt && seen.insert(*e.shownAt).second)
      out.push_back(normalizePath(health_.places[*e.shownAt].path));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::vector<UserEntryPoint> &Index::entryPoints(std::string_view path) const {
  static const std::vector<UserEntryPoint> none;
  if (!tables_) return none;
  std::call_once(tables_->entryPointsOnce, [&] {
    const CompileHealth &h = health_;
    // (normalized path, place) -> compiles: one pass over every compile's stack.
    std::map<std::pair<std::string, uint32_t>, std::vector<uint32_t>> found;
    for (uint32_t c = 0; c < h.compiles.size(); ++c) {
      const FrameCompile &fc = h.compiles[c];
      if (fc.frame >= h.frames.size() || !isInstalledPackagePath(h.frames[fc.frame].recordedFile)) continue;
      for (auto p = fc.stack.rbegin(); p != fc.stack.rend(); ++p) {
        const Origin &o = h.places[*p];
        if (isInstalledPackagePath(o.recordedPath)) continue;
        found[{normalizePath(o.path), *p}].push_back(c);
        break;
      }
    }
    for (auto &[key, compiles] : found)
      tables_->entryPoints[key.first].push_back({key.second, std::move(compiles)});
    for (auto &[file, entries] : tables_->entryPoints)
      std::stable_sort(entries.begin(), entries.end(), [&](const UserEntryPoint &a, const UserEntryPoint &b) {
        return h.places[a.place].line < h.places[b.place].line;
      });
  });
  auto it = tables_->entryPoints.find(normalizePath(path));
  return it == tables_->entryPoints.end() ? none : it->second;
}

std::vector<CompiledFunction> Index::compiledFunctions(std::string_view path) const {
  std::vector<CompiledFunction> out;
  auto it = health_.byPath.find(normalizePath(path));
  if (it == health_.byPath.end()) return out;
  for (const auto &[line, frames] : it->second.defs) {
    // One function per name on a line (a lambda and its def can share one).
    std::map<std::string, CompiledFunction> byName;
    for (uint32_t f : frames) {
      const CompiledFrame &frame = health_.frames[f];
      uint32_t owner = f;
      for (int hops = 0; health_.frames[owner].resumeOf && hops < 64; ++hops)
        owner = *health_.frames[owner].resumeOf;
      CompiledFunction &fn = byName[health_.frames[owner].function];
      fn.line = line;
      fn.function = health_.frames[owner].function;
      fn.frames.push_back(f);
      fn.compiles.insert(fn.compiles.end(), frame.compiles.begin(), frame.compiles.end());
    }
    for (auto &[name, fn] : byName) {
      std::sort(fn.compiles.begin(), fn.compiles.end());
      out.push_back(std::move(fn));
    }
  }
  return out;
}

HealthAtLine Index::healthAt(std::string_view path, uint32_t line) const {
  HealthAtLine out;
  auto it = health_.byPath.find(normalizePath(path));
  if (it == health_.byPath.end()) return out;
  const CompileHealth::LineIndex &index = it->second;
  if (auto e = index.events.find(line); e != index.events.end()) out.events = e->second;
  if (auto g = index.guards.find(line); g != index.guards.end()) out.guards = g->second;
  if (auto s = index.shapes.find(line); s != index.shapes.end()) out.shapes = s->second;
  for (CompiledFunction &fn : compiledFunctions(path))
    if (fn.line == line) out.functions.push_back(std::move(fn));
  return out;
}

} // namespace inductor::index
