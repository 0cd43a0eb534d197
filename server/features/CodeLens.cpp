// server/features/CodeLens.cpp: textDocument/codeLens (a model line's lens opens inductor/launchSites:
// LaunchSites.cpp). Lenses come resolved (no codeLens/resolve); a user file's lens titles are kept with its
// text per index (TextViews::derived), as editors ask for a document's lenses again on every edit elsewhere,
// focus and scroll.
//  - User source: on each line that produced kernels, `4 kernels, 10 launches · 2 forward · 2 backward`
//    (distinct kernels per compile and graph, launch sites; index::LaunchSummary in index/model/Counts.h).
//    Its command `inductor.showLaunchSites` [uri, position] carries no locations: the client asks
//    inductor/launchSites for them when the lens is clicked. A line of a many-compile trace has thousands of
//    launch sites (5,753 on a Llama line: 30 ms and 700 KB per codeLens answer, which editors ask for after
//    each edit). On each compiled function's def line, its compiles (`[8/0–8/4] 5 compiles · 1 failed · 4
//    graph breaks · 2.3 s`), whose command `inductor.showCompiles` [uri, position, {function, line,
//    compileIds}] opens them in the editor's compiles view.
//  - Generated code: above each kernel launch and definition, its origin (`model.py:16  h = ...`, `+N more`).
//  - Graph dumps: above each run of FX nodes from one user line, that origin, and beside it the kernels that
//    compute those nodes (`2 kernels, 3 launches`).
// The lenses of generated code and graph dumps carry their few locations: their command is
// `inductor.showLocations` with arguments [uri, position, locations], the argument shape of VS Code's
// `editor.action.showReferences`. The editor integrations implement both commands (one location: go there;
// several: a peek or list).
#include "protocol/Position.h"
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/format/CompareFormat.h"
#include "server/format/Counts.h"
#include "server/format/Health.h"
#include "server/format/RuntimeFormat.h"
#include "server/text/Convert.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace inductor::server {

namespace {

/// A lens opening `locations` (the JSON text of an array of them): inductor.showLocations.
void writeLocationsLens(protocol::JsonWriter &w, const std::string &uri, const protocol::Range &range,
                        std::string_view title, std::string_view locations) {
  protocol::writeLens(w, range, title, protocol::ShowLocationsArguments{uri, range.start, locations});
}

/// Where a compiled function's `def` line is now: the recorded line when it still defines the function, else
/// the nearest line that does (the file changed since the trace); nullopt when none does. Without the text,
/// the recorded line.
std::optional<uint32_t> defLineNow(TextCache &texts, const std::string &uri,
                                   const index::CompiledFunction &fn) {
  const index::TextLines *lines = texts.lines(uri);
  if (!lines || fn.function.empty()) return fn.line;
  auto defines = [&](uint32_t line) { // 1-based
    if (line == 0 || line > lines->size()) return false;
    std::string_view t = index::trim((*lines)[line - 1]);
    if (t.starts_with("async ")) t = index::trim(t.substr(6));
    if (!t.starts_with("def ")) return false;
    t = index::trim(t.substr(4));
    return t.starts_with(fn.function) && t.substr(fn.function.size()).starts_with("(");
  };
  if (defines(fn.line)) return fn.line;
  auto distance = [&](uint32_t l) { return l > fn.line ? l - fn.line : fn.line - l; };
  std::optional<uint32_t> best;
  for (uint32_t l = 1; l <= lines->size(); ++l)
    if (defines(l) && (!best || distance(l) < distance(*best))) best = l;
  return best;
}

/// The compile lenses of a user file (server/format/Health.h formats them).
void appendCompileLenses(const index::Index &index, TextCache &texts, const std::string &uri,
                         const std::string &path, protocol::JsonWriter &out) {
  const index::CompileHealth &h = index.compileHealth();
  index::FunctionGroups groups = index::groupFunctions(h);
  for (const index::CompiledFunction &fn : index.compiledFunctions(path)) {
    std::optional<uint32_t> line = defLineNow(texts, uri, fn);
    if (!line) continue; // The function is no longer in the file.
    protocol::CodeLens lens;
    lens.range = texts.lineRange(uri, *line - 1);
    // Its compiles as the compiled frames view groups them (index::groupFunctions: a frame whose last
    // compile logged no co_name counts under the function its frame id names).
    const std::vector<uint32_t> &compiles =
        fn.frames.empty() ? fn.compiles : groups.functions[groups.function[fn.frames.front()]].compiles;
    protocol::CompilesSelection selection{fn.function, fn.line, {}};
    for (uint32_t c : compiles)
      selection.compileIds.push_back(h.compiles[c].id.str());
    lens.command = protocol::clientCommand(compilesTitle(h, compiles, index::countsOf(index)->health.ranks),
                                           protocol::ShowCompilesArguments{uri, lens.range.start, selection});
    out.dump(json(lens));
  }
}

/// The lenses of the lines of a user file that entered compiled code of an installed package
/// (index::UserEntryPoint, server/format/Health.h): clicked, the compiles view shows those compiles.
void appendEntryPointLenses(const index::Index &index, TextCache &texts, const std::string &uri,
                            const std::string &path, protocol::JsonWriter &out) {
  const index::CompileHealth &h = index.compileHealth();
  for (const index::UserEntryPoint &e : index.entryPoints(path)) {
    std::optional<protocol::Location> at = placeLocation(texts, index, index.place(e.place));
    if (!at) continue; // The line is no longer in the file.
    protocol::CodeLens lens;
    lens.range = texts.lineRange(uri, at->range.start.line);
    const index::CompiledFrame &f = h.frames[h.compiles[e.compiles.front()].frame];
    protocol::CompilesSelection selection{f.function, f.def ? h.places[*f.def].line : 0, {}};
    for (uint32_t c : e.compiles)
      selection.compileIds.push_back(h.compiles[c].id.str());
    lens.command = protocol::clientCommand(entryPointTitle(index, e),
                                           protocol::ShowCompilesArguments{uri, lens.range.start, selection});
    out.dump(json(lens));
  }
}

/// `model.py:16  h = F.gelu(self.fc1(h))  +1 more`, from the origins found in their files now.
std::string originTitle(const std::vector<PlacedOrigin> &origins) {
  std::string title = shortPlace(origins.front());
  const std::string &code = origins.front().code;
  if (!code.empty())
    title += "  " + (code.size() > 80 ? std::string(protocol::utf8Prefix(code, 77)) + "..." : code);
  if (origins.size() > 1) title += "  +" + std::to_string(origins.size() - 1) + " more";
  return title;
}

} // namespace

