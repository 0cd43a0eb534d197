// server/lsp/Dispatch.cpp: the method table, and the one place where JSON params become typed params.
// Grep for a method string and you land on its handler.
#include "server/lsp/Dispatch.h"

#include "protocol/InductorProtocol.h"
#include "server/Logger.h"
#include "server/features/Features.h"
#include "server/lsp/Server.h"

#include <type_traits>

namespace inductor::server {

namespace {

/// nlohmann's message without its `[json.exception.type_error.302] ` prefix: the JSON path and what is wrong.
std::string readable(const std::string &error) {
  if (error.rfind("[json.exception.", 0) == 0)
    if (size_t end = error.find("] "); end != std::string::npos) return error.substr(end + 2);
  return error;
}

/// The document a request is about: its `textDocument`, else its `uri`; empty for a workspace request.
template <class Params> std::string documentOf(const Params &params) {
  if constexpr (requires { params.textDocument.uri; }) {
    return params.textDocument.uri;
  } else if constexpr (requires { params.uri; }) {
    if constexpr (std::is_same_v<std::decay_t<decltype(params.uri)>, std::string>)
      return params.uri;
    else
      return params.uri.value_or("");
  } else {
    return "";
  }
}

/// Sends a feature's result, serialised once: a Written result as its text, nullopt as null.
template <class T> void sendResult(const Reply &reply, const T &result) {
  reply(json(result));
}
template <class T> void sendResult(const Reply &reply, const protocol::Written<T> &result) {
  reply.text(result.text);
}
template <class T> void sendResult(const Reply &reply, const std::optional<T> &result) {
  if (!result) return reply(nullptr);
  sendResult(reply, *result);
}

} // namespace

void replyInvalidParams(const Reply &reply, std::string_view why) {
  reply.error(protocol::ErrorCode::InvalidParams, reply.method() + ": " + std::string(why));
}

template <class Params>
void Server::bind(const char *method, void (Server::*handler)(const Params &, Reply)) {
  handlers_[method] = [this, handler](const json &raw, Reply reply) {
    Params params;
    std::string error;
    if (!protocol::fromJSON(raw.is_null() ? json::object() : raw, params, error))
      return replyInvalidParams(reply, "cannot read the params: " + readable(error));
    (this->*handler)(params, std::move(reply));
  };
}

template <class Params, class Result>
void Server::bindFeature(const char *method, Result (*feature)(const FeatureContext &, const Params &),
                         AnsweredFrom from) {
  handlers_[method] = [this, feature, from](const json &raw, Reply reply) {
    Params params;
    std::string error;
    if (!protocol::fromJSON(raw.is_null() ? json::object() : raw, params, error))
      return replyInvalidParams(reply, "cannot read the params: " + readable(error));
    std::string uri = documentOf(params);
    auto task = [this, feature, params, uri](const index::Index &index, const Reply &reply) {
      std::shared_ptr<const index::Index> base =
          workspace_.baselineIndex(); // Null until the baseline run is indexed.
      TextCache texts(documents(), index);
      const FeatureContext context = makeFeatureContext(index, base.get(), texts, capabilities_, uri);
      try {
        sendResult(reply, feature(context, params));
      } catch (const FeatureError &e) {
        if (e.code == protocol::ErrorCode::InvalidParams) return replyInvalidParams(reply, e.what());
        reply.error(e.code, e.what());
      }
    };
    if (from == AnsweredFrom::DocumentsRun || from == AnsweredFrom::DocumentsNavigation)
      withIndexFor(uri, std::move(reply), std::move(task), from == AnsweredFrom::DocumentsNavigation);
    else {
      Needs needs;
      needs.profiles = from == AnsweredFrom::CurrentRunWithProfiles;
      withIndex(std::move(reply), std::move(task), std::move(needs));
    }
  };
}

template <class Params>
void Server::bindNotification(const char *method, void (Server::*handler)(const Params &)) {
  notifications_[method] = [this, handler, method](const json &raw) {
    Params params;
    std::string error;
    if (!protocol::fromJSON(raw.is_null() ? json::object() : raw, params, error))
      return logWarn(std::string("invalid params for ") + method + ": " + error);
    (this->*handler)(params);
  };
}

void Server::bindNotification(const char *method, void (Server::*handler)()) {
  notifications_[method] = [this, handler](const json &) { (this->*handler)(); };
}

void Server::registerHandlers() {
  // clang-format off
  bind("initialize",                         &Server::onInitialize);
  bind("inductor/compare",                   &Server::onCompare);
  bind("inductor/runs",                      &Server::onRuns);
  bind("inductor/status",                    &Server::onStatus);
  bind("shutdown",                           &Server::onShutdown);
  bind("workspace/executeCommand",           &Server::onExecuteCommand);

  // Features (server/features/Features.h). A document of another run (its debug directory, the baseline's
  // output code) is answered from its own run.
  using enum AnsweredFrom;
  bindFeature("inductor/artifactContent",    &artifactContent,     DocumentsNavigation);
  bindFeature("inductor/compiles",           &compiles,            CurrentRun);
  bindFeature("inductor/hotLines",           &hotLines,            CurrentRunWithProfiles);
  bindFeature("inductor/launchSites",        &launchSites,         CurrentRun);
  bindFeature("inductor/listArtifacts",      &listArtifacts,       CurrentRun);
  bindFeature("inductor/lowered",            &lowered,             DocumentsRun);
  bindFeature("inductor/ranks",              &ranks,               CurrentRun);
  bindFeature("textDocument/codeAction",     &codeAction,          DocumentsRun);
  bindFeature("textDocument/codeLens",       &codeLens,            DocumentsRun);
  bindFeature("textDocument/definition",     &definition,          DocumentsNavigation);
  bindFeature("textDocument/diagnostic",     &documentDiagnostic,  CurrentRun);
  bindFeature("textDocument/documentLink",   &documentLink,        DocumentsNavigation);
  bindFeature("textDocument/documentSymbol", &documentSymbol,      DocumentsNavigation);
  bindFeature("textDocument/hover",          &hover,               DocumentsRun);
  bindFeature("textDocument/inlayHint",      &inlayHint,           DocumentsRun);
  bindFeature("textDocument/references",     &references,          DocumentsRun);
  bindFeature("workspace/diagnostic",        &workspaceDiagnostic, CurrentRun);
  bindFeature("workspace/symbol",            &workspaceSymbol,     CurrentRun);

  bindNotification("$/cancelRequest",                  &Server::onCancelRequest);
  bindNotification("exit",                             &Server::onExit);
  bindNotification("initialized",                      &Server::onInitialized);
  bindNotification("textDocument/didChange",           &Server::onDidChange);
  bindNotification("textDocument/didClose",            &Server::onDidClose);
  bindNotification("textDocument/didOpen",             &Server::onDidOpen);
  bindNotification("workspace/didChangeConfiguration", &Server::onDidChangeConfiguration);
  bindNotification("workspace/didChangeWatchedFiles",  &Server::onDidChangeWatchedFiles);
  // clang-format on
}

} // namespace inductor::server
