// server/Server.h: the LSP server. The only place that knows both protocol/ and index/.
//
// Threads ("life of a request", as in clangd's threads.md):
//  - The reader thread runs Server::run(): it decodes each message, applies notifications that change state
//    (didOpen/didChange/didClose, configuration) at once, and hands requests to the worker pool. It never
//    waits for index work.
//  - The worker pool (boost::asio::thread_pool, `--jobs` threads; 0 runs every request inline on the reader
//    thread, which the tests use) answers requests. Each request takes a snapshot of the immutable index
//    (shared_ptr<const Index>) and of the document it is about, so no lock is held while it computes.
//  - The index builder thread builds a new Index and swaps it in (like clangd's SwapIndex). Requests that
//    arrive before the first index is ready wait in a queue and are answered once it is: never an empty
//    answer because of a race.
//  - The watcher thread (inotify) notices new or grown trace files and schedules an incremental rebuild: the
//    builder keeps an index::IndexCache across builds, so a log that grew is read only from where the last
//    build stopped and only new or changed compiles are analysed. `inductor.reindex`, initialize and
//    configuration changes make full rebuilds (the cache is cleared first). The cache is touched only by the
//    builder thread, and by startIndexing() after it has joined the previous builder.
// All writes to stdout go through the Transport, which serialises them.
//
// Requests that wait (for the first index, or for a worker) are bounded: at most
// ServerOptions::maxPendingRequests (1,000) accepted and not yet answered; past that a request is answered at
// once with ServerCancelled (-32802) "server busy: N requests pending", so a client that sends faster than it
// is answered cannot grow the queues without end. Notifications are never refused: document sync and
// configuration are applied at once on the reader thread and queue nowhere. Accepted requests keep their
// order.
//
// Every request is answered exactly once (Reply). `$/cancelRequest` marks a request cancelled; a request that
// has not started yet is then answered with RequestCancelled. Late results are fine (cancellation is racy).
#pragma once

#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "protocol/InductorProtocol.h"
#include "protocol/Json.h"
#include "protocol/JsonRpc.h"
#include "protocol/Position.h"
#include "protocol/Protocol.h"
#include "protocol/Transport.h"
#include "server/Cancellation.h"
#include "server/Documents.h"
#include "server/PythonEnv.h"
#include "server/TextViews.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace boost::asio {
class thread_pool;
}

