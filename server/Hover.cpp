// server/Hover.cpp: textDocument/hover.
//  - On a kernel (launch or definition): name, debug handle, compile, graph kind, kernel kind, FX nodes, ATen
//    ops, every origin as `file.py:LINE` with its source text, and the full user stack.
//  - On a user source line that produced kernels: the kernels, grouped by compile.
//  - On an FX node in a graph dump: its origin and the kernels that compute it.
//  - On a user line with compile health (index/CompileHealth.h): the full reason of each graph break,
//    recompile, failure and specialisation there; on a compiled function's def line its compiles (id, status,
//    compile time, guard count, cache outcome); the guards installed for the line; its dynamic shapes.
#include "server/Convert.h"
#include "server/Health.h"
#include "server/Server.h"

#include <algorithm>
#include <map>
#include <set>

namespace inductor::server {

namespace {

std::string codeSpan(std::string_view s) {
  // A backtick inside would end the span early; use a double-backtick span then.
  return s.find('`') == std::string_view::npos ? "`" + std::string(s) + "`" : "`` " + std::string(s) + " ``";
}

std::string joinNames(const std::vector<std::string> &names, size_t limit = 12) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i)
    out += (i ? ", " : "") + codeSpan(names[i]);
  if (names.size() > limit) out += ", … (" + std::to_string(names.size() - limit) + " more)";
  return out;
}

std::string compileText(const index::Index &index, index::ArtifactId id) {
  const index::Compile *c = index.compileOf(id);
  return c ? c->label() : std::string("unknown compile");
}

void appendOrigins(std::string &md, TextCache &texts, const index::Index &index,
                   const std::vector<index::Origin> &origins, index::OriginSource source) {
  if (origins.empty()) {
    md += "\n\nNo user source line recorded for this kernel.";
    return;
  }
  md += "\n\n**From**";
  for (const index::Origin &o : origins) {
    PlacedOrigin p = placeOrigin(texts, index, o);
    md += "\n- " + codeSpan(shortPlace(p));
    if (!p.code.empty()) md += " " + codeSpan(p.code);
    if (!p.note.empty()) md += " *(" + p.note + ")*";
  }
  if (source == index::OriginSource::PostGradGraph)
    md += "\n\n*Origin from the post-grad graph's `# File:` comments (no stack trace recorded).*";
  else if (source == index::OriginSource::PreGradGraph)
    md += "\n\n*Origin from the pre-grad graph's `# File:` comments (no stack trace recorded).*";
}

void appendStacks(std::string &md, TextCache &texts, const index::Index &index,
                  const std::vector<std::vector<index::Origin>> &stacks) {
  bool any = std::any_of(stacks.begin(), stacks.end(), [](const auto &s) { return s.size() > 1; });
  if (!any) return;
  md += "\n\n**User stack**\n```text";
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (i) md += "\n--";
    for (const index::Origin &o : stacks[i]) {
      PlacedOrigin p = placeOrigin(texts, index, o);
      md += "\n" + shortPlace(p) + "  " + p.code;
      if (!p.found()) md += "  (changed since the trace: not found)";
      if (o.library) md += "  (library)";
    }
  }
  md += "\n```";
}

std::string launchMarkdown(const index::Index &index, TextCache &texts, index::LaunchRef ref) {
  const index::Launch &l = index.launch(ref);
  std::string md = "### " + codeSpan(l.site.kernel);
  md += "\n\n" + std::string(index::displayName(l.kind)) + " kernel";
  if (l.site.debugHandle) md += " · debug handle " + codeSpan(std::to_string(*l.site.debugHandle));
  md += " · " + compileText(index, ref.artifact);
  appendOrigins(md, texts, index, l.origins, l.originSource);
  if (!l.postGradNodes.empty()) md += "\n\n**Post-grad FX nodes:** " + joinNames(l.postGradNodes);
  if (!l.preGradNodes.empty()) md += "\n\n**Pre-grad FX nodes:** " + joinNames(l.preGradNodes);
  if (!l.atenOps.empty()) md += "\n\n**ATen:** " + joinNames(l.atenOps);
  appendStacks(md, texts, index, l.stacks);
  return md;
}

