// server/features/Hover.cpp: textDocument/hover. Every origin, kernel and FX node named in a hover is a
// Markdown link to where it is (`[model.py:16](file:///…/model.py#L16)`, `inductor-trace:` URIs for code that
// exists only in a log), so a hover is also a way to navigate.
//  - On a kernel (launch or definition): name, kind, debug handle, compile and graph, its origins where they
//    are now with their source text, FX nodes, ATen ops, the user stack; a definition lists its launches.
//  - On a user source line that produced kernels: the kernels, by compile and graph (forward/backward), one
//    entry per distinct kernel with its number of launches (index::LaunchSummary in index/model/Counts.h).
//  - On an FX node in a graph dump: its target, origin and the kernels that compute it.
//  - On a user line with compile health (index/health/CompileHealth.h): the full reason of each graph break,
//    recompile, failure and specialisation there; on a compiled function's def line its compiles (id, status,
//    compile time, guard count, cache outcome); the guards installed for the line; its dynamic shapes.
#include "server/features/Features.h"
#include "server/format/CompareFormat.h"
#include "server/format/Counts.h"
#include "server/format/Health.h"
#include "server/format/KernelFormat.h"
#include "server/format/RuntimeFormat.h"
#include "server/text/Convert.h"
#include "server/text/Markdown.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace inductor::server {

namespace {

/// At most this many entries in a list; the rest is counted.
constexpr size_t kListLimit = 12;

/// A hover keeps to about this many lines (docs/policy.md, "Hovers"): a hover is read at a glance.
constexpr size_t kHoverLines = 25;
/// A kernel's hover has more to say (what it is, its resources, time and roofline, where it came from): this
/// many lines, and the one that says what was cut, whatever the number of origins, nodes and stacks.
constexpr size_t kKernelHoverLines = 39;
/// The user lines a kernel hover lists before "… N more".
constexpr size_t kOriginsShown = 5;

std::string compileText(const index::Index &index, index::ArtifactId id) {
  const index::Compile *c = index.compileOf(id);
  return c ? c->label() : std::string("unknown compile");
}

std::string more(size_t shown, size_t total, std::string_view what) {
  return total > shown ? "\n- … " + std::to_string(total - shown) + " more " + std::string(what) : "";
}

/// `[model.py:16](file:///…#L16) `code`` where the recorded line is now (placeOrigin), with what the user
/// should know (moved, changed since the trace, not on this machine) in italics; no link when the line is
/// gone.
std::string originItem(TextCache &texts, const index::Index &index, const index::Origin &o) {
  PlacedOrigin p = placeOrigin(texts, index, o);
  std::string item;
  if (!o.exists)
    item = codeSpan(o.recordedPath + ":" + std::to_string(o.line));
  else if (p.location)
    item = markdownLink(shortPlace(p), p.location->uri, p.line);
  else
    item = codeSpan(shortPlace(p));
  if (!p.code.empty()) item += " " + codeSpan(p.code);
  if (!p.note.empty()) item += " *(" + p.note + ")*";
  return item;
}

/// A launch as a link to its site: "[`name`](uri#L42)".
std::string launchLink(const index::Index &index, TextCache &texts, index::LaunchRef ref,
                       std::string_view text) {
  protocol::Location loc = launchLocation(texts, index, ref);
  return markdownLink(text, loc.uri, loc.range.start.line + 1);
}

/// FX node names, each a link to its definition in the compile's graph of that role when it is indexed.
std::string nodeLinks(const index::Index &index, TextCache &texts, index::ArtifactId graph,
                      const std::vector<std::string> &names) {
  const index::Artifact *g = graph.valid() ? &index.artifact(graph) : nullptr;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kListLimit; ++i) {
    out += i ? ", " : "";
    const index::Artifact::GraphNode *node = nullptr;
    if (g)
      for (const index::Artifact::GraphNode &n : g->graphNodes)
        if (n.name == names[i]) {
          node = &n;
          break;
        }
    out += node ? markdownLink(codeSpan(names[i]), texts.uriOf(index, graph), node->line + 1)
                : codeSpan(names[i]);
  }
  if (names.size() > kListLimit) out += ", … (" + std::to_string(names.size() - kListLimit) + " more)";
  return out;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kListLimit; ++i)
    out += (i ? ", " : "") + codeSpan(names[i]);
  if (names.size() > kListLimit) out += ", … (" + std::to_string(names.size() - kListLimit) + " more)";
  return out;
}