namespace inductor::server {

using protocol::json;
struct FeatureContext;

/// Answers one request exactly once. Copies share the same state; if every copy is destroyed without an
/// answer, the client gets InternalError "server failed to reply" (clangd's ReplyOnce).
class Reply {
public:
  Reply(protocol::Transport &transport, json id, std::string method);
  void operator()(json result) const;
  /// Replies with `result`, the JSON text of the result (protocol::JsonWriter): for answers of thousands of
  /// items, written without building them as json values.
  void text(std::string_view result) const;
  void error(protocol::ErrorCode code, std::string_view message) const;
  const json &id() const { return state_->id; }
  const std::string &method() const { return state_->method; }

private:
  /// Marks the request answered (false, logged, when it was already) and logs the time it took.
  bool claim() const;
  struct State {
    State(protocol::Transport &t, json i, std::string m)
        : transport(t), id(std::move(i)), method(std::move(m)) {}
    protocol::Transport &transport;
    json id;
    std::string method;
    std::atomic<bool> replied{false};
    std::chrono::steady_clock::time_point start;
    ~State();
  };
  std::shared_ptr<State> state_;
};

struct ServerOptions {
  /// Worker threads for requests and index analysis; 0 answers requests inline on the reader thread.
  unsigned jobs = 2;
  /// Watch trace inputs for changes (inotify) and reindex.
  bool watch = true;
  /// How long the Python interpreter may take to print its sys.path (server/PythonEnv.h).
  std::chrono::milliseconds pythonTimeout{5000};
  /// Requests accepted and not answered yet, at most (waiting for the first index, queued for a worker or
  /// running); past it a request is answered at once with ServerCancelled. Tests lower it.
  size_t maxPendingRequests = 1000;
  /// Where the server keeps what outlives a session (ImportRootsCache in server/PythonEnv.h); empty keeps
  /// nothing. main.cpp passes ImportRootsCache::defaultDir() unless `--cache-dir` says otherwise.
  std::string cacheDir = {};
};

/// What the server's Python environment depends on (server/PythonEnv.h).
struct PythonQuery {
  std::vector<std::string> folders; ///< The workspace folders, where virtual environments are read.
  /// The workspace folders and trace inputs: no interpreter is taken from a PATH entry inside them.
  std::vector<std::string> excluded;
  std::string setting; ///< The `pythonPath` setting.
  bool run = true;     ///< False (`"trusted": false`): no interpreter is run at all.
  std::string key() const;
};

/// The user's Python environment as the server found it (server/PythonEnv.h), for the status and logs.
struct PythonEnvironment {
  std::string interpreter; ///< Empty when none was found (or none may run).
  std::string source;      ///< Where it was found ("pythonPath setting", "python3 on PATH").
  /// The environments read without running them (workspace venvs, the activated one).
  std::vector<StaticEnvironment> environments;
  /// combineImportRoots of `environments` and the interpreter's answer.
  std::vector<std::string> importRoots;
  std::vector<std::string> asked; ///< The interpreter's answer alone (what ImportRootsCache keeps).
  std::string error; ///< Why the import roots are unknown; empty on success or when there is no interpreter.
  /// The roots are an earlier session's answer (ImportRootsCache), not asked again yet.
  bool kept = false;
};

class Server {
public:
  Server(protocol::Transport &transport, ServerOptions options);
  ~Server();

  /// Reads and handles messages until `exit` or end of input. Returns the process exit code (0 after a
  /// shutdown request, 1 otherwise, as the spec says).
  int run();

  // Lifecycle and document sync (server/Lifecycle.cpp).
  void onInitialize(const protocol::InitializeParams &params, Reply reply);
  void onShutdown(const protocol::NoParams &params, Reply reply);
  // The reader loop's own notifications (server/Server.cpp).
  void onInitialized();
  void onExit();
  void onCancelRequest(const protocol::CancelParams &params);
  void onDidOpen(const protocol::DidOpenTextDocumentParams &params);
  void onDidChange(const protocol::DidChangeTextDocumentParams &params);
  void onDidClose(const protocol::DidCloseTextDocumentParams &params);
  void onDidChangeConfiguration(const protocol::DidChangeConfigurationParams &params);
  void onDidChangeWatchedFiles(const protocol::DidChangeWatchedFilesParams &params); // server/Watcher.cpp
  void onExecuteCommand(const protocol::InductorCommandParams &params, Reply reply);

  // The requests answered from an index are features (server/features/Features.h), bound by bindFeature;
  // those below read the server's own state too.
  void onStatus(const protocol::NoParams &params, Reply reply); // server/Status.cpp
  // What changed since the baseline run (index/compare/Compare.h): inductor/compare (server/Compare.cpp).
  void onCompare(const protocol::CompareParams &params, Reply reply);

  /// What a request reads documents from, taken now (server/Documents.h): the open documents, the reader of
  /// source files, the caches kept between requests and the position encoding.
  DocumentSnapshot documents() const;
  /// Snapshot of a document for a request: the open document, else the artifact's text or the file on disk
  /// (DocumentSnapshot::document with the served index).
  std::shared_ptr<const Document> document(const std::string &uri) const;
  /// The open document at `uri`, or nullptr.
  std::shared_ptr<const Document> openDocument(const std::string &uri) const;
  /// The reader of user source files for the current index (its ReadPolicy covers the index's roots,
  /// index::readRoots: the workspace folders, the trace inputs, the profiles and run logs, the pathMappings
  /// targets and the Python import roots). Never null.
  std::shared_ptr<const index::SourceReader> sources() const;
  /// Views of open documents' and source files' texts, kept between requests (TextViews.h).
  TextViewCache &textViews() const { return textViews_; }
  protocol::OffsetEncoding encoding() const { return encoding_; }

