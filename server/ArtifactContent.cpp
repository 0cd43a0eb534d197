// server/ArtifactContent.cpp: the custom request `inductor/artifactContent` (protocol/InductorProtocol.h):
// the text of a generated file that exists only inside a trace log (URI scheme inductor-trace:), or of any
// indexed artifact; or, for `inductor-trace:/recorded-source/<recorded path>` (recordedSourceURI in
// server/Convert.h), the lines the trace recorded of a user source file that is not on this machine, each at
// its own line number.
//
//   inductor/artifactContent {uri} -> {text, languageId}
// A URI that names no indexed artifact is InvalidParams (the params name nothing the server has); a text
// that can no longer be read (a log truncated or deleted since indexing, a file now linked out of the roots,
// a text too large to send) is RequestFailed: refused rather than empty.
#include "server/Convert.h"
#include "server/Dispatch.h"
#include "server/InductorRequests.h"
#include "server/Server.h"

namespace inductor::server {

std::string artifactLanguageId(const index::Artifact &a) {
  return a.language == index::Language::Cpp ? "cpp" : "python";
}

void Server::onArtifactContent(const protocol::ArtifactContentParams &params, Reply reply) {
  const std::string &doc = params.uri; // Of the current run, or of the baseline run.
  withIndexFor(doc, std::move(reply), [this, uri = doc](const index::Index &index, const Reply &reply) {
    TextCache texts(documents(), index);
    Target t = resolveTarget(index, uri, texts);
    // A user source file that is not on this machine, as the trace recorded it (definition and other
    // answers point there instead of to a file:// URI of a file that does not exist).
    if (auto path = recordedSourcePath(uri); path && t.kind != Target::Kind::Artifact)
      return reply(json(protocol::ArtifactContentResult{recordedSourceText(index, *path), "python"}));
    if (t.kind != Target::Kind::Artifact)
      return replyInvalidParams(reply, "no indexed artifact has the URI " + uri);
    index::Expected<std::string> text = index.readText(t.artifact);
    if (!text) return reply.error(protocol::ErrorCode::RequestFailed, text.error().message);
    reply(json(
        protocol::ArtifactContentResult{std::move(*text), artifactLanguageId(index.artifact(t.artifact))}));
  });
}

} // namespace inductor::server