/// The user lines a kernel came from, the first `limit` of them; a kernel hover shows a few and counts the
/// rest (its definition lists them all).
void appendOrigins(std::string &md, TextCache &texts, const index::Index &index,
                   const std::vector<index::Origin> &origins, index::OriginSource source,
                   const std::vector<index::Origin> &framework = {}, size_t limit = kListLimit) {
  if (origins.empty() && !framework.empty()) {
    // Index.h: a kernel of PyTorch's own code that Dynamo traced (a compiled optimizer step).
    md += "\n\n**From PyTorch's code** (no user frame in its stack; this is PyTorch's frame, not yours)";
    for (size_t i = 0; i < framework.size() && i < limit; ++i)
      md += "\n- " + originItem(texts, index, framework[i]) + " *(PyTorch)*";
    md += more(limit, framework.size(), "frames");
    return;
  }
  if (origins.empty()) {
    md += "\n\nNo user source line recorded for this kernel.";
    return;
  }
  md += "\n\n**From**";
  for (size_t i = 0; i < origins.size() && i < limit; ++i)
    md += "\n- " + originItem(texts, index, origins[i]);
  md += more(limit, origins.size(), "user lines (definition lists them all)");
  if (source == index::OriginSource::PostGradGraph)
    md += "\n\n*Origin from the post-grad graph's `# File:` comments (no stack trace recorded).*";
  else if (source == index::OriginSource::PreGradGraph)
    md += "\n\n*Origin from the pre-grad graph's `# File:` comments (no stack trace recorded).*";
}

void appendStacks(std::string &md, TextCache &texts, const index::Index &index,
                  const std::vector<index::SharedVector<index::Origin>> &stacks) {
  bool any = std::any_of(stacks.begin(), stacks.end(), [](const auto &s) { return s.size() > 1; });
  if (!any) return;
  auto item = [&](const index::Origin &o) {
    return "\n- " + originItem(texts, index, o) + (o.library ? " *(library)*" : "");
  };
  // The outer frames every stack shares (the training loop, the model's forward) once, then what differs.
  size_t shared = 0;
  if (stacks.size() > 1) {
    size_t shortest = SIZE_MAX;
    for (const auto &s : stacks)
      shortest = std::min(shortest, s.size());
    while (shared + 1 < shortest && std::all_of(stacks.begin(), stacks.end(), [&](const auto &s) {
             return s[shared] == stacks[0][shared];
           }))
      ++shared;
  }
  md += "\n\n**User stack** (outermost first)";
  if (shared > 0) {
    md += "\n\n*Shared by the " + std::to_string(stacks.size()) + " stacks*";
    for (size_t i = 0; i < shared; ++i)
      md += item(stacks[0][i]);
  }
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (stacks.size() > 1) md += "\n\n*Stack " + std::to_string(i + 1) + (shared ? ", then*" : "*");
    for (size_t f = shared; f < stacks[i].size(); ++f)
      md += item(stacks[i][f]);
  }
}

/// "**Same code in:** [0/1] forward rank 0, ...": the other compiles whose output code is this text.
std::string sameCodeIn(const index::Index &index, const std::vector<index::ArtifactId> &all) {
  if (all.size() < 2) return "";
  std::string md = "\n\n**Same code in:** ";
  for (size_t i = 1; i < all.size() && i <= kListLimit; ++i)
    md += (i > 1 ? ", " : "") + compileText(index, all[i]);
  if (all.size() > kListLimit + 1) md += ", … (" + std::to_string(all.size() - 1 - kListLimit) + " more)";
  return md;
}