  /// Runs `task(index)` on the pool once the index is ready; replies RequestCancelled if the request was
  /// cancelled before it started, InternalError if the task throws.
  /// `needsProfiles`: the answer is GPU time (inductor/hotLines): it waits, too, while an index served
  /// before its profiles were joined (IndexOptions::deferProfiles) is the current one.
  void withIndex(Reply reply, std::function<void(const index::Index &, const Reply &)> task,
                 bool needsProfiles = false);
  /// Runs (server/Runs.cpp): as withIndex, with the baseline run's index beside the current one's (null when
  /// there is no baseline: the `baseline` setting is "none", there is no earlier run, or it is not built
  /// yet). Both stay alive until `task` returns.
  void withRuns(
      Reply reply,
      std::function<void(const index::Index &current, const index::Index *baseline, const Reply &)> task);
  void onRuns(const protocol::NoParams &params, Reply reply);
  /// As withIndex, for a request about the document at `uri`: output code or a graph of an earlier run (one
  /// only the baseline run's index holds, or another run's (otherRunIndex), whose index is then built on the
  /// request's thread and kept, two at most) is answered from that run's index, so it navigates within its
  /// own run; everything else from the current run's.
  void withIndexFor(const std::string &uri, Reply reply,
                    std::function<void(const index::Index &, const Reply &)> task);

private:
  using Handler = std::function<void(const json &params, Reply reply)>;
  using NotificationHandler = std::function<void(const json &params)>;
  void registerHandlers(); // server/Dispatch.cpp
  template <class Params> void bind(const char *method, void (Server::*handler)(const Params &, Reply));
  /// Which index answers a feature's request.
  enum class AnsweredFrom {
    DocumentsRun, ///< withIndexFor the params' document: output code of an earlier run from its own run.
    CurrentRun,   ///< withIndex.
    CurrentRunWithProfiles, ///< withIndex(needsProfiles): an answer that is GPU time.
  };
  /// Binds `method` to a feature: parses its params, builds the FeatureContext (makeFeatureContext: the
  /// index, the baseline, the request's texts, its document) once the index is ready, and sends the
  /// feature's result, or its FeatureError as the error.
  template <class Params, class Result>
  void bindFeature(const char *method, Result (*feature)(const FeatureContext &, const Params &),
                   AnsweredFrom from);
  template <class Params> void bindNotification(const char *method, void (Server::*handler)(const Params &));
  /// A notification without params (`exit`, `initialized`): whatever params it carries are ignored.
  void bindNotification(const char *method, void (Server::*handler)());
  void handleMessage(const std::string &body);
  void handleRequest(protocol::Message &message);
  void handleNotification(protocol::Message &message);

