// server/features/ListArtifacts.cpp: the custom request `inductor/listArtifacts`
// (protocol/InductorProtocol.h): every artifact, for the editors' pickers.
//
//   inductor/listArtifacts {} -> [{uri, title, label, kind, languageId, compileId, compile, compileIndex,
//   rank, graphKind, graphName, trace}]
// In index order (compiles in order, each compile's output code before its graphs; kernel files last).
// `label` is what pickers show (`[0/0] backward · output_code.py`); `compile` is the compile's label
// (`[0/0] backward`) and `compileIndex` tells compiles apart (null, like compileId, for kernel files shared
// by compiles); `trace` is the log the compile came from (null for compiles found only in files). Several
// artifacts can share a URI (ranks writing the same cache file): pickers show one entry per URI.
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/format/WireEnums.h"
#include "server/text/Convert.h"

namespace inductor::server {

std::vector<protocol::ArtifactEntry> listArtifacts(const FeatureContext &ctx, const protocol::NoParams &) {
  const index::Index &index = ctx.index;
  std::vector<protocol::ArtifactEntry> out;
  out.reserve(index.artifacts().size());
  for (uint32_t i = 0; i < index.artifacts().size(); ++i) {
    const index::Artifact &a = index.artifacts()[i];
    const index::Compile *c = index.compileOf({i});
    protocol::ArtifactEntry e;
    e.uri = artifactURI(index, {i});
    e.title = a.title;
    e.label = artifactLabel(index, {i}, e.uri);
    e.kind = wireEnum(a.kind);
    e.languageId = artifactLanguageId(a);
    if (c && !c->id.empty()) e.compileId = c->id.traceStr();
    if (c) e.compile = c->label();
    if (a.compile.valid()) e.compileIndex = a.compile.value;
    if (c && c->rank) e.rank = *c->rank;
    if (c) e.graphKind = graphKindOf(*c);
    if (!a.graphName.empty()) e.graphName = a.graphName;
    if (c && !c->traceFile.empty()) e.trace = c->traceFile;
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace inductor::server
