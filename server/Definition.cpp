// server/Definition.cpp: textDocument/definition. A kernel (launch, definition, `def NAME` in its source) or
// an FX node in a graph dump -> the user source lines it came from (see the fallback chain in index/Index.h).
#include "server/Convert.h"
#include "server/Server.h"

#include <algorithm>

namespace inductor::server {

void Server::onDefinition(const protocol::TextDocumentPositionParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    Target target = resolveTarget(index, params.textDocument.uri);
    if (target.kind != Target::Kind::Artifact) return reply(json::array());
    TextCache texts(*this);
    texts.prefer(target.artifact, params.textDocument.uri);
    // Every compile sharing this file (ranks, cache hits) has the same text, so the same symbol here.
    std::vector<index::Origin> origins;
    for (index::ArtifactId id : target.all) {
      index::SymbolAt symbol = symbolAtPosition(index, id, texts, params.textDocument.uri, params.position);
      for (index::Origin &o : index.originsOf(symbol))
        if (std::find(origins.begin(), origins.end(), o) == origins.end()) origins.push_back(std::move(o));
    }
    json out = json::array();
    for (const index::Origin &o : origins)
      out.push_back(originLocation(texts, o));
    reply(std::move(out));
  });
}

} // namespace inductor::server