  enum class Rebuild {
    Full,        ///< Read every input from the start (IndexCache cleared).
    Incremental, ///< Reuse the previous build's logs and analyses (IndexCache).
  };
  /// Starts a build on the builder thread, cancelling (and joining) a running one. Called from the reader and
  /// watcher threads; serialised by startMutex_.
  void startIndexing(Rebuild kind = Rebuild::Full);
  /// Publishes a build's index. `endProgress`: ends the build's $/progress (a second pass of the same build,
  /// after the kept import roots were out of date, has none). `more`: a second build follows (the profiles
  /// IndexOptions::deferProfiles left out): the status still says indexing and the baseline waits for it.
  void indexingDone(std::shared_ptr<const index::Index> index,
                    std::shared_ptr<const index::SourceReader> sources, uint64_t generation,
                    const index::IndexOptions &options, bool endProgress = true, bool more = false);
  /// The Python environment for `query`: the last answer when it did not change since (and no reindex asked
  /// again), else the environments read again and a new query of the interpreter (the builder thread, or the
  /// thread asking beside the build it starts). `background`: see queryImportRoots.
  PythonEnvironment pythonEnvironment(const PythonQuery &query,
                                      const std::atomic<bool> *background = nullptr);
  /// The environment pythonEnvironment() found for the same query, when it is known.
  std::optional<PythonEnvironment> knownPythonEnvironment(const PythonQuery &query);
  /// The environment an earlier session found for the same interpreter, when nothing it depends on changed
  /// since (ImportRootsCache); it becomes the known one, marked `kept`, until asked again.
  std::optional<PythonEnvironment> keptPythonEnvironment(const PythonQuery &query);
  /// The query for the current settings (reader thread).
  PythonQuery pythonQuery() const;
  /// The next build asks the interpreter again.
  void forgetPythonEnvironment();
  /// After a build: pushes the diagnostics (compile health and runtime findings) of every user file with
  /// compile-health events and every open document to clients that do not pull them, clearing those of
  /// documents that no longer have any; asks pulling clients to refresh (server/Diagnostics.cpp).
  void publishAllDiagnostics(const index::Index &index);
  /// Pushes the diagnostics of these documents (not to pulling clients). Serialised by publishedMutex_.
  void publishDiagnostics(const index::Index &index, const std::vector<std::string> &uris);
  void sendNotification(std::string_view method, json params);
  /// Sends a request to the client; returns its id. Answers are not awaited (see handleMessage).
  json sendRequest(std::string_view method, json params);
  /// The `inductor/status` object (server/Status.cpp).
  json statusJson() const;
  /// Sends `inductor/status`; during a build at most every 250 ms unless `force`.
  void sendStatus(bool force);
  /// Whether a build runs that has not served its index yet.
  bool buildRunning();
  /// Replaces the served SourceReader once the import roots are known, where the index was served before the
  /// interpreter answered (nothing in it needed them).
  void sourcesKnown(std::shared_ptr<const index::SourceReader> sources, uint64_t generation);
  /// Shows the notices of a new index that were not shown before (server/Notices.h).
  void publishNotices(const index::Index &index, const index::IndexOptions &options);
  // Watching (server/Watcher.cpp).
  /// Starts the watcher thread (inotify events and the client's, debounced into incremental rebuilds).
  void startWatcher();
  void stopWatcher();
  /// inotify watch of one directory (recursive: directories created in it are watched too). False when it
  /// was watched already, or cannot be (no inotify, the limit reached).
  bool addWatch(const std::string &dir, bool recursive);
  /// Watches `root` and every directory below it that is not skipped; true if it holds a trace input.
  bool watchTree(const std::string &root);
  /// Makes the configured trace inputs (traceDirs, folders or files) those watched for their own deletion
  /// and creation (called by startIndexing; a no-op when they did not change).
  void setWatchedInputs(const std::vector<std::string> &inputs);
  /// Watches, for each configured input, the nearest existing directory above it (its parent once it
  /// exists), non-recursively and for the one name that leads to the input: an input deleted and made again
  /// (or made after the server started) is seen. `lookInside`: watch the tree of each input that exists now.
  void watchInputParents(bool lookInside);
  /// IndexOptions::directoryListed for a build with these options: watches each directory discovery lists,
  /// before it lists it, except those the watcher skips and what lies below them (called from one thread).
  index::DirectoryListed watchWhatDiscoveryLists(const index::IndexOptions &options);
  /// Watches the directories of these logs (to follow appends closely).
  void watchLogDirectories(const std::vector<std::string> &logs);
  /// After `initialized`: asks the client to watch the workspace for trace inputs (dynamic registration).
  void registerClientWatchers();
  /// The client's answer to registerClientWatchers() (logged when it refuses).
  void onRegistrationAnswer(const protocol::Message &response);

