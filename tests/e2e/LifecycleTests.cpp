// tests/e2e/LifecycleTests.cpp: the session around the features: readiness (requests sent before indexing
// ends get full answers), progress and status notifications, position-encoding negotiation, shutdown/exit,
// and robustness against malformed JSON-RPC and corrupted traces.
#include "e2e/E2E.h"

#include <filesystem>
#include <fstream>
#include <thread>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

/// A workspace whose first build cannot end before the test says so, by the order of events, not by a machine
/// being slow enough: mlp_train's log alone is in it, so its model file is found only under the import roots
/// (PathResolver's last step), and the interpreter (`pythonPath`, outside the workspace) answers them only
/// once open() is called. Unopened, the build waits until the server cancels it (the interpreter is killed).
struct GatedBuild {
  explicit GatedBuild(const std::string &log) : ws("gated"), bin("gated-python") {
    ws.write("trace/" + fs::path(log).filename().string(), readFile(log));
    gate = bin.path() + "/go";
    python = bin.write("python", "#!/bin/sh\nwhile [ ! -e '" + gate + "' ]; do sleep 0.01; done\necho '[\"" +
                                     fixturesDir() + "/traces\"]'\n");
    fs::permissions(python, fs::perms::owner_all);
  }
  /// Sends `initialize` (this workspace, the gated interpreter) and `initialized`.
  void initialize(LSPClient &client) const {
    json init = client.requestRaw("initialize", {{"rootUri", fileURI(ws.path())},
                                                 {"capabilities", LSPClient::defaultCapabilities()},
                                                 {"initializationOptions", {{"pythonPath", python}}}});
    REQUIRE(init.contains("result"));
    client.notify("initialized", json::object());
  }
  void open() const { std::ofstream(gate) << ""; }
  TempDir ws, bin;
  std::string gate, python;
};

/// Waits until the server's log holds `text` (an event the server logs, not a duration); false after a
/// minute without it.
bool waitForLogLine(const LSPClient &client, const std::string &text) {
  for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    if (readFile(client.logPath()).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_CASE("readiness: requests sent right after `initialized` get full answers, never empty ones") {
  // Several rounds, each racing a fresh server's first index build; every launch of every compile.
  for (const char *caseName : {"graph_break_dynamic", "mlp_train", "aoti_conv"}) {
    INFO(caseName);
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir(caseName) + "/trace"));
    REQUIRE(!codes.empty());
    LSPClient client;
    INFO(client.logTail());
    json init = client.requestRaw("initialize", {{"rootUri", fileURI(caseDir(caseName))},
                                                 {"capabilities", LSPClient::defaultCapabilities()}});
    REQUIRE(init.contains("result"));
    client.notify("initialized", json::object());
    // Everything at once, without waiting for a single answer.
    std::vector<std::pair<json, std::set<Loc>>> pending;
    for (const ExpectedOutputCode &code : codes)
      for (const LaunchSite &site : code.launches)
        pending.push_back({client.sendRequest("textDocument/definition",
                                              textDocumentPosition(code.uri, site.line, site.column)),
                           originLocs(code.originsOf(site))});
    json lensId = client.sendRequest("textDocument/codeLens",
                                     {{"textDocument", {{"uri", fileURI(caseDir(caseName) + "/model.py")}}}});
    for (auto &[id, want] : pending) {
      json response = client.waitForResponse(id);
      REQUIRE(response.contains("result"));
      CHECK(!want.empty());
      CHECK(toLocSet(response["result"]) == want);
    }
    json lenses = client.waitForResponse(lensId);
    CHECK(lenses["result"].size() >= 1);
    // Whether these rounds raced the build depends on the machine: the gated test below always does.
    client.shutdown();
  }
}

