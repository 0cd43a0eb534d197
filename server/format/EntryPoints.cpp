// server/format/EntryPoints.cpp: a user line through which the user's own code entered compiled code of an
// installed package (index::UserEntryPoint: a script's `model.generate(...)` into transformers' compiled
// forward), as the code lens and hover of that line (see Health.h). Every figure is one the other views show
// of the same compiles: counts through index/model/Counts.h, GPU time per compile (index::compileTiming, CUDA
// graph replays included, as explain's Compiles section), the compile lines of the compiles view.
#include "server/format/Health.h"
#include "server/format/RuntimeFormat.h"
#include "server/text/Markdown.h"

#include "index/model/Counts.h"
#include "index/runtime/Runtime.h"

#include <map>
#include <tuple>

namespace inductor::server {

namespace {

/// The compiled functions of some compiles as the compiles view names them (index::groupFunctions: a frame
/// resumed after a graph break counts under its function), distinct, in order: indices into `functions`.
std::vector<uint32_t> functionsOf(const index::CompileHealth &h, const index::FunctionGroups &groups,
                                  const std::vector<uint32_t> &compiles) {
  std::vector<uint32_t> out;
  for (uint32_t c : compiles) {
    uint32_t f = groups.function[h.compiles[c].frame];
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

/// The launches of the output code of some compiles (Index::compiles entries of each).
std::vector<index::LaunchRef> launchesOf(const index::Index &index, const std::vector<uint32_t> &compiles) {
  std::vector<index::LaunchRef> out;
  const index::CompileHealth &h = index.compileHealth();
  for (uint32_t c : compiles)
    for (uint32_t o : h.compiles[c].outputs) {
      if (o >= index.compiles().size() || !index.compiles()[o].outputCode.valid()) continue;
      index::ArtifactId a = index.compiles()[o].outputCode;
      for (uint32_t l = 0; l < index.artifact(a).launches.size(); ++l)
        out.push_back({a, l});
    }
  return out;
}

/// The GPU time of some compiles (their calls, CUDA graph replays included), and whether any replayed.
struct CompilesTime {
  uint64_t ns = 0;
  bool timed = false, replays = false;
};
CompilesTime timeOf(const index::Index &index, const std::vector<uint32_t> &compiles) {
  CompilesTime out;
  const index::CompileHealth &h = index.compileHealth();
  for (uint32_t c : compiles)
    for (uint32_t o : h.compiles[c].outputs)
      if (const index::CompileTiming *t = index::compileTiming(index, index::CompileRef{o})) {
        out.ns += t->ns;
        out.timed = true;
        out.replays = out.replays || t->graphReplays > 0;
      }
  return out;
}

std::string timeSuffix(const index::Index &index, const CompilesTime &t) {
  if (!t.timed) return "";
  return " · " + timeText(index.runtime().times, t.ns) + (t.replays ? " (CUDA graph replays)" : "");
}

} // namespace

std::vector<const index::UserEntryPoint *> entryPointsAt(TextCache &texts, const index::Index &index,
                                                         const std::string &path, uint32_t line) {
  std::vector<const index::UserEntryPoint *> out;
  for (const index::UserEntryPoint &e : index.entryPoints(path)) {
    std::optional<protocol::Location> at = placeLocation(texts, index, index.place(e.place));
    if (at && at->range.start.line + 1 == line) out.push_back(&e);
  }
  return out;
}

std::string entryPointTitle(const index::Index &index, const index::UserEntryPoint &entry) {
  const index::CompileHealth &h = index.compileHealth();
  index::FunctionGroups groups = index::groupFunctions(h);
  std::vector<uint32_t> functions = functionsOf(h, groups, entry.compiles);
  std::string title = "calls compiled ";
  for (size_t i = 0; i < functions.size() && i < 2; ++i) {
    const index::FunctionGroups::Function &f = groups.functions[functions[i]];
    title += (i ? ", " : "") + f.name;
    if (f.def) title += " (" + placeLabel(h.places[*f.def]) + ")";
  }
  if (functions.size() > 2) title += " +" + std::to_string(functions.size() - 2) + " more";
  title += " · " + index::countCompiles(h, entry.compiles).text();
  index::LaunchSummary kernels = index::summarizeLaunches(index, launchesOf(index, entry.compiles));
  if (kernels.kernels) title += " · " + kernels.counts();
  return title + timeSuffix(index, timeOf(index, entry.compiles));
}

std::string entryPointMarkdown(const index::Index &index, TextCache &texts,
                               const index::UserEntryPoint &entry) {
  const index::CompileHealth &h = index.compileHealth();
  std::string md = "### Calls compiled code of an installed package";
  md += "\n\n" + index::countCompiles(h, entry.compiles).text() +
        timeSuffix(index, timeOf(index, entry.compiles));
  // One line per compiled function, as the compiles view counts it: its compile ids (ranks together), their
  // problems, kernels and GPU time.
  index::FunctionGroups groups = index::groupFunctions(h);
  md += "\n";
  for (uint32_t function : functionsOf(h, groups, entry.compiles)) {
    const index::FunctionGroups::Function &f = groups.functions[function];
    std::string name = codeSpan(f.name);
    if (f.def) {
      const index::Origin &def = h.places[*f.def];
      std::optional<protocol::Location> at = placeLocation(texts, index, def);
      name =
          (at ? markdownLink(name, at->uri, at->range.start.line + 1) : name) + " (" + placeLabel(def) + ")";
    }
    std::vector<uint32_t> compiles;
    for (uint32_t c : entry.compiles)
      if (groups.function[h.compiles[c].frame] == function) compiles.push_back(c);
    index::LaunchSummary kernels = index::summarizeLaunches(index, launchesOf(index, compiles));
    md += "\n- " + name + ": " + compileIdRange(h, compiles) + " " + index::countCompiles(h, compiles).text();
    if (kernels.kernels) md += " · " + kernels.counts();
    md += timeSuffix(index, timeOf(index, compiles));
  }
  // What went wrong in those compiles, each where it happened (in the library): one line per kind, reason
  // and place, its compiles together (ranks and recompiles that hit the same one), as the diagnostics merge
  // them.
  std::map<std::tuple<index::HealthEventKind, std::string, std::optional<uint32_t>>, std::vector<uint32_t>>
      problems;
  std::vector<std::tuple<index::HealthEventKind, std::string, std::optional<uint32_t>>> order;
  for (uint32_t c : entry.compiles)
    for (uint32_t e : h.compiles[c].events) {
      const index::HealthEvent &ev = h.events[e];
      if (ev.kind == index::HealthEventKind::Specialization) continue;
      auto key = std::make_tuple(ev.kind, ev.title, ev.shownAt ? ev.shownAt : ev.at);
      auto [it, fresh] = problems.try_emplace(key);
      if (fresh) order.push_back(key);
      if (std::find(it->second.begin(), it->second.end(), c) == it->second.end()) it->second.push_back(c);
    }
  if (!order.empty()) md += "\n\n**Problems**";
  for (size_t i = 0; i < order.size() && i < 5; ++i) {
    const auto &[kind, title, at] = order[i];
    std::string where;
    if (at) {
      const index::Origin &place = h.places[*at];
      std::optional<protocol::Location> loc = placeLocation(texts, index, place);
      where = " · " + (loc ? markdownLink(placeLabel(place), loc->uri, loc->range.start.line + 1)
                           : codeSpan(placeLabel(place)));
    }
    md += "\n- **" + std::string(index::healthEventWord(kind)) + "** " +
          compileIdRange(h, problems[order[i]]) + " " + title + where;
  }
  if (order.size() > 5) md += "\n- … " + std::to_string(order.size() - 5) + " more";
  return md;
}

} // namespace inductor::server
