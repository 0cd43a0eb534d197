// server/workspace/Workspace.h: what the server serves from, and everything that keeps it current: the
// settings, the index and its builds, the Python environment, the watcher, the runs and the baseline.
//
// The LSP session (server/lsp/Server.h) owns one Workspace and is its WorkspaceClient: the workspace tells
// it what happened (an index served, the status changed, diagnostics to publish again) and sends the editor
// its notifications through it; the session never touches the workspace's state but through its methods,
// and the workspace knows nothing of requests, replies or documents. clangd's split: ClangdLSPServer (the
// session) and ClangdServer with its Callbacks (the workspace).
//
// Threads (the server's "life of a request", server/lsp/Server.h):
//  - The index builder thread builds a new Index and swaps it in (like clangd's SwapIndex). The watcher
//    thread (inotify, and the client's file events) debounces changes into incremental rebuilds: the builder
//    keeps an index::IndexCache across builds, so a log that grew is read only from where the last build
//    stopped and only new or changed compiles are analysed. Configuration changes and `inductor.reindex`
//    make full rebuilds (the cache is cleared first). The cache is touched only by the builder thread, and
//    by startIndexing() after it has joined the previous builder.
//  - The baseline builder thread builds the baseline run's index after the current one is served.
//  - The accessors (index(), baselineIndex(), sources(), status()) are called from any thread: each takes a
//    snapshot under indexMutex_.
#pragma once

#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "protocol/InductorProtocol.h"
#include "protocol/Json.h"
#include "protocol/Protocol.h"
#include "server/workspace/PythonEnv.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace inductor::server {

using protocol::json;

struct ServerOptions {
  /// Worker threads for requests and index analysis; 0 answers requests inline on the reader thread.
  unsigned jobs = 2;
  /// Watch trace inputs for changes (inotify) and reindex.
  bool watch = true;
  /// How long the Python interpreter may take to print its sys.path (server/workspace/PythonEnv.h).
  std::chrono::milliseconds pythonTimeout{5000};
  /// Requests accepted and not answered yet, at most (waiting for the first index, queued for a worker or
  /// running); past it a request is answered at once with ServerCancelled. Tests lower it.
  size_t maxPendingRequests = 1000;
  /// Where the server keeps what outlives a session (ImportRootsCache in server/workspace/PythonEnv.h);
  /// empty keeps nothing. main.cpp passes ImportRootsCache::defaultDir() unless `--cache-dir` says otherwise.
  std::string cacheDir = {};
  /// A run of more ranks than this is served first from its lowest rank's log alone, for navigation in that
  /// rank's generated code (IndexOptions::deferRanksOver, issue 45); every other answer waits for all ranks.
  /// 0: every rank is read before anything is answered. Tests lower it; `--first-rank-over N`.
  size_t firstRankOver = 8;
  /// And only when the run's logs hold this much (IndexOptions::deferRanksFromBytes): below it every rank is
  /// read in well under a tenth of a second on two cores (hf_bert-x32: 32 ranks, 199 MB, 50 ms), and the
  /// first rank's build would only delay the other ranks' documents. `--first-rank-over N` sets it to 0.
  uint64_t firstRankFromBytes = uint64_t{256} << 20;
  /// When the logs hold this much or more (0: never), the first build analyses only the compiles of the
  /// open generated documents (output code, its graphs; IndexOptions::firstDocuments) and serves them for
  /// navigation in those documents, then analyses every compile (issue 45: a 115 MB log's build is ~70 ms
  /// on two cores, its scan ~25 ms). `--first-compiles-from BYTES`; tests set 1.
  uint64_t firstCompilesFromBytes = uint64_t{64} << 20;
};

/// An open document: its URI and text (WorkspaceClient::openDocuments).
struct OpenDocument {
  std::string uri, text;
};
/// The open documents as IndexOptions::firstDocuments wants them: an `inductor-trace:` document by its
/// virtual name (Artifact::virtualName: the URI's path without its leading slash), a file by its text.
std::vector<index::IndexOptions::FirstDocument> firstDocumentsOf(const std::vector<OpenDocument> &open);

/// What the workspace tells the session it belongs to (server/lsp/Server.h implements it). Called from the
/// builder, baseline and watcher threads, and from the thread that called the workspace.
class WorkspaceClient {
public:
  virtual ~WorkspaceClient() = default;
  /// A notification / request to the editor (answers to requests are not awaited).
  virtual void notify(std::string_view method, json params) = 0;
  virtual json request(std::string_view method, json params) = 0;
  /// The editor's capabilities (progress, refresh requests, file watching), fixed after `initialize`.
  virtual const protocol::ClientCapabilities &capabilities() const = 0;
  /// `index` is the current one now (Workspace::index()): the session runs the requests that waited for it
  /// (those that need GPU time once its profiles are joined) and forgets what it derived from the last.
  virtual void indexServed(const std::shared_ptr<const index::Index> &index) = 0;
  /// What the status says changed; `force`: send it now (else at most every 250 ms).
  virtual void statusChanged(bool force) = 0;
  /// The diagnostics of `current` changed (a new index, or a new baseline to compare with).
  virtual void diagnosticsChanged(const index::Index &current) = 0;
  /// The documents open in the editor now, copies (the builder's IndexOptions::firstDocuments).
  virtual std::vector<OpenDocument> openDocuments() const = 0;
};

