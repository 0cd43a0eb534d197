// tests/e2e/LSPClient.h: drives the real `inductor-ls` binary over pipes, as an editor would.
//
// The client starts INDUCTOR_LS_BINARY as a child process (`--no-watch --log-level debug --log-file <tmp>`),
// writes LSP frames (Content-Length headers, LSP 3.17 base protocol) to its stdin and reads its stdout on a
// reader thread with protocol::JSONTransport. Everything the server sends is recorded:
//  - responses are matched to requests by id;
//  - notifications (`$/progress`, `window/logMessage`, `inductor/status`...) are kept in arrival order;
//  - server->client requests (`window/workDoneProgress/create`, `workspace/codeLens/refresh`...) are kept
//    and answered with a `null` result at once, from the reader thread.
// Anything on stdout that is not an LSP frame is recorded as a protocol problem (stdout must carry only LSP
// frames; see server/lsp/Server.h), and tests check there is none.
//
// Never hangs: every wait has a timeout; a timeout fails the current test (doctest FAIL_CHECK) and kills the
// child, after which every later request fails at once. The destructor kills a child that is still running.
// On every failure the client prints the tail of the server's log (and stderr); tests add
// `INFO(client.logTail())` too, which doctest evaluates only when an assertion fails.
//
// Thread-safety: one test thread calls the public methods; the reader thread only fills the queues.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace inductor::e2e {

using json = nlohmann::json;
using namespace std::chrono_literals;

/// How to start the server. Defaults give a quiet, deterministic server for tests.
struct ServerConfig {
  /// Extra command-line arguments after the defaults (`--no-watch --log-level debug --log-file <tmp>`).
  std::vector<std::string> extraArgs;
  /// Worker threads (`--jobs N`); unset keeps the server's default.
  std::optional<unsigned> jobs;
  /// Let the server watch for trace changes (leaves out `--no-watch`).
  bool watch = false;
  /// `--cache-dir`: unset keeps nothing between sessions (`--cache-dir=`), so that tests do not depend on
  /// each other or on the user's cache.
  std::optional<std::string> cacheDir;
};

class LSPClient {
public:
  /// Starts the server. A failure to start fails the current test.
  explicit LSPClient(ServerConfig config = {});
  /// Kills the server if it is still running (a test that did not call shutdown()), and joins the reader.
  ~LSPClient();
  LSPClient(const LSPClient &) = delete;
  LSPClient &operator=(const LSPClient &) = delete;

  /// Sends `initialize` with `rootDir` as the one workspace folder (and rootUri), then `initialized`.
  /// Returns the InitializeResult. `capabilities` defaults to a VS Code-like set (work-done progress,
  /// hierarchical document symbols, markdown hover, code lens refresh, no position encodings).
  json initialize(const std::string &rootDir, json initializationOptions = nullptr,
                  json capabilities = defaultCapabilities(), std::chrono::milliseconds timeout = 30s);
  static json defaultCapabilities();

  /// Sends a request and waits for its response. Returns the `result` (null on error: the error is
  /// reported as a failed check, with the server log tail).
  json request(const std::string &method, json params, std::chrono::milliseconds timeout = 30s);
  /// Sends a request and returns the whole response message ({id, result} or {id, error}); a timeout
  /// returns null.
  json requestRaw(const std::string &method, json params, std::chrono::milliseconds timeout = 30s);
  /// Sends a request without waiting; returns its id (for waitForResponse). For tests of ordering and races.
  json sendRequest(const std::string &method, json params);
  /// Sends a notification.
  void notify(const std::string &method, json params);
  /// Writes `body` as one frame without looking at it (for malformed-input tests). `contentLength`
  /// overrides the header's value.
  void sendRawFrame(const std::string &body, std::optional<size_t> contentLength = std::nullopt);
  /// Waits for a response with this id (for raw frames that carry an id). Null on timeout.
  json waitForResponse(const json &id, std::chrono::milliseconds timeout = 30s);
  /// Waits for the next response whose id is null (the answer to a message that could not be parsed).
  /// A timeout fails the test (and kills the server) when `required`, else returns null quietly.
  json waitForNullIdResponse(std::chrono::milliseconds timeout = 30s, bool required = true);

  /// Opens a file: reads it from disk, languageId from the extension (.py python, .cpp/.h cpp, else
  /// plaintext). Returns its `file://` URI.
  std::string didOpen(const std::string &path);
  /// Opens a document with the given text under `uri`.
  void didOpen(const std::string &uri, const std::string &languageId, const std::string &text);

  /// Sends `shutdown` then `exit`, and waits for the process to end; checks the exit code is 0 and that
  /// stdout carried only LSP frames.
  void shutdown(std::chrono::milliseconds timeout = 20s);

  /// Closes the server's stdin and waits for it to exit; returns its exit code (-1 if it was killed by a
  /// signal, or did not exit in time, which fails the test).
  int waitForExit(std::chrono::milliseconds timeout = 20s);

  /// Notifications received so far with this method (all of them when `method` is empty), in order.
  std::vector<json> notifications(const std::string &method = "") const;
  /// Waits until a notification with this method has arrived (returns its params), or times out (null).
  json waitForNotification(const std::string &method, std::chrono::milliseconds timeout = 30s);
  /// Waits for the `inductor/status` notification that ends a build (`indexing` false; the server sends
  /// others while it builds) and returns its params, or null on timeout.
  json waitForIndexed(std::chrono::milliseconds timeout = 30s);
  /// The same for a later build: the first `inductor/status` with `indexing` false after the first `seen`
  /// `inductor/status` notifications (notifications("inductor/status").size() before the build was asked
  /// for), or null on timeout. Waits on the server's own word, not on time.
  json waitForIndexedAfter(size_t seen, std::chrono::milliseconds timeout = 60s);
  /// Waits until the server has sent a request with this method (returns the whole message), or null.
  json waitForServerRequest(const std::string &method, std::chrono::milliseconds timeout = 30s);
  /// Server->client requests received so far (whole messages), in order.
  std::vector<json> serverRequests() const;
  /// Non-LSP output seen on the server's stdout (should stay empty).
  std::vector<std::string> protocolProblems() const;

  /// The last `lines` lines of the server's log and stderr, for failure messages.
  std::string logTail(size_t lines = 60) const;
  const std::string &logPath() const { return logPath_; }
  bool running() const { return pid_ > 0; }
  /// The server's process id (-1 when not running), e.g. to look at /proc/<pid>/maps.
  pid_t pid() const { return pid_; }
  /// Kills the server now (SIGKILL) and reaps it.
  void kill();

private:
  void readerLoop();
  void writeFrame(const std::string &body, std::optional<size_t> contentLength = std::nullopt);
  json waitFor(const json &id, std::chrono::milliseconds timeout, const std::string &what);
  void fail(const std::string &what);

  pid_t pid_ = -1;
  std::FILE *toServer_ = nullptr;   // The child's stdin.
  std::FILE *fromServer_ = nullptr; // The child's stdout.
  std::string logPath_, stderrPath_;
  std::thread reader_;
  std::mutex writeMutex_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, json> responses_; // By id.dump().
  std::deque<json> nullIdResponses_;
  std::vector<json> notifications_;
  std::vector<json> serverRequests_;
  std::vector<std::string> problems_;
  bool eof_ = false;
  int64_t nextId_ = 1;
  bool failed_ = false;
};

} // namespace inductor::e2e
