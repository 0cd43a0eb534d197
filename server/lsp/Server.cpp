#include <utility> // Before Asio: GCC 12 in C++20 needs it.

#include "server/lsp/Server.h"

#include "index/runtime/Runtime.h"
#include "protocol/JsonWriter.h"
#include "protocol/Position.h"
#include "protocol/URI.h"
#include "server/Logger.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>

namespace inductor::server {

using protocol::ErrorCode;

namespace {

/// A request id for a log line: ids are integers or strings, but a string can be as long as a message.
std::string idText(const json &id) {
  std::string text = id.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 64) text = std::string(protocol::utf8Prefix(text, 64)) + "...";
  return text;
}

} // namespace

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

bool Reply::claim() const {
  if (state_->replied.exchange(true)) {
    logError("replied twice to " + state_->method);
    return false;
  }
  if (Logger::instance().enabled(LogLevel::Debug)) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                    state_->start)
                  .count();
    logDebug("<-- " + state_->method + "(" + idText(state_->id) + ") " + std::to_string(us) + " us");
  }
  return true;
}

void Reply::operator()(json result) const {
  if (claim()) state_->transport.send(protocol::makeResponse(state_->id, std::move(result)));
}

void Reply::text(std::string_view result) const {
  if (!claim()) return;
  // makeResponse's members around the result's text, which is not copied into them.
  protocol::JsonWriter w;
  w.beginObject().key("id").dump(state_->id).key("jsonrpc").value("2.0").key("result");
  state_->transport.sendText(w.take(), result, "}");
}

void Reply::error(ErrorCode code, std::string_view message) const {
  if (state_->replied.exchange(true)) return;
  logInfo("<-- " + state_->method + "(" + idText(state_->id) + ") error: " + std::string(message));
  state_->transport.send(protocol::makeErrorResponse(state_->id, code, message));
}

// ---------------------------------------------------------------------------------------------------------------
// Server.

Server::Server(protocol::Transport &transport, const ServerOptions &options)
    : transport_(transport), options_(options), workspace_(*this, options) {
  if (options_.jobs > 0) pool_ = std::make_unique<boost::asio::thread_pool>(options_.jobs);
  registerHandlers();
}

Server::~Server() {
  // The workspace's threads first: none of them calls back into what goes away below.
  workspace_.stop();
  // Exit came before the first index (issue 42): the requests still waiting for it are answered
  // RequestCancelled now, while what they hold entries of (inFlight_, pendingRequests_) and the pool that
  // answers them are alive; so is any request queued behind a running one, which the pool then answers.
  inFlight_.cancelAll();
  std::vector<Waiting> waiting;
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    waiting.swap(waiting_);
  }
  for (auto &w : waiting)
    w.run();
  waiting.clear();
  if (pool_) pool_->join();
}

bool Server::admits(const index::Index *served, const Needs &needs) {
  if (!served) return false;
  // An index of part of the run (the first rank alone, the open documents' compiles alone): its figures are
  // not the run's, so only navigation in its own documents.
  if (served->stats().partial()) return !needs.navigatesIn.empty() && holds(*served, needs.navigatesIn);
  return !needs.profiles || !served->runtime().times.deferred;
}

std::vector<OpenDocument> Server::openDocuments() const {
  std::lock_guard<std::mutex> lock(docsMutex_);
  std::vector<OpenDocument> open;
  open.reserve(docs_.size());
  for (const auto &[uri, doc] : docs_)
    open.push_back({uri, doc->text});
  return open;
}

void Server::indexServed(const std::shared_ptr<const index::Index> &index) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    std::vector<Waiting> still; // In the order they came.
    for (Waiting &w : waiting_)
      if (admits(index.get(), w.needs))
        ready.push_back(std::move(w.run));
      else
        still.push_back(std::move(w));
    waiting_ = std::move(still);
  }
  codeMatches_.clear(); // Matches of the previous index (keyed by its serial) are no use now.
  for (auto &run : ready)
    run();
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
  workspace_.cancelBuild();
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
    // Answers to our own requests (window/workDoneProgress/create, codeLens refresh): nothing to do, except
    // for the file watching registration.
    if (!watchRegistration_.is_null() && message.id == watchRegistration_) {
      onRegistrationAnswer(message);
      break;
    }
    if (message.error) logDebug("client answered an error: " + message.error->message);
    break;
  }
}