  protocol::Transport &transport_;
  ServerOptions options_;
  std::map<std::string, Handler, std::less<>> handlers_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;

  protocol::OffsetEncoding encoding_ = protocol::OffsetEncoding::UTF16;
  protocol::ClientCapabilities capabilities_;
  index::IndexOptions indexOptions_;
  std::string pythonPathSetting_; ///< The `pythonPath` setting (reader thread).
  /// initializationOptions `trusted` (default true): false runs no interpreter (an untrusted workspace).
  bool trusted_ = true;
  bool initialized_ = false, shutdown_ = false, exit_ = false;

  mutable std::mutex pythonMutex_;
  std::string pythonKey_;    ///< PythonQuery::key() of python_.
  bool pythonKnown_ = false; ///< False: ask the interpreter (again).
  PythonEnvironment python_;
  ImportRootsCache importRootsCache_;
  std::shared_ptr<const index::SourceReader> sources_; ///< Guarded by indexMutex_.
  mutable GeneratedCodeMatches codeMatches_; ///< For open documents (DocumentSnapshot::generatedCodeMatch).

  mutable TextViewCache textViews_;
  mutable std::mutex docsMutex_;
  std::unordered_map<std::string, std::shared_ptr<const Document>> docs_;

  mutable std::mutex indexMutex_;
  std::shared_ptr<const index::Index> index_;
  bool indexing_ = false;
  /// indexingDone() is telling the client about the build that ended (its status says `indexing: false`):
  /// the watcher's rebuild waits for it (buildRunning), or the status would say the next build is running
  /// and the client would never see this one served.
  bool publishing_ = false;
  uint64_t generation_ = 0;
  /// Indexes served so far (inductor/status `builds`): tells a new index from a status update of the same
  /// one.
  uint64_t builds_ = 0;
  /// Requests accepted by withIndex and not answered yet (waiting_, the pool's queue, running); bounded by
  /// ServerOptions::maxPendingRequests. Declared before what holds the requests, which outlive it otherwise.
  std::atomic<size_t> pendingRequests_{0};
  /// Requests accepted by withIndex and not answered yet, for $/cancelRequest. Declared before what holds the
  /// requests (waiting_, pool_): each holds an entry of it until it is answered or dropped.
  InFlightRequests inFlight_;
  std::atomic<bool> busyLogged_{false};        ///< "server busy" was logged (once per episode).
  std::vector<std::function<void()>> waiting_; ///< Requests queued until the first index is ready.
  /// Requests of withIndex(needsProfiles) queued until an index with its profiles joined is served.
  std::vector<std::function<void()>> waitingForProfiles_;
  /// The running build's progress, for inductor/status: percentage and what it is doing.
  uint32_t progressPercent_ = 0;
  std::string progressMessage_;
  std::chrono::steady_clock::time_point lastStatus_{};
  /// Notices of the current index (kind, type, message), and the keys of those shown so far (once each).
  json notices_ = json::array();
  std::set<std::string> noticesShown_;
  std::thread builder_;
  std::mutex startMutex_; ///< Serialises startIndexing() (reader and watcher threads).
  /// What the previous build leaves for an incremental one. Used by the builder thread, and cleared by
  /// startIndexing() while no builder runs.
  index::IndexCache indexCache_;
  std::atomic<bool> cancelBuild_{false};

  std::unique_ptr<boost::asio::thread_pool> pool_;
  std::atomic<int64_t> nextRequestId_{1};
  std::string progressToken_;

  std::mutex publishedMutex_;
  std::set<std::string> publishedUris_; ///< URIs with diagnostics pushed to the client.