/// The settings a workspace is built from: `initialize`'s, then each configuration change's.
struct WorkspaceSettings {
  index::IndexOptions index;
  std::string pythonPath; ///< The `pythonPath` setting.
  /// initializationOptions `trusted` (default true): false runs no interpreter (an untrusted workspace).
  bool trusted = true;
  std::string baseline = "previous"; ///< The `baseline` setting.
};

class Workspace {
public:
  Workspace(WorkspaceClient &client, ServerOptions options);
  /// Stops every thread (builder, baseline, watcher); nothing is served or sent after it returns.
  ~Workspace();
  /// Stops the threads now (the session calls it before what the workspace's callbacks use goes away).
  void stop();

  enum class Rebuild {
    Full,        ///< Read every input from the start (IndexCache cleared).
    Incremental, ///< Reuse the previous build's logs and analyses (IndexCache).
  };
  /// The first settings (`initialize`), then the first build; the watcher starts first when watching.
  void start(WorkspaceSettings settings);
  /// Settings that changed (configuration): applied, and everything rebuilt. `pythonChanged`: the
  /// interpreter is asked again.
  void configure(WorkspaceSettings settings);
  /// A copy of the current settings (any thread).
  WorkspaceSettings settings() const;
  /// `inductor.reindex`: read everything, ask the interpreter again (a package may have been installed).
  void reindex();
  /// Cancels a running build (`shutdown`).
  void cancelBuild() { cancelBuild_ = true; }
  /// inductor.selectRun / inductor.selectBaseline; for a baseline that names no run (once the current
  /// index is served), why (the setting is left as it was), else "".
  std::string selectRun(const protocol::InductorCommandParams &params, bool baseline);
  /// Client file events (workspace/didChangeWatchedFiles): those of trace inputs join inotify's.
  void clientFileEvents(const protocol::DidChangeWatchedFilesParams &params);

  /// The served index; null before the first.
  std::shared_ptr<const index::Index> index() const;
  /// The baseline run's index (null when there is no baseline: the `baseline` setting is "none", there is
  /// no earlier run, or it is not built yet).
  std::shared_ptr<const index::Index> baselineIndex() const;
  /// Why there is no baseline index now (inductor/compare's reason): the setting, a name that matches no
  /// run, or the baseline still being indexed.
  std::string baselineWhyNone() const;
  /// The reader of user source files for the current index (its ReadPolicy covers the index's roots,
  /// index::readRoots: the workspace folders, the trace inputs, the profiles and run logs, the pathMappings
  /// targets and the Python import roots). Never null.
  std::shared_ptr<const index::SourceReader> sources() const;
  /// The index of the earlier run (not the current one) that holds the file at `path`: the run whose debug
  /// directories hold it, else one of the two runs whose logs share the longest directory prefix with it (a
  /// cache file); built on first use from the options of the last build, then kept (otherRuns_, the two
  /// used last). Null when no such run holds it.
  std::shared_ptr<const index::Index> otherRunIndex(const index::Index &current, const std::string &path);
  /// The `inductor/status` object but for what the session knows (waitingRequests).
  protocol::StatusResult status() const;

private:
  /// Starts a build on the builder thread, cancelling (and joining) a running one. Called from the reader and
  /// watcher threads; serialised by startMutex_.
  void startIndexing(Rebuild kind = Rebuild::Full);
  /// Publishes a build's index. `endProgress`: ends the build's $/progress (a second pass of the same build,
  /// after the kept import roots were out of date, has none). `more`: a second build follows (the profiles
  /// IndexOptions::deferProfiles left out): the status still says indexing and the baseline waits for it.
  void indexingDone(std::shared_ptr<const index::Index> index,
                    std::shared_ptr<const index::SourceReader> sources, uint64_t generation,
                    const index::IndexOptions &options, bool endProgress = true, bool more = false);
  /// Serves an index of part of the run (IndexStats::partial: the first rank alone, the open documents'
  /// compiles alone) while the build of all of it goes on: the session answers from it only navigation in a
  /// document it holds (Server::withIndex), so nothing else is published (no diagnostics, notices, refresh
  /// or baseline) and the status keeps its counts back (status()).
  void partialServed(std::shared_ptr<const index::Index> index,
                     std::shared_ptr<const index::SourceReader> sources, uint64_t generation);
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
  PythonQuery pythonQuery(const WorkspaceSettings &settings) const;
  /// The next build asks the interpreter again.
  void forgetPythonEnvironment();
  /// Whether a build runs that has not served its index yet.
  bool buildRunning();
  /// Whether trace inputs changed and no build has started for them (inductor/status `changesPending`): an
  /// event in the kernel's inotify queue, one the watcher thread is reading, client events not taken yet, or
  /// a rebuild due. Read before `indexing` (a rebuild clears it only once it has started).
  bool changesPending() const;
  /// Replaces the served SourceReader once the import roots are known, where the index was served before the
  /// interpreter answered (nothing in it needed them).
  void sourcesKnown(std::shared_ptr<const index::SourceReader> sources, uint64_t generation);
  /// Shows the notices of a new index that were not shown before (server/workspace/Notices.h).
  void publishNotices(const index::Index &index, const index::IndexOptions &options);
  // Watching (server/workspace/Watcher.cpp).
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

