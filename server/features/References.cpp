// server/features/References.cpp: textDocument/references.
//  - On a user source line: every launch site, in every compile (forward, backward, recompiles, every rank),
//    of every kernel generated from that line. Ranks that wrote the same output code (every rank of a
//    data-parallel job, as a rule: byte for byte, or up to the GPU of the host it ran on) are listed once, in
//    the first such copy (Index::firstEquivalent), as clangd lists a header's references once however many
//    translation units include it: an 8-rank trace would otherwise answer with 8 lists of the same places.
//    A rank whose code differs otherwise is listed on its own.
//  - On a kernel in generated code: the launches of that kernel (and its definition if asked).
//  - On an FX node in a graph dump: the launches of the kernels that compute it.
#include "server/features/Features.h"
#include "server/text/Convert.h"

#include <algorithm>

namespace inductor::server {

protocol::Written<std::vector<protocol::Location>> references(const FeatureContext &ctx,
                                                              const protocol::ReferenceParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const Target &target = ctx.target;
  std::vector<index::LaunchRef> launches;
  // Written directly: a many-rank line has thousands of locations (JsonWriter.h).
  protocol::JsonWriter out;
  out.beginArray();
  // Several compiles can share one file (every rank writing the same cache file): one location each.
  UniqueLocations unique(out);
  if (target.kind == Target::Kind::UserFile) {
    // The recorded lines that are at this line of the file as it is now (edited since the trace, another
    // version of a library).
    auto now = userLinesNow(texts, index, params.textDocument.uri, target.path, params.position.line + 1);
    if (auto it = now.find(params.position.line + 1); it != now.end())
      launches = withoutCopies(index, it->second);
  } else if (target.kind == Target::Kind::Artifact) {
    index::SymbolAt s =
        symbolAtPosition(index, target.artifact, texts, params.textDocument.uri, params.position);
    switch (s.kind) {
    case index::SymbolAt::Kind::Launch: {
      const index::Launch &l = index.launch({s.artifact, s.index});
      if (l.definition >= 0)
        launches = index.launchesOfDefinition(s.artifact, static_cast<uint32_t>(l.definition));
      else
        launches.push_back({s.artifact, s.index});
      break;
    }
    case index::SymbolAt::Kind::KernelDefinition:
      launches = index.launchesOfDefinition(s.artifact, s.index);
      if (params.context.includeDeclaration) {
        protocol::Location decl;
        decl.uri = params.textDocument.uri;
        decl.range = {texts.position(decl.uri, s.line, s.column),
                      texts.position(decl.uri, s.line, s.endColumn)};
        unique.add(decl);
      }
      break;
    case index::SymbolAt::Kind::GraphNode:
      launches = index.launchesForGraphNode(s.artifact, s.index);
      break;
    case index::SymbolAt::Kind::None:
      break;
    }
  }
  out.reserve(launches.size() * 128); // About a location's text.
  for (index::LaunchRef r : launches) {
    const std::string &uri = texts.uriOf(index, r.artifact);
    unique.add(uri, launchRange(texts, index, r, uri));
  }
  out.endArray();
  return {out.take()};
}

} // namespace inductor::server
