// server/Artifacts.cpp: the custom requests.
//  - inductor/artifactContent {uri} -> {text, languageId}: the text of a generated file that exists only
//  inside a
//    trace log (URI scheme inductor-trace:), or of any indexed artifact; or, for
//    `inductor-trace:/recorded-source/<recorded path>` (recordedSourceURI in server/Convert.h), the lines the
//    trace recorded of a user source file that is not on this machine, each at its own line number.
//  - inductor/listArtifacts {} -> [{uri, title, label, kind, languageId, compileId, compile, compileIndex,
//    rank, graphKind, graphName, trace}]: every artifact, in index order (compiles in order, each compile's
//    output code before its graphs; kernel files last). `label` is what pickers show
//    (`[0/0] backward · output_code.py`); `compile` is the compile's label (`[0/0] backward`) and
//    `compileIndex` tells compiles apart (null, like compileId, for kernel files shared by compiles); `trace`
//    is the log the compile came from (null for compiles found only in files). Several artifacts can share a
//    URI (ranks writing the same cache file): pickers show one entry per URI.
//  - inductor/status {} -> see statusJson() in server/Server.cpp: counts (traces, compiles, kernels,
//    launches, launchesWithOrigin, launchesWithMissingSource, firstMissingSource, userLines, errors,
//    corruptedRecords), the build (indexing, ready, progress {percentage, message} while indexing,
//    waitingRequests: requests queued until the index is ready), and the current notices [{kind, type,
//    message}] (server/Notices.h).
#include "server/Convert.h"
#include "server/Server.h"

namespace inductor::server {

namespace {

std::string languageId(const index::Artifact &a) {
  return a.language == index::Language::Cpp ? "cpp" : "python";
}

std::string kindName(index::ArtifactKind k) {
  switch (k) {
  case index::ArtifactKind::OutputCode:
    return "outputCode";
  case index::ArtifactKind::WrapperCode:
    return "wrapperCode";
  case index::ArtifactKind::KernelSource:
    return "kernel";
  case index::ArtifactKind::Graph:
    break;
  }
  return "graph";
}

} // namespace

void Server::onArtifactContent(const json &params, Reply reply) {
  if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string())
    return reply.error(protocol::ErrorCode::InvalidParams,
                       "inductor/artifactContent needs {\"uri\": string}");
  std::string uri = params["uri"].get<std::string>();
  withIndex(std::move(reply), [this, uri](const index::Index &index, const Reply &reply) {
    TextCache texts(documents(), index);
    Target t = resolveTarget(index, uri, texts);
    // A user source file that is not on this machine, as the trace recorded it (definition and other
    // answers point there instead of to a file:// URI of a file that does not exist).
    if (auto path = recordedSourcePath(uri); path && t.kind != Target::Kind::Artifact)
      return reply(json{{"text", recordedSourceText(index, *path)}, {"languageId", "python"}});
    if (t.kind != Target::Kind::Artifact)
      return reply.error(protocol::ErrorCode::InvalidParams, "no indexed artifact has the URI " + uri);
    const index::Artifact &a = index.artifact(t.artifact);
    // Refused rather than empty: a log truncated or deleted since indexing, a file now linked out of the
    // roots, a text too large to send.
    index::Expected<std::string> text = index.readText(t.artifact);
    if (!text) return reply.error(protocol::ErrorCode::RequestFailed, text.error().message);
    reply(json{{"text", std::move(*text)}, {"languageId", languageId(a)}});
  });
}

void Server::onListArtifacts(const json &, Reply reply) {
  withIndex(std::move(reply), [](const index::Index &index, const Reply &reply) {
    json out = json::array();
    for (uint32_t i = 0; i < index.artifacts().size(); ++i) {
      const index::Artifact &a = index.artifacts()[i];
      const index::Compile *c = index.compileOf({i});
      std::string uri = artifactURI(index, {i});
      json j = {{"uri", uri},
                {"title", a.title},
                {"label", artifactLabel(index, {i}, uri)},
                {"kind", kindName(a.kind)},
                {"languageId", languageId(a)}};
      j["compileId"] = c && !c->id.empty() ? json(c->id.traceStr()) : json(nullptr);
      j["compile"] = c ? json(c->label()) : json(nullptr);
      j["compileIndex"] = a.compile.valid() ? json(a.compile.value) : json(nullptr);
      j["rank"] = c && c->rank ? json(*c->rank) : json(nullptr);
      j["graphKind"] =
          c ? json(c->aoti ? "aot" : index::graphKindName(c->graphKind, "unknown")) : json(nullptr);
      j["graphName"] = a.graphName.empty() ? json(nullptr) : json(a.graphName);
      j["trace"] = c && !c->traceFile.empty() ? json(c->traceFile) : json(nullptr);
      out.push_back(std::move(j));
    }
    reply(std::move(out));
  });
}

void Server::onStatus(const json &, Reply reply) {
  // Answered at once, also while indexing: the status says whether it is.
  const Reply answer = std::move(reply);
  answer(statusJson());
}

} // namespace inductor::server