  // Runs (server/workspace/Runs.cpp).
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
  /// Keeps a served build's options for otherRunIndex (before its index is served: requests waiting for it
  /// may ask at once).
  void keepOptionsForOtherRuns(const index::IndexOptions &options);

  /// Copies what other threads read of settings_ (baselineSetting_, trusted_) under indexMutex_.
  void shareSettings();

  WorkspaceClient &client_;
  ServerOptions options_;
  /// Written on the reader thread (start, configure, selectRun) and read by builds the watcher starts:
  /// guarded by settingsMutex_, taken before indexMutex_ and never while a build is joined.
  mutable std::mutex settingsMutex_;
  WorkspaceSettings settings_;
  bool stopped_ = false;

  mutable std::mutex pythonMutex_;
  std::string pythonKey_;    ///< PythonQuery::key() of python_.
  bool pythonKnown_ = false; ///< False: ask the interpreter (again).
  PythonEnvironment python_;
  ImportRootsCache importRootsCache_;

  mutable std::mutex indexMutex_;
  std::shared_ptr<const index::Index> index_;
  std::shared_ptr<const index::SourceReader> sources_;
  bool indexing_ = false;
  /// indexingDone() is telling the client about the build that ended (its status says `indexing: false`):
  /// the watcher's rebuild waits for it (buildRunning), or the status would say the next build is running
  /// and the client would never see this one served.
  bool publishing_ = false;
  uint64_t generation_ = 0;
  /// Indexes served so far (inductor/status `builds`): tells a new index from a status update of the same
  /// one.
  uint64_t builds_ = 0;
  /// The running build's progress, for inductor/status: percentage and what it is doing.
  uint32_t progressPercent_ = 0;
  std::string progressMessage_;
  /// Notices of the current index, and the keys of those shown so far (once each).
  std::vector<protocol::NoticeStatus> notices_;
  std::set<std::string> noticesShown_;
  std::thread builder_;
  std::mutex startMutex_; ///< Serialises startIndexing() (reader and watcher threads).
  /// What the previous build leaves for an incremental one. Used by the builder thread, and cleared by
  /// startIndexing() while no builder runs.
  index::IndexCache indexCache_;
  std::atomic<bool> cancelBuild_{false};
  std::string progressToken_;

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
  /// The watcher thread is reading and acting on inotify events; a rebuild is due (its `pending`). See
  /// changesPending().
  std::atomic<bool> watchBusy_{false}, rebuildDue_{false};
  mutable std::mutex watchMutex_; ///< Guards everything below (watcher, reader and builder threads).
  std::unordered_map<int, WatchedDirectory> watches_; ///< By inotify watch descriptor.
  std::unordered_map<std::string, int> watchedPaths_;
  std::vector<std::string> watchedInputs_; ///< The configured inputs, absolute and normalised.
  bool watchLimitLogged_ = false;
  size_t watchesLogged_ = 0; ///< The number of watches last logged.
  /// Client file events since the watcher thread last looked, and whether all were appends to logs.
  bool clientEvents_ = false, clientAppendsOnly_ = true;

  std::string baselineSetting_ = "previous";        ///< settings_.baseline; guarded by indexMutex_.
  bool trusted_ = true;                             ///< settings_.trusted (the status); indexMutex_.
  std::shared_ptr<const index::Index> baseline_;    ///< Guarded by indexMutex_.
  std::optional<index::NamedRun> baselineWanted_;   ///< The run being built or kept; indexMutex_.
  std::optional<index::NamedRun> baselineBuiltFor_; ///< The run baseline_ is of; indexMutex_.
  std::string baselineWhyNone_;                     ///< baselineWhyNone(); indexMutex_.
  std::string baselineErrorShown_; ///< The setting whose error was shown to the user; indexMutex_.
  std::mutex baselineStartMutex_;  ///< Serialises startBaseline().
  std::thread baselineBuilder_;
  std::atomic<bool> cancelBaseline_{false};
  index::IndexCache baselineCache_; ///< Used by baselineBuilder_ only.
  std::mutex otherRunsMutex_;       ///< Guards otherRuns_ and otherRunOptions_; held while one is built.
  std::vector<std::shared_ptr<const index::Index>> otherRuns_; ///< Most recently used last.
  std::optional<index::IndexOptions> otherRunOptions_;
};

} // namespace inductor::server
