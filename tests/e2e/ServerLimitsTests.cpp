// tests/e2e/ServerLimitsTests.cpp: what a client or a trace folder cannot make the server do (issue 33):
// queue requests without a bound, or forge lines of its log with a file name.
#include "e2e/E2E.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

TEST_CASE("limits: past 1,000 pending requests, requests are answered ServerCancelled at once, each once") {
  // The hovers are written right after initialize, while every fixture trace is being indexed: they all wait
  // for the first index, and those past the bound (1,000: ServerOptions::maxPendingRequests) are refused.
  TempDir workspace("limits");
  std::string file = workspace.write("model.py", "x = 1\n");
  LSPClient client;
  INFO(client.logTail());
  client.initialize(workspace.path(), json{{"traceDirs", {fixturesDir() + "/traces"}}});
  constexpr size_t kBound = 1000, kSent = 1100;
  std::vector<json> ids;
  for (size_t i = 0; i < kSent; ++i)
    ids.push_back(client.sendRequest("textDocument/hover", textDocumentPosition(fileURI(file), 0, 0)));
  size_t answered = 0, refused = 0, refusedBeforeBound = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    json r = client.waitForResponse(ids[i], 60s);
    REQUIRE_MESSAGE(r.is_object(), "no answer to hover " << i);
    if (r.contains("error")) {
      CHECK(r["error"]["code"] == -32802);
      CHECK(r["error"]["message"] == "server busy: 1000 requests pending");
      ++refused;
      if (i < kBound) ++refusedBeforeBound;
    } else {
      CHECK(r.contains("result"));
      ++answered;
    }
  }
  CHECK(refused == kSent - kBound);
  CHECK(refusedBeforeBound == 0);
  CHECK(answered == kBound);
  // Still answering, and the bound is free again.
  json status = client.request("inductor/status", nullptr);
  CHECK(status["ready"] == true);
  CHECK(
      client.requestRaw("textDocument/hover", textDocumentPosition(fileURI(file), 0, 0)).contains("result"));
  client.shutdown();
}

TEST_CASE("limits: a trace file whose name holds a newline forges no line of the log file") {
  TempDir dir("logname");
  // A log name with a newline and what a log line starts with after it; its content is corrupted, so the
  // server reports it by name (log file and window/logMessage).
  std::string name = "dedicated_log_torch_trace_x\nE[12:00:00.000] forged by a file name.log";
  dir.write("trace/" + name, "{\"not\": a trace record\n");
  dir.write("trace/dedicated_log_torch_trace_y\x1b[2K.log", "also not a record\n");
  LSPClient client;
  INFO(client.logTail());
  client.initialize(dir.path(), json{{"traceDirs", {dir.path() + "/trace"}}});
  REQUIRE(client.waitForIndexed().is_object());
  client.shutdown();
  std::string log = readFile(client.logPath());
  CHECK(log.find("forged by a file name") != std::string::npos);    // The name is logged...
  CHECK(log.find("\nE[12:00:00.000] forged") == std::string::npos); // ...never as a line of its own.
  CHECK(log.find('\x1b') == std::string::npos);
  for (const json &m : client.notifications("window/logMessage")) {
    std::string text = m["message"].get<std::string>();
    CHECK(text.find('\n') == std::string::npos);
    CHECK(text.find('\x1b') == std::string::npos);
  }
}

} // namespace
} // namespace inductor::e2e