TEST_CASE("readiness: requests that wait for the index get full answers once it is built (a gated build)") {
  // A build that cannot end before the requests arrive (GatedBuild): its gate opens after the server has
  // logged that a request waits for the index.
  std::string root = caseDir("mlp_train");
  std::vector<std::string> logs = filesIn(root + "/trace");
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs, nullptr, std::vector<std::string>{});
  std::map<Frame, std::vector<LaunchRef>> byLine = launchesByUserLine(codes);
  REQUIRE(byLine.size() == 6);
  GatedBuild gated(logs[0]);
  LSPClient client;
  INFO(client.logTail());
  gated.initialize(client);
  std::string model = root + "/model.py", uri = fileURI(model);
  // Every user line's references, all sent before any answer.
  std::vector<std::string> lines = splitLines(readFile(model));
  std::vector<std::pair<json, size_t>> pending;
  for (const auto &[frame, launches] : byLine) {
    REQUIRE(localPath(frame.path) == model);
    uint32_t indent = static_cast<uint32_t>(lines.at(frame.line - 1).find_first_not_of(' '));
    pending.push_back(
        {client.sendRequest("textDocument/references", {{"textDocument", {{"uri", uri}}},
                                                        {"position", position(frame.line - 1, indent)},
                                                        {"context", {{"includeDeclaration", false}}}}),
         launches.size()});
  }
  // The server says a request waits, and no build has ended: then the gate opens.
  bool waiting = waitForLogLine(client, "waits for the index");
  for (const json &n : client.notifications("inductor/status"))
    CHECK(n.value("indexing", true) == true); // Not built yet.
  REQUIRE_MESSAGE(waiting, "no request waited for the index");
  gated.open();
  for (auto &[id, want] : pending) {
    json response = client.waitForResponse(id);
    REQUIRE(response.contains("result"));
    CHECK(response["result"].size() == want); // Full answers: every launch of the line.
  }
  client.shutdown();
}

TEST_CASE("progress: work-done progress begin..end, a status notification, a code lens refresh") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["indexing"] == false);
  CHECK(status["counts"]["graphs"] == 2);
  CHECK(status["launches"] == 29);
  CHECK(status["launchesWithOrigin"] == 29);
  // The refresh follows the status notification (the open lenses were computed on no index, or an old one).
  CHECK(s.client.waitForServerRequest("workspace/codeLens/refresh", 10s).is_object());
  std::vector<json> requests = s.client.serverRequests();
  std::string token;
  bool refresh = false;
  for (const json &r : requests) {
    if (r["method"] == "window/workDoneProgress/create") token = r["params"]["token"].get<std::string>();
    if (r["method"] == "workspace/codeLens/refresh") refresh = true;
  }
  REQUIRE(!token.empty());
  CHECK(refresh);
  std::vector<std::string> kinds;
  for (const json &p : s.client.notifications("$/progress")) {
    CHECK(p["token"] == token);
    kinds.push_back(p["value"]["kind"].get<std::string>());
  }
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds.front() == "begin");
  CHECK(kinds.back() == "end");
  s.client.shutdown();
}

TEST_CASE("progress: nothing is created for a client without workDoneProgress or refresh support") {
  Session s(caseDir("cpu_inductor"), nullptr, json::object());
  INFO(s.client.logTail());
  CHECK(s.client.waitForIndexed().is_object());
  CHECK(s.client.request("inductor/status", json::object())["counts"]["graphs"] == 1);
  CHECK(s.client.serverRequests().empty());
  CHECK(s.client.notifications("$/progress").empty());
  s.client.shutdown();
}

TEST_CASE("positionEncoding: utf-8 when offered, utf-16 otherwise") {
  struct Offer {
    json capabilities;
    std::string want;
  };
  for (const Offer &o : {Offer{{{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}}, "utf-8"},
                         Offer{{{"general", {{"positionEncodings", {"utf-16", "utf-8"}}}}}, "utf-8"},
                         Offer{{{"general", {{"positionEncodings", {"utf-16"}}}}}, "utf-16"},
                         Offer{{{"general", {{"positionEncodings", {"utf-32"}}}}}, "utf-16"},
                         Offer{json::object(), "utf-16"}}) {
    INFO(o.capabilities.dump());
    Session s(caseDir("cpu_inductor"), nullptr, o.capabilities);
    CHECK(s.initializeResult["capabilities"]["positionEncoding"] == o.want);
    CHECK_FALSE(s.initializeResult.contains("offsetEncoding")); // Only an answer to clangd's extension.
    s.client.shutdown();
  }
  // clangd's pre-3.17 `offsetEncoding` extension is answered in kind.
  Session s(caseDir("cpu_inductor"), nullptr, json{{"offsetEncoding", {"utf-8", "utf-16"}}});
  CHECK(s.initializeResult["capabilities"]["positionEncoding"] == "utf-8");
  CHECK(s.initializeResult["offsetEncoding"] == "utf-8");
  s.client.shutdown();
}

TEST_CASE("lifecycle: requests before initialize are refused; exit without shutdown exits 1") {
  LSPClient client;
  INFO(client.logTail());
  json early = client.requestRaw("textDocument/hover", textDocumentPosition("file:///x.py", 0, 0));
  REQUIRE(early.contains("error"));
  CHECK(early["error"]["code"] == -32002); // ServerNotInitialized.
  client.initialize(caseDir("cpu_inductor"));
  json again = client.requestRaw("initialize", {{"capabilities", json::object()}});
  REQUIRE(again.contains("error"));
  CHECK(again["error"]["code"] == -32600);
  client.notify("exit", nullptr);
  CHECK(client.waitForExit() == 1);
  CHECK(client.protocolProblems().empty());
}

