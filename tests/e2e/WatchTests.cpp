// tests/e2e/WatchTests.cpp: traces that appear after the editor opened the workspace are picked up without a
// reindex: by the server's own watching of the workspace, and through workspace/didChangeWatchedFiles, which
// the server registers for when the client can watch. These servers run without `--no-watch`.
#include "e2e/E2E.h"

#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

ServerConfig watching() {
  ServerConfig c;
  c.watch = true;
  return c;
}

/// Copies the mlp_train trace log into `dir` (made if missing), as a training run would write it.
std::string copyTrace(const std::string &dir) {
  fs::create_directories(dir);
  std::string src = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::string dst = dir + "/" + fs::path(src).filename().string();
  fs::copy_file(src, dst);
  return dst;
}

/// The status of the last build that ended (null if none).
json lastIndexed(const LSPClient &client) {
  json last;
  for (const json &m : client.notifications("inductor/status"))
    if (m.value("indexing", true) == false) last = m;
  return last;
}

/// The indexed status notifications received so far.
/// Indexes served so far (a status is sent again for the same index, e.g. when the interpreter answers).
size_t indexedCount(const LSPClient &client) {
  size_t n = 0;
  for (const json &m : client.notifications("inductor/status"))
    n = std::max(n, m.value("builds", size_t{0}));
  return n;
}

/// Waits until a build ends after the first `after` ones; returns its status, or null.
json waitForBuild(LSPClient &client, size_t after, std::chrono::milliseconds timeout = 20s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const json &m : client.notifications("inductor/status"))
      if (m.value("indexing", true) == false && m.value("builds", size_t{0}) > after) return m;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

/// Waits until the server has acted on every change written so far: `inductor/status` says no change is
/// pending (a write that has returned is, until the build it causes starts: StatusResult::changesPending) and
/// no build runs, and the client has the notification of each build served. `limit` at most (a failed
/// check). No quiet period is timed: the answer does not depend on how fast the machine runs the builds.
size_t waitForQuiet(LSPClient &client, std::chrono::milliseconds limit = 30s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    json s = client.request("inductor/status", json::object());
    if (!s.value("indexing", true) && !s.value("changesPending", true) &&
        indexedCount(client) >= s.value("builds", size_t{0}))
      return indexedCount(client);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL_CHECK("the server did not settle within the limit");
  return indexedCount(client);
}

TEST_CASE("watch: a TORCH_TRACE directory made later, anywhere under the workspace, is indexed by itself") {
  TempDir workspace("watch");
  fs::create_directories(workspace.path() + "/.venv/lib"); // Never watched.
  LSPClient client(watching());
  INFO(client.logTail());
  client.initialize(workspace.path());
  json first = client.waitForIndexed();
  REQUIRE(first.is_object());
  CHECK(first["compiles"] == 0);
  // No dynamic registration offered: none is asked for.
  for (const json &r : client.serverRequests())
    CHECK(r["method"] != "client/registerCapability");
  // A run writes its trace two directories down, in directories that did not exist. No wait: a build adds
  // its watches before it sends its status (server/lsp/Server.cpp, indexingDone).
  size_t before = indexedCount(client);
  copyTrace(workspace.path() + "/runs/2026-11-23/trace");
  json next = waitForBuild(client, before);
  REQUIRE_MESSAGE(next.is_object(), "no rebuild after the trace appeared");
  CHECK(next["counts"]["graphs"] == 2);
  CHECK(next["notices"].size() == 1); // The model is not in this workspace: missingSources.
  // And it answers.
  json artifacts = client.request("inductor/listArtifacts", json::object());
  CHECK(artifacts.size() >= 2);
  // Files in skipped directories do not count: a log in .venv changes nothing. Not asserted by waiting: a
  // log written after it in a watched folder must be indexed, and the build that follows holds that one
  // and not the .venv one (whether or not the two events fell in one build).
  size_t builds = waitForQuiet(client);
  copyTrace(workspace.path() + "/.venv/lib/trace");
  copyTrace(workspace.path() + "/runs/2026-11-24/trace");
  json after = waitForBuild(client, builds);
  REQUIRE_MESSAGE(after.is_object(), "no rebuild after the second trace appeared");
  waitForQuiet(client);
  // Two copies of one unranked log are two runs (index/files/Runs.h): the latest is served, the other
  // counted; the .venv copy is neither.
  CHECK(lastIndexed(client)["traces"] == 1);
  CHECK(lastIndexed(client)["otherRuns"] == 1);
  client.shutdown();
}

