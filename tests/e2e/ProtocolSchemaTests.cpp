// tests/e2e/ProtocolSchemaTests.cpp: the server's side of the custom protocol held to its one description,
// protocol/inductor-protocol.json (the editors' tests hold protocol.ts and the Lua client to the same file).
// The real binary over stdio on real cases: every inductor/* request (each artifact's content, every line of
// the model file for launchSites, compiles with and without a uri), every inductor/status notification of the
// builds, validated key by key: a key missing, extra or of the wrong type fails with its path. The commands
// of every code lens and code action of the model file and the generated files, against `commands`, and the
// diagnostics' data against DiagnosticData; the server's executeCommandProvider against the server commands.
// Over all cases (and a workspace without a trace but with a virtual environment), every property the
// description gives a result must have been seen, so that the description holds nothing the server no longer
// writes. The validator itself is shown to reject wrong documents first.
#include "e2e/E2E.h"
#include "e2e/ProtocolSchema.h"

#include <filesystem>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

bool mentions(const std::vector<std::string> &problems, const std::string &part) {
  for (const std::string &p : problems)
    if (p.find(part) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string> &problems) {
  std::string s;
  for (const std::string &p : problems)
    s += "\n  " + p;
  return s;
}

const json &requestPart(const json &d, const std::string &method, const char *part) {
  return d["requests"][method][part];
}

TEST_CASE("protocol schema: the description is in the subset the validators read") {
  json d = loadProtocolDescription();
  std::vector<std::string> problems = checkDescription(d);
  CHECK_MESSAGE(problems.empty(), joined(problems));
  // Every method the server names is described, and every described method is named by the server: the
  // "inductor/..." string literals of server/ and protocol/ (the dispatch table, the status notification).
  std::set<std::string> named;
  for (const char *dir : {"/server", "/protocol"})
    for (const auto &e : fs::recursive_directory_iterator(std::string(INDUCTOR_SOURCE_DIR) + dir)) {
      std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      std::string text = readFile(e.path().string());
      for (size_t at = text.find("\"inductor/"); at != std::string::npos;
           at = text.find("\"inductor/", at + 1)) {
        size_t end = text.find('"', at + 1);
        std::string method = text.substr(at + 1, end - at - 1);
        if (method.find_first_of(" {}") == std::string::npos) named.insert(method);
      }
    }
  for (const std::string &method : named)
    CHECK_MESSAGE((d["requests"].contains(method) || d["notifications"].contains(method)),
                  method << " is named in the server but not described");
  for (const char *group : {"requests", "notifications"})
    for (const auto &item : d[group].items()) {
      // A copy: clang 14 cannot capture a structured binding in doctest's message lambda.
      std::string method = item.key();
      CHECK_MESSAGE(named.count(method), method << " is described but the server never names it");
    }
}

TEST_CASE("protocol schema: the validator rejects what the description does not allow") {
  json d = loadProtocolDescription();
  const json &artifact = d["$defs"]["Artifact"];
  json good = {{"uri", "inductor-trace:/x"},
               {"title", "t"},
               {"label", "l"},
               {"kind", "graph"},
               {"languageId", "python"},
               {"compileId", "0/0"},
               {"compile", "[0/0]"},
               {"compileIndex", 0},
               {"rank", nullptr},
               {"graphKind", nullptr},
               {"graphName", nullptr},
               {"trace", nullptr}};
  REQUIRE(validateValue(d, artifact, good, "a").empty());

  json missing = good;
  missing.erase("label");
  CHECK(mentions(validateValue(d, artifact, missing, "a"), "a: missing required key `label`"));
  json extra = good;
  extra["lable"] = "l";
  CHECK(mentions(validateValue(d, artifact, extra, "a"), "a: unexpected key `lable`"));
  json wrongType = good;
  wrongType["compileIndex"] = "0";
  CHECK(mentions(validateValue(d, artifact, wrongType, "a"), "a.compileIndex: \"0\" is not of type"));
  json fractional = good;
  fractional["compileIndex"] = 0.5;
  CHECK(mentions(validateValue(d, artifact, fractional, "a"), "a.compileIndex: 0.5 is not of type"));
  json badEnum = good;
  badEnum["kind"] = "graphs";
  CHECK(mentions(validateValue(d, artifact, badEnum, "a"), "a.kind: \"graphs\" is not one of"));
  // Nested: an array of objects, an anyOf (Location or null), a map's values.
  const json &listResult = requestPart(d, "inductor/listArtifacts", "result");
  json list = json::array({good, wrongType});
  CHECK(mentions(validateValue(d, listResult, list, "r"), "r[1].compileIndex"));
  json line = {{"location", {{"uri", "file:///m.py"}, {"range", {{"start", {{"line", 0}}}}}}},
               {"path", "/m.py"},
               {"line", 1},
               {"code", "x"},
               {"ns", 1},
               {"perStepNs", 1},
               {"stepNs", json::array()},
               {"percent", 1.5},
               {"label", "1 ns"},
               {"launches", 1},
               {"byKind", {{"forward", "1"}}}};
  std::vector<std::string> problems = validateValue(d, d["$defs"]["HotLine"], line, "h");
  // The range's end is missing (and its start lacks `character`): neither Location nor null.
  CHECK(mentions(problems, "h.location: {"));
  CHECK(mentions(problems, "h.location.range: missing required key `end`"));
  CHECK(mentions(problems, "h.byKind.forward: \"1\" is not of type"));
  // The summary of inductor/compiles: Counts or {}, nothing between.
  const json &compiles = requestPart(d, "inductor/compiles", "result");
  CHECK(validateValue(d, compiles, {{"frames", json::array()}, {"summary", json::object()}}, "c").empty());
  CHECK(mentions(validateValue(d, compiles, {{"frames", json::array()}, {"summary", {{"traces", 1}}}}, "c"),
                 "c.summary: {\"traces\":1} matches no anyOf branch"));
  // The description's own checks: a keyword outside the subset, a dangling $ref, an open object by omission.
  json broken = d;
  broken["$defs"]["Artifact"]["properties"]["uri"] = {{"format", "uri"}, {"type", "string"}};
  broken["$defs"]["Counts"]["properties"]["ranks"] = {{"$ref", "#/$defs/Rank"}};
  broken["$defs"]["Progress"].erase("additionalProperties");
  problems = checkDescription(broken);
  CHECK(mentions(problems, "$defs.Artifact.uri: keyword `format` is outside the subset"));
  CHECK(mentions(problems, "$defs.Counts.ranks: $ref \"#/$defs/Rank\" does not name a $defs entry"));
  CHECK(mentions(problems, "$defs.Progress: an object with properties must say additionalProperties"));
  // initializationOptions: what a client may send.
  CHECK(validateValue(d, d["initializationOptions"], {{"traceDirs", "/t"}, {"trusted", false}}, "o").empty());
  CHECK(mentions(validateValue(d, d["initializationOptions"], {{"traceDir", json::array({"/t"})}}, "o"),
                 "o: unexpected key `traceDir`"));
}

/// Every string in `v` that starts with `prefix`.
void collectStrings(const json &v, const std::string &prefix, std::set<std::string> &out) {
  if (v.is_string() && v.get<std::string>().rfind(prefix, 0) == 0) out.insert(v.get<std::string>());
  if (v.is_structured())
    for (const json &item : v)
      collectStrings(item, prefix, out);
}

struct Run {
  const json &d;
  LSPClient &client;
  std::set<std::string> &seen;
  std::string caseName;

  json request(const std::string &method, const json &params) {
    std::string where = caseName + ": " + method;
    std::vector<std::string> bad =
        validateValue(d, requestPart(d, method, "params"), params, where + " params");
    CHECK_MESSAGE(bad.empty(), "the test sends params the description does not allow:" << joined(bad));
    json result = client.request(method, params);
    bad = validateValue(d, requestPart(d, method, "result"), result, where + " result", &seen);
    CHECK_MESSAGE(bad.empty(), joined(bad));
    return result;
  }
};

TEST_CASE("protocol schema: every answer and notification of the server matches the description") {
  json d = loadProtocolDescription();
  REQUIRE(checkDescription(d).empty());
  std::set<std::string> seen;
  std::set<std::string> serverCommands, clientCommands, commandsSeen;
  for (const auto &item : d["commands"].items())
    if (item.key() != "$comment")
      (item.value()["side"] == "server" ? serverCommands : clientCommands).insert(item.key());
  // Each code lens's and code action's command against `commands`; diagnostics' data against DiagnosticData.
  auto checkCommand = [&](const json &command, const std::string &where) {
    if (!command.is_object()) return;
    std::vector<std::string> bad = validateCommand(d, command, where, &seen);
    CHECK_MESSAGE(bad.empty(), joined(bad));
    commandsSeen.insert(command.value("command", std::string()));
  };
  size_t lensesChecked = 0, actionsChecked = 0, diagnosticData = 0;
  auto checkDocument = [&](LSPClient &client, const std::string &uri, const std::string &caseName) {
    json lenses = client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
    for (const json &lens : lenses) {
      checkCommand(lens["command"], caseName + ": codeLens " + uri);
      ++lensesChecked;
    }
    json diagnostics = client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
    for (const json &diagnostic : diagnostics.value("items", json::array()))
      if (diagnostic.contains("data")) {
        std::vector<std::string> bad = validateValue(d, d["$defs"]["DiagnosticData"], diagnostic["data"],
                                                     caseName + ": Diagnostic.data " + uri, &seen);
        CHECK_MESSAGE(bad.empty(), joined(bad));
        ++diagnosticData;
      }
    json everything = {{"start", {{"line", 0}, {"character", 0}}},
                       {"end", {{"line", 100000}, {"character", 0}}}};
    json actions = client.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}},
                                                              {"range", everything},
                                                              {"context", {{"diagnostics", json::array()}}}});
    for (const json &action : actions) {
      checkCommand(action.value("command", json()), caseName + ": codeAction " + uri);
      ++actionsChecked;
    }
  };
  size_t launchSiteAnswers = 0, contents = 0, hotLines = 0, events = 0, loweredAnswers = 0;
  const std::string fixtures = fs::canonical(INDUCTOR_FIXTURES_DIR).string() + "/traces/";
  const std::string traces = fs::canonical(INDUCTOR_TRACES_DIR).string() + "/";
  // Besides the traces, a workspace without one but with a virtual environment: a notice (no trace) and a
  // Python environment read from its files (never run) in the status.
  TempDir venv("venv-no-trace");
  venv.write(".venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  venv.write(".venv/lib/python3.12/site-packages/mylib/__init__.py", "x = 1\n");
  for (const std::string &root :
       {fixtures + "mlp_train", fixtures + "profiled_mlp", fixtures + "compile_health",
        fixtures + "multirank", fixtures + "aoti_conv", traces + "health_zoo", traces + "gpt2_profiled",
        venv.path(), fixtures + "ranks_diverge", fixtures + "kernel_ir", fixtures + "runs_gpt",
        // Inductor's byte and FLOP estimates: the roofline keys of inductor/hotLines' kernels.
        traces + "kernel_perf",
        // A run log of the intermediate value debug printer: the printer code actions' command.
        fixtures + "jit_printer",
        // Compiled autograd: a frame's compiledAutogradId.
        traces + "compiled_autograd",
        // An older trace whose model is not on this machine: the status's firstMissingSource.
        fs::canonical(INDUCTOR_FIXTURES_DIR).string() + "/tlparse-inputs/simple.log"}) {
    if (!fs::exists(root)) {
      FAIL_CHECK("case folder missing: " << root);
      continue;
    }
    std::string caseName = fs::path(root).filename().string();
    CAPTURE(caseName);
    Session s(root);
    INFO(s.client.logTail());
    REQUIRE(s.client.waitForIndexed(120s).is_object());
    Run run{d, s.client, seen, caseName};
    // The commands the server executes are the described server commands.
    std::set<std::string> executes;
    for (const json &c : s.initializeResult["capabilities"]["executeCommandProvider"]["commands"])
      executes.insert(c.get<std::string>());
    CHECK(executes == serverCommands);

    json status = run.request("inductor/status", json::object());
    CHECK(status["ready"] == true);
    if (root == venv.path()) {
      // The environments come with the Python answer, after the build (polled as ExecutionTests does).
      for (int i = 0; i < 300 && status["python"]["environments"].empty(); ++i) {
        std::this_thread::sleep_for(100ms);
        status = run.request("inductor/status", json::object());
      }
      CHECK(!status["python"]["environments"].empty());
    }
    json artifacts = run.request("inductor/listArtifacts", json::object());
    json all = run.request("inductor/compiles", json::object());
    json hot = run.request("inductor/hotLines", json::object());
    run.request("inductor/ranks", json::object());
    hotLines += hot["lines"].size();
    run.request("inductor/runs", json::object());
    if (caseName == "runs_gpt") {
      // Two runs: the comparison with the previous one, once its index is built (after the current one's).
      json compared = run.request("inductor/compare", json::object());
      for (int i = 0; i < 600 && !compared["baseline"].is_object(); ++i) {
        std::this_thread::sleep_for(100ms);
        compared = run.request("inductor/compare", json::object());
      }
      CHECK(compared["baseline"].is_object());
      CHECK(!compared["events"].empty());
    }
    for (const json &f : all["frames"])
      for (const json &c : f["compiles"])
        events += c["events"].size();

    // The model file: compiles and hot lines of that file only, launch sites on each of its lines.
    std::string model = root + "/model.py";
    if (fs::exists(model)) {
      std::string uri = s.client.didOpen(model);
      checkDocument(s.client, uri, caseName);
      run.request("inductor/compiles", {{"uri", uri}});
      run.request("inductor/hotLines", {{"limit", 3}, {"uri", uri}});
      size_t lines = 0;
      for (char c : readFile(model))
        lines += c == '\n';
      for (uint32_t l = 0; l < lines && l < 300; ++l)
        launchSiteAnswers += !run.request("inductor/launchSites", textDocumentPosition(uri, l, 4)).empty();
    }
    // A uri that names no user file: the summary is {} and there are no functions.
    if (!artifacts.empty()) run.request("inductor/compiles", {{"uri", artifacts[0]["uri"]}});

    // The content of each artifact (one per URI, at most 40 a case), and of sources known only from the
    // trace.
    std::set<std::string> uris;
    for (const json &a : artifacts)
      if (uris.size() < 40) uris.insert(a["uri"].get<std::string>());
    std::set<std::string> recorded;
    collectStrings(all, "inductor-trace:/recorded-source/", recorded);
    for (auto it = recorded.begin(); it != recorded.end() && std::distance(recorded.begin(), it) < 5; ++it)
      uris.insert(*it);
    for (const std::string &uri : uris) {
      json content = run.request("inductor/artifactContent", {{"uri", uri}});
      ++contents;
      // The generated files (output code, kernels) on disk: their lenses, diagnostics and code actions.
      if (uri.starts_with("file://") && uri.find('%') == std::string::npos &&
          (uri.ends_with(".py") || uri.ends_with(".cpp"))) {
        s.client.didOpen(uri.substr(7));
        checkDocument(s.client, uri, caseName);
      }
      // Kernel internals: inductor/lowered on the first `tl.load(` line of each artifact (a Triton kernel's).
      std::istringstream lines(content.value("text", std::string()));
      uint32_t l = 0;
      for (std::string line; std::getline(lines, line); ++l)
        if (line.find("tl.load(") != std::string::npos) {
          loweredAnswers += !run.request("inductor/lowered", textDocumentPosition(uri, l, 4)).empty();
          break;
        }
    }

    // Every inductor/status the server sent: while building (progress) and once built.
    std::vector<json> notes = s.client.notifications("inductor/status");
    CHECK(notes.size() >= 2);
    for (size_t i = 0; i < notes.size(); ++i) {
      std::vector<std::string> bad =
          validateValue(d, d["notifications"]["inductor/status"]["params"], notes[i],
                        caseName + ": inductor/status notification " + std::to_string(i), &seen);
      CHECK_MESSAGE(bad.empty(), joined(bad));
    }
    s.client.shutdown();
  }
  {
    // A kernel line lowered to more lines than an answer lists: its stage's `more`; and a stage whose file is
    // over the size limit (sparse): its `note` (issue 43).
    TempDir ws("schema-long-lowering");
    LongLowering ll = copyKernelIrWithLongLowering(ws.path(), 4200);
    fs::path llir = fs::path(ll.ptx).replace_extension(".llir");
    REQUIRE(fs::exists(llir));
    fs::resize_file(llir, (size_t{64} << 20) + 1);
    Session s(ws.path());
    REQUIRE(s.client.waitForIndexed(120s).is_object());
    Run run{d, s.client, seen, "kernel_ir, a line lowered to 4,200 more PTX lines"};
    loweredAnswers +=
        !run.request("inductor/lowered", textDocumentPosition(fileURI(ll.kernelFile), ll.line, 4)).empty();
    s.client.shutdown();
  }
  // The runs covered what they should: the validator saw the optional parts too.
  CHECK(launchSiteAnswers > 0);
  CHECK(loweredAnswers > 0);
  CHECK(contents > 0);
  CHECK(hotLines > 0);
  CHECK(events > 0);
  CHECK(lensesChecked > 0);
  CHECK(actionsChecked > 0);
  CHECK(diagnosticData > 0);
  // Every client command the description holds was seen in some lens or code action (none described that the
  // server no longer sends).
  for (const std::string &name : clientCommands)
    CHECK_MESSAGE(commandsSeen.count(name), name << " is described but no lens or code action carried it");
  // Every property the description gives a result or notification was present in some answer.
  std::set<std::string> described;
  for (const auto &[method, m] : d["requests"].items())
    described.merge(reachableProperties(d, m["result"]));
  described.merge(reachableProperties(d, d["notifications"]["inductor/status"]["params"]));
  for (const auto &item : d["commands"].items())
    if (item.key() != "$comment")
      for (const json &argument : item.value()["arguments"])
        described.merge(reachableProperties(d, argument));
  described.merge(reachableProperties(d, d["$defs"]["DiagnosticData"]));
  // Every key must have been seen with a value.
  for (const std::string &key : described)
    CHECK_MESSAGE(seen.count(key), key << " is described but no answer of the server held it with a value");
}

