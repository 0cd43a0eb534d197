// tests/e2e/HostileInputTests.cpp: the real binary against hostile input (issue 11): JSON nested 60,000 deep
// in every place a message nests, a Content-Length over the cap, logs truncated or deleted under the server,
// symbolic links and stack traces that lead out of the workspace, numbers out of range, bad command lines.
// Each test checks that the server answers, stays up, shows nothing from outside its roots and exits cleanly.
// Under the sanitizer build (scripts/test.sh) every server these tests start also runs under ASan and UBSan.
#include "e2e/E2E.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kMarker = "TOP-SECRET-4f1c9e"; // Content of files outside the workspace.
const std::string kMlpLog = "dedicated_log_torch_trace_9bvvd8es.log";

std::string deep(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

/// Everything the server sent so far, as text (responses, notifications, requests).
std::string allNotifications(const LSPClient &client) {
  std::string all;
  for (const json &n : client.notifications())
    all += n.dump() + "\n";
  return all;
}

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A workspace holding a copy of mlp_train's trace log (and nothing else), so that the test can damage it.
struct CopiedTrace {
  TempDir dir{"hostile"};
  std::string log = dir.write("trace/" + kMlpLog, readFile(caseDir("mlp_train") + "/trace/" + kMlpLog));
};

/// The inductor-trace: URIs of the log-only output code (listArtifacts).
std::vector<std::string> virtualOutputCode(LSPClient &client) {
  std::vector<std::string> uris;
  for (const json &a : client.request("inductor/listArtifacts", json::object()))
    if (a["kind"] == "outputCode" && a["uri"].get<std::string>().rfind("inductor-trace:", 0) == 0)
      uris.push_back(a["uri"].get<std::string>());
  return uris;
}

void checkStillServes(LSPClient &client) {
  json status = client.request("inductor/status", json::object());
  CHECK(status.is_object());
  CHECK(status["indexing"].is_boolean());
}

TEST_CASE("hostile: JSON nested 60,000 deep in every place a message nests, before and after initialize") {
  // Finding 2 of issue 11: each of these killed the server (stack overflow in recursive copies and dumps).
  const std::string d = deep(60000);
  LSPClient client;
  INFO(client.logTail());
  // Before initialize: a request (answered with its id) and a notification (answered with a null id).
  client.sendRawFrame(R"({"jsonrpc":"2.0","id":101,"method":"textDocument/hover","params":)" + d + "}");
  json early = client.waitForResponse(101);
  REQUIRE(early.contains("error"));
  CHECK(early["error"]["code"] == -32600);
  client.sendRawFrame(R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":)" + d +
                      "}}");
  CHECK(client.waitForNullIdResponse()["error"]["code"] == -32600);
  // initializationOptions.pathMappings: the initialize is refused, a later one works.
  client.sendRawFrame(
      R"({"jsonrpc":"2.0","id":102,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"pathMappings":)" +
      d + "}}}");
  CHECK(client.waitForResponse(102)["error"]["code"] == -32600);
  client.initialize(caseDir("mlp_train"));
  client.waitForNotification("inductor/status");

  // After initialize: the id, jsonrpc, a request's params, a notification's params, $/cancelRequest's id.
  client.sendRawFrame(R"({"jsonrpc":"2.0","id":)" + d + R"(,"method":"inductor/status"})");
  CHECK(client.waitForNullIdResponse()["error"]["code"] == -32600);
  client.sendRawFrame(R"({"jsonrpc":)" + d + R"(,"id":103,"method":"inductor/status"})");
  CHECK(client.waitForResponse(103)["error"]["code"] == -32600);
  client.sendRawFrame(
      R"({"jsonrpc":"2.0","id":104,"method":"textDocument/definition","params":{"position":)" + d + "}}");
  CHECK(client.waitForResponse(104)["error"]["code"] == -32600);
  client.sendRawFrame(
      R"({"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":)" + d + "}}");
  CHECK(client.waitForNullIdResponse()["error"]["code"] == -32600);
  client.sendRawFrame(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":)" + d + "}}");
  CHECK(client.waitForNullIdResponse()["error"]["code"] == -32600);
  // Shallow but unusual cancel ids are ignored.
  client.notify("$/cancelRequest", {{"id", json::array({1, 2})}});
  checkStillServes(client);
  client.shutdown();
}

TEST_CASE("hostile: a Content-Length over the cap is answered at once, and the next frames are read") {
  // Finding 6 of issue 11: the server tried to discard 1 TiB and swallowed every later frame.
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  s.client.sendRawFrame(R"({"jsonrpc":"2.0","id":7,"method":"inductor/status"})", size_t{1} << 40);
  json refused = s.client.waitForNullIdResponse(10s);
  CHECK(refused["error"]["code"] == -32700);
  CHECK(refused["error"]["message"].get<std::string>().find("exceeds the limit") != std::string::npos);
  // Refused from the header alone (the message says so), and the next request is answered.
  checkStillServes(s.client);
  s.client.shutdown();
}

TEST_CASE("hostile: a log truncated after indexing is refused per request, and nothing faults") {
  // Finding 3 of issue 11: artifactContent or hover on a log-only artifact of a truncated log killed the
  // server with SIGBUS.
  CopiedTrace trace;
  Session s(trace.dir.path());
  INFO(s.client.logTail());
  s.client.waitForNotification("inductor/status");
  std::vector<std::string> uris = virtualOutputCode(s.client);
  REQUIRE(uris.size() == 2);
  for (const std::string &uri : uris)
    CHECK(s.client.request("inductor/artifactContent", {{"uri", uri}})["text"].get<std::string>().size() >
          1000);
  fs::resize_file(trace.log, fs::file_size(trace.log) / 2);
  for (const std::string &uri : uris) {
    json r = s.client.requestRaw("inductor/artifactContent", {{"uri", uri}});
    REQUIRE(r.contains("error"));
    CHECK(r["error"]["code"] == -32803); // RequestFailed
    CHECK(r["error"]["message"].get<std::string>().find("truncated") != std::string::npos);
    // Hover and definition in the document still answer (its text is no longer available).
    CHECK(s.client.requestRaw("textDocument/hover", textDocumentPosition(uri, 300, 10)).contains("result"));
    CHECK(s.client.requestRaw("textDocument/definition", textDocumentPosition(uri, 300, 10))
              .contains("result"));
  }
  // A reindex reads the log as it is now: its cut last record is reported.
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  json status;
  for (int i = 0; i < 100 && !(status.is_object() && status["indexing"] == false); ++i) {
    std::this_thread::sleep_for(100ms);
    status = s.client.request("inductor/status", json::object());
  }
  CHECK(status["corruptedRecords"].get<int>() >= 1);
  s.client.shutdown();
}

TEST_CASE("hostile: a log cut again and again while it is indexed never takes the server down") {
  // Finding 3 of issue 11, during indexing: a 32 MB log is truncated and rewritten while the server reads it.
  TempDir dir("hostile-grow");
  std::string one = readFile(caseDir("mlp_train") + "/trace/" + kMlpLog);
  std::string big;
  while (big.size() < (32u << 20))
    big += one;
  std::string log = dir.write("trace/dedicated_log_torch_trace_big.log", big);
  LSPClient client;
  INFO(client.logTail());
  client.initialize(dir.path());
  size_t seen = 0;
  for (int i = 0; i < 8; ++i) {
    fs::resize_file(log, big.size() / size_t(2 + i));
    std::ofstream(log, std::ios::binary | std::ios::trunc) << big;
    seen = client.notifications("inductor/status").size();
    client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  }
  // The build of the last reindex (over the whole log again) has ended.
  REQUIRE(client.waitForIndexedAfter(seen, 120s).is_object());
  checkStillServes(client);
  client.shutdown();
}

TEST_CASE("hostile: a deleted log stops being served, and its pages are released") {
  // Finding 7 of issue 11: a deleted log kept being served and its mapping held its pages.
  CopiedTrace trace;
  ServerConfig config;
  config.watch = true;
  Session s(trace.dir.path(), nullptr, LSPClient::defaultCapabilities(), config);
  INFO(s.client.logTail());
  s.client.waitForNotification("inductor/status");
  std::vector<std::string> uris = virtualOutputCode(s.client);
  REQUIRE(!uris.empty());
  const std::string maps = "/proc/" + std::to_string(s.client.pid()) + "/maps";
  fs::remove(trace.log);
  json r = s.client.requestRaw("inductor/artifactContent", {{"uri", uris[0]}});
  // Refused at once (the log is gone), or unknown once the watcher's rebuild dropped it.
  REQUIRE(r.contains("error"));
  // The watcher rebuilds without the log; the old index and its mapping go.
  json status;
  for (int i = 0; i < 100 && !(status.is_object() && status["traces"] == 0); ++i) {
    std::this_thread::sleep_for(100ms);
    status = s.client.request("inductor/status", json::object());
  }
  CHECK(status["traces"] == 0);
  CHECK(s.client.requestRaw("inductor/artifactContent", {{"uri", uris[0]}}).contains("error"));
  bool mapped = true;
  for (int i = 0; i < 50 && mapped; ++i) {
    mapped = readFile(maps).find(kMlpLog) != std::string::npos;
    if (mapped) std::this_thread::sleep_for(100ms);
  }
  CHECK_FALSE(mapped);
  s.client.shutdown();
}

TEST_CASE("hostile: symbolic links out of the workspace are not followed, served or quoted") {
  // Finding 4 of issue 11: `output_code.py -> /etc/passwd` and a log linked to a secret were read, served by
  // artifactContent and quoted in window/logMessage.
  TempDir outside("hostile-outside");
  std::string secretLog = replaceAll(readFile(caseDir("mlp_train") + "/trace/" + kMlpLog),
                                     "def call(args):", "def call(args):  # " + kMarker);
  outside.write("secret.log", secretLog);
  outside.write("secret.py", "SECRET = '" + kMarker + "'\n");
  outside.write("not_a_trace.log", kMarker + " not a trace\n");
  CopiedTrace trace;
  const std::string ws = trace.dir.path();
  fs::create_symlink(outside.path() + "/secret.log", ws + "/trace/dedicated_log_torch_trace_evil.log");
  fs::create_symlink(outside.path() + "/not_a_trace.log", ws + "/trace/dedicated_log_torch_trace_junk.log");
  fs::copy(caseDir("mlp_train") + "/torch_compile_debug", ws + "/torch_compile_debug",
           fs::copy_options::recursive);
  for (const auto &e : fs::recursive_directory_iterator(ws + "/torch_compile_debug"))
    if (e.path().filename() == "output_code.py") {
      fs::remove(e.path());
      fs::create_symlink(outside.path() + "/secret.py", e.path());
    }
  fs::create_symlink(outside.path(), ws + "/linked_dir");

  Session s(ws);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  CHECK(status["traces"] == 1);
  json artifacts = s.client.request("inductor/listArtifacts", json::object());
  CHECK(artifacts.size() > 0); // The real log is indexed: the checks below run.
  for (const json &a : artifacts) {
    std::string uri = a["uri"].get<std::string>();
    CHECK_MESSAGE(uri.find("evil") == std::string::npos, uri);
    CHECK_MESSAGE(uri.find(outside.path()) == std::string::npos, uri);
    json content = s.client.requestRaw("inductor/artifactContent", {{"uri", uri}});
    CHECK_MESSAGE(content.dump().find(kMarker) == std::string::npos, uri);
  }
  // Asked directly for the linked files, the server does not read them either.
  for (const std::string &path :
       {ws + "/trace/dedicated_log_torch_trace_evil.log", ws + "/linked_dir/secret.py"}) {
    json hover = s.client.requestRaw("textDocument/hover", textDocumentPosition(fileURI(path), 0, 3));
    CHECK(hover.dump().find(kMarker) == std::string::npos);
  }
  CHECK(allNotifications(s.client).find(kMarker) == std::string::npos);
  CHECK(readFile(s.client.logPath()).find(kMarker) == std::string::npos);
  CHECK(allNotifications(s.client).find("symbolic link") != std::string::npos); // Said, not silent.
  s.client.shutdown();
}

TEST_CASE("hostile: stack traces naming files outside the workspace never bring their text into answers") {
  // Finding 4 of issue 11 (the server's side): origins that name /etc/passwd or a secret outside the
  // workspace. Hover and lens titles are the source reader's business; artifactContent, logMessage and the
  // documents the server reads for itself must never show such a file.
  TempDir outside("hostile-origin");
  std::string secret;
  for (int i = 0; i < 80; ++i)
    secret += kMarker + " line " + std::to_string(i + 1) + "\n";
  outside.write("model.py", secret);
  TempDir ws("hostile-ws");
  std::string log = readFile(caseDir("mlp_train") + "/trace/" + kMlpLog);
  // The recorded code lines stay as they are: only reading the file could bring the marker into an answer.
  log = replaceAll(log, "/tmp/work/mlp_train/model.py", outside.path() + "/model.py");
  ws.write("trace/dedicated_log_torch_trace_x.log", log);
  Session s(ws.path());
  INFO(s.client.logTail());
  s.client.waitForNotification("inductor/status");
  json artifacts = s.client.request("inductor/listArtifacts", json::object());
  CHECK(artifacts.size() > 0); // The log is indexed: the checks below run.
  for (const json &a : artifacts) {
    json content = s.client.requestRaw("inductor/artifactContent", {{"uri", a["uri"]}});
    CHECK(content.dump().find(kMarker) == std::string::npos);
  }
  json passwd = s.client.requestRaw("inductor/artifactContent", {{"uri", "file:///etc/passwd"}});
  CHECK(passwd.contains("error"));
  CHECK(passwd.dump().find("root:") == std::string::npos);
  CHECK(allNotifications(s.client).find(kMarker) == std::string::npos);
  s.client.shutdown();
}

TEST_CASE("hostile: numbers out of range and huge queries are answered, not crashed on") {
  // Finding 7 of issue 11: "line": 1e30 was a float-cast overflow (UBSan).
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::string uri = s.client.didOpen(caseDir("mlp_train") + "/model.py");
  s.client.sendRawFrame(
      R"({"jsonrpc":"2.0","id":"big","method":"textDocument/hover","params":{"textDocument":{"uri":")" + uri +
      R"("},"position":{"line":1e30,"character":-1e30}}})");
  CHECK(s.client.waitForResponse("big").contains("result"));
  s.client.sendRawFrame(
      R"({"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":")" + uri +
      R"(","version":1e300},"contentChanges":[{"range":{"start":{"line":1e30,"character":0},"end":{"line":-5,"character":1e30}},"text":"x"}]}})");
  json symbols = s.client.request("workspace/symbol", {{"query", std::string(60000, 'a')}});
  CHECK(symbols.is_array());
  checkStillServes(s.client);
  s.client.shutdown();
}

