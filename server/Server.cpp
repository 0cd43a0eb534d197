#include <utility> // Before Asio: GCC 12 in C++20 needs it.

#include "server/Server.h"

#include "protocol/JsonWriter.h"
#include "protocol/Position.h"
#include "protocol/URI.h"
#include "server/Convert.h"
#include "server/Counts.h"
#include "server/Logger.h"
#include "server/Notices.h"
#include "server/PythonEnv.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <future>

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

Server::Server(protocol::Transport &transport, ServerOptions options)
    : transport_(transport), options_(std::move(options)), importRootsCache_(options_.cacheDir) {
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
  if (message.method == "exit") {
    exit_ = true;
    return;
  }
  if (message.method == "$/cancelRequest") {
    // Only ids a request can have (integer or string) can name one; anything else is ignored.
    auto id = message.params.find("id");
    if (id == message.params.end() || !(id->is_number_integer() || id->is_string())) return;
    std::lock_guard<std::mutex> lock(cancelMutex_);
    if (auto it = cancelled_.find(id->dump()); it != cancelled_.end()) it->second->store(true);
    return;
  }
  if (message.method == "initialized") {
    registerClientWatchers();
    return;
  }
  if (message.method.rfind("$/", 0) == 0) return;
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
  auto flag = std::make_shared<std::atomic<bool>>(false);
  std::string key = reply.id().dump();
  {
    std::lock_guard<std::mutex> lock(cancelMutex_);
    cancelled_[key] = flag;
  }
  auto job = [this, reply, task = std::move(task), flag, key, counted] {
    struct Done { // However the job ends.
      Counted &counted;
      ~Done() { counted.release(); }
    } done{*counted};
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
  bool waits = false;
  std::function<void()> run = [this, job = std::move(job)]() mutable {
    if (pool_)
      boost::asio::post(*pool_, std::move(job));
    else
      job();
  };
  bool firstWaiting = false;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (!index_) {
      waits = true;
      waiting_.push_back(std::move(run));
      firstWaiting = waiting_.size() == 1;
      logDebug("request " + reply.method() + " waits for the index (" + std::to_string(waiting_.size()) +
               " waiting)");
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

std::shared_ptr<const index::SourceReader> Server::sources() const {
  std::lock_guard<std::mutex> lock(indexMutex_);
  if (sources_) return sources_;
  // Before the first index: the workspace folders only.
  static const auto none =
      std::make_shared<const index::SourceReader>(index::ReadPolicy(std::vector<std::string>{}));
  return none;
}

void Server::serveIndex(std::shared_ptr<const index::Index> index,
                        std::shared_ptr<const index::SourceReader> sources) {
  std::lock_guard<std::mutex> lock(indexMutex_);
  index_ = std::move(index);
  sources_ = std::move(sources);
}

index::GeneratedCodeMatch Server::generatedCodeMatch(const index::Index &index, const Document &doc) const {
  {
    std::lock_guard<std::mutex> lock(copyMutex_);
    if (auto it = copyMatches_.find(doc.uri);
        it != copyMatches_.end() && it->second.index == index.serial() && it->second.version == doc.version &&
        it->second.textSize == doc.text.size())
      return it->second.match;
  }
  bool cpp = doc.uri.size() > 4 && doc.uri.compare(doc.uri.size() - 4, 4, ".cpp") == 0;
  index::GeneratedCodeMatch m = index.matchGeneratedCode(doc.text, cpp);
  std::lock_guard<std::mutex> lock(copyMutex_);
  copyMatches_[doc.uri] = CopyMatch{doc.version, index.serial(), doc.text.size(), m};
  return m;
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
  std::shared_ptr<const index::Index> idx;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    idx = index_;
  }
  if (!idx) return doc; // Requests run once the index is ready; before that nothing is read.
  if (parsed->scheme == "file") {
    // A document the client has not opened: read from disk only inside the roots (ReadPolicy.h), and only up
    // to the size served per request.
    index::Expected<std::string> text =
        idx->readPolicy().read(parsed->path, index::IndexLimits::kServedTextBytes);
    if (text)
      doc->text = std::move(*text);
    else
      logDebug(text.error().message);
  } else if (parsed->scheme == "inductor-trace") {
    std::string name =
        parsed->path.size() > 1 && parsed->path[0] == '/' ? parsed->path.substr(1) : parsed->path;
    if (auto id = idx->findByVirtualName(name)) {
      index::Expected<std::string> text = idx->readText(*id);
      if (text)
        doc->text = std::move(*text);
      else
        logWarn(uri + ": " + text.error().message);
    } else if (auto path = recordedSourcePath(uri)) {
      doc->text = recordedSourceText(*idx, *path); // A file not on this machine, as the trace recorded it.
    }
  }
  return doc;
}

std::optional<std::string> Server::openCopy(const std::vector<std::string> &paths) const {
  if (paths.size() < 2) return std::nullopt; // One copy: artifactURI() names it already.
  std::lock_guard<std::mutex> lock(docsMutex_);
  for (const std::string &p : paths)
    for (const auto &[uri, doc] : docs_)
      if (auto parsed = protocol::parseURI(uri); parsed && parsed->scheme == "file" && parsed->path == p)
        return uri;
  return std::nullopt;
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

void Server::sendStatus(bool force) {
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    auto now = std::chrono::steady_clock::now();
    if (!force && now - lastStatus_ < std::chrono::milliseconds(250)) return;
    lastStatus_ = now;
  }
  sendNotification("inductor/status", statusJson());
}

bool Server::buildRunning() {
  std::lock_guard<std::mutex> lock(indexMutex_);
  return indexing_ || publishing_;
}

void Server::startIndexing(Rebuild kind) {
  std::lock_guard<std::mutex> start(startMutex_);
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    generation = ++generation_;
    indexing_ = true;
    progressPercent_ = 0;
    progressMessage_ = "starting";
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
  sendStatus(/*force=*/true);
  index::IndexOptions options = indexOptions_;
  options.jobs = std::max(1u, options_.jobs);
  if (options_.watch) {
    setWatchedInputs(options.inputs);
    options.directoryListed = watchWhatDiscoveryLists(options);
  }
  std::string token = progressToken_;
  bool progress = capabilities_.workDoneProgress;
  PythonQuery pythonQuery = this->pythonQuery();
  builder_ = std::thread([this, options, generation, token, progress, incremental, pythonQuery]() mutable {
    auto started = std::chrono::steady_clock::now();
    // The Python environment (a subprocess, once per setting): its import roots resolve package paths and may
    // be read. Asked beside the log scan, which does not need them (the build waits for them after it).
    PythonEnvironment python;
    std::thread asker;
    std::promise<std::vector<std::string>> importRoots;
    // The interpreter runs in the background until the build needs its answer or ends (queryImportRoots).
    // Shared: the index keeps the resolver, and so the callback, after this thread.
    auto background = std::make_shared<std::atomic<bool>>(true);
    // An earlier session's answer for the same interpreter is used at once and checked after the index is
    // served: a start does not wait for the interpreter.
    bool checkKept = false;
    if (auto known = knownPythonEnvironment(pythonQuery)) {
      python = std::move(*known);
      options.pythonPaths = python.importRoots;
    } else if (auto kept = keptPythonEnvironment(pythonQuery)) {
      python = std::move(*kept);
      options.pythonPaths = python.importRoots;
      checkKept = true;
    } else {
      options.pythonPathsLater = importRoots.get_future().share();
      options.pythonPathsNeeded = [background] { *background = false; };
      asker = std::thread([&python, &importRoots, background, pythonQuery, this] {
        try {
          python = pythonEnvironment(pythonQuery, background.get());
        } catch (const std::exception &e) { // Never fatal: the build goes on without import roots.
          logWarn(std::string("python: ") + e.what());
        }
        importRoots.set_value(python.importRoots);
      });
    }
    auto lastReport = started;
    std::string lastStep;
    auto callback = [&](size_t done, size_t total, std::string_view message) {
      uint32_t percentage = total ? static_cast<uint32_t>(std::min<size_t>(done * 100 / total, 100)) : 0;
      {
        std::lock_guard<std::mutex> lock(indexMutex_);
        if (generation != generation_) return; // A newer build reports.
        progressPercent_ = percentage;
        progressMessage_ = std::string(message);
      }
      // At most ten reports a second, but the first of each step always: a fast step is still seen.
      auto now = std::chrono::steady_clock::now();
      std::string_view step = message.substr(0, message.find(':'));
      bool newStep = step != lastStep;
      if (!newStep && now - lastReport < std::chrono::milliseconds(100)) return;
      lastStep = std::string(step);
      lastReport = now;
      if (progress) {
        protocol::WorkDoneProgressReport report;
        report.message = std::string(message);
        report.percentage = percentage;
        sendNotification("$/progress",
                         json(protocol::ProgressParams<protocol::WorkDoneProgressReport>{token, report}));
      }
      // Each step's start too, as in $/progress: a whole build may be shorter than the status's 250 ms.
      sendStatus(/*force=*/newStep);
    };
    auto sourcesFor = [](const index::IndexOptions &o) {
      // FIXME(issue 11): the index's own ReadPolicy (Index::readPolicy) once it has one; same roots.
      return std::make_shared<const index::SourceReader>(index::ReadPolicy(index::readRoots(o)));
    };
    // Two passes at most: the second when the kept import roots turn out to be out of date.
    for (bool firstPass = true;; firstPass = false) {
      auto index = index::Index::build(options, callback, &cancelBuild_, &indexCache_);
      *background = false;
      if (!cancelBuild_) {
        auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                .count();
        index::IndexStats s = index->stats();
        logInfo(std::string(incremental ? "reindexed incrementally: " : "indexed ") +
                std::to_string(s.traceFiles) + " trace files (" + std::to_string(s.traceBytes) + " bytes, " +
                std::to_string(s.traceBytesRead) + " read), " + std::to_string(s.compiles) + " compiles (" +
                std::to_string(s.compilesAnalysed) + " analysed), " + std::to_string(s.launches) +
                " launches (" + std::to_string(s.launchesWithOrigin) + " with a user origin) in " +
                std::to_string(ms) + " ms");
        if (incremental) {
          index::IndexCache::BuildStats b = indexCache_.lastBuild();
          logDebug("incremental build: " + std::to_string(b.logsResumed) + " logs resumed, " +
                   std::to_string(b.logsReused) + " unchanged, " + std::to_string(b.logsOpened) +
                   " read from the start; " + std::to_string(b.compilesReused) + " compiles reused");
        }
      }
      // The build waited for the interpreter only where a path needed its import roots. When it has not
      // answered yet, nothing in the index depends on it: the index is served now, and the import roots
      // join the readable roots when they come.
      bool servedEarly = false;
      if (asker.joinable() && !cancelBuild_ &&
          options.pythonPathsLater.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        logInfo("served without the Python environment's import roots (no recorded path needed them) while "
                "the interpreter answers");
        index::IndexOptions now = options;
        now.pythonPathsLater = {};
        indexingDone(index, sourcesFor(now), generation, now, /*endProgress=*/firstPass);
        servedEarly = true;
      }
      if (asker.joinable())
        asker.join(); // A cancelled build may not have waited; the query sees the cancel too.
      if (cancelBuild_) return;
      options.pythonPaths = python.importRoots;
      options.pythonPathsLater = {};
      auto sources = sourcesFor(options);
      if (servedEarly) {
        sourcesKnown(std::move(sources), generation);
        return;
      }
      indexingDone(std::move(index), std::move(sources), generation, options, /*endProgress=*/firstPass);
      if (!checkKept) return;
      checkKept = false;
      // Ask the interpreter now that answers are served: what stamps cannot see (`pyenv global` behind a
      // shim) changes the answer, and then the index is built again with it.
      forgetPythonEnvironment();
      PythonEnvironment asked = pythonEnvironment(pythonQuery);
      if (cancelBuild_) return;
      if (!asked.error.empty()) {
        // The interpreter failed now; its kept answer still stands (the error is in the status).
        std::lock_guard<std::mutex> lock(pythonMutex_);
        python_.importRoots = python.importRoots;
        python_.asked = python.asked;
        python_.kept = true;
        return;
      }
      if (asked.importRoots == python.importRoots) return;
      logInfo("python: " + asked.interpreter + " answers other import roots than in an earlier session (" +
              std::to_string(python.importRoots.size()) + " then, " +
              std::to_string(asked.importRoots.size()) + " now): indexing again with them");
      python = std::move(asked);
      options.pythonPaths = python.importRoots;
      indexCache_.clear(); // Origins resolved with the old roots are not reused.
      incremental = false;
      progress = false; // The first pass ended the client's progress.
      started = std::chrono::steady_clock::now();
    }
  });
}

std::string PythonQuery::key() const {
  std::string key = setting + (run ? "\1run" : "\1none");
  for (const std::string &f : folders)
    key += '\0' + f;
  key += '\1';
  for (const std::string &e : excluded)
    key += '\0' + e;
  return key;
}

PythonQuery Server::pythonQuery() const {
  PythonQuery q;
  q.folders = indexOptions_.roots;
  q.excluded = indexOptions_.roots;
  for (const auto *inputs : {&indexOptions_.inputs, &indexOptions_.profiles, &indexOptions_.runLogs})
    q.excluded.insert(q.excluded.end(), inputs->begin(), inputs->end());
  q.setting = pythonPathSetting_;
  q.run = trusted_;
  return q;
}

namespace {

std::string describeEnvironments(const std::vector<StaticEnvironment> &environments) {
  std::string out;
  for (const StaticEnvironment &e : environments)
    out += (out.empty() ? "" : ", ") + e.prefix + " (" + e.source + ", " +
           std::to_string(e.importRoots.size()) + " import roots)";
  return out;
}

} // namespace

std::optional<PythonEnvironment> Server::knownPythonEnvironment(const PythonQuery &query) {
  std::lock_guard<std::mutex> lock(pythonMutex_);
  if (pythonKnown_ && query.key() == pythonKey_) return python_;
  return std::nullopt;
}

PythonEnvironment Server::pythonEnvironment(const PythonQuery &query, const std::atomic<bool> *background) {
  std::string key = query.key();
  {
    std::lock_guard<std::mutex> lock(pythonMutex_);
    if (pythonKnown_ && key == pythonKey_) return python_;
  }
  PythonEnvironment env;
  // Read, never run: a venv in a workspace folder and the activated environment (server/PythonEnv.h).
  env.environments = findStaticEnvironments(query.folders);
  if (!env.environments.empty())
    logInfo("python: read without running: " + describeEnvironments(env.environments));
  std::optional<protocol::LogMessageParams> warning;
  std::optional<PythonInterpreter> interpreter;
  if (query.run) interpreter = findPythonInterpreter(query.setting, query.excluded);
  if (interpreter) {
    env.interpreter = interpreter->path;
    env.source = interpreter->source;
    auto started = std::chrono::steady_clock::now();
    ImportRoots r = queryImportRoots(interpreter->path, options_.pythonTimeout, &cancelBuild_, background);
    if (r.error == "cancelled") return env; // Asked again by the next build.
    env.asked = std::move(r.paths);
    env.error = std::move(r.error);
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
            .count();
    if (env.error.empty()) {
      importRootsCache_.store(env.interpreter, env.asked);
      logInfo("python: " + env.interpreter + " (" + env.source + "): " + std::to_string(env.asked.size()) +
              " import roots in " + std::to_string(ms) + " ms");
    } else {
      // Reported, never fatal: installed-package paths then resolve under the environments read and the
      // workspace only.
      std::string message = "inductor-ls: cannot ask " + env.interpreter + " (" + env.source +
                            ") for its import paths: " + env.error +
                            ". Paths into installed packages resolve only under the workspace folders" +
                            (env.environments.empty() ? "." : " and the virtual environments read there.");
      logWarn(message);
      warning.emplace();
      warning->type = protocol::MessageType::Warning;
      warning->message = message;
    }
  } else if (!query.run) {
    logInfo("python: untrusted workspace (initializationOptions trusted: false): no interpreter is run" +
            std::string(query.setting.empty() ? "" : ", pythonPath " + query.setting + " ignored"));
  } else {
    logInfo("python: no interpreter to ask (pythonPath setting, python3 on PATH outside the workspace and "
            "trace folders)");
  }
  env.importRoots = combineImportRoots(env.environments, env.asked, !query.setting.empty());
  {
    std::lock_guard<std::mutex> lock(pythonMutex_);
    pythonKey_ = key;
    pythonKnown_ = true;
    python_ = env;
  }
  // After python_ is set: a client that reads inductor/status on this message sees the same failure.
  if (warning)
    sendNotification(query.setting.empty() ? "window/logMessage" : "window/showMessage", json(*warning));
  return env;
}

std::optional<PythonEnvironment> Server::keptPythonEnvironment(const PythonQuery &query) {
  if (importRootsCache_.file().empty() || !query.run) return std::nullopt;
  std::optional<PythonInterpreter> interpreter = findPythonInterpreter(query.setting, query.excluded);
  if (!interpreter) return std::nullopt;
  std::optional<std::vector<std::string>> kept = importRootsCache_.lookup(interpreter->path);
  if (!kept) return std::nullopt;
  PythonEnvironment env;
  env.interpreter = interpreter->path;
  env.source = interpreter->source;
  env.environments = findStaticEnvironments(query.folders);
  env.asked = std::move(*kept);
  env.importRoots = combineImportRoots(env.environments, env.asked, !query.setting.empty());
  env.kept = true;
  logInfo("python: " + env.interpreter + " (" + env.source + "): " + std::to_string(env.asked.size()) +
          " import roots kept from an earlier session (" + importRootsCache_.file() +
          "), asked again once the index is served");
  std::lock_guard<std::mutex> lock(pythonMutex_);
  pythonKey_ = query.key();
  pythonKnown_ = true;
  python_ = env;
  return env;
}

void Server::forgetPythonEnvironment() {
  std::lock_guard<std::mutex> lock(pythonMutex_);
  pythonKnown_ = false;
}

void Server::publishNotices(const index::Index &index, const index::IndexOptions &options) {
  std::vector<Notice> notices = noticesFor(index, options);
  json list = json::array();
  std::vector<const Notice *> fresh;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    for (const Notice &n : notices) {
      list.push_back({{"kind", n.kind}, {"type", static_cast<int>(n.type)}, {"message", n.message}});
      if (noticesShown_.insert(n.key).second) fresh.push_back(&n);
    }
    notices_ = std::move(list);
  }
  for (const Notice *n : fresh) {
    logInfo(n->message);
    sendNotification("window/logMessage", json(protocol::LogMessageParams{n->type, n->message}));
    sendNotification("window/showMessage", json(protocol::ShowMessageParams{n->type, n->message}));
  }
}

void Server::sourcesKnown(std::shared_ptr<const index::SourceReader> sources, uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    sources_ = std::move(sources);
  }
  sendStatus(/*force=*/true); // With the interpreter's answer.
}

