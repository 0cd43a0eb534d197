// server/lsp/Server.h: the LSP session. The only place that knows the protocol's session (transport,
// requests, replies, documents) and what it serves from: its Workspace (server/workspace/Workspace.h), the
// features (server/features/Features.h) answer from.
//
// Threads ("life of a request", as in clangd's threads.md):
//  - The reader thread runs Server::run(): it decodes each message, applies notifications that change state
//    (didOpen/didChange/didClose, configuration) at once, and hands requests to the worker pool. It never
//    waits for index work.
//  - The worker pool (boost::asio::thread_pool, `--jobs` threads; 0 runs every request inline on the reader
//    thread, which the tests use) answers requests. Each request takes a snapshot of the immutable index
//    (shared_ptr<const Index>) and of the document it is about, so no lock is held while it computes.
//  - The workspace's threads (the index builder, the baseline builder, the watcher) build and swap in new
//    indexes (server/workspace/Workspace.h). Requests that arrive before the first index is ready wait in a
//    queue here and are answered once the workspace serves an index that can answer them
//    (WorkspaceClient::indexServed, Server::admits): never an empty answer because of a race. An index of a
//    run's first rank alone (IndexStats::ranksDeferred) answers only navigation in a document it holds; an
//    index whose profiles are not joined yet answers everything but GPU time.
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
#include "server/lsp/Cancellation.h"
#include "server/text/Documents.h"
#include "server/text/TextViews.h"
#include "server/workspace/Workspace.h"

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

/// The LSP session: the transport, dispatch, replies, documents, cancellation and the worker pool. What it
/// serves from is its Workspace (server/workspace/Workspace.h), whose client it is.
/// What of the served index a request's answer reads (Server::withIndex): it waits until an index that has
/// it is the current one (Server::admits).
struct Needs {
  /// GPU time (inductor/hotLines): not from an index served before its profiles were joined
  /// (IndexOptions::deferProfiles).
  bool profiles = false;
  /// Navigation within this one document (definition, links, symbols): may be answered from an index of
  /// the run's first rank alone (IndexStats::ranksDeferred) when that index holds the document. Empty:
  /// the answer is about the whole run, so it needs every rank.
  std::string navigatesIn;
};

/// Whether `index` holds the document at `uri` as an artifact (a file: copy, or an inductor-trace: text)
/// (server/lsp/Runs.cpp).
bool holds(const index::Index &index, const std::string &uri);

class Server final : private WorkspaceClient {
public:
  Server(protocol::Transport &transport, const ServerOptions &options);
  ~Server() override;

  /// Reads and handles messages until `exit` or end of input. Returns the process exit code (0 after a
  /// shutdown request, 1 otherwise, as the spec says).
  int run();

  // Lifecycle and document sync (server/lsp/Lifecycle.cpp).
  void onInitialize(const protocol::InitializeParams &params, Reply reply);
  void onShutdown(const protocol::NoParams &params, Reply reply);
  // The reader loop's own notifications (server/lsp/Server.cpp).
  void onInitialized();
  void onExit();
  void onCancelRequest(const protocol::CancelParams &params);
  void onDidOpen(const protocol::DidOpenTextDocumentParams &params);
  void onDidChange(const protocol::DidChangeTextDocumentParams &params);
  void onDidClose(const protocol::DidCloseTextDocumentParams &params);
  void onDidChangeConfiguration(const protocol::DidChangeConfigurationParams &params);
  void onDidChangeWatchedFiles(const protocol::DidChangeWatchedFilesParams &params);
  void onExecuteCommand(const protocol::InductorCommandParams &params, Reply reply);

  // The requests answered from an index are features (server/features/Features.h), bound by bindFeature;
  // those below read the server's own state too.
  void onStatus(const protocol::NoParams &params, Reply reply); // server/lsp/Status.cpp
  // What changed since the baseline run (index/compare/Compare.h): inductor/compare (server/lsp/Compare.cpp).
  void onCompare(const protocol::CompareParams &params, Reply reply);

  /// What a request reads documents from, taken now (server/text/Documents.h): the open documents, the reader
  /// of source files, the caches kept between requests and the position encoding.
  DocumentSnapshot documents() const;
  /// The open document at `uri`, or nullptr.
  std::shared_ptr<const Document> openDocument(const std::string &uri) const;
  /// Views of open documents' and source files' texts, kept between requests (TextViews.h).
  TextViewCache &textViews() const { return textViews_; }
  protocol::OffsetEncoding encoding() const { return encoding_; }

