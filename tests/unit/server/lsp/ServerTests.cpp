// Tests for server/lsp/Server.h and the files behind it (Dispatch.cpp, Lifecycle.cpp, the feature files),
// driven in-process: a fake Transport feeds the server messages and records everything it sends. With
// ServerOptions{.jobs = 0} requests are answered inline on the reader thread, or on the index builder thread
// when they arrived before the first index (they wait for it), so no test sleeps: each waits for the message
// it expects. The index is built from the real mlp_train fixture, used in place.
#include "server/lsp/Server.h"
#include "server/text/Convert.h"

#include "index/files/PathResolver.h"
#include "protocol/URI.h"
#include "unit/TestFiles.h"
#include "unit/server/lsp/FakeTransport.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>

using namespace inductor;
using namespace inductor::test;
using protocol::json;

namespace {

// Paths as the index reports them: normalized (the configured fixtures directory may hold `..`).
const std::string kFixtures = index::normalizePath(INDUCTOR_FIXTURES_DIR);
const std::string kMlp = kFixtures + "/traces/mlp_train";
const std::string kModel = kMlp + "/model.py";
/// The forward output code: the cache file the log names, and its TORCH_COMPILE_DEBUG copy.
const std::string kForward =
    kMlp + "/inductor_cache/ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.py";
const std::string kForwardDebug = kMlp + "/torch_compile_debug/run_2026_11_22_10_29_20_480419-pid_431/"
                                         "torchinductor/model__0_forward_1.0/output_code.py";
const std::string kBackward =
    kMlp + "/inductor_cache/7p/c7prel2gvbou5svw5a6auzgvj5kzzkonx7oj6h7q7lmngczv4rcq.py";
const std::string kBackwardDebug = kMlp + "/torch_compile_debug/run_2026_11_22_10_29_20_480419-pid_431/"
                                          "torchinductor/model__0_backward_3.1/output_code.py";
/// `triton_poi_fused_gelu_1.run(` with debug handle 3: 0-based line 423, the name at columns [12, 35).
constexpr int kGeluLine = 423, kGeluColumn = 12, kGeluEnd = 35;
/// Its second launch (debug handle 7).
constexpr int kGelu2Line = 447;

/// The `inductor/status` notification sent when a build ends (others are sent while it runs).
bool isIndexedStatus(const json &m) {
  return m.value("method", "") == "inductor/status" && m["params"].value("indexing", true) == false;
}

/// The one that ends the `n`th build: the same index is reported again when the interpreter answers after it
/// was served.
std::function<bool(const json &)> builtStatus(uint64_t n) {
  return [n](const json &m) { return isIndexedStatus(m) && m["params"].value("builds", uint64_t{0}) == n; };
}

bool isResponseTo(const json &m, const json &id) {
  return m.is_object() && m.contains("id") && m["id"] == id && !m.contains("method");
}

/// An in-process client: the server runs on its own reader thread, as in main().
class Client {
public:
  explicit Client(server::ServerOptions options = {.jobs = 0, .watch = false}, bool start = true)
      : server_(std::make_unique<server::Server>(transport_, std::move(options))) {
    if (start) this->start();
  }
  ~Client() {
    transport_.close();
    if (reader_.joinable()) reader_.join();
  }
  void start() {
    reader_ = std::thread([this] { exitCode_ = server_->run(); });
  }
  /// Queues a request without waiting; returns its id.
  int send(std::string_view method, json params) {
    int id = nextId_++;
    transport_.push(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
    return id;
  }
  /// The whole response message to request `id`.
  json response(int id) {
    json r = transport_.waitFor([&](const json &m) { return isResponseTo(m, id); });
    REQUIRE_MESSAGE(!r.is_null(), "no response to request " << id);
    return r;
  }
  /// Sends a request and returns its result; fails the test on an error response.
  json request(std::string_view method, json params) {
    json r = response(send(method, std::move(params)));
    INFO(r.dump());
    REQUIRE(r.contains("result"));
    return r["result"];
  }
  /// Sends a request and returns its error code (0 if it succeeded).
  int errorCode(std::string_view method, json params) {
    json r = response(send(method, std::move(params)));
    return r.contains("error") ? r["error"]["code"].get<int>() : 0;
  }
  void notify(std::string_view method, json params) {
    transport_.push(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump());
  }
  /// Initializes with `capabilities` and mlp_train as the trace input; returns the result.
  json initialize(json capabilities = json::object(), json traceDirs = json::array({kMlp})) {
    json result = request("initialize", {{"processId", nullptr},
                                         {"rootUri", nullptr},
                                         {"capabilities", std::move(capabilities)},
                                         {"initializationOptions", {{"traceDirs", std::move(traceDirs)}}}});
    notify("initialized", json::object());
    return result;
  }
  /// Waits until run() returned; its exit code.
  int exitCode() {
    reader_.join();
    return exitCode_;
  }
  FakeTransport &transport() { return transport_; }
  server::Server &server() { return *server_; }
  /// Destroys the server (after exitCode()), as main() does when run() returns; the transport stays.
  void destroyServer() { server_.reset(); }

private:
  FakeTransport transport_;
  std::unique_ptr<server::Server> server_;
  std::thread reader_;
  int exitCode_ = -1;
  int nextId_ = 1;
};

json pos(int line, int character) {
  return {{"line", line}, {"character", character}};
}
json range(int l1, int c1, int l2, int c2) {
  return {{"start", pos(l1, c1)}, {"end", pos(l2, c2)}};
}
json location(const std::string &path, json r) {
  return {{"uri", protocol::fileURI(path)}, {"range", std::move(r)}};
}
json at(const std::string &path, int line, int character) {
  return {{"textDocument", {{"uri", protocol::fileURI(path)}}}, {"position", pos(line, character)}};
}
json atURI(const std::string &uri, int line, int character) {
  return {{"textDocument", {{"uri", uri}}}, {"position", pos(line, character)}};
}
json doc(const std::string &path) {
  return {{"textDocument", {{"uri", protocol::fileURI(path)}}}};
}

const json kUtf8 = {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}};

/// `{uri -> lines}` of a list of locations, for comparing reference results.
std::map<std::string, std::multiset<int>> linesByURI(const json &locations) {
  std::map<std::string, std::multiset<int>> out;
  for (const json &l : locations)
    out[l["uri"].get<std::string>()].insert(l["range"]["start"]["line"].get<int>());
  return out;
}

/// Every request the client sent (`requests` of them, shutdown included) was answered, each exactly once.
void checkEachAnsweredOnce(Client &c, size_t requests) {
  std::map<json, int> answers;
  for (const json &m : c.transport().sent())
    if (m.contains("id") && !m.contains("method")) ++answers[m["id"]];
  CHECK(answers.size() == requests);
  for (const auto &[id, n] : answers)
    CHECK(n == 1);
}

} // namespace