void Server::indexingDone(std::shared_ptr<const index::Index> index,
                          std::shared_ptr<const index::SourceReader> sources, uint64_t generation,
                          const index::IndexOptions &options, bool endProgress) {
  std::vector<std::function<void()>> waiting;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    index_ = index;
    sources_ = std::move(sources);
    indexing_ = false;
    publishing_ = true;
    ++builds_;
    waiting.swap(waiting_);
  }
  struct Published { // However this function ends.
    Server &server;
    ~Published() {
      std::lock_guard<std::mutex> lock(server.indexMutex_);
      server.publishing_ = false;
    }
  } published{*this};
  {
    std::lock_guard<std::mutex> lock(copyMutex_);
    copyMatches_.clear();
  }
  for (auto &w : waiting)
    w();
  if (capabilities_.workDoneProgress && endProgress) {
    protocol::WorkDoneProgressEnd end;
    index::IndexStats s = index->stats();
    end.message = plural(s.compiles, "compile") + ", " + plural(s.kernels, "kernel");
    sendNotification("$/progress",
                     json(protocol::ProgressParams<protocol::WorkDoneProgressEnd>{progressToken_, end}));
  }
  const auto &diags = index->diagnostics();
  for (size_t i = 0; i < diags.size() && i < 50; ++i)
    logWarn(diags[i].file + ":" + std::to_string(diags[i].line + 1) + ": " + diags[i].message);
  if (!diags.empty()) {
    protocol::LogMessageParams m;
    m.type = protocol::MessageType::Warning;
    m.message = "inductor-ls: " + plural(diags.size(), "problem") +
                " while indexing; the rest of the traces is served. First: " + diags[0].file + ":" +
                std::to_string(diags[0].line + 1) + ": " + diags[0].message;
    sendNotification("window/logMessage", json(m));
  }
  publishNotices(*index, options);
  if (options_.watch) watchLogDirectories(index->traceFiles());
  sendStatus(/*force=*/true);
  publishAllDiagnostics(*index);
  if (capabilities_.codeLensRefreshSupport) sendRequest("workspace/codeLens/refresh", nullptr);
  if (capabilities_.inlayHintRefreshSupport) sendRequest("workspace/inlayHint/refresh", nullptr);
}

} // namespace inductor::server