/// A launch's hover, what matters first (docs/policy.md, "Hovers"): what the kernel is (kind, debug
/// handle, compile, graph and rank, the other compiles of the same code), what it costs (the Triton cache's
/// resources, GPU time, roofline), the first user lines it came from, the printer's statistics, then the FX
/// nodes, ATen ops and stacks, which a long hover folds first.
std::string launchMarkdown(const index::Index &index, TextCache &texts, index::LaunchRef ref,
                           const std::vector<index::ArtifactId> &all) {
  const index::Launch &l = index.launch(ref);
  const index::Artifact &a = index.artifact(ref.artifact);
  std::string md = "### ";
  if (l.definition >= 0 && static_cast<size_t>(l.definition) < a.code.kernels.size()) {
    const index::KernelDefinition &d = a.code.kernels[static_cast<size_t>(l.definition)];
    md += markdownLink(codeSpan(l.site.kernel), texts.uriOf(index, ref.artifact), d.nameLine + 1);
  } else {
    md += codeSpan(l.site.kernel);
  }
  md += "\n\n" + std::string(index::displayName(l.kind)) + " kernel";
  if (l.site.debugHandle) md += " · debug handle " + codeSpan(std::to_string(*l.site.debugHandle));
  md += " · " + compileText(index, ref.artifact);
  md += sameCodeIn(index, all);
  index::SymbolAt s;
  s.kind = index::SymbolAt::Kind::Launch;
  s.artifact = ref.artifact;
  s.index = ref.index;
  md += kernelResourcesMarkdown(index, s) + launchTimeMarkdown(index, ref) + kernelPerfMarkdown(index, s);
  appendOrigins(md, texts, index, l.origins, l.originSource, l.frameworkOrigins, kOriginsShown);
  md += launchValuesMarkdown(index, ref);
  const index::Compile *c = index.compileOf(ref.artifact);
  if (!l.postGradNodes.empty())
    md += "\n\n**Post-grad FX nodes:** " +
          nodeLinks(index, texts, c ? c->postGradGraph : index::ArtifactId{}, l.postGradNodes);
  if (!l.preGradNodes.empty())
    md += "\n\n**Pre-grad FX nodes:** " +
          nodeLinks(index, texts, c ? c->preGradGraph : index::ArtifactId{}, l.preGradNodes);
  if (!l.atenOps.empty()) md += "\n\n**ATen:** " + joinNames(l.atenOps);
  appendStacks(md, texts, index, l.stacks);
  return md;
}