TEST_CASE("lifecycle: after shutdown, requests are refused; exit then exits 0") {
  Session s(caseDir("cpu_inductor"));
  INFO(s.client.logTail());
  json shutdown = s.client.requestRaw("shutdown", nullptr);
  CHECK(shutdown["result"].is_null());
  json late = s.client.requestRaw("textDocument/hover", textDocumentPosition("file:///x.py", 0, 0));
  REQUIRE(late.contains("error"));
  CHECK(late["error"]["code"] == -32600);
  s.client.notify("exit", nullptr);
  CHECK(s.client.waitForExit() == 0);
}

TEST_CASE("exit: before the first index is built, with or without requests waiting for it, exits cleanly") {
  // Issue 42: initialize, a hover, shutdown and exit, all before indexing ends, crashed the server in
  // ~Server (the waiting request's cancellation entry outlived the requests in flight it points into). The
  // build is gated (GatedBuild), never opened: exit comes while it runs, whatever the machine's speed; the
  // exit code, 0 after shutdown, is also what tells a crash (a signal: -1) or a sanitizer's report (1).
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::string model = caseDir("mlp_train") + "/model.py";
  GatedBuild gated(log);
  LSPClient client;
  INFO(client.logTail());
  gated.initialize(client);
  json hover;
  SUBCASE("requests waiting for the index") {
    hover = client.sendRequest("textDocument/hover", textDocumentPosition(fileURI(model), 14, 8));
    REQUIRE_MESSAGE(waitForLogLine(client, "waits for the index"), "no request waited for the index");
  }
  SUBCASE("a build running, no request waiting") {
    // initialize started the build before the reader thread reads shutdown: nothing to wait for.
  }
  for (const json &n : client.notifications("inductor/status"))
    CHECK(n.value("indexing", true) == true); // Not built: the gate is closed.
  json shutdown = client.requestRaw("shutdown", nullptr);
  CHECK(shutdown.contains("result"));
  client.notify("exit", nullptr);
  CHECK(client.waitForExit() == 0);
  if (!hover.is_null()) {
    // Answered once, as every request: cancelled, never run on no index.
    json answer = client.waitForResponse(hover, 1s);
    REQUIRE(answer.contains("error"));
    CHECK(answer["error"]["code"] == -32800);
  }
  CHECK(client.protocolProblems().empty());
}

TEST_CASE("robustness: malformed JSON-RPC gets an error and the server keeps serving") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  const ExpectedOutputCode &forward = codes.at(0);
  const LaunchSite &site = forward.launches.at(0);
  json definition = textDocumentPosition(forward.uri, site.line, site.column);
  std::set<Loc> want = originLocs(forward.originsOf(site));
  auto stillServes = [&] {
    CHECK(toLocSet(s.client.request("textDocument/definition", definition)) == want);
  };

  SUBCASE("a body that is not JSON: -32700 with a null id") {
    s.client.sendRawFrame("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    json error = s.client.waitForNullIdResponse();
    REQUIRE(error.contains("error"));
    CHECK(error["error"]["code"] == -32700);
    stillServes();
  }
  SUBCASE("JSON that is not a request: -32600") {
    s.client.sendRawFrame("[1, 2, 3]");
    json error = s.client.waitForNullIdResponse();
    REQUIRE(error.contains("error"));
    CHECK(error["error"]["code"] == -32600);
    s.client.sendRawFrame(R"({"jsonrpc": "2.0", "id": "no-method", "params": {}})");
    json noMethod = s.client.waitForResponse("no-method");
    REQUIRE(noMethod.contains("error"));
    CHECK(noMethod["error"]["code"] == -32600);
    stillServes();
  }
  SUBCASE("an unknown method: -32601; an unknown notification: ignored") {
    json unknown = s.client.requestRaw("textDocument/teleport", json::object());
    REQUIRE(unknown.contains("error"));
    CHECK(unknown["error"]["code"] == -32601);
    s.client.notify("inductor/nothingToSeeHere", json{{"x", 1}});
    stillServes();
  }
  SUBCASE("invalid params: -32602") {
    for (const json &params : {json{{"textDocument", 5}, {"position", position(0, 0)}},
                               json{{"textDocument", {{"uri", forward.uri}}}, {"position", "top"}},
                               json{{"position", position(0, 0)}}}) {
      INFO(params.dump());
      json bad = s.client.requestRaw("textDocument/definition", params);
      REQUIRE(bad.contains("error"));
      CHECK(bad["error"]["code"] == -32602);
    }
    json badSymbol = s.client.requestRaw("workspace/symbol", json{{"query", 42}});
    REQUIRE(badSymbol.contains("error"));
    CHECK(badSymbol["error"]["code"] == -32602);
    stillServes();
  }
  SUBCASE("an empty body (Content-Length: 0)") {
    s.client.sendRawFrame("", 0);
    // An empty body is not valid JSON, so JSON-RPC asks for a parse error with a null id.
    json empty = s.client.waitForNullIdResponse(2s, /*required=*/true);
    REQUIRE(empty.contains("error"));
    CHECK(empty["error"]["code"] == -32700);
    stillServes();
  }
  SUBCASE("positions out of range answer empty, not an error") {
    CHECK(s.client.request("textDocument/definition", textDocumentPosition(forward.uri, 100000, 3)) ==
          json::array());
    CHECK(s.client.request("textDocument/definition", textDocumentPosition(forward.uri, site.line, 100000)) ==
          json::array());
    CHECK(s.client.request("textDocument/hover", textDocumentPosition("file:///no/such/file.py", 1, 1))
              .is_null());
    stillServes();
  }
  s.client.shutdown(); // Also checks that stdout carried only LSP frames throughout.
}