protocol::Written<std::vector<protocol::CodeLens>> codeLens(const FeatureContext &ctx,
                                                            const protocol::CodeLensParams &) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  // The baseline run's index, when there is one and this answer is not from it (server/workspace/Runs.cpp).
  const index::Index *baseline = ctx.baseline;
  const Target &target = ctx.target;
  // Written directly: a large output code has thousands of lenses (JsonWriter.h).
  protocol::JsonWriter out;
  out.beginArray();
  auto done = [&]() -> protocol::Written<std::vector<protocol::CodeLens>> {
    out.endArray();
    return {out.take()};
  };
  if (target.kind == Target::Kind::UserFile) {
    // On the lines where the recorded lines are now: the document follows the user's edits.
    // Each line's title depends on the text and the index alone: kept with the text (TextViews::derived),
    // as editors ask for the lenses of a document again on every edit elsewhere, focus and scroll.
    struct LineLens {
      uint32_t line; // 1-based, now.
      std::string title;
    };
    // With a baseline run, each title says what changed since (server/format/CompareFormat.h).
    auto compared = baseline ? comparedLinesNow(texts, index, *baseline, uri, target.path) : nullptr;
    auto make = [&] {
      std::vector<LineLens> lines;
      // Held here: a range-for over `*f()` destroys f's shared_ptr before the loop, and the text's views
      // keep no copy for an index older than the newest they served (TextViews::derived).
      std::shared_ptr<const UserLinesNow> userLines = allUserLinesNow(texts, index, uri, target.path);
      for (const auto &[line, launches] : *userLines) {
        index::LaunchSummary summary = index::summarizeLaunches(index, launches);
        std::string time = lensTimeSuffix(index, launches);
        lines.push_back(
            {line, lensTitleVsBaseline(baseline, compared ? comparedLineAt(*compared, line) : nullptr,
                                       summary, summary.byKind(), time)});
      }
      return lines;
    };
    std::string key =
        "lensTitles\n" + target.path + (baseline ? "\n" + std::to_string(baseline->serial()) : "");
    const TextViews *views = texts.views(uri);
    auto lines = views ? views->derived<std::vector<LineLens>>(index, key, make)
                       : std::make_shared<const std::vector<LineLens>>(make());
    for (const LineLens &l : *lines) {
      protocol::Range range = texts.lineRange(uri, l.line - 1);
      protocol::writeLens(out, range, l.title, protocol::ShowLaunchSitesArguments{uri, range.start});
    }
    appendCompileLenses(index, texts, uri, target.path, out);
    appendEntryPointLenses(index, texts, uri, target.path, out);
    return done();
  }
  if (target.kind != Target::Kind::Artifact) return done();
  const index::Artifact &a = index.artifact(target.artifact);
  // Only origins found in their files now: a recorded line that is gone gets no lens (hover says why).
  struct Body {
    std::string title, locations; // locations: the JSON text of an array.
  };
  auto bodyFor = [&](const std::vector<index::Origin> &origins) -> std::optional<Body> {
    std::vector<PlacedOrigin> placed;
    protocol::JsonWriter locations;
    locations.beginArray();
    UniqueLocations unique(locations);
    for (const index::Origin &o : origins) {
      PlacedOrigin p = placeOrigin(texts, index, o);
      if (p.found() && unique.add(*p.location)) placed.push_back(std::move(p));
    }
    if (placed.empty()) return std::nullopt;
    locations.endArray();
    return Body{originTitle(placed), locations.take()};
  };
  auto lensFor = [&](uint32_t line, uint32_t column, uint32_t endColumn, const std::optional<Body> &body) {
    if (!body) return;
    protocol::Range range{texts.position(uri, line, column), texts.position(uri, line, endColumn)};
    writeLocationsLens(out, uri, range, body->title, body->locations);
  };
  // Launches with the same origins share one list (Launch::origins, interned per build: a model's layers
  // run the same lines, and a forward's kernels come from the lines of its backward's): placed and written
  // once per request. They were most of a large output code's lenses (perf, bench/README.md).
  std::unordered_map<const void *, std::optional<Body>> launchBodies;
  auto launchBody = [&](const index::SharedVector<index::Origin> &origins) -> const std::optional<Body> & {
    auto [body, fresh] = launchBodies.try_emplace(origins.identity());
    if (fresh) body->second = bodyFor(*origins);
    return body->second;
  };
  // A kernel's origins are its launches': when they all share one list (its launches in each layer), that
  // list's body.
  auto definitionBody = [&](const index::SymbolAt &s) -> std::optional<Body> {
    const index::SharedVector<index::Origin> *shared = nullptr;
    for (index::LaunchRef r : index.launchesOfDefinition(s.artifact, s.index)) {
      const auto &origins = index.launch(r).origins;
      if (origins.empty()) continue;
      if (shared && !shared->sharedWith(origins)) return bodyFor(index.originsOf(s));
      shared = &origins;
    }
    if (!shared) return std::nullopt;
    return launchBody(*shared);
  };
  // Positions in the document as it is now (it may be an edited copy of the indexed text).
  for (uint32_t i = 0; i < a.code.kernels.size(); ++i) {
    const index::KernelDefinition &d = a.code.kernels[i];
    auto at = definitionNow(texts, index, target.artifact, i, uri);
    if (!at) continue;
    index::SymbolAt s;
    s.kind = index::SymbolAt::Kind::KernelDefinition;
    s.artifact = target.artifact;
    s.index = i;
    lensFor(at->first, at->second, at->second + static_cast<uint32_t>(d.name.size()), definitionBody(s));
  }
  for (uint32_t i = 0; i < a.launches.size(); ++i) {
    const auto &origins = a.launches[i].origins;
    if (origins.empty()) continue;
    if (auto site = launchSiteNow(texts, index, {target.artifact, i}, uri))
      lensFor(site->line, site->column, site->endColumn, launchBody(origins));
  }
  if (a.kernelSource) {
    index::SymbolAt s;
    s.kind = index::SymbolAt::Kind::KernelDefinition;
    s.artifact = target.artifact;
    lensFor(a.kernelSource->line, a.kernelSource->column,
            a.kernelSource->column + static_cast<uint32_t>(a.kernelSource->name.size()),
            bodyFor(index.originsOf(s)));
  }
  if (!a.graphNodes.empty()) {
    // One pair of lenses per run of consecutive nodes from the same user line (a `# File:` block).
    std::vector<std::vector<index::LaunchRef>> computing = index.launchesForGraphNodes(target.artifact);
    for (size_t i = 0; i < a.graphNodes.size();) {
      const index::Artifact::GraphNode &first = a.graphNodes[i];
      size_t end = i + 1;
      auto sameLine = [&](const index::Artifact::GraphNode &n) {
        return n.origin == first.origin || (n.origin && first.origin && *n.origin == *first.origin);
      };
      while (end < a.graphNodes.size() && sameLine(a.graphNodes[end]))
        ++end;
      if (first.origin) {
        std::vector<index::LaunchRef> launches;
        for (size_t n = i; n < end; ++n)
          for (index::LaunchRef r : computing[n])
            if (std::find(launches.begin(), launches.end(), r) == launches.end()) launches.push_back(r);
        protocol::Range range = texts.lineRange(uri, first.line);
        if (PlacedOrigin p = placeOrigin(texts, index, *first.origin); p.found()) {
          protocol::JsonWriter one;
          one.beginArray();
          protocol::write(one, *p.location);
          one.endArray();
          writeLocationsLens(out, uri, range, originTitle({p}), one.take());
        }
        if (!launches.empty())
          writeLocationsLens(out, uri, range, index::summarizeLaunches(index, launches).counts(),
                             launchLocations(texts, index, launches));
      }
      i = end;
    }
  }
  return done();
}

} // namespace inductor::server
