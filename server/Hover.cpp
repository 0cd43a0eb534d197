// server/Hover.cpp: textDocument/hover.
//  - On a kernel (launch or definition): name, debug handle, compile, graph kind, kernel kind, FX nodes, ATen
//    ops, every origin as `file.py:LINE` with its source text, and the full user stack.
//  - On a user source line that produced kernels: the kernels, grouped by compile.
//  - On an FX node in a graph dump: its origin and the kernels that compute it.
#include "server/Convert.h"
#include "server/RuntimeFormat.h"
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

void appendOrigins(std::string &md, TextCache &texts, const std::vector<index::Origin> &origins,
                   index::OriginSource source) {
  if (origins.empty()) {
    md += "\n\nNo user source line recorded for this kernel.";
    return;
  }
  md += "\n\n**From**";
  for (const index::Origin &o : origins) {
    md += "\n- " + codeSpan(shortOrigin(o));
    std::string code = originCode(texts, o);
    if (!code.empty()) md += " " + codeSpan(code);
    if (!o.exists) md += " *(not found here: " + o.recordedPath + "; text from the trace)*";
  }
  if (source == index::OriginSource::PostGradGraph)
    md += "\n\n*Origin from the post-grad graph's `# File:` comments (no stack trace recorded).*";
  else if (source == index::OriginSource::PreGradGraph)
    md += "\n\n*Origin from the pre-grad graph's `# File:` comments (no stack trace recorded).*";
}

void appendStacks(std::string &md, TextCache &texts, const std::vector<std::vector<index::Origin>> &stacks) {
  bool any = std::any_of(stacks.begin(), stacks.end(), [](const auto &s) { return s.size() > 1; });
  if (!any) return;
  md += "\n\n**User stack**\n```text";
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (i) md += "\n--";
    for (const index::Origin &o : stacks[i])
      md += "\n" + shortOrigin(o) + "  " + originCode(texts, o);
  }
  md += "\n```";
}

std::string launchMarkdown(const index::Index &index, TextCache &texts, index::LaunchRef ref) {
  const index::Launch &l = index.launch(ref);
  std::string md = "### " + codeSpan(l.site.kernel);
  md += "\n\n" + std::string(index::displayName(l.kind)) + " kernel";
  if (l.site.debugHandle) md += " · debug handle " + codeSpan(std::to_string(*l.site.debugHandle));
  md += " · " + compileText(index, ref.artifact);
  appendOrigins(md, texts, l.origins, l.originSource);
  if (!l.postGradNodes.empty()) md += "\n\n**Post-grad FX nodes:** " + joinNames(l.postGradNodes);
  if (!l.preGradNodes.empty()) md += "\n\n**Pre-grad FX nodes:** " + joinNames(l.preGradNodes);
  if (!l.atenOps.empty()) md += "\n\n**ATen:** " + joinNames(l.atenOps);
  appendStacks(md, texts, l.stacks);
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
  appendOrigins(md, texts, origins, source);
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
    md += "\n\n**From** " + codeSpan(shortOrigin(*n.origin));
    std::string code = originCode(texts, *n.origin);
    if (!code.empty()) md += " " + codeSpan(code);
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

} // namespace

void Server::onHover(const protocol::TextDocumentPositionParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    const std::string &uri = params.textDocument.uri;
    Target target = resolveTarget(index, uri);
    TextCache texts(*this);
    if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, params.textDocument.uri);
    protocol::Hover hover;
    if (target.kind == Target::Kind::UserFile) {
      auto launches = index.launchesForLine(target.path, params.position.line + 1);
      if (launches.empty()) return reply(nullptr);
      hover.contents.value = userLineMarkdown(index, launches, params.position.line + 1) +
                             userLineRuntimeMarkdown(index, target.path, params.position.line + 1, launches);
      hover.range = texts.lineRange(uri, params.position.line);
      return reply(json(hover));
    }
    if (target.kind != Target::Kind::Artifact) return reply(nullptr);
    index::SymbolAt s = symbolAtPosition(index, target.artifact, texts, uri, params.position);
    switch (s.kind) {
    case index::SymbolAt::Kind::Launch:
      hover.contents.value = launchMarkdown(index, texts, {s.artifact, s.index}) +
                             launchRuntimeMarkdown(index, {s.artifact, s.index});
      break;
    case index::SymbolAt::Kind::KernelDefinition:
      hover.contents.value = definitionMarkdown(index, texts, s) +
                             launchesRuntimeMarkdown(index, index.launchesOfDefinition(s.artifact, s.index));
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
