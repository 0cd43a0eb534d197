#include <utility> // Before Asio: GCC 12 in C++20 needs it.

#include "server/Server.h"

#include "protocol/URI.h"
#include "server/Logger.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

namespace inductor::server {

using protocol::ErrorCode;

// ---------------------------------------------------------------------------------------------------------------
// Reply.

Reply::Reply(protocol::Transport &transport, json id, std::string method)
    : state_(std::make_shared<State>(transport, std::move(id), std::move(method))) {
  state_->start = std::chrono::steady_clock::now();
}

Reply::State::~State() {
  if (!replied.exchange(true)) {
    logError("no reply to " + method);
    transport.send(protocol::makeErrorResponse(id, ErrorCode::InternalError, "server failed to reply"));
  }
}

void Reply::operator()(json result) const {
  if (state_->replied.exchange(true)) {
    logError("replied twice to " + state_->method);
    return;
  }
  if (Logger::instance().enabled(LogLevel::Debug)) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                    state_->start)
                  .count();
    logDebug("<-- " + state_->method + "(" + state_->id.dump() + ") " + std::to_string(us) + " us");
  }
  state_->transport.send(protocol::makeResponse(state_->id, std::move(result)));
}

void Reply::error(ErrorCode code, std::string_view message) const {
  if (state_->replied.exchange(true)) return;
  logInfo("<-- " + state_->method + "(" + state_->id.dump() + ") error: " + std::string(message));
  state_->transport.send(protocol::makeErrorResponse(state_->id, code, message));
}

// ---------------------------------------------------------------------------------------------------------------
// Server.

Server::Server(protocol::Transport &transport, ServerOptions options)
    : transport_(transport), options_(options) {
  if (options_.jobs > 0) pool_ = std::make_unique<boost::asio::thread_pool>(options_.jobs);
  registerHandlers();
}

Server::~Server() {
  cancelBuild_ = true;
  stopWatcher();
  if (builder_.joinable()) builder_.join();
  if (pool_) pool_->join();
}

int Server::run() {
  while (!exit_) {
    protocol::ReadResult r = transport_.readMessage();
    for (const std::string &p : r.problems)
      logWarn("transport: " + p);
    if (r.kind == protocol::ReadResult::Kind::EndOfFile) break;
    if (r.kind == protocol::ReadResult::Kind::Malformed) {
      // JSON-RPC: a message that cannot be parsed is answered with ParseError and a null id.
      std::string why = r.problems.empty() ? "malformed message" : r.problems.front();
      transport_.send(protocol::makeErrorResponse(nullptr, protocol::ErrorCode::ParseError, why));
      continue;
    }
    handleMessage(r.body);
  }
  cancelBuild_ = true;
  return shutdown_ ? 0 : 1;
}

void Server::handleMessage(const std::string &body) {
  auto parsed = protocol::parseMessage(body);
  if (auto *err = std::get_if<protocol::MessageError>(&parsed)) {
    logWarn("malformed message: " + err->message);
    transport_.send(protocol::makeErrorResponse(err->id, err->code, err->message));
    return;
  }
  auto &message = std::get<protocol::Message>(parsed);
  switch (message.kind) {
  case protocol::Message::Kind::Request:
    handleRequest(message);
    break;
  case protocol::Message::Kind::Notification:
    handleNotification(message);
    break;
  case protocol::Message::Kind::Response:
    // Answers to our own requests (window/workDoneProgress/create, codeLens refresh): nothing to do.
    if (message.error) logDebug("client answered an error: " + message.error->message);
    break;
  }
}

void Server::handleRequest(protocol::Message &message) {
  Reply reply(transport_, message.id, message.method);
  logDebug("--> " + message.method + "(" + message.id.dump() + ")");
  if (!initialized_ && message.method != "initialize")
    return reply.error(ErrorCode::ServerNotInitialized, "server not initialized");
  if (shutdown_ && message.method != "shutdown")
    return reply.error(ErrorCode::InvalidRequest, "server is shutting down");
  auto it = handlers_.find(message.method);
  if (it == handlers_.end())
    return reply.error(ErrorCode::MethodNotFound, "method not found: " + message.method);
  try {
    it->second(message.params, reply);
  } catch (const std::exception &e) {
    reply.error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
  } catch (...) {
    reply.error(ErrorCode::InternalError, "internal error");
  }
}