void Server::handleRequest(protocol::Message &message) {
  Reply reply(transport_, message.id, message.method);
  logDebug("--> " + message.method + "(" + idText(message.id) + ")");
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
  auto it = notifications_.find(message.method);
  if (it == notifications_.end()) {
    // `$/` notifications a server does not know may be ignored (the spec); others are logged.
    if (message.method.rfind("$/", 0) != 0) logDebug("ignored notification " + message.method);
    return;
  }
  try {
    it->second(message.params);
  } catch (const std::exception &e) {
    logError("notification " + message.method + " failed: " + e.what());
  }
}

void Server::onExit() {
  exit_ = true;
}

void Server::onInitialized() {
  registerClientWatchers();
}

void Server::onCancelRequest(const protocol::CancelParams &params) {
  // Marks only the requests in flight with this id (server/lsp/Cancellation.h): one answered before, or sent
  // with the same id later, is not touched.
  inFlight_.cancel(params.id);
}

void Server::withIndex(Reply reply, std::function<void(const index::Index &, const Reply &)> task,
                       Needs needs) {
  // The bound on what waits (Server.h): a client that sends faster than it is answered (or before the first
  // index is ready) is told at once, instead of growing the queues without end.
  size_t limit = options_.maxPendingRequests;
  size_t pending = pendingRequests_.fetch_add(1) + 1;
  if (pending > limit) {
    pendingRequests_.fetch_sub(1);
    if (!busyLogged_.exchange(true))
      logWarn("server busy: " + std::to_string(limit) +
              " requests pending; new requests are answered ServerCancelled until some are answered");
    return reply.error(ErrorCode::ServerCancelled,
                       "server busy: " + std::to_string(limit) + " requests pending");
  }
  if (pending <= limit / 2) busyLogged_ = false; // The next busy episode is logged again.
  // Counted until the job has answered, or is dropped unrun (with the pool, or waiting at exit).
  struct Counted {
    explicit Counted(std::atomic<size_t> &c) : count(c) {}
    Counted(const Counted &) = delete;
    Counted &operator=(const Counted &) = delete;
    ~Counted() { release(); }
    void release() {
      if (!released.exchange(true)) count.fetch_sub(1);
    }
    std::atomic<size_t> &count;
    std::atomic<bool> released{false};
  };
  auto counted = std::make_shared<Counted>(pendingRequests_);
  // In flight until the job ends or is dropped unrun: the last copy of `cancellation` removes its own entry.
  struct Cancellation {
    Cancellation(InFlightRequests &r, const json &id) : requests(r), token(r.add(id)) {}
    Cancellation(const Cancellation &) = delete;
    Cancellation &operator=(const Cancellation &) = delete;
    ~Cancellation() { requests.remove(token); }
    InFlightRequests &requests;
    InFlightRequests::Token token;
  };
  auto cancellation = std::make_shared<Cancellation>(inFlight_, reply.id());
  auto job = [this, reply, task = std::move(task), cancellation, counted] {
    struct Done { // However the job ends: answered, no longer in flight.
      Counted &counted;
      Cancellation &cancellation;
      ~Done() {
        cancellation.requests.remove(cancellation.token);
        counted.release();
      }
    } done{*counted, *cancellation};
    std::shared_ptr<const index::Index> snapshot = workspace_.index();
    if (cancellation->token.cancelled->load())
      return reply.error(ErrorCode::RequestCancelled, "request cancelled");
    try {
      task(*snapshot, reply);
    } catch (const std::exception &e) {
      reply.error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
    } catch (...) {
      reply.error(ErrorCode::InternalError, "internal error");
    }
  };
  bool waits = false;
  std::function<void()> run = [this, job = std::move(job)]() mutable {
    if (pool_)
      boost::asio::post(*pool_, std::move(job));
    else
      job();
  };
  bool firstWaiting = false;
  {
    // The workspace's lock is taken inside queueMutex_, never the other way: an index served after this
    // looked finds the request queued (indexServed takes queueMutex_ after the index is the current one).
    std::lock_guard<std::mutex> lock(queueMutex_);
    std::shared_ptr<const index::Index> served = workspace_.index();
    if (!admits(served.get(), needs)) {
      waits = true;
      waiting_.push_back({std::move(run), std::move(needs)});
      firstWaiting = waiting_.size() == 1;
      logDebug("request " + reply.method() + " waits for " +
               (!served                            ? "the index"
                : served->stats().ranksDeferred    ? "every rank to be read"
                : served->stats().compilesDeferred ? "every compile to be analysed"
                                                   : "the profiles to be joined") +
               " (" + std::to_string(waiting_.size()) + " waiting)");
    }
  }
  // The status says at once that a request waits (a fast build may end before its next report).
  if (firstWaiting) sendStatus(/*force=*/true);
  if (!waits) {
    run(); // NOLINT(bugprone-use-after-move): moved into waiting_ only when it waits.
    return;
  }
  // Clients show that requests are waiting (and why) from the status.
  sendStatus(/*force=*/false);
}