  /// Runs `task(index)` on the pool once the index is ready; replies RequestCancelled if the request was
  /// cancelled before it started, InternalError if the task throws.
  /// `needs`: what of the index the answer reads (Needs); the request waits until an index that has it is
  /// the current one (admits).
  void withIndex(Reply reply, std::function<void(const index::Index &, const Reply &)> task,
                 Needs needs = {});
  /// Whether `served` (null before the first index) can answer a request that needs `needs`.
  static bool admits(const index::Index *served, const Needs &needs);
  /// Runs (server/lsp/Runs.cpp): as withIndex, with the baseline run's index beside the current one's (null
  /// when there is no baseline: the `baseline` setting is "none", there is no earlier run, or it is not built
  /// yet). Both stay alive until `task` returns.
  void withRuns(
      Reply reply,
      std::function<void(const index::Index &current, const index::Index *baseline, const Reply &)> task);
  void onRuns(const protocol::NoParams &params, Reply reply);
  /// As withIndex, for a request about the document at `uri`: output code or a graph of an earlier run (one
  /// only the baseline run's index holds, or another run's (otherRunIndex), whose index is then built on the
  /// request's thread and kept, two at most) is answered from that run's index, so it navigates within its
  /// own run; everything else from the current run's.
  /// `navigation`: the answer is navigation within that document (Needs::navigatesIn).
  void withIndexFor(const std::string &uri, Reply reply,
                    std::function<void(const index::Index &, const Reply &)> task, bool navigation = false);

private:
  using Handler = std::function<void(const json &params, Reply reply)>;
  using NotificationHandler = std::function<void(const json &params)>;
  void registerHandlers(); // server/lsp/Dispatch.cpp
  template <class Params> void bind(const char *method, void (Server::*handler)(const Params &, Reply));
  /// Which index answers a feature's request.
  enum class AnsweredFrom {
    DocumentsRun, ///< withIndexFor the params' document: output code of an earlier run from its own run.
    /// As DocumentsRun, for navigation within that document: answered from the first rank's index too.
    DocumentsNavigation,
    CurrentRun,             ///< withIndex.
    CurrentRunWithProfiles, ///< withIndex(Needs::profiles): an answer that is GPU time.
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

  /// After a build: pushes the diagnostics (compile health and runtime findings) of every user file with
  /// compile-health events and every open document to clients that do not pull them, clearing those of
  /// documents that no longer have any; asks pulling clients to refresh (server/lsp/Publish.cpp).
  void publishAllDiagnostics(const index::Index &index);
  /// Pushes the diagnostics of these documents (not to pulling clients). Serialised by publishedMutex_.
  void publishDiagnostics(const index::Index &index, const std::vector<std::string> &uris);
  void sendNotification(std::string_view method, json params);
  /// Sends a request to the client; returns its id. Answers are not awaited (see handleMessage).
  json sendRequest(std::string_view method, json params);
  /// The `inductor/status` object (server/lsp/Status.cpp): the workspace's, and the requests waiting.
  protocol::StatusResult status() const;
  /// Sends `inductor/status`; during a build at most every 250 ms unless `force`.
  void sendStatus(bool force);
  /// After `initialized`: asks the client to watch the workspace for trace inputs (dynamic registration).
  void registerClientWatchers();
  /// The client's answer to registerClientWatchers() (logged when it refuses).
  void onRegistrationAnswer(const protocol::Message &response);

  // WorkspaceClient (server/lsp/Server.cpp).
  void notify(std::string_view method, json params) override { sendNotification(method, std::move(params)); }
  json request(std::string_view method, json params) override {
    return sendRequest(method, std::move(params));
  }
  const protocol::ClientCapabilities &capabilities() const override { return capabilities_; }
  void indexServed(const std::shared_ptr<const index::Index> &index) override;
  void statusChanged(bool force) override { sendStatus(force); }
  void diagnosticsChanged(const index::Index &current) override { publishAllDiagnostics(current); }
  std::vector<OpenDocument> openDocuments() const override;

  protocol::Transport &transport_;
  ServerOptions options_;
  std::map<std::string, Handler, std::less<>> handlers_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;

  protocol::OffsetEncoding encoding_ = protocol::OffsetEncoding::UTF16;
  protocol::ClientCapabilities capabilities_;
  bool initialized_ = false, shutdown_ = false, exit_ = false;

  mutable GeneratedCodeMatches codeMatches_; ///< For open documents (DocumentSnapshot::generatedCodeMatch).
  mutable TextViewCache textViews_;
  mutable std::mutex docsMutex_;
  std::unordered_map<std::string, std::shared_ptr<const Document>> docs_;

  /// Guards the queues below. Taken before the workspace's own lock, never while it is held.
  mutable std::mutex queueMutex_;
  /// Requests accepted by withIndex and not answered yet (waiting_, the pool's queue, running); bounded by
  /// ServerOptions::maxPendingRequests. Declared before what holds the requests, which outlive it otherwise.
  std::atomic<size_t> pendingRequests_{0};
  /// Requests accepted by withIndex and not answered yet, for $/cancelRequest. Declared before what holds the
  /// requests (waiting_, pool_): each holds an entry of it until it is answered or dropped.
  InFlightRequests inFlight_;
  std::atomic<bool> busyLogged_{false}; ///< "server busy" was logged (once per episode).
  /// A request of withIndex queued until an index that can answer it is served.
  struct Waiting {
    std::function<void()> run;
    Needs needs;
  };
  std::vector<Waiting> waiting_;
  /// Held while a status notification is made and sent (before queueMutex_): statuses reach the client in
  /// the order they were made, so a status made before an index was served is never the last one it reads.
  std::mutex statusMutex_;
  std::chrono::steady_clock::time_point lastStatus_{}; ///< Guarded by statusMutex_.

  std::unique_ptr<boost::asio::thread_pool> pool_;
  std::atomic<int64_t> nextRequestId_{1};

  std::mutex publishedMutex_;
  std::set<std::string> publishedUris_; ///< URIs with diagnostics pushed to the client.
  json watchRegistration_;              ///< Id of the client/registerCapability request.

  /// What the session serves from. Last: built after what its callbacks use, stopped first (~Server).
  Workspace workspace_;
};

} // namespace inductor::server
