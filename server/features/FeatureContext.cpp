#include "server/features/FeatureContext.h"

#include "server/format/KernelFormat.h"

namespace inductor::server {

const index::Index *comparedBaseline(const index::Index &index, const index::Index *baseline) {
  return baseline && baseline->serial() != index.serial() ? baseline : nullptr;
}

FeatureContext makeFeatureContext(const index::Index &index, const index::Index *baseline, TextCache &texts,
                                  const protocol::ClientCapabilities &client, std::string uri) {
  FeatureContext c{.index = index,
                   .baseline = comparedBaseline(index, baseline),
                   .texts = texts,
                   .client = client,
                   .uri = std::move(uri),
                   .target = {},
                   .tritonIr = false};
  if (c.uri.empty()) return c;
  if (isTritonIrFile(index, c.uri)) {
    c.tritonIr = true;
    return c;
  }
  c.target = resolveTarget(index, c.uri, texts);
  if (c.target.kind == Target::Kind::Artifact) texts.prefer(c.target.artifact, c.uri);
  return c;
}

} // namespace inductor::server