// ---------------------------------------------------------------------------------------------------------------
// Reply: exactly once.

TEST_CASE("Reply answers once; a dropped Reply answers InternalError") {
  FakeTransport t;
  {
    server::Reply reply(t, 1, "textDocument/hover");
    server::Reply copy = reply;
    reply(json{{"x", 1}});
    copy(json{{"x", 2}});                                       // Ignored: already answered.
    copy.error(protocol::ErrorCode::InternalError, "too late"); // Ignored too.
  }
  { server::Reply dropped(t, "two", "textDocument/definition"); }
  {
    server::Reply failed(t, 3, "x");
    failed.error(protocol::ErrorCode::RequestCancelled, "request cancelled");
    failed(nullptr); // Ignored.
  }
  std::vector<json> sent = t.sent();
  REQUIRE(sent.size() == 3);
  CHECK(sent[0] == json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"x", 1}}}});
  CHECK(sent[1]["id"] == "two");
  CHECK(sent[1]["error"]["code"] == -32603);
  CHECK(sent[1]["error"]["message"] == "server failed to reply");
  CHECK(sent[2]["id"] == 3);
  CHECK(sent[2]["error"]["code"] == -32800);
}

// ---------------------------------------------------------------------------------------------------------------
// Lifecycle.

TEST_CASE("initialize negotiates the position encoding and announces the capabilities") {
  SUBCASE("utf-8 when offered in general.positionEncodings") {
    Client c;
    json result = c.initialize(kUtf8);
    CHECK(result["capabilities"]["positionEncoding"] == "utf-8");
    CHECK(c.server().encoding() == protocol::OffsetEncoding::UTF8);
    CHECK_FALSE(result.contains("offsetEncoding")); // Only echoed to clients that used clangd's extension.
  }
  SUBCASE("utf-16 when not offered") {
    Client c;
    json result = c.initialize(json::object());
    CHECK(result["capabilities"]["positionEncoding"] == "utf-16");
    CHECK(c.server().encoding() == protocol::OffsetEncoding::UTF16);
  }
  SUBCASE("utf-16 when only others are offered") {
    Client c;
    json result = c.initialize({{"general", {{"positionEncodings", {"utf-32", "utf-16"}}}}});
    CHECK(result["capabilities"]["positionEncoding"] == "utf-16");
  }
  SUBCASE("clangd's offsetEncoding is read and answered") {
    Client c;
    json result = c.initialize({{"offsetEncoding", {"utf-8"}}});
    CHECK(result["capabilities"]["positionEncoding"] == "utf-8");
    CHECK(result["offsetEncoding"] == "utf-8");
  }
  Client c;
  json result = c.initialize();
  const json &caps = result["capabilities"];
  CHECK(result["serverInfo"]["name"] == "inductor-ls");
  CHECK(caps["definitionProvider"] == true);
  CHECK(caps["referencesProvider"] == true);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["codeLensProvider"] == json{{"resolveProvider", false}});
  CHECK(caps["documentSymbolProvider"] == true);
  CHECK(caps["workspaceSymbolProvider"] == true);
  CHECK(caps["textDocumentSync"]["openClose"] == true);
  CHECK(caps["textDocumentSync"]["change"] == 2);
  CHECK(caps["executeCommandProvider"]["commands"] ==
        json::array({"inductor.reindex", "inductor.selectRun", "inductor.selectBaseline"}));
  CHECK(caps["documentLinkProvider"] == json{{"resolveProvider", false}});
  // Once the index is built, the server says so.
  json status = c.transport().waitFor(isIndexedStatus);
  REQUIRE(status.is_object());
  CHECK(status["params"]["indexing"] == false);
  CHECK(status["params"]["counts"]["graphs"] == 2);
  CHECK(status["params"]["launches"] == 29);
  CHECK(status["params"]["launchesWithOrigin"] == 29);
}

TEST_CASE("work done progress: create, begin, end, when the client supports it") {
  Client c;
  c.initialize({{"window", {{"workDoneProgress", true}}}});
  json end = c.transport().waitFor([](const json &m) {
    return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "end";
  });
  REQUIRE(end.is_object());
  std::vector<std::string> order;
  for (const json &m : c.transport().sent()) {
    std::string method = m.value("method", "");
    if (method == "window/workDoneProgress/create") order.push_back("create");
    if (method == "$/progress") order.push_back(m["params"]["value"]["kind"].get<std::string>());
  }
  REQUIRE(order.size() >= 3);
  CHECK(order.front() == "create");
  CHECK(order[1] == "begin");
  CHECK(order.back() == "end");
}

TEST_CASE("errors: not initialized, unknown method, invalid params, malformed messages") {
  Client c;
  CHECK(c.errorCode("textDocument/hover", at(kForward, kGeluLine, kGeluColumn)) == -32002);
  CHECK(c.errorCode("shutdown", nullptr) == -32002);
  c.initialize();
  CHECK(c.errorCode("initialize", {{"capabilities", json::object()}}) == -32600);
  CHECK(c.errorCode("textDocument/unknownThing", json::object()) == -32601);
  CHECK(c.errorCode("textDocument/rename", at(kForward, 0, 0)) == -32601);

  // Params that do not parse: InvalidParams, with the JSON path of the offending value.
  json r = c.response(
      c.send("textDocument/definition", {{"textDocument", {{"uri", 42}}}, {"position", pos(0, 0)}}));
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["code"] == -32602);
  std::string message = r["error"]["message"];
  CAPTURE(message);
  CHECK(message.find("/textDocument/uri") != std::string::npos);
  json r2 =
      c.response(c.send("textDocument/hover", {{"textDocument", {{"uri", kForward}}}, {"position", "x"}}));
  CHECK(r2["error"]["code"] == -32602);
  CHECK(r2["error"]["message"].get<std::string>().find("/position") != std::string::npos);
  CHECK(c.errorCode("textDocument/references", {{"textDocument", {{"uri", "file:///x.py"}}}}) == -32602);
  CHECK(c.errorCode("workspace/executeCommand", {{"command", "inductor.noSuchCommand"}}) == -32602);
  CHECK(c.errorCode("inductor/artifactContent", json::object()) == -32602);

  // Not JSON: ParseError with a null id.
  size_t before = c.transport().sent().size();
  c.transport().push(R"({"jsonrpc": "2.0", "id": 77, "method": )");
  json parse = c.transport().waitFor([](const json &m) { return m.contains("error"); }, before);
  REQUIRE(parse.is_object());
  CHECK(parse["error"]["code"] == -32700);
  CHECK(parse["id"].is_null());
  // JSON but not a message: InvalidRequest.
  before = c.transport().sent().size();
  c.transport().push("[1, 2]");
  json invalid = c.transport().waitFor([](const json &m) { return m.contains("error"); }, before);
  REQUIRE(invalid.is_object());
  CHECK(invalid["error"]["code"] == -32600);
  // The server still answers afterwards, and unknown notifications are ignored without a reply.
  c.notify("textDocument/unknownNotification", json::object());
  c.notify("$/setTrace", {{"value", "off"}});
  CHECK(c.request("inductor/status", nullptr)["compiles"].is_number());
}