/// Copies a fixture log into `dir`, replacing the envelope JSON of the records at `corruptLines` (0-based log
/// lines) with garbage.
std::string corruptCopy(const TempDir &dir, const std::string &log, const std::set<uint32_t> &corruptLines) {
  std::vector<std::string> lines = splitLines(readFile(log));
  std::string out;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (corruptLines.count(i))
      line = line.substr(0, line.find("] ") + 2) + "{\"chromium_event\": {}, \"frame_id\": 0, \"fra";
    out += line + "\n";
  }
  return dir.write("trace/" + fs::path(log).filename().string(), out);
}

TEST_CASE("robustness: a log with corrupted records serves the rest and says what it skipped") {
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  // Two chromium_event envelopes (records no answer depends on) cut in the middle of their JSON.
  std::vector<TraceRecord> records = readTraceLog(log);
  std::set<uint32_t> corrupt;
  for (const TraceRecord &r : records)
    if (r.envelope.contains("chromium_event") && corrupt.size() < 2 && r.line > 100) corrupt.insert(r.line);
  REQUIRE(corrupt.size() == 2);
  TempDir dir("corrupt");
  corruptCopy(dir, log, corrupt);
  json options = {{"traceDirs", {dir.path() + "/trace"}}};
  Session s(caseDir("mlp_train"), options);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["corruptedRecords"] == 2);
  CHECK(status["launchesWithOrigin"] == 29);
  bool mentioned = false;
  for (const json &m : s.client.notifications("window/logMessage")) {
    std::string text = m["message"].get<std::string>();
    if (text.find("2 corrupted trace records skipped") != std::string::npos) mentioned = true;
  }
  CHECK_MESSAGE(mentioned, "window/logMessage: " << json(s.client.notifications("window/logMessage")).dump());
  // Everything else is served: every launch of both output codes still navigates.
  // The server indexes only the corrupted copy: no debug directory copies.
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, nullptr, std::vector<std::string>{});
  size_t launches = 0;
  for (const ExpectedOutputCode &code : codes)
    for (const LaunchSite &site : code.launches) {
      CHECK(toLocSet(s.client.request("textDocument/definition",
                                      textDocumentPosition(code.uri, site.line, site.column))) ==
            originLocs(code.originsOf(site)));
      ++launches;
    }
  CHECK(launches == 29);
  s.client.shutdown();
}

TEST_CASE("robustness: tlparse's simple_corrupted_json.log serves its good records and reports the bad one") {
  TempDir workspace("ws");
  std::string log = fixturesDir() + "/tlparse-inputs/simple_corrupted_json.log";
  Session s(workspace.path(), json{{"traceDirs", {log}}});
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["counts"]["graphs"] == 1);
  CHECK(status["launches"] == 2);
  std::vector<OutputCodeRecord> outputs = readOutputCodes(log);
  REQUIRE(outputs.size() == 1);
  std::string uri = findVirtualOutputCode(s.client, outputs[0].payload);
  CHECK(!uri.empty());
  // The record whose payload is damaged (a chromium_event: `},` removed, so its JSON and its md5 are wrong)
  // must be reported: the server checks payloads against has_payload when it reads a log whole.
  CHECK(status["corruptedRecords"] == 1);
  std::vector<json> messages = s.client.notifications("window/logMessage");
  CHECK_MESSAGE(!messages.empty(),
                "no window/logMessage about the corrupted record; status " << status.dump());
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