TEST_CASE("watch: with a client that watches files, the server registers for trace inputs and follows its "
          "events") {
  TempDir workspace("watch-client");
  LSPClient client(watching());
  INFO(client.logTail());
  json caps = LSPClient::defaultCapabilities();
  caps["workspace"]["didChangeWatchedFiles"] = {{"dynamicRegistration", true}};
  client.initialize(workspace.path(), nullptr, caps);
  REQUIRE(client.waitForIndexed().is_object());
  json registration = client.waitForServerRequest("client/registerCapability", 10s);
  REQUIRE(registration.is_object());
  const json &r = registration["params"]["registrations"].at(0);
  CHECK(r["method"] == "workspace/didChangeWatchedFiles");
  std::set<std::string> globs;
  for (const json &w : r["registerOptions"]["watchers"])
    globs.insert(w["globPattern"].get<std::string>());
  CHECK(globs.count("**/dedicated_log_torch_trace*.log") == 1);
  CHECK(globs.count("**/output_code.{py,cpp}") == 1);
  // A trace that is there already; the server's own watching indexes it.
  size_t builds = indexedCount(client);
  std::string log = copyTrace(workspace.path() + "/trace");
  json indexed = waitForBuild(client, builds);
  REQUIRE(indexed.is_object());
  CHECK(indexed["counts"]["graphs"] == 2);
  // The client's events are followed too, whatever inotify saw: an event for the trace reindexes, one for
  // another file does not.
  // Not asserted by waiting: an event that counted would make the next rebuild one of changed inputs
  // ("trace inputs changed"), while the log's own `Changed` event alone makes one of grown logs ("trace
  // logs grew"), whether the two fell in one build or two.
  builds = waitForQuiet(client);
  auto count = [&](const std::string &text) {
    std::string log = readFile(client.logPath());
    size_t n = 0;
    for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
      ++n;
    return n;
  };
  size_t changedBefore = count("trace inputs changed"), grewBefore = count("trace logs grew");
  client.notify(
      "workspace/didChangeWatchedFiles",
      {{"changes", json::array({{{"uri", fileURI(workspace.path() + "/notes.txt")}, {"type", 1}}})}});
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", json::array({{{"uri", fileURI(log)}, {"type", 2}}})}});
  json next = waitForBuild(client, builds);
  REQUIRE_MESSAGE(next.is_object(), "no rebuild after workspace/didChangeWatchedFiles");
  CHECK(next["counts"]["graphs"] == 2);
  waitForQuiet(client);
  CHECK(count("trace logs grew") > grewBefore);
  CHECK(count("trace inputs changed") == changedBefore);
  client.shutdown();
}