TEST_CASE("shutdown then exit: run() returns 0; requests after shutdown are refused") {
  Client c;
  c.initialize();
  CHECK(c.request("shutdown", nullptr).is_null());
  CHECK(c.errorCode("textDocument/hover", at(kForward, kGeluLine, kGeluColumn)) == -32600);
  c.notify("exit", nullptr);
  CHECK(c.exitCode() == 0);
}

TEST_CASE("exit without shutdown: run() returns 1") {
  Client c;
  c.initialize();
  c.notify("exit", nullptr);
  CHECK(c.exitCode() == 1);
}

TEST_CASE("end of input without shutdown: run() returns 1") {
  Client c;
  c.transport().close();
  CHECK(c.exitCode() == 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Features on mlp_train.

TEST_CASE("definition: a launch in output code -> the user line, with the line's non-blank range") {
  Client c;
  c.initialize();
  json expected = json::array({location(kModel, range(15, 8, 15, 31))});
  // Anywhere on the kernel name, including just after it.
  CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluColumn)) == expected);
  CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluColumn + 10)) == expected);
  CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluEnd)) == expected);
  // The same artifact through its TORCH_COMPILE_DEBUG copy.
  CHECK(c.request("textDocument/definition", at(kForwardDebug, kGeluLine, kGeluColumn)) == expected);
  // Before the name: the indentation is nothing.
  CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, 2)) == json::array());
  // `extern_kernels.addmm:10` -> model.py:30.
  CHECK(c.request("textDocument/definition", at(kForward, 461, 15)) ==
        json::array({location(kModel, range(29, 8, 29, 29))}));
}

TEST_CASE("hover: a launch, and a user line") {
  Client c;
  c.initialize();
  json hover = c.request("textDocument/hover", at(kForward, kGeluLine, kGeluColumn + 3));
  REQUIRE(hover.is_object());
  CHECK(hover["range"] == range(kGeluLine, kGeluColumn, kGeluLine, kGeluEnd));
  CHECK(hover["contents"]["kind"] == "markdown");
  std::string md = hover["contents"]["value"];
  CAPTURE(md);
  // The kernel's name links to its definition in the same document (0-based line 132).
  CHECK(md.rfind("### [`triton_poi_fused_gelu_1`](" + protocol::fileURI(kForward) + "#L133)", 0) == 0);
  CHECK(md.find("debug handle `3`") != std::string::npos);
  CHECK(md.find("[0/0] forward") != std::string::npos);
  // Every origin is a link to its line.
  CHECK(md.find("- [model.py:16](" + protocol::fileURI(kModel) + "#L16) `h = F.gelu(self.fc1(h))`") !=
        std::string::npos);
  CHECK(md.find("not on this machine") == std::string::npos); // The user file exists here.

  json line = c.request("textDocument/hover", at(kModel, 15, 0));
  REQUIRE(line.is_object());
  CHECK(line["range"] == range(15, 8, 15, 31));
  std::string lineMd = line["contents"]["value"];
  CAPTURE(lineMd);
  // Distinct kernels with their launches, by compile and graph: forward addmm (2, 6) and gelu (3, 7);
  // backward gelu_backward (8, 13) and mm (9, 10, 14, 18).
  CHECK(lineMd.rfind("### 4 kernels, 10 launches from line 16", 0) == 0);
  CHECK(lineMd.find("**[0/0] forward**") < lineMd.find("**[0/0] backward**"));
  CHECK(lineMd.find("**[0/0] backward**") != std::string::npos);
  // Each kernel links to its first launch, each launch to its own line; the user is in model.py, so the
  // links go to the TORCH_COMPILE_DEBUG copy (named after its graph) rather than the cache's.
  CHECK(lineMd.find("- [`triton_poi_fused_gelu_1`](" + protocol::fileURI(kForwardDebug) +
                    "#L424) · pointwise · 2 "
                    "launches, debug handles [3](" +
                    protocol::fileURI(kForwardDebug) + "#L424), [7](" + protocol::fileURI(kForwardDebug) +
                    "#L448)") != std::string::npos);
  CHECK(lineMd.find("`extern_kernels.mm`") != std::string::npos);
  CHECK(lineMd.find("4 launches") != std::string::npos);
  // A user line without kernels: null.
  CHECK(c.request("textDocument/hover", at(kModel, 0, 0)).is_null());
}

namespace {

/// The lenses of kernels (inductor.showLocations, inductor.showLaunchSites), without those of compiled
/// functions' def lines.
json kernelLenses(const json &lenses) {
  json out = json::array();
  for (const json &l : lenses)
    if (l["command"]["command"] == "inductor.showLocations" ||
        l["command"]["command"] == "inductor.showLaunchSites")
      out.push_back(l);
  return out;
}

} // namespace

