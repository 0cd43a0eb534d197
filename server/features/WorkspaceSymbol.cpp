// server/features/WorkspaceSymbol.cpp: workspace/symbol. Every kernel of every indexed trace, fuzzy-matched.
#include "server/features/Features.h"
#include "server/text/Convert.h"

namespace inductor::server {

std::vector<protocol::SymbolInformation> workspaceSymbol(const FeatureContext &ctx,
                                                         const protocol::WorkspaceSymbolParams &params) {
  const index::Index &index = ctx.index;
  std::vector<protocol::SymbolInformation> out;
  for (const index::KernelSymbol &k : index.searchKernels(params.query)) {
    protocol::SymbolInformation info;
    info.name = k.name;
    info.kind = protocol::SymbolKind::Function;
    info.location.uri = artifactURI(index, k.artifact);
    // Positions in generated code are ASCII in practice; avoid loading every document for a search.
    info.location.range = {{k.line, k.column}, {k.line, k.column + static_cast<uint32_t>(k.name.size())}};
    if (const index::Compile *c = index.compileOf(k.artifact))
      info.containerName = c->label() + " · " + std::string(index::displayName(k.kind));
    out.push_back(std::move(info));
  }
  return out;
}

} // namespace inductor::server
