// Tests for server/workspace/Watcher.cpp: a trace log that grows while the server runs is picked up by the
// inotify watcher and indexed incrementally (only the appended bytes read, only the new compiles analysed).
// The server runs in-process on its own reader thread with a fake transport; the test waits for the
// `inductor/status` notification that follows each build (bounded waits, no sleeps).
#include "server/lsp/Server.h"

#include "index/files/PathResolver.h"
#include "unit/TestFiles.h"
#include "unit/server/lsp/FakeTransport.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

using namespace inductor;
using namespace inductor::test;
using protocol::json;
namespace fs = std::filesystem;

namespace {

const std::string kGraphBreakLog = index::normalizePath(INDUCTOR_FIXTURES_DIR) +
                                   "/traces/graph_break_dynamic/trace/dedicated_log_torch_trace_f78lg2bd.log";

/// The status notification that ends the `n`th build (others come while it runs, and the same index is
/// reported again when the interpreter answers after it was served).
std::function<bool(const json &)> builtStatus(uint64_t n) {
  return [n](const json &m) {
    return m.is_object() && m.value("method", "") == "inductor/status" &&
           m["params"].value("indexing", true) == false && m["params"].value("builds", uint64_t{0}) == n;
  };
}

/// A temporary directory holding, as `name`, the graph_break_dynamic log cut after its first three compiles
/// (the fourth starts at the fourth dynamo_start); `full` and `cut` say what may be appended.
struct CutLog {
  explicit CutLog(const std::string &name) : full(readFile(kGraphBreakLog)), log(dir.path + "/" + name) {
    for (int i = 0; i < 4; ++i)
      cut = full.find("{\"dynamo_start\"", cut + 1);
    REQUIRE(cut != std::string::npos);
    cut = full.rfind('\n', cut) + 1;
    std::ofstream(log, std::ios::binary) << std::string_view(full).substr(0, cut);
  }
  const std::string full;
  size_t cut = 0;
  TempDir dir;
  const std::string log;
};

/// An in-process server on a FakeTransport, with watching on, initialized with `initializationOptions`.
class WatchingServer {
public:
  WatchingServer() : server_(transport, {.jobs = 0, .watch = true}), reader_([this] { server_.run(); }) {}
  ~WatchingServer() {
    request("shutdown", nullptr);
    transport.push(json{{"jsonrpc", "2.0"}, {"method", "exit"}}.dump());
    reader_.join();
  }
  void initialize(json initializationOptions) {
    request("initialize", {{"processId", nullptr},
                           {"rootUri", nullptr},
                           {"capabilities", json::object()},
                           {"initializationOptions", std::move(initializationOptions)}});
  }
  json request(std::string_view method, json params) {
    int id = nextId_++;
    transport.push(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
    json r = transport.waitFor([&](const json &m) { return m.is_object() && m.value("id", json()) == id; });
    REQUIRE_MESSAGE(r.contains("result"), r.dump());
    return r["result"];
  }
  FakeTransport transport;

private:
  server::Server server_;
  std::thread reader_;
  int nextId_ = 1;
};

} // namespace

TEST_CASE("Watcher: compiles appended to a log are served after an incremental rebuild") {
  CutLog trace("dedicated_log_torch_trace_growing.log");
  const std::string &full = trace.full, &log = trace.log;
  const size_t cut = trace.cut;
  WatchingServer s;
  s.initialize({{"traceDirs", {trace.dir.path}}});
  auto [first, firstAt] = s.transport.waitForAt(builtStatus(1));
  REQUIRE(first.is_object());
  CHECK(first["params"]["counts"]["graphs"] == 3);
  CHECK(first["params"]["traceBytesRead"] == cut);

  std::ofstream(log, std::ios::binary | std::ios::app) << std::string_view(full).substr(cut);
  auto [next, nextAt] = s.transport.waitForAt(builtStatus(2), firstAt + 1);
  REQUIRE(next.is_object());
  CHECK(next["params"]["counts"]["graphs"] == 6);
  // Incremental: the appended bytes (plus the previous last record), three compiles analysed.
  size_t read = next["params"]["traceBytesRead"];
  CHECK(read >= full.size() - cut);
  CHECK(read < full.size() - cut + size_t{64} * 1024);
  CHECK(next["params"]["compilesAnalysed"] == 3);
  // How soon is a target of bench/ ("appended compile answered after"), never asserted here: a loaded
  // machine may take any time, the order of events (this build after the append) is what is tested.

  // The new compiles are served.
  json artifacts = s.request("inductor/listArtifacts", nullptr);
  int outputCode = 0;
  std::string last;
  for (const json &a : artifacts)
    if (a["kind"] == "outputCode") {
      ++outputCode;
      last = a["uri"];
    }
  CHECK(outputCode == 6);
  json content = s.request("inductor/artifactContent", {{"uri", last}});
  CHECK(content["text"].get<std::string>().find("def call(") != std::string::npos);
}

TEST_CASE("Watcher: a directory discovery listed is watched once the index is served, an empty one too") {
  // rank1/empty/ holds nothing when the first build looks: no indexed log makes the server watch it, only
  // its discovery did. A log written there right after the first index is served is indexed.
  CutLog trace("dedicated_log_torch_trace_rank_0_a.log");
  const TempDir &dir = trace.dir;
  fs::create_directories(dir.path + "/rank1/empty");
  WatchingServer s;
  s.initialize({{"traceDirs", {dir.path}}});
  auto [first, firstAt] = s.transport.waitForAt(builtStatus(1));
  REQUIRE(first.is_object());
  CHECK(first["params"]["traces"] == 1);
  std::ofstream(dir.path + "/rank1/empty/dedicated_log_torch_trace_rank_1_b.log", std::ios::binary)
      << trace.full;
  auto [next, nextAt] = s.transport.waitForAt(builtStatus(2), firstAt + 1);
  REQUIRE(next.is_object());
  CHECK(next["params"]["traces"] == 2);
  // Rank 1's output codes are served too (the counts take them as rank 0's graphs, counted once).
  int outputCode = 0;
  for (const json &a : s.request("inductor/listArtifacts", nullptr))
    outputCode += a["kind"] == "outputCode";
  CHECK(outputCode == 9);
}

TEST_CASE("Watcher: a job that writes all the time does not keep the first index from being served") {
  // The interpreter answers after 2 s and the build waits for it (the recorded paths are nowhere here, so
  // the import roots are looked in); meanwhile a job appends a record every 50 ms. A rebuild due then waits
  // for the build instead of cancelling it (a cancelled build leaves nothing, and the next is cancelled too).
  CutLog trace("dedicated_log_torch_trace_growing.log");
  const std::string &full = trace.full, &log = trace.log;
  const size_t cut = trace.cut;
  const std::string python = trace.dir.path + "/slow-python";
  std::ofstream(python) << "#!/bin/sh\nsleep 2\nexec python3 \"$@\"\n";
  fs::permissions(python, fs::perms::owner_all);
  WatchingServer s;
  s.initialize({{"traceDirs", {log}}, {"pythonPath", python}});
  std::atomic<bool> served{false}, stopped{false};
  std::thread job([&] {
    // Until the index is served, for 20 s at most: long past the interpreter's 2 s and the 1 s debounce.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (size_t from = cut; !served && std::chrono::steady_clock::now() < until && from < full.size();) {
      size_t end = full.find('\n', from) + 1;
      std::ofstream(log, std::ios::binary | std::ios::app) << std::string_view(full).substr(from, end - from);
      from = end;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stopped = true;
  });
  auto [first, firstAt] = s.transport.waitForAt(builtStatus(1));
  bool whileWriting = !stopped;
  served = true;
  job.join();
  REQUIRE(first.is_object());
  CHECK_MESSAGE(whileWriting, "the first index came only once the job stopped writing");
}