/// A kernel definition's hover, in the order of a launch's (launchMarkdown): what it is and where it is
/// launched, what it costs (resources, the time of all its launches, roofline), its user lines, FX nodes.
std::string definitionMarkdown(const index::Index &index, TextCache &texts, const index::SymbolAt &s,
                               const std::vector<index::ArtifactId> &all) {
  const index::Artifact &a = index.artifact(s.artifact);
  auto launches = index.launchesOfDefinition(s.artifact, s.index);
  std::string name = a.kernelSource ? a.kernelSource->name : a.code.kernels[s.index].name;
  index::KernelKind kind = a.kernelSource ? a.kernelSource->kind : a.code.kernels[s.index].kind;
  std::string md = "### " + codeSpan(name);
  md += "\n\n" + std::string(index::displayName(kind)) + " kernel";
  if (a.kind != index::ArtifactKind::KernelSource) md += " · " + compileText(index, s.artifact);
  md += " · " +
        (launches.empty() ? std::string("never launched") : "launched " + plural(launches.size(), "time"));
  if (!launches.empty()) {
    // Each launch, a link to its site (in every compile using this kernel file, for a kernel source).
    md += ":";
    for (size_t i = 0; i < launches.size() && i < kListLimit; ++i) {
      const index::Launch &l = index.launch(launches[i]);
      std::string text = l.site.debugHandle ? "handle " + std::to_string(*l.site.debugHandle)
                                            : "line " + std::to_string(l.site.line + 1);
      if (a.kind == index::ArtifactKind::KernelSource)
        text = compileText(index, launches[i].artifact).append(" ").append(text);
      md += (i ? ", " : " ") + launchLink(index, texts, launches[i], text);
    }
    if (launches.size() > kListLimit) md += ", … (" + std::to_string(launches.size() - kListLimit) + " more)";
  }
  if (a.kind != index::ArtifactKind::KernelSource) md += sameCodeIn(index, all);
  md += kernelResourcesMarkdown(index, s) + launchesRuntimeMarkdown(index, launches) +
        kernelPerfMarkdown(index, s);
  std::vector<index::Origin> origins = index.originsOf(s);
  index::OriginSource source =
      launches.empty() ? index::OriginSource::None : index.launch(launches[0]).originSource;
  appendOrigins(md, texts, index, origins, source, index.frameworkOriginsOf(s));
  if (a.kind != index::ArtifactKind::KernelSource) {
    const index::KernelDefinition &d = a.code.kernels[s.index];
    const index::Compile *c = index.compileOf(s.artifact);
    std::vector<std::string> post;
    for (const auto &[src, nodes] : d.sourceToAten)
      post.insert(post.end(), nodes.begin(), nodes.end());
    if (!post.empty())
      md += "\n\n**Post-grad FX nodes:** " +
            nodeLinks(index, texts, c ? c->postGradGraph : index::ArtifactId{}, post);
    if (!d.sourceNodes.empty())
      md += "\n\n**Pre-grad FX nodes:** " +
            nodeLinks(index, texts, c ? c->preGradGraph : index::ArtifactId{}, d.sourceNodes);
    if (!d.atenOps.empty()) md += "\n\n**ATen:** " + joinNames(d.atenOps);
  }
  return md;
}

/// The kernels of a LaunchSummary, one line per distinct kernel: a link to its first launch, its kind and
/// its number of launches.
void appendKernelGroups(std::string &md, const index::Index &index, TextCache &texts,
                        const index::LaunchSummary &summary) {
  // One row per version of a graph's code: the ranks that ran the same code, with their own kernels and
  // debug handles (a rank whose code differs is a row of its own, never mixed into another's).
  for (const index::LaunchSummary::Group &group : summary.groups)
    for (const index::LaunchSummary::Row &g : group.rows) {
      md += "\n\n**" + g.label + "**";
      for (size_t i = 0; i < g.kernels.size() && i < kListLimit; ++i) {
        const index::LaunchSummary::Kernel &k = g.kernels[i];
        md += "\n- " + launchLink(index, texts, k.launches.front(), codeSpan(k.name)) + " · " +
              std::string(index::displayName(k.kind));
        if (k.launches.size() > 1) {
          // Each launch a link: by debug handle when every launch has one, else by line.
          bool handles = std::all_of(k.launches.begin(), k.launches.end(), [&](index::LaunchRef r) {
            return index.launch(r).site.debugHandle.has_value();
          });
          md += " · " + plural(k.launches.size(), "launch", "launches") +
                (handles ? ", debug handles" : ", lines");
          for (size_t j = 0; j < k.launches.size() && j < kListLimit; ++j) {
            const index::Launch &l = index.launch(k.launches[j]);
            std::string text =
                std::to_string(handles ? *l.site.debugHandle : static_cast<int>(l.site.line + 1));
            md += (j ? ", " : " ") + launchLink(index, texts, k.launches[j], text);
          }
          if (k.launches.size() > kListLimit) md += ", …";
        }
      }
      md += more(kListLimit, g.kernels.size(), "kernels");
    }
}

std::string graphNodeMarkdown(const index::Index &index, TextCache &texts, const index::SymbolAt &s) {
  const index::Artifact &a = index.artifact(s.artifact);
  const index::Artifact::GraphNode &n = a.graphNodes[s.index];
  std::string md = "### FX node " + codeSpan(n.name);
  if (!n.target.empty()) md += "\n\n" + codeSpan(n.target);
  md += "\n\n" + a.title;
  if (n.origin) md += "\n\n**From** " + originItem(texts, index, *n.origin);
  auto launches = index.launchesForGraphNode(s.artifact, s.index);
  if (!launches.empty()) {
    index::LaunchSummary summary = index::summarizeLaunches(index, launches);
    md += "\n\n**Computed by** " + summary.counts();
    appendKernelGroups(md, index, texts, summary);
  }
  return md;
}

