// server/Dispatch.cpp: the method table, and the one place where JSON params become typed params.
// Grep for a method string and you land on its handler.
#include "server/Dispatch.h"

#include "protocol/InductorProtocol.h"
#include "server/Logger.h"
#include "server/Server.h"

namespace inductor::server {

namespace {

/// nlohmann's message without its `[json.exception.type_error.302] ` prefix: the JSON path and what is wrong.
std::string readable(const std::string &error) {
  if (error.rfind("[json.exception.", 0) == 0)
    if (size_t end = error.find("] "); end != std::string::npos) return error.substr(end + 2);
  return error;
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
  bind("inductor/artifactContent",           &Server::onArtifactContent);
  bind("inductor/compare",                   &Server::onCompare);
  bind("inductor/compiles",                  &Server::onCompiles);
  bind("inductor/hotLines",                  &Server::onHotLines);
  bind("inductor/launchSites",               &Server::onLaunchSites);
  bind("inductor/listArtifacts",             &Server::onListArtifacts);
  bind("inductor/runs",                      &Server::onRuns);
  bind("inductor/ranks",                     &Server::onRanks);
  bind("inductor/lowered",                   &Server::onLowered);
  bind("inductor/status",                    &Server::onStatus);
  bind("shutdown",                           &Server::onShutdown);
  bind("textDocument/codeAction",            &Server::onCodeAction);
  bind("textDocument/codeLens",              &Server::onCodeLens);
  bind("textDocument/definition",            &Server::onDefinition);
  bind("textDocument/diagnostic",            &Server::onDocumentDiagnostic);
  bind("textDocument/documentLink",          &Server::onDocumentLink);
  bind("textDocument/documentSymbol",        &Server::onDocumentSymbol);
  bind("textDocument/hover",                 &Server::onHover);
  bind("textDocument/inlayHint",             &Server::onInlayHint);
  bind("textDocument/references",            &Server::onReferences);
  bind("workspace/diagnostic",               &Server::onWorkspaceDiagnostic);
  bind("workspace/executeCommand",           &Server::onExecuteCommand);
  bind("workspace/symbol",                   &Server::onWorkspaceSymbol);

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