TEST_CASE("hostile: a bad --jobs is a usage error, not an abort") {
  // Finding 7 of issue 11: `--jobs abc` aborted (an uncaught std::invalid_argument).
  for (const char *jobs : {"abc", "-1", "99999999999", "4x", ""}) {
    CAPTURE(jobs);
    std::string command =
        std::string("'") + INDUCTOR_LS_BINARY + "' --jobs '" + jobs + "' </dev/null >/dev/null 2>&1";
    int rc = std::system(command.c_str());
    REQUIRE(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 2);
  }
}

TEST_CASE(
    "hostile: FIFOs named as profiles and run logs are reported and skipped; the server serves and exits") {
  // Finding 3 of issue 33: `profiles`/`runLogs` naming a FIFO hung the index build for good (the open waited
  // for a writer), so no request was answered, and after shutdown/exit the process stayed.
  CopiedTrace trace;
  const std::string ws = trace.dir.path();
  const std::string profile = ws + "/profile.json", runLog = ws + "/run.log";
  REQUIRE(::mkfifo(profile.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(runLog.c_str(), 0600) == 0);
  Session s(ws, {{"profiles", json::array({profile})}, {"runLogs", json::array({runLog})}});
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  CHECK(status["traces"] == 1);
  CHECK(virtualOutputCode(s.client).size() == 2); // The rest is served.
  // The editor is told (the count and the first problem); the log has each.
  const std::string said = allNotifications(s.client);
  CHECK(said.find("2 problems while indexing") != std::string::npos);
  CHECK(said.find("profile not read: not a regular file (a FIFO)") != std::string::npos);
  const std::string logged = readFile(s.client.logPath());
  CHECK(logged.find(profile + ":1: profile not read: not a regular file (a FIFO)") != std::string::npos);
  CHECK(logged.find(runLog + ":1: run log not read: not a regular file (a FIFO)") != std::string::npos);
  s.client.shutdown(); // Checks that it exits, with 0.
}

TEST_CASE("hostile: explain --profile FIFO --run-log FIFO reports them and prints the rest") {
  CopiedTrace trace;
  const std::string ws = trace.dir.path();
  const std::string profile = ws + "/profile.json", runLog = ws + "/run.log";
  REQUIRE(::mkfifo(profile.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(runLog.c_str(), 0600) == 0);
  // `timeout` only keeps the code before the fix (which blocked for ever) from hanging the suite.
  std::string command = "timeout -s KILL 120 '" + std::string(INDUCTOR_LS_BINARY) + "' explain --profile '" +
                        profile + "' --run-log '" + runLog + "' '" + ws + "/trace' 2>&1";
  std::string out;
  int rc = -1;
  if (FILE *p = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    rc = pclose(p);
  }
  INFO(out);
  REQUIRE(WIFEXITED(rc));
  CHECK(WEXITSTATUS(rc) == 0);
  CHECK(out.find("Indexed 1 trace file") != std::string::npos);
  CHECK(out.find("profile not read: not a regular file (a FIFO)") != std::string::npos);
  CHECK(out.find("run log not read: not a regular file (a FIFO)") != std::string::npos);
}

} // namespace
} // namespace inductor::e2e