TEST_CASE("codeLens: user lines with kernel counts; launches in output code with their origin") {
  Client c;
  c.initialize();
  json lenses = kernelLenses(c.request("textDocument/codeLens", doc(kModel)));
  REQUIRE(lenses.is_array());
  std::vector<int> lines;
  for (const json &l : lenses)
    lines.push_back(l["range"]["start"]["line"].get<int>());
  CHECK(lines == std::vector<int>{14, 15, 16, 17, 29, 30});
  const json &gelu = lenses[1];
  CHECK(gelu["range"] == range(15, 8, 15, 31));
  CHECK(gelu["command"]["title"] == "4 kernels, 10 launches · 2 forward · 2 backward");
  // The lens carries no locations: clicked, the client asks inductor/launchSites at its position.
  CHECK(gelu["command"]["command"] == "inductor.showLaunchSites");
  const json &args = gelu["command"]["arguments"];
  REQUIRE(args.size() == 2);
  CHECK(args[0] == protocol::fileURI(kModel));
  CHECK(args[1] == pos(15, 8));
  json sites = c.request("inductor/launchSites", at(kModel, 15, 8));
  CHECK(sites.size() == 10);
  CHECK(c.request("inductor/launchSites", at(kModel, 0, 0)) == json::array());

  // In output code opened through its debug-directory copy, lenses point at model.py and stay in that copy.
  json code = c.request("textDocument/codeLens", doc(kForwardDebug));
  REQUIRE(code.is_array());
  const json *launchLens = nullptr;
  for (const json &l : code)
    if (l["range"] == range(kGeluLine, kGeluColumn, kGeluLine, kGeluEnd)) launchLens = &l;
  REQUIRE(launchLens != nullptr);
  CHECK((*launchLens)["command"]["title"] == "model.py:16  h = F.gelu(self.fc1(h))");
  CHECK((*launchLens)["command"]["arguments"][0] == protocol::fileURI(kForwardDebug));
  CHECK((*launchLens)["command"]["arguments"][2] == json::array({location(kModel, range(15, 8, 15, 31))}));
  // 11 launches and the 5 Triton kernel definitions, every one with an origin.
  CHECK(code.size() == 16);
}

TEST_CASE("codeLens: in output code, each lens opens what definition at its range finds") {
  // Lenses of launches with the same origins, and of a kernel whose launches all share them, are made once
  // per request: each must still be its own symbol's origins, as definition (another path) places them.
  Client c;
  c.initialize();
  size_t checked = 0;
  for (const std::string &path : {kForwardDebug, kBackwardDebug}) {
    CAPTURE(path);
    json lenses = c.request("textDocument/codeLens", doc(path));
    REQUIRE(lenses.is_array());
    for (const json &l : lenses) {
      if (l["command"]["command"] != "inductor.showLocations") continue;
      json start = l["range"]["start"];
      CAPTURE(start.dump());
      json defs = c.request("textDocument/definition", at(path, start["line"], start["character"]));
      REQUIRE(defs.is_array());
      std::set<std::string> want, got;
      for (const json &d : defs)
        want.insert(d.dump());
      for (const json &d : l["command"]["arguments"][2])
        got.insert(d.dump());
      CHECK(got == want);
      ++checked;
    }
  }
  CHECK(checked >= 20);
}

TEST_CASE("references: from a user line, from a launch, from a kernel definition") {
  Client c;
  c.initialize();
  json refs = c.request("textDocument/references", {{"textDocument", {{"uri", protocol::fileURI(kModel)}}},
                                                    {"position", pos(15, 12)},
                                                    {"context", {{"includeDeclaration", false}}}});
  REQUIRE(refs.is_array());
  CHECK(refs.size() == 10);
  auto byURI = linesByURI(refs);
  CHECK(byURI.size() == 2);
  // In the TORCH_COMPILE_DEBUG copies, named after their graph, rather than the cache's c<hash>.py.
  CHECK(byURI[protocol::fileURI(kForwardDebug)] == std::multiset<int>{417, 423, 441, 447});
  CHECK(byURI[protocol::fileURI(kBackwardDebug)].size() == 6);
  CHECK(std::count(refs.begin(), refs.end(),
                   location(kForwardDebug, range(kGeluLine, kGeluColumn, kGeluLine, kGeluEnd))) == 1);
  // A copy the client has open wins over the others.
  c.notify("textDocument/didOpen", {{"textDocument",
                                     {{"uri", protocol::fileURI(kForward)},
                                      {"languageId", "python"},
                                      {"version", 1},
                                      {"text", readFile(kForward)}}}});
  json whileOpen =
      c.request("textDocument/references", {{"textDocument", {{"uri", protocol::fileURI(kModel)}}},
                                            {"position", pos(15, 12)},
                                            {"context", {{"includeDeclaration", false}}}});
  CHECK(linesByURI(whileOpen)[protocol::fileURI(kForward)] == std::multiset<int>{417, 423, 441, 447});
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", protocol::fileURI(kForward)}}}});

  // A launch: every launch of its kernel, in the document asked about.
  json launches =
      c.request("textDocument/references", {{"textDocument", {{"uri", protocol::fileURI(kForwardDebug)}}},
                                            {"position", pos(kGeluLine, kGeluColumn)},
                                            {"context", {{"includeDeclaration", false}}}});
  CHECK(launches ==
        json::array({location(kForwardDebug, range(kGeluLine, kGeluColumn, kGeluLine, kGeluEnd)),
                     location(kForwardDebug, range(kGelu2Line, kGeluColumn, kGelu2Line, kGeluEnd))}));

  // The kernel's definition `triton_poi_fused_gelu_1 = async_compile.triton(` on 0-based line 132, with the
  // declaration.
  json withDecl =
      c.request("textDocument/references", {{"textDocument", {{"uri", protocol::fileURI(kForward)}}},
                                            {"position", pos(132, 5)},
                                            {"context", {{"includeDeclaration", true}}}});
  CHECK(withDecl == json::array({location(kForward, range(132, 0, 132, 23)),
                                 location(kForward, range(kGeluLine, kGeluColumn, kGeluLine, kGeluEnd)),
                                 location(kForward, range(kGelu2Line, kGeluColumn, kGelu2Line, kGeluEnd))}));
}

TEST_CASE("documentSymbol, workspace/symbol, listArtifacts, artifactContent") {
  Client c;
  c.initialize();
  json symbols = c.request("textDocument/documentSymbol", doc(kForward));
  REQUIRE(symbols.is_array());
  std::set<std::string> names;
  for (const json &s : symbols)
    names.insert(s["name"].get<std::string>());
  CHECK(names.count("triton_poi_fused_gelu_1") == 1);
  CHECK(names.count("call") == 1);
  CHECK(names.count("triton_poi_fused_gelu_1:3") == 1); // A launch, flattened (no hierarchical support).
  CHECK(names.count("extern_kernels.addmm:10") == 1);

  json found = c.request("workspace/symbol", {{"query", "gelu"}});
  REQUIRE(found.is_array());
  REQUIRE(!found.empty());
  bool forwardGelu = false;
  for (const json &s : found)
    if (s["name"] == "triton_poi_fused_gelu_1" && s["location"]["uri"] == protocol::fileURI(kForwardDebug))
      forwardGelu = s["containerName"].get<std::string>().rfind("[0/0] forward", 0) == 0;
  CHECK(forwardGelu);

  json artifacts = c.request("inductor/listArtifacts", nullptr);
  REQUIRE(artifacts.is_array());
  size_t outputCodes = 0;
  for (const json &a : artifacts)
    if (a["kind"] == "outputCode") ++outputCodes;
  CHECK(outputCodes == 2);

  json content = c.request("inductor/artifactContent", {{"uri", protocol::fileURI(kForwardDebug)}});
  CHECK(content["languageId"] == "python");
  CHECK(content["text"] == readFile(kForwardDebug));
  CHECK(c.errorCode("inductor/artifactContent", {{"uri", protocol::fileURI(kModel)}}) == -32602);
}

