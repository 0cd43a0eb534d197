// server/Definition.cpp: textDocument/definition. A kernel (launch, definition, `def NAME` in its source) or
// an FX node in a graph dump -> the user source lines it came from (see the fallback chain in index/Index.h).
#include "server/Convert.h"
#include "server/Server.h"

namespace inductor::server {

void Server::onDefinition(const protocol::TextDocumentPositionParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    Target target = resolveTarget(index, params.textDocument.uri);
    if (target.kind != Target::Kind::Artifact) return reply(json::array());
    TextCache texts(*this);
    if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, params.textDocument.uri);
    index::SymbolAt symbol =
        symbolAtPosition(index, target.artifact, texts, params.textDocument.uri, params.position);
    json out = json::array();
    for (const index::Origin &o : index.originsOf(symbol))
      out.push_back(originLocation(texts, o));
    reply(std::move(out));
  });
}

} // namespace inductor::server