TEST_CASE("watch: a configured trace folder deleted and made again is watched again, without a reindex") {
  // traceDirs names a folder outside the workspace (the model's case folder, where its sources are).
  TempDir dir("watch-recreate");
  std::string trace = dir.path() + "/trace";
  std::string src = filesIn(caseDir("mlp_train") + "/trace").at(0);
  copyTrace(trace);
  LSPClient client(watching());
  INFO(client.logTail());
  client.initialize(caseDir("mlp_train"), json{{"traceDirs", {trace}}});
  json first = client.waitForIndexed();
  REQUIRE(first.is_object());
  CHECK(first["traces"] == 1);
  CHECK(first["counts"]["graphs"] == 2);
  size_t builds = waitForQuiet(client);
  // The folder goes: a rebuild drops its log.
  fs::remove_all(trace);
  REQUIRE_MESSAGE(waitForBuild(client, builds).is_object(), "no rebuild after the trace folder was deleted");
  builds = waitForQuiet(client);
  CHECK(lastIndexed(client)["traces"] == 0);
  CHECK(lastIndexed(client)["compiles"] == 0);
  // It is made again and a run writes a log in it: indexed by itself.
  fs::create_directory(trace);
  copyTrace(trace);
  REQUIRE_MESSAGE(waitForBuild(client, builds).is_object(),
                  "no rebuild after the trace folder was made again");
  waitForQuiet(client);
  json back = lastIndexed(client);
  CHECK(back["traces"] == 1);
  CHECK(back["counts"]["graphs"] == 2);
  // And it answers: every launch of its output code navigates to its user line.
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({src}, nullptr, std::vector<std::string>{});
  size_t launches = 0;
  for (const ExpectedOutputCode &code : codes)
    for (const LaunchSite &site : code.launches) {
      CHECK(toLocSet(client.request("textDocument/definition",
                                    textDocumentPosition(code.uri, site.line, site.column))) ==
            originLocs(code.originsOf(site)));
      ++launches;
    }
  CHECK(launches > 0);
  // Deleted and made again once more (the watch of its parent outlives each folder).
  builds = indexedCount(client);
  fs::remove_all(trace);
  copyTrace(trace);
  REQUIRE(waitForBuild(client, builds).is_object());
  waitForQuiet(client);
  CHECK(lastIndexed(client)["traces"] == 1);
  client.shutdown();
}

TEST_CASE("watch: a configured trace folder that does not exist yet is indexed once a run makes it") {
  TempDir dir("watch-later");
  // Two folders down that do not exist: the nearest existing one above is watched, then each made below.
  std::string trace = dir.path() + "/runs/first/trace";
  LSPClient client(watching());
  INFO(client.logTail());
  client.initialize(caseDir("mlp_train"), json{{"traceDirs", {trace}}});
  json first = client.waitForIndexed();
  REQUIRE(first.is_object());
  CHECK(first["traces"] == 0);
  size_t builds = waitForQuiet(client);
  copyTrace(trace); // create_directories, then the log.
  // The write has returned: the next status says the index is behind (debounced, the build is not due yet).
  json now = client.request("inductor/status", json::object());
  CHECK((now["changesPending"] == true || now["indexing"] == true || now["builds"] > builds));
  REQUIRE_MESSAGE(waitForBuild(client, builds).is_object(), "no rebuild after the trace folder was made");
  waitForQuiet(client);
  json next = lastIndexed(client);
  CHECK(next["traces"] == 1);
  CHECK(next["counts"]["graphs"] == 2);
  client.shutdown();
}

TEST_CASE("watch: a configured log file whose folder is deleted and made again is indexed again") {
  TempDir dir("watch-file");
  std::string trace = dir.path() + "/trace";
  std::string log = copyTrace(trace);
  LSPClient client(watching());
  INFO(client.logTail());
  client.initialize(caseDir("mlp_train"), json{{"traceDirs", {log}}});
  json first = client.waitForIndexed();
  REQUIRE(first.is_object());
  CHECK(first["traces"] == 1);
  size_t builds = waitForQuiet(client);
  fs::remove_all(trace);
  REQUIRE_MESSAGE(waitForBuild(client, builds).is_object(), "no rebuild after the log's folder was deleted");
  builds = waitForQuiet(client);
  CHECK(lastIndexed(client)["traces"] == 0);
  CHECK(copyTrace(trace) == log);
  REQUIRE_MESSAGE(waitForBuild(client, builds).is_object(), "no rebuild after the log was written again");
  waitForQuiet(client);
  CHECK(lastIndexed(client)["traces"] == 1);
  CHECK(lastIndexed(client)["counts"]["graphs"] == 2);
  client.shutdown();
}

} // namespace
} // namespace inductor::e2e
