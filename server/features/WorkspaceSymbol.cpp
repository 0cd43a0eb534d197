// server/features/WorkspaceSymbol.cpp: workspace/symbol. Every kernel of every indexed trace, fuzzy-matched;
// a kernel of code several ranks wrote the same (up to the device) once, its container naming those ranks.
#include "server/features/Features.h"
#include "server/text/Convert.h"

#include "index/model/Ranks.h"

#include <map>

namespace inductor::server {

std::vector<protocol::SymbolInformation> workspaceSymbol(const FeatureContext &ctx,
                                                         const protocol::WorkspaceSymbolParams &params) {
  const index::Index &index = ctx.index;
  std::vector<index::KernelSymbol> found = index.searchKernels(params.query);
  // The ranks each found artifact stands for: its own and those of the code equivalent to it. One pass over
  // the compiles, only when something was found.
  std::map<uint32_t, std::vector<int>> ranksOf;
  for (const index::KernelSymbol &k : found)
    ranksOf.try_emplace(k.artifact.value);
  if (!ranksOf.empty())
    for (const index::Compile &c : index.compiles())
      if (c.rank && c.outputCode.valid())
        if (auto it = ranksOf.find(index.firstEquivalent(c.outputCode).value); it != ranksOf.end())
          it->second.push_back(*c.rank);
  std::vector<protocol::SymbolInformation> out;
  for (const index::KernelSymbol &k : found) {
    protocol::SymbolInformation info;
    info.name = k.name;
    info.kind = protocol::SymbolKind::Function;
    info.location.uri = artifactURI(index, k.artifact);
    // Positions in generated code are ASCII in practice; avoid loading every document for a search.
    info.location.range = {{k.line, k.column}, {k.line, k.column + static_cast<uint32_t>(k.name.size())}};
    if (const index::Compile *c = index.compileOf(k.artifact)) {
      std::string label = c->label(false);
      const std::vector<int> &ranks = ranksOf[k.artifact.value];
      if (ranks.size() == 1) label += " rank " + std::to_string(ranks.front());
      if (ranks.size() > 1) label += " ranks " + index::rankRanges(ranks, 8);
      info.containerName = label + " · " + std::string(index::displayName(k.kind));
    }
    out.push_back(std::move(info));
  }
  return out;
}

} // namespace inductor::server
