// server/lsp/Lifecycle.cpp: initialize/shutdown, document sync, configuration and commands.
#include "protocol/Position.h"
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/lsp/Server.h"

namespace inductor::server {

using protocol::ErrorCode;

namespace {

/// Applies the settings of initializationOptions (or of a configuration change) to the index options and the
/// `pythonPath` setting: a setting present replaces the one before; `file://` URIs become paths. What the
/// settings skipped (protocol::InitializationOptions::warnings) is logged: a bad setting must not stop the
/// server.
void applyOptions(const protocol::InitializationOptions &opts, index::IndexOptions &out,
                  std::string &pythonPath) {
  for (const std::string &w : opts.warnings)
    logWarn(w);
  auto path = [](const std::string &s) { return protocol::filePath(s).value_or(s); };
  if (opts.pythonPath) pythonPath = opts.pythonPath->empty() ? std::string() : path(*opts.pythonPath);
  if (opts.libraryPaths) out.libraryPaths = *opts.libraryPaths;
  if (opts.traceDirs) {
    out.inputs.clear();
    for (const std::string &d : *opts.traceDirs)
      out.inputs.push_back(path(d));
  }
  // Runtime inputs (index/runtime/Runtime.h): profiler traces and printer run logs, files or directories.
  // Triton cache folders are read roots too (index::readRoots), as the runtime inputs.
  for (auto [in, to] : {std::pair{&opts.profiles, &out.profiles}, std::pair{&opts.runLogs, &out.runLogs},
                        std::pair{&opts.tritonCacheDirs, &out.tritonCacheDirs}})
    if (*in) {
      to->clear();
      for (const std::string &d : **in)
        to->push_back(path(d));
    }
  if (opts.run) out.run = path(*opts.run);
  if (opts.pathMappings) {
    out.pathMappings.clear();
    for (const protocol::PathMapping &m : *opts.pathMappings)
      out.pathMappings.push_back({m.from, m.to});
  }
}

/// The settings in `j` (tolerant: never fails, see protocol::InitializationOptions).
protocol::InitializationOptions readOptions(const json &j) {
  protocol::InitializationOptions opts;
  std::string error;
  protocol::fromJSON(j, opts, error);
  return opts;
}

protocol::ServerCapabilities serverCapabilities(protocol::OffsetEncoding encoding,
                                                const protocol::ClientCapabilities &client) {
  protocol::ServerCapabilities caps;
  caps.positionEncoding = encoding;
  caps.definitionProvider = caps.referencesProvider = caps.hoverProvider = true;
  caps.documentSymbolProvider = caps.workspaceSymbolProvider = true;
  caps.codeLensProvider = caps.inlayHintProvider = caps.documentLinkProvider = protocol::ResolveOptions{};
  caps.executeCommandProvider = protocol::ExecuteCommandOptions{protocol::serverCommandNames()};
  caps.codeActionProvider = protocol::CodeActionOptions{{"quickfix"}, false};
  // Compile health is pulled by clients that can (every file's at once: workspace diagnostics), pushed to the
  // others (see server/features/Diagnostics.cpp).
  if (client.diagnosticPull)
    caps.diagnosticProvider = protocol::DiagnosticOptions{"torch.compile", false, true};
  return caps;
}

} // namespace

void Server::onInitialize(const protocol::InitializeParams &params, Reply reply) {
  if (initialized_) return reply.error(ErrorCode::InvalidRequest, "initialize may only be sent once");
  capabilities_ = params.capabilities;
  encoding_ = protocol::negotiateEncoding(capabilities_.allEncodingOffers());

  WorkspaceSettings settings;
  std::vector<std::string> &roots = settings.index.roots;
  if (params.workspaceFolders)
    for (const auto &f : *params.workspaceFolders)
      if (auto p = protocol::filePath(f.uri)) roots.push_back(*p);
  if (roots.empty() && params.rootUri)
    if (auto p = protocol::filePath(*params.rootUri)) roots.push_back(*p);
  if (roots.empty() && params.rootPath) roots.push_back(*params.rootPath);
  protocol::InitializationOptions options = readOptions(params.initializationOptions);
  applyOptions(options, settings.index, settings.pythonPath);
  // `trusted: false` (VS Code's restricted mode): no interpreter is run, not even one a setting names. Read
  // here only: a later configuration change cannot grant trust; the client restarts the server for that.
  if (options.trusted) settings.trusted = *options.trusted;
  if (options.baseline) settings.baseline = *options.baseline;
  initialized_ = true;

  protocol::InitializeResult result;
  result.capabilities = serverCapabilities(encoding_, capabilities_);
  result.serverInfo = protocol::ServerInfo{"inductor-ls", INDUCTOR_LS_VERSION};
  if (!capabilities_.offsetEncoding.empty()) result.offsetEncoding = encoding_;
  logInfo("initialize: " + std::to_string(roots.size()) + " workspace folders, " +
          std::to_string(settings.index.inputs.size()) + " trace inputs, " +
          std::to_string(settings.index.pathMappings.size()) + " path mappings, " +
          std::to_string(settings.index.libraryPaths.size()) + " library paths, pythonPath " +
          (settings.pythonPath.empty() ? std::string("unset") : settings.pythonPath) +
          (settings.trusted ? "" : ", untrusted (no interpreter is run)") + ", encoding " +
          std::string(protocol::encodingName(encoding_)));
  reply(json(result));
  workspace_.start(std::move(settings));
}

void Server::onShutdown(const protocol::NoParams &, Reply reply) {
  shutdown_ = true;
  workspace_.cancelBuild();
  reply(nullptr);
}

void Server::onDidOpen(const protocol::DidOpenTextDocumentParams &params) {
  auto doc = std::make_shared<Document>();
  doc->uri = params.textDocument.uri;
  doc->text = params.textDocument.text;
  doc->version = params.textDocument.version;
  {
    std::lock_guard<std::mutex> lock(docsMutex_);
    docs_[doc->uri] = std::move(doc);
  }
  // (Not from an index of part of the run: the full one publishes every document's when it is served.)
  if (std::shared_ptr<const index::Index> index = workspace_.index(); index && !index->stats().partial())
    publishDiagnostics(*index, {params.textDocument.uri});
}

void Server::onDidChange(const protocol::DidChangeTextDocumentParams &params) {
  std::lock_guard<std::mutex> lock(docsMutex_);
  auto it = docs_.find(params.textDocument.uri);
  if (it == docs_.end())
    return logWarn("didChange for a document that is not open: " + params.textDocument.uri);
  auto doc = std::make_shared<Document>(*it->second);
  for (const auto &change : params.contentChanges)
    if (!protocol::applyContentChange(doc->text, change, encoding_))
      logWarn("repaired an out-of-range edit in " + doc->uri);
  doc->version = params.textDocument.version;
  doc->edited = true;
  it->second = std::move(doc);
}

void Server::onDidClose(const protocol::DidCloseTextDocumentParams &params) {
  std::lock_guard<std::mutex> lock(docsMutex_);
  docs_.erase(params.textDocument.uri);
}

void Server::onDidChangeConfiguration(const protocol::DidChangeConfigurationParams &params) {
  json settings = params.settings;
  if (settings.is_object() && settings.contains("inductorLs")) settings = settings["inductorLs"];
  protocol::InitializationOptions options = readOptions(settings);
  if (!options.hasIndexSettings()) return;
  WorkspaceSettings next = workspace_.settings();
  applyOptions(options, next.index, next.pythonPath);
  if (options.baseline) next.baseline = *options.baseline;
  workspace_.configure(std::move(next));
}

void Server::onExecuteCommand(const protocol::InductorCommandParams &params, Reply reply) {
  switch (params.command) {
  case protocol::InductorCommandParams::Command::Reindex:
    // What the user asks for when something looks stale: read everything, ask the interpreter again (a
    // package may have been installed).
    workspace_.reindex();
    break;
  case protocol::InductorCommandParams::Command::SelectRun:
  case protocol::InductorCommandParams::Command::SelectBaseline:
    // A baseline that names no run is an error that says so (index::noRunMatches).
    if (std::string error = workspace_.selectRun(
            params, params.command == protocol::InductorCommandParams::Command::SelectBaseline);
        !error.empty())
      return reply.error(ErrorCode::InvalidParams, error);
    break;
  }
  reply(nullptr);
}

} // namespace inductor::server
