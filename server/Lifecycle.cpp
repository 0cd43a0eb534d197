// server/Lifecycle.cpp: initialize/shutdown, document sync, configuration and commands.
#include "protocol/Position.h"
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/Server.h"

namespace inductor::server {

using protocol::ErrorCode;

namespace {

/// Reads `traceDirs`, `pathMappings`, `libraryPaths` and `pythonPath` from initializationOptions (or a
/// `settings.inductorLs` object). Malformed entries are skipped with a warning: a bad setting must not stop
/// the server.
void readOptions(const json &opts, index::IndexOptions &out, std::string &pythonPath) {
  if (!opts.is_object()) return;
  if (auto it = opts.find("pythonPath"); it != opts.end()) {
    pythonPath.clear();
    if (it->is_string()) {
      pythonPath = it->get<std::string>();
      if (auto p = protocol::filePath(pythonPath)) pythonPath = *p;
    } else if (!it->is_null()) {
      logWarn("ignoring pythonPath that is not a string: " + it->dump());
    }
  }
  if (auto it = opts.find("libraryPaths"); it != opts.end()) {
    out.libraryPaths.clear();
    if (it->is_array()) {
      for (const json &g : *it)
        if (g.is_string())
          out.libraryPaths.push_back(g.get<std::string>());
        else
          logWarn("ignoring libraryPaths entry that is not a string: " + g.dump());
    } else if (it->is_string()) {
      out.libraryPaths.push_back(it->get<std::string>());
    }
  }
  if (auto it = opts.find("traceDirs"); it != opts.end()) {
    out.inputs.clear();
    if (it->is_array()) {
      for (const json &d : *it)
        if (d.is_string()) {
          std::string s = d.get<std::string>();
          if (auto p = protocol::filePath(s)) s = *p;
          out.inputs.push_back(s);
        }
    } else if (it->is_string()) {
      out.inputs.push_back(it->get<std::string>());
    }
  }
  // Runtime inputs (index/runtime/Runtime.h): profiler traces and printer run logs, files or directories.
  for (auto [key, out2] : {std::pair<const char *, std::vector<std::string> *>{"profiles", &out.profiles},
                           {"runLogs", &out.runLogs}})
    if (auto it = opts.find(key); it != opts.end()) {
      out2->clear();
      for (const json &d : it->is_array() ? *it : json::array({*it}))
        if (d.is_string()) {
          std::string s = d.get<std::string>();
          if (auto p = protocol::filePath(s)) s = *p;
          out2->push_back(s);
        } else {
          logWarn(std::string("ignoring malformed ") + key + " entry " + d.dump());
        }
    }
  if (auto it = opts.find("pathMappings"); it != opts.end()) {
    out.pathMappings.clear();
    if (it->is_array()) {
      for (const json &m : *it) {
        if (m.is_object() && m.contains("from") && m.contains("to") && m["from"].is_string() &&
            m["to"].is_string())
          out.pathMappings.push_back({m["from"].get<std::string>(), m["to"].get<std::string>()});
        else
          logWarn(
              "ignoring malformed pathMappings entry " +
              std::string(protocol::utf8Prefix(m.dump(-1, ' ', false, json::error_handler_t::replace), 200)));
      }
    }
  }
}

json serverCapabilities(protocol::OffsetEncoding encoding, const protocol::ClientCapabilities &client) {
  json caps = json::object();
  caps["positionEncoding"] = std::string(protocol::encodingName(encoding));
  caps["textDocumentSync"] = json{{"openClose", true}, {"change", 2 /* incremental */}, {"save", false}};
  caps["definitionProvider"] = true;
  caps["referencesProvider"] = true;
  caps["hoverProvider"] = true;
  caps["codeLensProvider"] = json{{"resolveProvider", false}};
  caps["inlayHintProvider"] = json{{"resolveProvider", false}};
  caps["documentSymbolProvider"] = true;
  caps["documentLinkProvider"] = json{{"resolveProvider", false}};
  caps["workspaceSymbolProvider"] = true;
  caps["executeCommandProvider"] = json{{"commands", json::array({"inductor.reindex"})}};
  caps["codeActionProvider"] =
      json{{"codeActionKinds", json::array({"quickfix"})}, {"resolveProvider", false}};
  // Compile health is pulled by clients that can (every file's at once: workspace diagnostics), pushed to the
  // others (see server/Diagnostics.cpp).
  if (client.diagnosticPull)
    caps["diagnosticProvider"] = json{
        {"identifier", "torch.compile"}, {"interFileDependencies", false}, {"workspaceDiagnostics", true}};
  return caps;
}

} // namespace

void Server::onInitialize(const protocol::InitializeParams &params, Reply reply) {
  if (initialized_) return reply.error(ErrorCode::InvalidRequest, "initialize may only be sent once");
  capabilities_ = params.capabilities;
  encoding_ = protocol::negotiateEncoding(capabilities_.allEncodingOffers());

  std::vector<std::string> roots;
  if (params.workspaceFolders)
    for (const auto &f : *params.workspaceFolders)
      if (auto p = protocol::filePath(f.uri)) roots.push_back(*p);
  if (roots.empty() && params.rootUri)
    if (auto p = protocol::filePath(*params.rootUri)) roots.push_back(*p);
  if (roots.empty() && params.rootPath) roots.push_back(*params.rootPath);
  indexOptions_.roots = roots;
  readOptions(params.initializationOptions, indexOptions_, pythonPathSetting_);
  // `trusted: false` (VS Code's restricted mode): no interpreter is run, not even one a setting names. Read
  // here only: a later configuration change cannot grant trust; the client restarts the server for that.
  if (params.initializationOptions.is_object())
    if (auto it = params.initializationOptions.find("trusted"); it != params.initializationOptions.end()) {
      trusted_ = it->is_boolean() && it->get<bool>();
      if (!it->is_boolean())
        logWarn(
            "trusted is not a boolean (" +
            std::string(protocol::utf8Prefix(it->dump(-1, ' ', false, json::error_handler_t::replace), 200)) +
            "): taken as false");
    }
  initialized_ = true;

  protocol::InitializeResult result;
  result.capabilities = serverCapabilities(encoding_, capabilities_);
  result.serverInfo = protocol::ServerInfo{"inductor-ls", INDUCTOR_LS_VERSION};
  if (!capabilities_.offsetEncoding.empty()) result.offsetEncoding = encoding_;
  logInfo("initialize: " + std::to_string(roots.size()) + " workspace folders, " +
          std::to_string(indexOptions_.inputs.size()) + " trace inputs, " +
          std::to_string(indexOptions_.pathMappings.size()) + " path mappings, " +
          std::to_string(indexOptions_.libraryPaths.size()) + " library paths, pythonPath " +
          (pythonPathSetting_.empty() ? std::string("unset") : pythonPathSetting_) +
          (trusted_ ? "" : ", untrusted (no interpreter is run)") + ", encoding " +
          std::string(protocol::encodingName(encoding_)));
  reply(json(result));
  if (options_.watch) startWatcher(); // First: the build's discovery adds the watches.
  startIndexing(Rebuild::Full);
}

void Server::onShutdown(const json &, Reply reply) {
  shutdown_ = true;
  cancelBuild_ = true;
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
  std::shared_ptr<const index::Index> index;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    index = index_;
  }
  if (index) publishDiagnostics(*index, {params.textDocument.uri});
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
  if (!settings.is_object() || (!settings.contains("traceDirs") && !settings.contains("pathMappings") &&
                                !settings.contains("pythonPath") && !settings.contains("libraryPaths") &&
                                !settings.contains("profiles") && !settings.contains("runLogs")))
    return;
  std::string previousPython = pythonPathSetting_;
  readOptions(settings, indexOptions_, pythonPathSetting_);
  if (pythonPathSetting_ != previousPython) logInfo("pythonPath changed: asking the interpreter again");
  logInfo("configuration changed: reindexing");
  startIndexing(Rebuild::Full);
}

void Server::onExecuteCommand(const protocol::ExecuteCommandParams &params, Reply reply) {
  if (params.command == "inductor.reindex") {
    // What the user asks for when something looks stale: read everything, ask the interpreter again (a
    // package may have been installed).
    forgetPythonEnvironment();
    startIndexing(Rebuild::Full);
    return reply(nullptr);
  }
  reply.error(ErrorCode::InvalidParams, "unknown command: " + params.command);
}

} // namespace inductor::server