TEST_CASE("a document the index does not know: empty results, not errors") {
  Client c;
  c.initialize();
  for (std::string uri : {protocol::fileURI("/nonexistent-inductor/x.py"), std::string("untitled:Untitled-1"),
                          std::string("inductor-trace:/no/such/artifact.py"), std::string("not a uri")}) {
    CAPTURE(uri);
    CHECK(c.request("textDocument/definition", atURI(uri, 3, 4)) == json::array());
    CHECK(c.request("textDocument/hover", atURI(uri, 3, 4)).is_null());
    CHECK(c.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}) == json::array());
    CHECK(c.request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}}) == json::array());
    json refs = atURI(uri, 3, 4);
    refs["context"] = {{"includeDeclaration", true}};
    CHECK(c.request("textDocument/references", refs) == json::array());
  }
  // Positions past the end of an indexed document are nothing too.
  CHECK(c.request("textDocument/definition", at(kForward, 100000, 3)) == json::array());
  CHECK(c.request("textDocument/hover", at(kForward, kGeluLine, 100000)).is_null());
}

TEST_CASE("an empty index answers empty results") {
  TempDir dir("inductor-server");
  {
    Client c;
    c.initialize(json::object(), json::array({dir.path}));
    CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluColumn)) == json::array());
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0)).is_null());
    CHECK(c.request("textDocument/codeLens", doc(kModel)) == json::array());
    CHECK(c.request("workspace/symbol", {{"query", "gelu"}}) == json::array());
    CHECK(c.request("inductor/status", nullptr)["compiles"] == 0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Open documents and position encodings.

namespace {

/// model.py with non-ASCII text after the code of line 16 (0-based 15): 8 spaces, 23 ASCII characters, then
/// `  # 😀 é`. The line's non-blank text ends at byte 42, UTF-16 unit 39.
std::string modelWithEmoji() {
  std::string text = readFile(kModel);
  const std::string code = "        h = F.gelu(self.fc1(h))\n";
  size_t at = text.find(code);
  REQUIRE(at != std::string::npos);
  text.replace(at, code.size(), "        h = F.gelu(self.fc1(h))  # \xF0\x9F\x98\x80 \xC3\xA9\n");
  return text;
}

/// The forward output code with its first line replaced by `# éé triton_poi_fused_gelu_1`: the kernel name
/// starts at byte 7, UTF-16 unit 5.
std::string forwardWithAccents() {
  std::string text = readFile(kForward);
  size_t eol = text.find('\n');
  REQUIRE(eol != std::string::npos);
  text.replace(0, eol, "# \xC3\xA9\xC3\xA9 triton_poi_fused_gelu_1");
  return text;
}

void didOpen(Client &c, const std::string &path, const std::string &text) {
  c.notify("textDocument/didOpen",
           {{"textDocument",
             {{"uri", protocol::fileURI(path)}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
}

void didChange(Client &c, const std::string &path, int version, json changes) {
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", protocol::fileURI(path)}, {"version", version}}},
            {"contentChanges", std::move(changes)}});
}

struct EncodingCase {
  json capabilities;
  int emojiLineEnd;       ///< End of line 15's non-blank text in modelWithEmoji().
  int nameStart, nameEnd; ///< The kernel name on line 0 of forwardWithAccents().
  int insideName;         ///< A column inside the name here that is not inside it in the other encoding.
  int notInName;          ///< A column not inside the name here.
};

void checkEncoding(const EncodingCase &e) {
  Client c;
  c.initialize(e.capabilities);
  didOpen(c, kModel, modelWithEmoji());
  // Ranges in the user file come from the open text, in the negotiated encoding: in a hover on the line, in
  // its code lens, and in a definition that points there from output code.
  json hover = c.request("textDocument/hover", at(kModel, 15, 0));
  REQUIRE(hover.is_object());
  CHECK(hover["range"] == range(15, 8, 15, e.emojiLineEnd));
  json lenses = kernelLenses(c.request("textDocument/codeLens", doc(kModel)));
  REQUIRE(lenses.size() == 6);
  CHECK(lenses[1]["range"] == range(15, 8, 15, e.emojiLineEnd));
  CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluColumn)) ==
        json::array({location(kModel, range(15, 8, 15, e.emojiLineEnd))}));

  // Request positions are read in the negotiated encoding too.
  didOpen(c, kForward, forwardWithAccents());
  json name = c.request("textDocument/hover", at(kForward, 0, e.insideName));
  REQUIRE(name.is_object());
  CHECK(name["range"] == range(0, e.nameStart, 0, e.nameEnd));
  CHECK(name["contents"]["value"].get<std::string>().rfind("### `triton_poi_fused_gelu_1`", 0) == 0);
  CHECK(c.request("textDocument/hover", at(kForward, 0, e.notInName)).is_null());
  CHECK(c.request("textDocument/definition", at(kForward, 0, e.insideName)) ==
        json::array({location(kModel, range(15, 8, 15, e.emojiLineEnd))}));
}

} // namespace

TEST_CASE("positions follow the negotiated encoding in open documents") {
  // UTF-16 column 6 is byte 8, inside the name; byte 6 is the blank before it.
  SUBCASE("utf-16") {
    checkEncoding({json::object(), 39, 5, 28, 6, 4});
  }
  SUBCASE("utf-8") {
    checkEncoding({kUtf8, 42, 7, 30, 8, 6});
  }
}