/// A user line's kernels: their counts as its lens gives them, their GPU time, then each graph's kernels,
/// then the time per compile and kernel.
std::string userLineMarkdown(const index::Index &index, TextCache &texts,
                             const std::vector<index::LaunchRef> &launches, uint32_t line) {
  index::LaunchSummary summary = index::summarizeLaunches(index, launches);
  std::string md = "### " + summary.counts() + " from line " + std::to_string(line);
  md += userLineTimeMarkdown(index, launches);
  appendKernelGroups(md, index, texts, summary);
  md += userLineTimeDetails(index, launches);
  return md;
}

} // namespace

std::optional<protocol::Hover> hover(const FeatureContext &ctx,
                                     const protocol::TextDocumentPositionParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  // The baseline run's index, when there is one and this answer is not from it (server/workspace/Runs.cpp).
  const index::Index *baseline = ctx.baseline;
  const Target &target = ctx.target;
  protocol::Hover hover;
  if (target.kind == Target::Kind::UserFile) {
    // The recorded lines that are at this line now (the file may have changed since the trace).
    auto now = userLinesNow(texts, index, uri, target.path, params.position.line + 1);
    auto it = now.find(params.position.line + 1);
    // Compile health is keyed by recorded lines: the one recorded line whose place is at this line now.
    HealthMarkdown health;
    if (std::optional<uint32_t> recorded =
            recordedHealthLine(texts, index, target.path, params.position.line))
      health = healthMarkdown(index, target.path, *recorded);
    // What changed here since the baseline run (also on a line only the baseline compiled).
    std::string since = compareHover(texts, index, baseline, uri, target.path, params.position.line + 1);
    // The compiled code of an installed package this line called into.
    std::string entered;
    for (const index::UserEntryPoint *e : entryPointsAt(texts, index, target.path, params.position.line + 1))
      entered += (entered.empty() ? "" : "\n\n---\n\n") + entryPointMarkdown(index, texts, *e);
    if (it == now.end() && health.head.empty() && health.tail.empty() && since.empty() && entered.empty())
      return std::nullopt;
    // Compile health first (what went wrong here), then the line's kernels and their runtime, then the
    // guards and dynamic shapes of the line (docs/policy.md, "Hovers").
    std::string &md = hover.contents.value;
    auto part = [&md](const std::string &s) {
      if (!s.empty()) md += (md.empty() ? "" : "\n\n---\n\n") + s;
    };
    part(health.head);
    part(entered);
    if (it != now.end()) part(userLineMarkdown(index, texts, it->second, params.position.line + 1));
    part(since);
    part(health.tail);
    hover.contents.value = withinLineBudget(hover.contents.value, kHoverLines);
    hover.range = texts.lineRange(uri, params.position.line);
    return hover;
  }
  if (target.kind != Target::Kind::Artifact) return std::nullopt;
  index::SymbolAt s = symbolAtPosition(index, target.artifact, texts, uri, params.position);
  switch (s.kind) {
  case index::SymbolAt::Kind::Launch:
    hover.contents.value =
        withinLineBudget(launchMarkdown(index, texts, {s.artifact, s.index}, target.all), kKernelHoverLines);
    break;
  case index::SymbolAt::Kind::KernelDefinition:
    hover.contents.value =
        withinLineBudget(definitionMarkdown(index, texts, s, target.all), kKernelHoverLines);
    break;
  case index::SymbolAt::Kind::GraphNode:
    hover.contents.value = withinLineBudget(graphNodeMarkdown(index, texts, s), kHoverLines);
    break;
  case index::SymbolAt::Kind::None:
    return std::nullopt;
  }
  hover.range =
      protocol::Range{texts.position(uri, s.line, s.column), texts.position(uri, s.line, s.endColumn)};
  return hover;
}

} // namespace inductor::server
