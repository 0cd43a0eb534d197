// server/format/HealthHover.cpp: compile health of a user line as hover Markdown (server/features/Hover.cpp
// shows it around the line's kernels): the full reason of each graph break, recompile, failure and
// specialisation there; on a compiled function's def line its compiles; the guards installed for the line;
// its dynamic shapes.
#include "server/format/Counts.h"
#include "server/format/Health.h"
#include "server/text/Markdown.h"

#include "index/files/PathResolver.h"
#include "index/model/Counts.h"
#include "index/model/Ranks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace inductor::server {

namespace {

/// `cuda:N` for every `cuda:<digits>` of a text: what differs between the ranks of one host in a guard.
std::string withoutDeviceIndex(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 5, "cuda:") == 0 && i + 5 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 5]))) {
      out += "cuda:N";
      i += 5;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        ++i;
      continue;
    }
    out += text[i++];
  }
  return out;
}

} // namespace

HealthMarkdown healthMarkdown(const index::Index &index, const std::string &path, uint32_t line) {
  index::HealthAtLine at = index.healthAt(path, line);
  const index::RankReport &ranks = index.ranks();
  std::vector<const index::RankDivergence *> diverged;
  for (const index::RankDivergence &d : ranks.divergences)
    if (d.at && d.at->line == line && index::normalizePath(d.at->path) == path) diverged.push_back(&d);
  if (at.empty() && diverged.empty()) return {};
  const index::CompileHealth &h = index.compileHealth();
  HealthMarkdown out;
  std::string *md = &out.head;
  auto section = [&](const std::string &s) { *md += (md->empty() ? "" : "\n\n") + s; };
  // Events: one entry per distinct text, with the compiles it happened in.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> texts;
  struct Heading {
    std::string title, link;
    std::string note;    ///< Where it happened, when shown on the call that led there (HealthEvent::shownAt).
    std::string summary; ///< The event's one-line title (HealthEvent::title).
  };
  std::map<std::string, Heading> heading;
  for (uint32_t e : at.events) {
    const index::HealthEvent &ev = h.events[e];
    std::string note = ev.shownAt == ev.at ? std::string()
                                           : "In this call, at `" + shortOrigin(h.places[*ev.at]) +
                                                 "` (a file not on this machine).";
    std::string key = std::string(index::healthEventHeading(ev.kind)) + "\n" + note + "\n" + ev.title;
    auto it = std::find_if(texts.begin(), texts.end(), [&](auto &t) { return t.first == key; });
    if (it == texts.end()) {
      texts.push_back({key, {}});
      it = std::prev(texts.end());
    }
    it->second.push_back(ev.compile);
    std::string link =
        ev.url.empty() ? "" : " · [" + (ev.id.empty() ? std::string("details") : ev.id) + "](" + ev.url + ")";
    heading[key] = {std::string(index::healthEventHeading(ev.kind)), link, note, ev.title};
  }
  // One line per distinct event: its kind, compiles, title and link. PyTorch's text (explanation, hints,
  // traceback) is the diagnostic's message, which editors show beside this hover: never repeated here.
  std::string events;
  for (const auto &[key, compiles] : texts) {
    const Heading &hd = heading[key];
    events += (events.empty() ? "" : "\n") + std::string("- **") + hd.title + "** " +
              compileIdRange(h, compiles) + " " + hd.summary + hd.link;
    if (!hd.note.empty()) events += " *(" + hd.note + ")*";
  }
  if (!events.empty()) section("### Compile health\n" + events);
  // Where the ranks diverge on this line, each once (index/model/Ranks.h), with what differs: after compile
  // health, which opens every hover of a line with events.
  if (!diverged.empty()) {
    std::string s = "### Ranks that disagree";
    for (const index::RankDivergence *d : diverged) {
      s += "\n- **" + std::string(index::rankDivergenceName(d->kind)) + "** [" + d->compileId + "] " +
           d->message;
      if (!d->detail.empty()) s += "\n\n```text\n" + d->detail + "```";
    }
    section(s);
  }
  index::FunctionGroups groups;
  if (!at.functions.empty()) groups = index::groupFunctions(h);
  for (const index::CompiledFunction &fn : at.functions) {
    // Its compiles as the lens and the compiled frames view count them (index::groupFunctions).
    const std::vector<uint32_t> &compiles =
        fn.frames.empty() ? fn.compiles : groups.functions[groups.function[fn.frames.front()]].compiles;
    std::string s = "### " + codeSpan(fn.function) + " — " +
                    compilesTitle(h, compiles, index::countsOf(index)->health.ranks) +
                    "\n\n| compile | status | time | guards | cache |\n|---|---|---|---|---|";
    // The ranks that compiled an id alike are one row ("all 4 ranks"); a rank that differs is its own row
    // under it (index::RankReport::outcomes). Single-process runs: one row per compile.
    std::set<uint32_t> shown;
    for (uint32_t c : compiles) {
      const index::FrameCompile &fc = h.compiles[c];
      std::string who;
      const index::RankCompile *rcp = nullptr;
      if (ranks.ranks.size() > 1 && c < ranks.compileOf.size() && ranks.compileOf[c] != UINT32_MAX) {
        const index::RankCompile &rc = ranks.compiles[ranks.compileOf[c]];
        rcp = &rc;
        const index::RankGroup *group = nullptr;
        for (const index::RankGroup &g : rc.outcomes)
          if (std::find(g.compiles.begin(), g.compiles.end(), c) != g.compiles.end()) group = &g;
        if (group && !shown.insert(group->compiles.front()).second) continue;
        if (group) who = " · " + index::rankSubsetText(group->ranks, ranks.ranks.size());
      }
      std::string cache;
      if (fc.fxGraphCache != index::CacheOutcome::Unknown)
        cache = "FX graph " + std::string(index::cacheOutcomeName(fc.fxGraphCache));
      if (fc.aotAutogradCache != index::CacheOutcome::Unknown)
        cache += (cache.empty() ? "" : ", ") + std::string("AOTAutograd ") +
                 std::string(index::cacheOutcomeName(fc.aotAutogradCache));
      if (rcp && rcp->cache.size() > 1) { // Cache outcomes that differ between ranks: each with its ranks.
        cache.clear();
        for (const auto &[outcome, rs] : rcp->cache)
          cache += (cache.empty() ? "" : "; ") + (outcome.empty() ? std::string("unknown") : outcome) + " (" +
                   index::rankSubsetText(rs, ranks.ranks.size()) + ")";
      }
      auto cost = compileCost(h, {c});
      s += "\n| " + (who.empty() ? fc.label() : "[" + fc.id.str() + "]" + who) +
           (h.frames[fc.frame].resumeOf ? " (resumed)" : "") + " | " +
           std::string(index::compileStatusName(fc.status)) + " | " + (cost ? formatSeconds(*cost) : "") +
           " | " + (fc.guardCount ? std::to_string(*fc.guardCount) : "") + " | " + cache + " |";
    }
    section(s);
  }
  md = &out.tail; // After the line's kernels: what the compile checks, not what went wrong.
  if (!at.guards.empty()) {
    std::string s = "**Guards installed for this line**\n```text";
    std::set<std::string> seen;
    size_t shown = 0;
    for (const auto &[c, g] : at.guards) {
      const index::GuardEntry &guard = h.compiles[c].guards[g];
      std::string line = "[" + h.compiles[c].id.str() + "] ";
      line.append(guard.kind).append(": ").append(guard.expression);
      // The ranks of a host each guard on their own device (`cuda:1`): one guard of the compile, once.
      if (ranks.ranks.size() > 1) line = withoutDeviceIndex(line);
      if (!seen.insert(line).second) continue;
      if (++shown > 20) {
        s += "\n…";
        break;
      }
      s += "\n" + line;
    }
    section(s + "\n```");
  }
  if (!at.shapes.empty()) {
    std::string s = "**Dynamic shapes**";
    for (const auto &[c, i] : at.shapes) {
      const index::ShapeRecord &r = h.compiles[c].shapes[i].record;
      std::string what;
      switch (r.kind) {
      case index::ShapeRecord::Kind::CreateSymbol:
        what = codeSpan(r.source) + " is dynamic: " + codeSpan(r.symbol) + " (value " + r.value + ", range " +
               r.range + ")";
        break;
      case index::ShapeRecord::Kind::UnbackedSymbol:
        what = "data-dependent symbol " + codeSpan(r.symbol) +
               (r.range.empty() ? "" : " (range " + r.range + ")");
        break;
      case index::ShapeRecord::Kind::Specialization:
        what = codeSpan(r.source) + " specialized to " + r.value +
               (r.reason.empty() ? "" : " (" + r.reason + ")");
        break;
      case index::ShapeRecord::Kind::GuardAdded:
        what = "guard " + codeSpan(r.expression);
        break;
      }
      s += "\n- [" + h.compiles[c].id.str() + "] " + what;
    }
    section(s);
  }
  return out;
}

std::optional<uint32_t> recordedHealthLine(TextCache &texts, const index::Index &index,
                                           const std::string &path, uint32_t line) {
  for (const index::Origin &o : index.compileHealth().places) {
    if (index::normalizePath(o.path) != path) continue;
    PlacedOrigin p = placeOrigin(texts, index, o);
    if (p.location && p.location->range.start.line == line) return o.line;
  }
  return std::nullopt;
}

} // namespace inductor::server