std::string definitionMarkdown(const index::Index &index, TextCache &texts, const index::SymbolAt &s) {
  const index::Artifact &a = index.artifact(s.artifact);
  auto launches = index.launchesOfDefinition(s.artifact, s.index);
  std::string name = a.kernelSource ? a.kernelSource->name : a.code.kernels[s.index].name;
  index::KernelKind kind = a.kernelSource ? a.kernelSource->kind : a.code.kernels[s.index].kind;
  std::string md = "### " + codeSpan(name);
  md += "\n\n" + std::string(index::displayName(kind)) + " kernel";
  if (a.kind != index::ArtifactKind::KernelSource) md += " · " + compileText(index, s.artifact);
  md += " · launched " + std::to_string(launches.size()) + (launches.size() == 1 ? " time" : " times");
  std::vector<std::string> handles;
  for (index::LaunchRef r : launches)
    if (auto h = index.launch(r).site.debugHandle) handles.push_back(std::to_string(*h));
  if (!handles.empty()) md += " (debug handles " + joinNames(handles) + ")";
  std::vector<index::Origin> origins = index.originsOf(s);
  index::OriginSource source =
      launches.empty() ? index::OriginSource::None : index.launch(launches[0]).originSource;
  appendOrigins(md, texts, index, origins, source);
  if (a.kind != index::ArtifactKind::KernelSource) {
    const index::KernelDefinition &d = a.code.kernels[s.index];
    std::vector<std::string> post;
    for (const auto &[src, nodes] : d.sourceToAten)
      post.insert(post.end(), nodes.begin(), nodes.end());
    if (!post.empty()) md += "\n\n**Post-grad FX nodes:** " + joinNames(post);
    if (!d.sourceNodes.empty()) md += "\n\n**Pre-grad FX nodes:** " + joinNames(d.sourceNodes);
    if (!d.atenOps.empty()) md += "\n\n**ATen:** " + joinNames(d.atenOps);
  }
  return md;
}

std::string graphNodeMarkdown(const index::Index &index, TextCache &texts, const index::SymbolAt &s) {
  const index::Artifact &a = index.artifact(s.artifact);
  const index::Artifact::GraphNode &n = a.graphNodes[s.index];
  std::string md = "### FX node " + codeSpan(n.name);
  if (!n.target.empty()) md += "\n\n" + codeSpan(n.target);
  md += "\n\n" + a.title;
  if (n.origin) {
    PlacedOrigin p = placeOrigin(texts, index, *n.origin);
    md += "\n\n**From** " + codeSpan(shortPlace(p));
    if (!p.code.empty()) md += " " + codeSpan(p.code);
    if (!p.note.empty()) md += " *(" + p.note + ")*";
  }
  auto launches = index.launchesForGraphNode(s.artifact, s.index);
  if (!launches.empty()) {
    md += "\n\n**Computed by**";
    for (index::LaunchRef r : launches) {
      const index::Launch &l = index.launch(r);
      md += "\n- " + codeSpan(l.site.kernel) +
            (l.site.debugHandle ? " (handle " + std::to_string(*l.site.debugHandle) + ")" : "");
    }
  }
  return md;
}

std::string userLineMarkdown(const index::Index &index, const std::vector<index::LaunchRef> &launches,
                             uint32_t line) {
  // Grouped in compile order (forward before backward, recompiles in order).
  std::map<uint32_t, std::pair<std::string, std::vector<std::string>>> byCompile;
  std::set<std::pair<uint32_t, std::string>> seen;
  for (index::LaunchRef r : launches) {
    const index::Launch &l = index.launch(r);
    uint32_t compile = index.artifact(r.artifact).compile.value;
    std::string entry = codeSpan(l.site.kernel) +
                        (l.site.debugHandle ? " (" + std::to_string(*l.site.debugHandle) + ")" : "") + " — " +
                        std::string(index::displayName(l.kind));
    if (!seen.insert({compile, entry}).second) continue;
    auto &slot = byCompile[compile];
    slot.first = compileText(index, r.artifact);
    slot.second.push_back(entry);
  }
  std::string md = "### " + std::to_string(launches.size()) +
                   (launches.size() == 1 ? " kernel launch" : " kernel launches") + " from line " +
                   std::to_string(line);
  for (const auto &[ref, group] : byCompile) {
    md += "\n\n**" + group.first + "**";
    for (const std::string &e : group.second)
      md += "\n- " + e;
  }
  return md;
}

std::string eventHeading(index::HealthEventKind k) {
  switch (k) {
  case index::HealthEventKind::GraphBreak:
    return "Graph break";
  case index::HealthEventKind::Recompile:
    return "Recompile";
  case index::HealthEventKind::Failure:
    return "Compile failure";
  case index::HealthEventKind::Specialization:
    break;
  }
  return "Dynamic shape specialized";
}