TEST_CASE("didChange applies incremental edits in the negotiated encoding; didClose goes back to the file") {
  for (bool utf8 : {false, true}) {
    CAPTURE(utf8);
    Client c;
    c.initialize(utf8 ? kUtf8 : json::object());
    didOpen(c, kModel, modelWithEmoji());
    int end = utf8 ? 42 : 39;
    // Delete `  # 😀 é`.
    didChange(c, kModel, 2, json::array({{{"range", range(15, 31, 15, end)}, {"text", ""}}}));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0))["range"] == range(15, 8, 15, 31));
    // Insert `  # ü` at the end of the line, then a second change in the same notification, at a position
    // after the first one's `ü` (1 UTF-16 unit, 2 UTF-8 bytes), replaces it with `ü!`. Comments do not change
    // the statement the trace recorded, so the line still has its kernels.
    didChange(c, kModel, 3,
              json::array({{{"range", range(15, 31, 15, 31)}, {"text", "  # \xC3\xBC"}},
                           {{"range", range(15, 35, 15, 35 + (utf8 ? 2 : 1))}, {"text", "\xC3\xBC!"}}}));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0))["range"] ==
          range(15, 8, 15, 31 + 4 + (utf8 ? 2 : 1) + 1));
    // Renaming `h` makes it another statement: the recorded line is no longer in the text, nothing is said
    // about the line that took its place.
    didChange(c, kModel, 4, json::array({{{"range", range(15, 8, 15, 9)}, {"text", "hidden"}}}));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0)).is_null());
    // A whole-document change: back to the file's text, shifted down by two lines; the recorded line is
    // found where it is now.
    didChange(c, kModel, 5, json::array({{{"text", "\n\n" + readFile(kModel)}}}));
    CHECK(c.request("textDocument/hover", at(kModel, 17, 0))["range"] == range(17, 8, 17, 31));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0)).is_null());
    // Closed: the file on disk again.
    c.notify("textDocument/didClose", doc(kModel));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0))["range"] == range(15, 8, 15, 31));
    // A change to a document that is not open is ignored.
    didChange(c, kModel, 6, json::array({{{"text", "nothing\n"}}}));
    CHECK(c.request("textDocument/hover", at(kModel, 15, 0))["range"] == range(15, 8, 15, 31));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Threads and cancellation.

TEST_CASE("$/cancelRequest: a request waiting for the index is answered RequestCancelled") {
  // Deterministic ordering: every message is queued before the reader starts, so the reader handles
  // `initialize` (which starts the index build on its own thread), then the hover, then the cancel, without
  // waiting for input. The hover finds no index yet (building mlp_train takes far longer than handling two
  // queued messages) and waits in the queue, where the cancel marks it; when the index is published the
  // waiting request sees the mark and is answered -32800.
  Client c({.jobs = 0, .watch = false}, /*start=*/false);
  int init = c.send("initialize", {{"processId", nullptr},
                                   {"capabilities", json::object()},
                                   {"initializationOptions", {{"traceDirs", {kFixtures + "/traces"}}}}});
  int hover = c.send("textDocument/hover", at(kForward, kGeluLine, kGeluColumn));
  c.notify("$/cancelRequest", {{"id", hover}});
  int other = c.send("textDocument/definition", at(kForward, kGeluLine, kGeluColumn));
  c.notify("$/cancelRequest", {{"id", 12345}}); // Unknown ids are ignored.
  c.start();
  CHECK(c.response(init).contains("result"));
  json cancelled = c.response(hover);
  INFO(cancelled.dump());
  REQUIRE(cancelled.contains("error"));
  CHECK(cancelled["error"]["code"] == -32800);
  // The request after it is answered normally.
  json answered = c.response(other);
  CHECK(answered["result"] == json::array({location(kMlp + "/model.py", range(15, 8, 15, 31))}));
  // Cancelling a request that was already answered changes nothing.
  c.notify("$/cancelRequest", {{"id", other}});
  CHECK(c.request("inductor/status", nullptr)["indexing"] == false);
  std::map<json, int> answers;
  for (const json &m : c.transport().sent())
    if (m.contains("id") && !m.contains("method")) ++answers[m["id"]];
  for (const auto &entry : answers) {
    const auto &id = entry.first;
    const auto &n = entry.second;
    CAPTURE(id);
    CHECK(n == 1);
  }
}

TEST_CASE("$/cancelRequest: every request in flight with the id is cancelled, each answered once") {
  // As in the test above, every message is queued before the reader starts, so both requests wait for the
  // index. The client sends two requests with one id (it reused an id it no longer waited for): the cancel
  // cannot tell them apart and names both. Keyed by the id alone, the second request's entry replaced the
  // first's, and the first was answered as if never cancelled.
  Client c({.jobs = 0, .watch = false}, /*start=*/false);
  int init = c.send("initialize", {{"processId", nullptr},
                                   {"capabilities", json::object()},
                                   {"initializationOptions", {{"traceDirs", {kFixtures + "/traces"}}}}});
  auto push = [&](json message) {
    message["jsonrpc"] = "2.0";
    c.transport().push(message.dump());
  };
  push({{"id", "same"}, {"method", "textDocument/hover"}, {"params", at(kForward, kGeluLine, kGeluColumn)}});
  push({{"id", "same"},
        {"method", "textDocument/definition"},
        {"params", at(kForward, kGeluLine, kGeluColumn)}});
  c.notify("$/cancelRequest", {{"id", "same"}});
  int other = c.send("textDocument/definition", at(kForward, kGeluLine, kGeluColumn));
  c.start();
  CHECK(c.response(init).contains("result"));
  CHECK(c.response(other).contains("result")); // Answered after both (requests keep their order).
  std::vector<json> same;
  for (const json &m : c.transport().sent())
    if (!m.contains("method") && m.value("id", json()) == "same") same.push_back(m);
  REQUIRE(same.size() == 2);
  for (const json &m : same) {
    INFO(m.dump());
    REQUIRE(m.contains("error"));
    CHECK(m["error"]["code"] == -32800);
  }
}

TEST_CASE("exit while a request runs: the server ends after it, and every request is answered once") {
  // Issue 42: whatever is in flight at exit. The hover runs on the one worker, held in the send of its answer
  // (a client that does not read), when exit arrives; a definition is queued behind it. The server is
  // destroyed while the hover still runs (main() returns after run()), and the hover is let go only then.
  Client c({.jobs = 1, .watch = false});
  c.initialize();
  REQUIRE(!c.transport().waitFor(builtStatus(1)).is_null());
  c.transport().holdNextResponse();
  int hover = c.send("textDocument/hover", at(kModel, 15, 0));
  int queued = c.send("textDocument/definition", at(kForward, kGeluLine, kGeluColumn));
  REQUIRE(c.transport().waitHolding()); // The hover is running.
  c.notify("exit", nullptr);
  CHECK(c.exitCode() == 1); // run() returned (no shutdown: 1) while the hover runs.
  std::thread destroy([&] { c.destroyServer(); });
  c.transport().release();
  destroy.join();
  json answer = c.response(hover);
  CHECK(answer["result"]["range"] == range(15, 8, 15, 31));
  // The queued request is answered too: cancelled at exit, or answered if it ran first.
  json late = c.response(queued);
  CHECK((late.contains("result") || late["error"]["code"] == -32800));
  checkEachAnsweredOnce(c, 3);
}

