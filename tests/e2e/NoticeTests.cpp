// tests/e2e/NoticeTests.cpp: the server says what went wrong and what to do, once (window/showMessage and
// window/logMessage) and in `inductor/status` (`notices`); it reports the progress of a build with
// percentages and what it is doing, and says in the status when requests wait for the index.
#include "e2e/E2E.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

std::vector<json> shown(const LSPClient &client) {
  return client.notifications("window/showMessage");
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("notices: no trace under the workspace says how to make one, once") {
  TempDir workspace("empty");
  Session s(workspace.path());
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  REQUIRE(status["notices"].size() == 1);
  CHECK(status["notices"][0]["kind"] == "noTrace");
  REQUIRE(shown(s.client).size() == 1);
  std::string message = shown(s.client)[0]["message"];
  CHECK(has(message, "no torch.compile trace found under " + workspace.path()));
  CHECK(has(message, "TORCH_TRACE=" + workspace.path() + "/trace INDUCTOR_PROVENANCE=1"));
  CHECK(has(message, "traceDirs"));
  CHECK(shown(s.client)[0]["type"] == 3); // Info: nothing is broken.
  // The same in the log channel.
  bool logged = false;
  for (const json &m : s.client.notifications("window/logMessage"))
    logged |= m["message"] == message;
  CHECK(logged);
  // A reindex that finds the same says nothing again. The gate is the status of the reindex's build (its
  // `builds` count): the server shows a build's notices before it sends that status.
  size_t builds = 0;
  for (const json &m : s.client.notifications("inductor/status"))
    builds = std::max(builds, m.value("builds", size_t{0}));
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  bool rebuilt = false;
  for (auto deadline = std::chrono::steady_clock::now() + 60s; !rebuilt;) {
    for (const json &m : s.client.notifications("inductor/status"))
      rebuilt |= m.value("indexing", true) == false && m.value("builds", size_t{0}) > builds;
    if (rebuilt || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // Polling for the event, not a duration.
  }
  REQUIRE_MESSAGE(rebuilt, "the reindex's build never ended");
  CHECK(s.client.request("inductor/status", json::object())["notices"].size() == 1);
  CHECK(shown(s.client).size() == 1);
  s.client.shutdown();
}

TEST_CASE("notices: launches whose source files are not here name the first path and the pathMappings fix") {
  // The log alone, in a workspace without the model: every origin is /tmp/work/mlp_train/model.py.
  TempDir workspace("nosource");
  Session s(workspace.path(), {{"traceDirs", {caseDir("mlp_train") + "/trace"}}});
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["launches"] == 29);
  CHECK(status["launchesWithMissingSource"] == 29);
  CHECK(status["firstMissingSource"] == "/tmp/work/mlp_train/model.py");
  REQUIRE(shown(s.client).size() == 1);
  json m = shown(s.client)[0];
  CHECK(m["type"] == 2);
  std::string text = m["message"];
  CHECK(has(text, "29 of 29 kernel launches come from source files that are not on this machine"));
  CHECK(has(text, "(first: /tmp/work/mlp_train/model.py)"));
  CHECK(has(text, "pathMappings ({\"from\": \"/tmp/work/mlp_train\", \"to\": \"/path/to/your/copy\"})"));
  // With the mapping the user was told about, the notice goes away.
  s.client.notify("workspace/didChangeConfiguration",
                  {{"settings",
                    {{"inductorLs",
                      {{"pathMappings",
                        json::array({{{"from", "/tmp/work/mlp_train"}, {"to", caseDir("mlp_train")}}})}}}}}});
  json fixed;
  for (int i = 0; i < 400; ++i) {
    fixed = s.client.request("inductor/status", json::object());
    if (fixed["indexing"] == false && fixed["launchesWithMissingSource"] == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(fixed["launchesWithMissingSource"] == 0);
  CHECK(fixed["notices"].empty());
  CHECK(shown(s.client).size() == 1);
  s.client.shutdown();
}

TEST_CASE("notices: corrupted records are said once, with the first one") {
  TempDir workspace("ws");
  std::string log = fixturesDir() + "/tlparse-inputs/simple_corrupted_json.log";
  Session s(workspace.path(), json{{"traceDirs", {log}}});
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  bool corrupted = false;
  for (const json &n : status["notices"])
    if (n["kind"] == "corruptedRecords")
      corrupted = has(n["message"], "1 corrupted trace record skipped (first: ");
  CHECK(corrupted);
  bool shownOnce = false;
  for (const json &m : shown(s.client))
    shownOnce |= has(m["message"], "corrupted trace record");
  CHECK(shownOnce);
  s.client.shutdown();
}

/// The 115 MB log of bench/llama, unpacked once per run (indexing it takes long enough to be watched).
std::string largeLog(const TempDir &dir) {
  std::string out = dir.path() + "/dedicated_log_torch_trace_llama8l.log";
  std::string cmd =
      "xz -dc '" + std::string(INDUCTOR_SOURCE_DIR) + "/bench/llama/llama8l.log.xz' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return out;
}

TEST_CASE("progress: percentages of the whole build, what is being done, requests waiting in the status") {
  TempDir dir("llama");
  std::string log = largeLog(dir);
  ServerConfig config;
  config.jobs = 1; // Slower, so there is something to watch on any machine.
  LSPClient client(config);
  INFO(client.logTail());
  json init = client.requestRaw("initialize", {{"rootUri", fileURI(dir.path())},
                                               {"capabilities", LSPClient::defaultCapabilities()},
                                               {"initializationOptions", {{"traceDirs", {log}}}}});
  REQUIRE(init.contains("result"));
  client.notify("initialized", json::object());
  // A request before the index is ready waits for it, and the status says so.
  json hoverId = client.sendRequest("textDocument/hover", textDocumentPosition(fileURI(log), 0, 0));
  json status = client.waitForIndexed(120s);
  REQUIRE(status.is_object());
  CHECK(status["counts"]["graphs"].get<int>() >= 16);
  CHECK(client.waitForResponse(hoverId).contains("result"));
  bool sawWaiting = false, sawProgress = false;
  for (const json &p : client.notifications("inductor/status")) {
    if (p["indexing"] == true && p["waitingRequests"].get<int>() >= 1) sawWaiting = true;
    if (p["indexing"] == true && p["progress"].is_object() && p["progress"]["percentage"].get<int>() > 0)
      sawProgress = true;
  }
  CHECK(sawWaiting);
  CHECK(sawProgress);
  CHECK(status["waitingRequests"] == 0);
  CHECK(status["progress"].is_null());
  // $/progress: begin, reports with a percentage that never goes back and says what is being done, end.
  std::vector<json> progress = client.notifications("$/progress");
  REQUIRE(progress.size() >= 3);
  CHECK(progress.front()["value"]["kind"] == "begin");
  CHECK(progress.back()["value"]["kind"] == "end");
  CHECK(progress.back()["value"]["message"].get<std::string>().find(" compiles, ") != std::string::npos);
  int last = 0;
  bool reading = false;
  std::string seen;
  std::string totalMB = " of " + std::to_string((fs::file_size(log) + (1u << 19)) >> 20) + " MB";
  for (size_t i = 1; i + 1 < progress.size(); ++i) {
    const json &v = progress[i]["value"];
    REQUIRE(v["kind"] == "report");
    int pct = v["percentage"];
    CHECK(pct >= last);
    CHECK(pct <= 100);
    last = pct;
    std::string message = v["message"];
    CHECK(!message.empty());
    seen += message + "\n";
    // Bytes of the log, in MB of the total, while it is read.
    if (message.rfind("reading trace logs: ", 0) == 0) reading |= message.find(totalMB) != std::string::npos;
  }
  CHECK_MESSAGE(reading, "expected `reading trace logs: N" << totalMB << "`, saw:\n" << seen);
  client.shutdown();
}

} // namespace
} // namespace inductor::e2e
