// server/features/Definition.cpp: textDocument/definition. A kernel (launch, definition, `def NAME` in its
// source, a line of its body) or an FX node in a graph dump -> the user source lines it came from (see the
// fallback chain in index/model/Index.h); a kernel with none whose stacks hold only PyTorch's frames -> the
// innermost of those (Launch::frameworkOrigins). A file that is not on this machine is answered as the text
// the trace recorded of it (an `inductor-trace:/recorded-source/...` document, server/text/Convert.h), never
// as a file:// URI. On the `PATH:LINE` of a `# File:` comment, in any document, -> that line (as its document
// link does).
#include "server/features/Features.h"
#include "server/format/KernelFormat.h"
#include "server/text/Convert.h"

#include <algorithm>

namespace inductor::server {

std::vector<protocol::Location> definition(const FeatureContext &ctx,
                                           const protocol::TextDocumentPositionParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  std::vector<protocol::Location> out;
  if (ctx.tritonIr) {
    // A Triton IR file: the kernel line of its IR line, or nothing. It is no artifact and holds no `#
    // File:` comment, so its text is not read as a document's (a line table of a file that may be MBs of
    // lines).
    if (auto ir = irDefinition(index, texts, uri, params.position)) out.push_back(*ir);
    return out;
  }
  const Target &target = ctx.target;
  if (target.kind == Target::Kind::Artifact) {
    // Every compile sharing this file (ranks, cache hits) has the same text, so the same symbol here.
    std::vector<index::Origin> origins, framework;
    for (index::ArtifactId id : target.all) {
      index::SymbolAt symbol = symbolAtPosition(index, id, texts, uri, params.position);
      // A line of a kernel's body: the kernel's origins (where a PTX line's definition leads).
      if (symbol.kind == index::SymbolAt::Kind::None) symbol = index.kernelAround(id, params.position.line);
      for (index::Origin &o : index.originsOf(symbol))
        if (std::find(origins.begin(), origins.end(), o) == origins.end()) origins.push_back(std::move(o));
      for (index::Origin &o : index.frameworkOriginsOf(symbol))
        if (std::find(framework.begin(), framework.end(), o) == framework.end())
          framework.push_back(std::move(o));
    }
    // A kernel whose stacks hold only PyTorch's frames (a compiled optimizer step): where in PyTorch it
    // came from, rather than nothing (hover says it is PyTorch's frame, not the user's).
    if (origins.empty()) origins = std::move(framework);
    // Where each origin is now; a recorded line that is no longer in its file gives no location (hover says
    // why).
    UniqueLocations unique(out);
    for (const index::Origin &o : origins)
      if (PlacedOrigin p = placeOrigin(texts, index, o); p.found()) unique.add(*p.location);
  }
  if (out.empty())
    if (auto loc = fileCommentTarget(index, texts.lineText(uri, params.position.line),
                                     texts.byteColumn(uri, params.position), texts))
      out.push_back(*loc);
  return out;
}

} // namespace inductor::server