TEST_CASE("a worker pool answers pipelined requests, each exactly once") {
  Client c({.jobs = 2, .watch = false});
  c.initialize();
  std::vector<int> ids;
  for (int i = 0; i < 24; ++i)
    ids.push_back(i % 2 ? c.send("textDocument/definition", at(kForward, kGeluLine, kGeluColumn))
                        : c.send("textDocument/hover", at(kModel, 15, 0)));
  for (size_t i = 0; i < ids.size(); ++i) {
    json r = c.response(ids[i]);
    REQUIRE(r.contains("result"));
    if (i % 2)
      CHECK(r["result"] == json::array({location(kModel, range(15, 8, 15, 31))}));
    else
      CHECK(r["result"]["range"] == range(15, 8, 15, 31));
  }
  c.request("shutdown", nullptr);
  c.notify("exit", nullptr);
  CHECK(c.exitCode() == 0);
  checkEachAnsweredOnce(c, ids.size() + 2);
}

TEST_CASE("requests past maxPendingRequests are answered ServerCancelled at once, each exactly once") {
  // As in the $/cancelRequest test: every message is queued before the reader starts, so the hovers all
  // arrive while the index (mlp_train) is being built and wait for it. The first `bound` wait; the rest are
  // refused at once. Notifications are never refused: the document opened after the flood is served.
  constexpr size_t bound = 3;
  Client c({.jobs = 0, .watch = false, .maxPendingRequests = bound}, /*start=*/false);
  int init = c.send("initialize", {{"processId", nullptr},
                                   {"capabilities", json::object()},
                                   {"initializationOptions", {{"traceDirs", {kMlp}}}}});
  std::vector<int> hovers;
  for (int i = 0; i < 8; ++i)
    hovers.push_back(c.send("textDocument/hover", at(kModel, 15, 0)));
  c.notify(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", protocol::fileURI(kModel)}, {"languageId", "python"}, {"version", 1}, {"text", "x\n"}}}});
  c.start();
  CHECK(c.response(init).contains("result"));
  size_t answered = 0, refused = 0;
  for (size_t i = 0; i < hovers.size(); ++i) {
    json r = c.response(hovers[i]);
    INFO(r.dump());
    if (i < bound) {
      CHECK(r.contains("result"));
      ++answered;
    } else {
      REQUIRE(r.contains("error"));
      CHECK(r["error"]["code"] == -32802);
      CHECK(r["error"]["message"] == "server busy: 3 requests pending");
      ++refused;
    }
  }
  CHECK(answered == bound);
  CHECK(refused == hovers.size() - bound);
  // Once answered, the queue is free again: the server answers, and the didOpen was applied (its text).
  c.request("textDocument/documentSymbol", doc(kModel));
  CHECK(c.server().openDocument(protocol::fileURI(kModel)) != nullptr);
  c.request("shutdown", nullptr);
  c.notify("exit", nullptr);
  CHECK(c.exitCode() == 0);
  checkEachAnsweredOnce(c, hovers.size() + 3);
}

// ---------------------------------------------------------------------------------------------------------------
// Log-only artifacts and configuration.

TEST_CASE(
    "a log-only output code is served under inductor-trace:, its absent user files at their recorded lines") {
  const std::string log = kFixtures + "/tlparse-inputs/inductor_provenance_jit_debug_handle_log.txt";
  Client c;
  c.initialize(json::object(), json::array({log}));
  json artifacts = c.request("inductor/listArtifacts", nullptr);
  std::string uri;
  for (const json &a : artifacts)
    if (a["kind"] == "outputCode") uri = a["uri"];
  CAPTURE(uri);
  REQUIRE(uri.rfind("inductor-trace:", 0) == 0);
  json content = c.request("inductor/artifactContent", {{"uri", uri}});
  std::string text = content["text"];
  // The first launch, `extern_kernels.mm:4`, found in the text.
  size_t at = text.find("extern_kernels.mm(");
  REQUIRE(at != std::string::npos);
  int line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  int column = static_cast<int>(at - text.rfind('\n', at) - 1);
  const std::string recorded =
      "/data/users/shangdiy/fbsource/buck-out/v2/gen/fbcode/4de56deb453463b3/caffe2/test/"
      "inductor/__provenance_tracing__/provenance_tracing#link-tree/caffe2/test/inductor/"
      "test_provenance_tracing.py";
  // The file is not here: the location is the recorded text of it (an inductor-trace:/recorded-source
  // document, never a file:// URI of a missing file), at the start of the recorded line.
  json def = c.request("textDocument/definition", atURI(uri, line, column + 2));
  REQUIRE(def.is_array());
  REQUIRE(def.size() == 1);
  const std::string defUri = def[0]["uri"];
  CHECK(defUri.rfind("inductor-trace:/recorded-source/data/users/shangdiy/", 0) == 0);
  CHECK(defUri.size() > 27);
  CHECK(defUri.substr(defUri.size() - 27) == "/test_provenance_tracing.py");
  CHECK(def[0]["range"] == range(78, 0, 78, 0));
  std::string source = c.request("inductor/artifactContent", {{"uri", defUri}})["text"];
  std::vector<std::string> sourceLines;
  for (size_t from = 0, nl; from <= source.size(); from = nl + 1) {
    nl = source.find('\n', from);
    if (nl == std::string::npos) nl = source.size();
    sourceLines.push_back(source.substr(from, nl - from));
  }
  REQUIRE(sourceLines.size() > 78);
  CHECK(sourceLines[78].find("x = self.fc1(x)") != std::string::npos);
  json hover = c.request("textDocument/hover", atURI(uri, line, column + 2));
  REQUIRE(hover.is_object());
  std::string md = hover["contents"]["value"];
  CAPTURE(md);
  // Not a link: the file is not here. The recorded path says where it was.
  CHECK(md.find("`" + recorded + ":79` `x = self.fc1(x)`") != std::string::npos);
  CHECK(md.find("not on this machine") != std::string::npos);
  CHECK(hover["range"] == range(line, column, line, column + 17));
  // The absent user file answers through its recorded path.
  CHECK(c.request("textDocument/references", {{"textDocument", {{"uri", protocol::fileURI(recorded)}}},
                                              {"position", pos(78, 0)},
                                              {"context", {{"includeDeclaration", false}}}})
            .size() == 2);
}

TEST_CASE("didChangeConfiguration with new traceDirs reindexes") {
  TempDir dir("inductor-server");
  {
    Client c;
    c.initialize({{"workspace", {{"codeLens", {{"refreshSupport", true}}}}}});
    // inductor/status answers at once (it does not wait for the index); the notification comes when it is
    // ready.
    json first = c.transport().waitFor(builtStatus(1));
    REQUIRE(first.is_object());
    CHECK(first["params"]["counts"]["graphs"] == 2);
    size_t before = c.transport().sent().size();
    c.notify("workspace/didChangeConfiguration",
             {{"settings", {{"inductorLs", {{"traceDirs", {dir.path}}}}}}});
    json status = c.transport().waitFor(builtStatus(2), before);
    REQUIRE(status.is_object());
    CHECK(status["params"]["compiles"] == 0);
    CHECK(c.request("textDocument/definition", at(kForward, kGeluLine, kGeluColumn)) == json::array());
    // Clients that support it are asked to refresh their lenses.
    json refresh = c.transport().waitFor(
        [](const json &m) { return m.value("method", "") == "workspace/codeLens/refresh"; }, before);
    CHECK(refresh.is_object());
    // Unrelated settings do not reindex.
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"other", 1}}}});
    json after = c.request("inductor/status", nullptr);
    CHECK(after["indexing"] == false);
    CHECK(after["compiles"] == 0);
  }
}

