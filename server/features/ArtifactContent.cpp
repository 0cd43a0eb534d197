// server/features/ArtifactContent.cpp: the custom request `inductor/artifactContent`
// (protocol/InductorProtocol.h): the text of a generated file that exists only inside a trace log (URI scheme
// inductor-trace:), or of any indexed artifact; or, for `inductor-trace:/recorded-source/<recorded path>`
// (recordedSourceURI in server/text/Convert.h), the lines the trace recorded of a user source file that is
// not on this machine, each at its own line number.
//
//   inductor/artifactContent {uri} -> {text, languageId}
// A URI that names no indexed artifact is InvalidParams (the params name nothing the server has); a text
// that can no longer be read (a log truncated or deleted since indexing, a file now linked out of the roots,
// a text too large to send) is RequestFailed: refused rather than empty.
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/text/Convert.h"

namespace inductor::server {

std::string artifactLanguageId(const index::Artifact &a) {
  return a.language == index::Language::Cpp ? "cpp" : "python";
}

protocol::ArtifactContentResult artifactContent(const FeatureContext &ctx,
                                                const protocol::ArtifactContentParams &) {
  const index::Index &index = ctx.index;
  const Target &t = ctx.target;
  // A user source file that is not on this machine, as the trace recorded it (definition and other
  // answers point there instead of to a file:// URI of a file that does not exist).
  if (auto path = recordedSourcePath(ctx.uri); path && t.kind != Target::Kind::Artifact)
    return {recordedSourceText(index, *path), "python"};
  if (t.kind != Target::Kind::Artifact)
    throw FeatureError(protocol::ErrorCode::InvalidParams, "no indexed artifact has the URI " + ctx.uri);
  index::Expected<std::string> text = index.readText(t.artifact);
  if (!text) throw FeatureError(protocol::ErrorCode::RequestFailed, text.error().message);
  return {std::move(*text), artifactLanguageId(index.artifact(t.artifact))};
}

} // namespace inductor::server
