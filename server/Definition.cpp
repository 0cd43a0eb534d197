// server/Definition.cpp: textDocument/definition. A kernel (launch, definition, `def NAME` in its source) or
// an FX node in a graph dump -> the user source lines it came from (see the fallback chain in index/Index.h).
#include "server/Convert.h"
#include "server/Server.h"

#include <algorithm>

namespace inductor::server {

void Server::onDefinition(const protocol::TextDocumentPositionParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    TextCache texts(*this, index);
    Target target = resolveTarget(index, params.textDocument.uri, texts);
    if (target.kind != Target::Kind::Artifact) return reply(json::array());
    texts.prefer(target.artifact, params.textDocument.uri);
    // Every compile sharing this file (ranks, cache hits) has the same text, so the same symbol here.
    std::vector<index::Origin> origins;
    for (index::ArtifactId id : target.all) {
      index::SymbolAt symbol = symbolAtPosition(index, id, texts, params.textDocument.uri, params.position);
      for (index::Origin &o : index.originsOf(symbol))
        if (std::find(origins.begin(), origins.end(), o) == origins.end()) origins.push_back(std::move(o));
    }
    // Where each origin is now; a recorded line that is no longer in its file gives no location (hover says
    // why).
    json out = json::array();
    for (const index::Origin &o : origins)
      if (PlacedOrigin p = placeOrigin(texts, index, o);
          p.found() && std::find(out.begin(), out.end(), json(*p.location)) == out.end())
        out.push_back(*p.location);
    reply(std::move(out));
  });
}

} // namespace inductor::server