TEST_CASE("protocol schema: initializationOptions as described are read, each key") {
  json d = loadProtocolDescription();
  const std::string root = fs::canonical(INDUCTOR_FIXTURES_DIR).string() + "/traces/profiled_mlp";
  // Every key of the description, with the values a client sends.
  json options = {{"traceDirs", json::array({root + "/trace"})},
                  {"pathMappings", json::array({{{"from", "/tmp/work/profiled_mlp"}, {"to", root}}})},
                  {"libraryPaths", json::array({"**/no_such_library/**"})},
                  {"pythonPath", nullptr},
                  {"profiles", json::array({root + "/profile.json"})},
                  {"runLogs", json::array()},
                  {"trusted", false},
                  {"run", "latest"},
                  {"baseline", "none"},
                  {"tritonCacheDirs", json::array({fs::canonical(INDUCTOR_FIXTURES_DIR).string() +
                                                   "/traces/kernel_ir/inductor_cache/triton"})}};
  std::vector<std::string> bad =
      validateValue(d, d["initializationOptions"], options, "initializationOptions");
  REQUIRE_MESSAGE(bad.empty(), joined(bad));
  std::set<std::string> described = {"traceDirs", "pathMappings",   "libraryPaths", "pythonPath",
                                     "profiles",  "runLogs",        "trusted",      "run",
                                     "baseline",  "tritonCacheDirs"};
  for (const auto &item : d["$defs"]["InitializationOptions"]["properties"].items()) {
    std::string k = item.key();
    CHECK_MESSAGE(described.erase(k) == 1, k << " is described but not sent by this test");
  }
  CHECK(described.empty());

  Session s(root, options);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed(120s);
  REQUIRE(status.is_object());
  // Each key taken: the trace input, the mapping and the library glob (the initialize log line counts them),
  // untrusted (no interpreter), the profile read.
  std::string log = readFile(s.client.logPath());
  CHECK(log.find("1 trace inputs, 1 path mappings, 1 library paths") != std::string::npos);
  CHECK(log.find("untrusted (no interpreter is run)") != std::string::npos);
  CHECK(log.find("ignoring") == std::string::npos);
  CHECK(status["python"]["trusted"] == false);
  CHECK(status["profiles"] >= 1);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