void Server::handleNotification(protocol::Message &message) {
  if (message.method == "exit") {
    exit_ = true;
    return;
  }
  if (message.method == "$/cancelRequest") {
    std::lock_guard<std::mutex> lock(cancelMutex_);
    if (message.params.is_object() && message.params.contains("id")) {
      auto it = cancelled_.find(message.params["id"].dump());
      if (it != cancelled_.end()) it->second->store(true);
    }
    return;
  }
  if (message.method == "initialized" || message.method.rfind("$/", 0) == 0) return;
  auto it = notifications_.find(message.method);
  if (it == notifications_.end()) {
    logDebug("ignored notification " + message.method);
    return;
  }
  try {
    it->second(message.params);
  } catch (const std::exception &e) {
    logError("notification " + message.method + " failed: " + e.what());
  }
}

void Server::withIndex(Reply reply, std::function<void(const index::Index &, const Reply &)> task) {
  auto flag = std::make_shared<std::atomic<bool>>(false);
  std::string key = reply.id().dump();
  {
    std::lock_guard<std::mutex> lock(cancelMutex_);
    cancelled_[key] = flag;
  }
  auto job = [this, reply, task = std::move(task), flag, key] {
    std::shared_ptr<const index::Index> snapshot;
    {
      std::lock_guard<std::mutex> lock(indexMutex_);
      snapshot = index_;
    }
    {
      std::lock_guard<std::mutex> lock(cancelMutex_);
      cancelled_.erase(key);
    }
    if (flag->load()) return reply.error(ErrorCode::RequestCancelled, "request cancelled");
    try {
      task(*snapshot, reply);
    } catch (const std::exception &e) {
      reply.error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
    } catch (...) {
      reply.error(ErrorCode::InternalError, "internal error");
    }
  };
  std::function<void()> run = [this, job = std::move(job)]() mutable {
    if (pool_)
      boost::asio::post(*pool_, std::move(job));
    else
      job();
  };
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (!index_) {
      waiting_.push_back(std::move(run));
      return;
    }
  }
  run();
}

std::shared_ptr<const Document> Server::document(const std::string &uri) const {
  {
    std::lock_guard<std::mutex> lock(docsMutex_);
    if (auto it = docs_.find(uri); it != docs_.end()) return it->second;
  }
  auto doc = std::make_shared<Document>();
  doc->uri = uri;
  auto parsed = protocol::parseURI(uri);
  if (!parsed) return doc;
  if (parsed->scheme == "file") {
    std::ifstream in(parsed->path, std::ios::binary);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      doc->text = ss.str();
    }
  } else if (parsed->scheme == "inductor-trace") {
    std::shared_ptr<const index::Index> idx;
    {
      std::lock_guard<std::mutex> lock(indexMutex_);
      idx = index_;
    }
    std::string name =
        parsed->path.size() > 1 && parsed->path[0] == '/' ? parsed->path.substr(1) : parsed->path;
    if (idx)
      if (auto id = idx->findByVirtualName(name)) doc->text = idx->text(*id);
  }
  return doc;
}

void Server::sendNotification(std::string_view method, json params) {
  transport_.send(protocol::makeNotification(method, std::move(params)));
}

void Server::sendRequest(std::string_view method, json params) {
  json id = "inductor-ls/" + std::to_string(nextRequestId_++);
  transport_.send(protocol::makeRequest(id, method, std::move(params)));
}

json Server::statusJson() const {
  std::lock_guard<std::mutex> lock(indexMutex_);
  json j = {{"indexing", indexing_}, {"traces", 0}, {"compiles", 0}, {"kernels", 0},
            {"launches", 0},         {"errors", 0}, {"userLines", 0}};
  if (index_) {
    index::IndexStats s = index_->stats();
    j["traces"] = s.traceFiles;
    j["compiles"] = s.compiles;
    j["kernels"] = s.kernels;
    j["launches"] = s.launches;
    j["errors"] = s.errors;
    j["userLines"] = s.userLines;
    j["launchesWithOrigin"] = s.launchesWithOrigin;
    j["corruptedRecords"] = s.corruptedRecords;
    // The work of the last build: an incremental one reads only what was appended.
    j["traceBytes"] = s.traceBytes;
    j["traceBytesRead"] = s.traceBytesRead;
    j["compilesAnalysed"] = s.compilesAnalysed;
    j["profiles"] = s.profiles;
    j["runLogs"] = s.runLogs;
  }
  return j;
}