  std::thread watcher_;
  std::atomic<bool> stopWatcher_{false};
  int watcherFd_ = -1;
  struct WatchedDirectory {
    std::string path;
    bool recursive = false;
    /// Names in this directory on the way to a configured input (watchInputParents).
    std::set<std::string> anchors;
    /// Watched only for `anchors` (the parent of an input): events for other names are ignored.
    bool anchorOnly = false;
  };
  std::mutex watchMutex_; ///< Guards everything below (watcher, reader and builder threads).
  std::unordered_map<int, WatchedDirectory> watches_; ///< By inotify watch descriptor.
  std::unordered_map<std::string, int> watchedPaths_;
  std::vector<std::string> watchedInputs_; ///< The configured inputs, absolute and normalised.
  bool watchLimitLogged_ = false;
  size_t watchesLogged_ = 0; ///< The number of watches last logged.
  /// Client file events since the watcher thread last looked, and whether all were appends to logs.
  bool clientEvents_ = false, clientAppendsOnly_ = true;
  json watchRegistration_; ///< Id of the client/registerCapability request.

  // Runs (server/Runs.cpp).
  /// The baseline run of `current` for a `baseline` setting (`options`: the current build's), or why none.
  struct BaselineChoice {
    std::optional<index::NamedRun> run;
    std::string whyNone; ///< Without a run: inductor/compare's reason ("no baseline: ...").
  };
  /// "none", "previous" (before the current run), else index::resolveRunName (relative paths from the first
  /// workspace folder), the current run itself refused. Reads the logs of a path outside the inputs.
  static BaselineChoice baselineRunOf(const index::Index &current, const std::string &setting,
                                      const index::IndexOptions &options);
  /// After the current run's index is served: builds the baseline run's (unless it is the one kept), on
  /// baselineBuilder_, cancelling one running. Called from the builder and reader threads.
  void startBaseline(std::shared_ptr<const index::Index> current, index::IndexOptions options);
  void stopBaseline();
  std::shared_ptr<const index::Index> baselineIndex() const;
  /// inductor.selectRun / inductor.selectBaseline; for a baseline that names no run (once the current
  /// index is served), why (the setting is left as it was), else "".
  std::string selectRun(const protocol::InductorCommandParams &params, bool baseline);
  /// Why there is no baseline index now (inductor/compare's reason): the setting, a name that matches no
  /// run, or the baseline still being indexed.
  std::string baselineWhyNone() const;
  std::string baselineSetting_ = "previous";        ///< Guarded by indexMutex_.
  std::shared_ptr<const index::Index> baseline_;    ///< Guarded by indexMutex_.
  std::optional<index::NamedRun> baselineWanted_;   ///< The run being built or kept; indexMutex_.
  std::optional<index::NamedRun> baselineBuiltFor_; ///< The run baseline_ is of; indexMutex_.
  std::string baselineWhyNone_;                     ///< baselineWhyNone(); indexMutex_.
  std::string baselineErrorShown_; ///< The setting whose error was shown to the user; indexMutex_.
  std::mutex baselineStartMutex_;  ///< Serialises startBaseline().
  std::thread baselineBuilder_;
  std::atomic<bool> cancelBaseline_{false};
  index::IndexCache baselineCache_; ///< Used by baselineBuilder_ only.
  /// The index of the earlier run (not the current one) that holds the file at `path`: the run whose debug
  /// directories hold it, else one of the two runs whose logs share the longest directory prefix with it (a
  /// cache file); built on first use from the options of the last build, then kept (otherRuns_, the two
  /// used last). Null when no such run holds it.
  std::shared_ptr<const index::Index> otherRunIndex(const index::Index &current, const std::string &path);
  /// Keeps a served build's options for otherRunIndex (before its index is served: requests waiting for it
  /// may ask at once).
  void keepOptionsForOtherRuns(const index::IndexOptions &options);
  std::mutex otherRunsMutex_; ///< Guards otherRuns_ and otherRunOptions_; held while one is built.
  std::vector<std::shared_ptr<const index::Index>> otherRuns_; ///< Most recently used last.
  std::optional<index::IndexOptions> otherRunOptions_;
};

} // namespace inductor::server