/// Compile health of one user line (1-based), as markdown; empty when there is none.
std::string healthMarkdown(const index::Index &index, const std::string &path, uint32_t line) {
  index::HealthAtLine at = index.healthAt(path, line);
  if (at.empty()) return {};
  const index::CompileHealth &h = index.compileHealth();
  std::string md;
  auto section = [&](const std::string &s) { md += (md.empty() ? "" : "\n\n") + s; };
  // Events: one entry per distinct text, with the compiles it happened in.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> texts;
  std::map<std::string, std::pair<std::string, std::string>> heading;
  for (uint32_t e : at.events) {
    const index::HealthEvent &ev = h.events[e];
    std::string key = eventHeading(ev.kind) + "\n" + ev.text;
    auto it = std::find_if(texts.begin(), texts.end(), [&](auto &t) { return t.first == key; });
    if (it == texts.end()) {
      texts.push_back({key, {}});
      it = std::prev(texts.end());
    }
    it->second.push_back(ev.compile);
    std::string link =
        ev.url.empty() ? "" : " · [" + (ev.id.empty() ? std::string("details") : ev.id) + "](" + ev.url + ")";
    heading[key] = {eventHeading(ev.kind), link};
  }
  for (const auto &[key, compiles] : texts) {
    const auto &[title, link] = heading[key];
    std::string s = "### " + title + " " + compileIdRange(h, compiles);
    s += link;
    s += "\n\n```text\n";
    s += key.substr(key.find('\n') + 1);
    s += "\n```";
    section(s);
  }
  for (const index::CompiledFunction &fn : at.functions) {
    std::string s = "### " + codeSpan(fn.function) + " — " + functionSummary(h, fn) +
                    "\n\n| compile | status | time | guards | cache |\n|---|---|---|---|---|";
    for (uint32_t c : fn.compiles) {
      const index::FrameCompile &fc = h.compiles[c];
      std::string cache;
      if (fc.fxGraphCache != index::CacheOutcome::Unknown)
        cache = "FX graph " + std::string(index::cacheOutcomeName(fc.fxGraphCache));
      if (fc.aotAutogradCache != index::CacheOutcome::Unknown)
        cache += (cache.empty() ? "" : ", ") + std::string("AOTAutograd ") +
                 std::string(index::cacheOutcomeName(fc.aotAutogradCache));
      auto cost = compileCost(h, {c});
      s += "\n| " + fc.label() + (h.frames[fc.frame].resumeOf ? " (resumed)" : "") + " | " +
           std::string(index::compileStatusName(fc.status)) + " | " + (cost ? formatSeconds(*cost) : "") +
           " | " + (fc.guardCount ? std::to_string(*fc.guardCount) : "") + " | " + cache + " |";
    }
    section(s);
  }
  if (!at.guards.empty()) {
    std::string s = "**Guards installed for this line**\n```text";
    std::set<std::string> seen;
    size_t shown = 0;
    for (const auto &[c, g] : at.guards) {
      const index::GuardEntry &guard = h.compiles[c].guards[g].guard;
      std::string line = "[" + h.compiles[c].id.str() + "] " + guard.kind + ": " + guard.expression;
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
  return md;
}

} // namespace

void Server::onHover(const protocol::TextDocumentPositionParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    const std::string &uri = params.textDocument.uri;
    TextCache texts(*this, index);
    Target target = resolveTarget(index, uri, texts);
    if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, params.textDocument.uri);
    protocol::Hover hover;
    if (target.kind == Target::Kind::UserFile) {
      // The recorded lines that are at this line now (the file may have changed since the trace).
      auto now = userLinesNow(texts, index, uri, target.path);
      auto it = now.find(params.position.line + 1);
      std::string health = healthMarkdown(index, target.path, params.position.line + 1);
      if (it == now.end() && health.empty()) return reply(nullptr);
      if (it != now.end())
        hover.contents.value = userLineMarkdown(index, it->second, params.position.line + 1);
      if (!health.empty())
        hover.contents.value += (hover.contents.value.empty() ? "" : "\n\n---\n\n") + health;
      hover.range = texts.lineRange(uri, params.position.line);
      return reply(json(hover));
    }
    if (target.kind != Target::Kind::Artifact) return reply(nullptr);
    index::SymbolAt s = symbolAtPosition(index, target.artifact, texts, uri, params.position);
    switch (s.kind) {
    case index::SymbolAt::Kind::Launch:
      hover.contents.value = launchMarkdown(index, texts, {s.artifact, s.index});
      break;
    case index::SymbolAt::Kind::KernelDefinition:
      hover.contents.value = definitionMarkdown(index, texts, s);
      break;
    case index::SymbolAt::Kind::GraphNode:
      hover.contents.value = graphNodeMarkdown(index, texts, s);
      break;
    case index::SymbolAt::Kind::None:
      return reply(nullptr);
    }
    if (target.all.size() > 1 && s.kind != index::SymbolAt::Kind::GraphNode) {
      hover.contents.value += "\n\n**Same code in:** ";
      for (size_t i = 1; i < target.all.size(); ++i)
        hover.contents.value += (i > 1 ? ", " : "") + compileText(index, target.all[i]);
    }
    hover.range =
        protocol::Range{texts.position(uri, s.line, s.column), texts.position(uri, s.line, s.endColumn)};
    reply(json(hover));
  });
}

} // namespace inductor::server