void Server::startIndexing(Rebuild kind) {
  std::lock_guard<std::mutex> start(startMutex_);
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    generation = ++generation_;
    indexing_ = true;
  }
  cancelBuild_ = true;
  if (builder_.joinable()) builder_.join();
  cancelBuild_ = false;
  // No builder runs now: the cache may be touched here.
  bool incremental = kind == Rebuild::Incremental && !indexCache_.empty();
  if (!incremental) indexCache_.clear();

  if (capabilities_.workDoneProgress) {
    progressToken_ = "inductor-ls/index/" + std::to_string(generation);
    sendRequest("window/workDoneProgress/create", json{{"token", progressToken_}});
    protocol::WorkDoneProgressBegin begin;
    begin.title = "Indexing torch.compile traces";
    begin.cancellable = false;
    begin.percentage = 0;
    sendNotification("$/progress",
                     json(protocol::ProgressParams<protocol::WorkDoneProgressBegin>{progressToken_, begin}));
  }
  index::IndexOptions options = indexOptions_;
  options.jobs = std::max(1u, options_.jobs);
  std::string token = progressToken_;
  bool progress = capabilities_.workDoneProgress;
  builder_ = std::thread([this, options, generation, token, progress, incremental] {
    auto started = std::chrono::steady_clock::now();
    auto lastReport = started;
    auto callback = [&](size_t done, size_t total, std::string_view message) {
      auto now = std::chrono::steady_clock::now();
      if (!progress || now - lastReport < std::chrono::milliseconds(100)) return;
      lastReport = now;
      protocol::WorkDoneProgressReport report;
      report.message = std::string(message) + " (" + std::to_string(done) + "/" + std::to_string(total) + ")";
      report.percentage = total ? static_cast<uint32_t>(done * 100 / total) : 0;
      sendNotification("$/progress",
                       json(protocol::ProgressParams<protocol::WorkDoneProgressReport>{token, report}));
    };
    auto index = index::Index::build(options, callback, &cancelBuild_, &indexCache_);
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
            .count();
    index::IndexStats s = index->stats();
    logInfo(std::string(incremental ? "reindexed incrementally: " : "indexed ") +
            std::to_string(s.traceFiles) + " trace files (" + std::to_string(s.traceBytes) + " bytes, " +
            std::to_string(s.traceBytesRead) + " read), " + std::to_string(s.compiles) + " compiles (" +
            std::to_string(s.compilesAnalysed) + " analysed), " + std::to_string(s.launches) + " launches (" +
            std::to_string(s.launchesWithOrigin) + " with a user origin) in " + std::to_string(ms) + " ms");
    if (incremental) {
      index::IndexCache::BuildStats b = indexCache_.lastBuild();
      logDebug("incremental build: " + std::to_string(b.logsResumed) + " logs resumed, " +
               std::to_string(b.logsReused) + " unchanged, " + std::to_string(b.logsOpened) +
               " read from the start; " + std::to_string(b.compilesReused) + " compiles reused");
    }
    indexingDone(std::move(index), generation);
  });
}

void Server::indexingDone(std::shared_ptr<const index::Index> index, uint64_t generation) {
  std::vector<std::function<void()>> waiting;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    index_ = index;
    indexing_ = false;
    waiting.swap(waiting_);
  }
  for (auto &w : waiting)
    w();
  if (capabilities_.workDoneProgress) {
    protocol::WorkDoneProgressEnd end;
    end.message = std::to_string(index->stats().compiles) + " compiles";
    sendNotification("$/progress",
                     json(protocol::ProgressParams<protocol::WorkDoneProgressEnd>{progressToken_, end}));
  }
  const auto &diags = index->diagnostics();
  for (size_t i = 0; i < diags.size() && i < 50; ++i)
    logWarn(diags[i].file + ":" + std::to_string(diags[i].line + 1) + ": " + diags[i].message);
  index::IndexStats s = index->stats();
  if (s.corruptedRecords || !diags.empty()) {
    protocol::LogMessageParams m;
    m.type = protocol::MessageType::Warning;
    m.message =
        "inductor-ls: " + std::to_string(diags.size()) + " problems while indexing (" +
        std::to_string(s.corruptedRecords) +
        " corrupted trace records skipped); the rest of the traces is served. First: " +
        (diags.empty() ? std::string("-")
                       : diags[0].file + ":" + std::to_string(diags[0].line + 1) + ": " + diags[0].message);
    sendNotification("window/logMessage", json(m));
  }
  sendNotification("inductor/status", statusJson());
  if (capabilities_.codeLensRefreshSupport) sendRequest("workspace/codeLens/refresh", nullptr);
  if (capabilities_.inlayHintRefreshSupport) sendRequest("workspace/inlayHint/refresh", nullptr);
  publishRuntimeDiagnosticsForOpenDocuments(*index);
}

} // namespace inductor::server