TEST_CASE("UniqueLocations: one entry per location, what the vector holds already counts as seen") {
  using inductor::protocol::Location;
  Location a{"file:///m.py", {{3, 4}, {3, 9}}}, sameAsA = a, otherRange = a, otherUri = a;
  otherRange.range.end.character = 10;
  otherUri.uri = "inductor-trace:/log/1/out.py";
  std::vector<Location> out{a};
  inductor::server::UniqueLocations unique(out);
  CHECK_FALSE(unique.add(sameAsA)); // The declaration already there.
  CHECK(unique.add(otherRange));
  CHECK(unique.add(otherUri));
  CHECK_FALSE(unique.add(otherUri));
  CHECK_FALSE(unique.add(otherRange.uri, otherRange.range));
  REQUIRE(out.size() == 3);
  CHECK(nlohmann::json(out[1]) ==
        nlohmann::json::parse(R"({"uri":"file:///m.py","range":{"start":{"line":3,"character":4},)"
                              R"("end":{"line":3,"character":10}}})"));
  CHECK(out[2].uri == otherUri.uri);
}

TEST_CASE("Server::admits: an index of the first rank alone answers navigation in its own documents only") {
  const std::string root = kFixtures + "/traces/ranks_diverge";
  index::IndexOptions options;
  options.roots = {root};
  options.inputs = {root + "/trace"};
  options.deferRanksOver = 1;
  auto first = index::Index::build(options);
  REQUIRE(first->stats().ranksDeferred == 3);
  options.deferRanksOver = 0;
  auto all = index::Index::build(options);
  REQUIRE(all->stats().ranksDeferred == 0);
  // A document of rank 0 (the first rank) and a log-only one of rank 1, from the index of every rank.
  std::string rank0, rank1;
  for (const index::Compile &c : all->compiles()) {
    if (!c.outputCode.valid()) continue;
    if (c.rank == 0 && rank0.empty()) rank0 = server::artifactURI(*all, c.outputCode);
    if (c.rank == 1 && rank1.empty() && c.postGradGraph.valid() &&
        all->artifact(c.postGradGraph).paths.empty())
      rank1 = server::artifactURI(*all, c.postGradGraph);
  }
  REQUIRE_FALSE(rank0.empty());
  REQUIRE(rank1.rfind("inductor-trace:", 0) == 0);
  auto navigatesIn = [](const std::string &uri) {
    server::Needs needs;
    needs.navigatesIn = uri;
    return needs;
  };
  server::Needs profiles;
  profiles.profiles = true;
  const std::string model = protocol::fileURI(root + "/model.py");
  using server::Server;
  CHECK_FALSE(Server::admits(nullptr, navigatesIn(rank0)));
  CHECK(Server::admits(first.get(), navigatesIn(rank0)));
  CHECK_FALSE(Server::admits(first.get(), navigatesIn(rank1)));
  CHECK_FALSE(Server::admits(first.get(), navigatesIn(model))); // Model lines: every rank's.
  CHECK_FALSE(Server::admits(first.get(), server::Needs()));
  CHECK_FALSE(Server::admits(first.get(), profiles));
  for (const std::string &uri : {rank0, rank1, model, std::string()})
    CHECK(Server::admits(all.get(), navigatesIn(uri)));
  CHECK(Server::admits(all.get(), profiles));
}

TEST_CASE("Server::admits: an index of the open document's compile alone answers navigation in it only") {
  const std::string root = kFixtures + "/traces/runs_gpt";
  index::IndexOptions options;
  options.roots = {root};
  options.inputs = {root + "/trace"};
  auto all = index::Index::build(options);
  REQUIRE(all->compiles().size() >= 2);
  const std::string open = server::artifactURI(*all, all->compiles().back().outputCode);
  const std::string other = server::artifactURI(*all, all->compiles().front().outputCode);
  REQUIRE(open != other);
  index::IndexCache cache; // The server's first build has one (a second build reuses it).
  // As the editor has it open (a file's text, or the log-only document's URI), with a document of no trace.
  const index::Artifact &code = all->artifact(all->compiles().back().outputCode);
  std::string text;
  if (!code.paths.empty()) {
    std::ifstream in(code.paths.front());
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  options.firstDocuments = [&] {
    return server::firstDocumentsOf({{open, text}, {"untitled:Untitled-1", "x = 1\n"}});
  };
  auto first = index::Index::build(options, {}, nullptr, &cache);
  REQUIRE(first->stats().compilesDeferred > 0);
  auto navigatesIn = [](const std::string &uri) {
    server::Needs needs;
    needs.navigatesIn = uri;
    return needs;
  };
  using server::Server;
  CHECK(Server::admits(first.get(), navigatesIn(open)));
  CHECK_FALSE(Server::admits(first.get(), navigatesIn(other)));
  CHECK_FALSE(Server::admits(first.get(), navigatesIn(protocol::fileURI(root + "/model.py"))));
  CHECK_FALSE(Server::admits(first.get(), server::Needs()));
  CHECK(Server::admits(all.get(), server::Needs()));
}