std::shared_ptr<const Document> Server::openDocument(const std::string &uri) const {
  std::lock_guard<std::mutex> lock(docsMutex_);
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : it->second;
}

DocumentSnapshot Server::documents() const {
  DocumentSnapshot d;
  {
    std::lock_guard<std::mutex> lock(docsMutex_);
    d.open = docs_;
  }
  d.sources = workspace_.sources();
  d.textViews = &textViews_;
  d.matches = &codeMatches_;
  d.encoding = encoding_;
  return d;
}

void Server::sendNotification(std::string_view method, json params) {
  // Messages for the user carry paths from outside (file names in trace folders); clients print them raw in
  // an output panel, where a newline would forge a line: escaped as in the log file.
  if (method == "window/logMessage" || method == "window/showMessage")
    if (auto m = params.find("message"); m != params.end() && m->is_string())
      *m = escapeForLog(m->get_ref<const std::string &>());
  transport_.send(protocol::makeNotification(method, std::move(params)));
}

json Server::sendRequest(std::string_view method, json params) {
  json id = "inductor-ls/" + std::to_string(nextRequestId_++);
  transport_.send(protocol::makeRequest(id, method, std::move(params)));
  return id;
}

void Server::registerClientWatchers() {
  if (!options_.watch || !capabilities_.didChangeWatchedFilesDynamicRegistration) return;
  protocol::DidChangeWatchedFilesRegistrationOptions watch;
  for (const char *glob : {"**/dedicated_log_torch_trace*.log", "**/output_code.{py,cpp}", "**/*.wrapper.cpp",
                           "**/fx_graph_{readable,transformed,runnable}.py",
                           "**/inductor_provenance_tracking_*.json", "**/kernel_information.json"})
    watch.watchers.push_back({glob, std::nullopt});
  protocol::RegistrationParams params;
  params.registrations.push_back(
      {"inductor-ls/watchedFiles", "workspace/didChangeWatchedFiles", json(watch)});
  watchRegistration_ = sendRequest("client/registerCapability", json(params));
  logInfo("asked the client to report changes to trace inputs too");
}

void Server::onRegistrationAnswer(const protocol::Message &response) {
  if (response.error)
    logInfo("the client does not watch files for us (" + response.error->message + "): inotify only");
}

void Server::onDidChangeWatchedFiles(const protocol::DidChangeWatchedFilesParams &params) {
  workspace_.clientFileEvents(params);
}

} // namespace inductor::server
