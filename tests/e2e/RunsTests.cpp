// End-to-end tests of runs (index/files/Runs.h, server/workspace/Runs.cpp) on runs_gpt: two runs of one model
// in one trace folder, the user having edited model.py in between. With no settings every answer comes from
// the latest run; `run: "previous"` (or inductor.selectRun) serves the other one; inductor/runs lists both.
// Expected values come from the logs' own text (first chromium "ts", output code records and their stack
// traces, the two versions of model.py the fixture keeps), never from the server.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

/// "2026-11-27 02:31:04" of microseconds since the epoch (UTC).
std::string utcSeconds(int64_t us) {
  std::time_t t = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> linesOf(const std::string &path) {
  std::vector<std::string> out;
  std::string text = readFile(path), line;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

/// One run of runs_gpt as the test reads it: its log, id, the model.py its frames name (1-based lines), the
/// texts of those lines in the file as that run saw it, and the cache files its output code records name.
struct RunOracle {
  std::string log, id;
  std::set<uint32_t> modelLines;
  std::set<std::string> modelTexts;
  std::set<std::string> cacheFiles;
};

RunOracle readRun(const std::string &log, const std::string &modelVersion) {
  RunOracle r;
  r.log = log;
  r.id = utcSeconds(firstTimestampUs(log));
  std::vector<std::string> lines = linesOf(modelVersion);
  for (const OutputCodeRecord &code : readOutputCodes(log)) {
    if (!code.recordedPath.empty()) r.cacheFiles.insert(fs::path(code.recordedPath).filename().string());
    for (const auto &[key, frames] : code.origins)
      for (const Frame &f : frames)
        if (fs::path(f.path).filename() == "model.py" && f.line >= 1 && f.line <= lines.size()) {
          r.modelLines.insert(f.line);
          r.modelTexts.insert(trim(lines[f.line - 1]));
        }
  }
  return r;
}

struct Fixture {
  std::string root, model;
  RunOracle base, latest;
};

Fixture runsGpt() {
  Fixture f;
  f.root = caseDir("runs_gpt");
  f.model = f.root + "/model.py";
  std::vector<std::string> logs = filesIn(f.root + "/trace", "dedicated_log_torch_trace");
  REQUIRE(logs.size() == 2);
  std::sort(logs.begin(), logs.end(), [](const std::string &a, const std::string &b) {
    return firstTimestampUs(a) < firstTimestampUs(b);
  });
  f.base = readRun(logs[0], f.root + "/model_base.py.txt");
  f.latest = readRun(logs[1], f.root + "/model_new.py.txt");
  // The oracle itself: the runs compiled different lines, and each recorded cache files of its own.
  REQUIRE(!f.base.modelTexts.empty());
  REQUIRE(!f.latest.modelTexts.empty());
  REQUIRE(f.base.modelTexts != f.latest.modelTexts);
  return f;
}

/// Whether `uri` points into what only `other` made (its log, its debug directory, its own cache files).
bool pointsInto(const std::string &uri, const RunOracle &other, const RunOracle &served,
                const std::string &dir) {
  if (uri.find(fs::path(other.log).filename().string()) != std::string::npos) return true;
  if (uri.find(dir) != std::string::npos) return true;
  for (const std::string &c : other.cacheFiles)
    if (!served.cacheFiles.count(c) && uri.find(c) != std::string::npos) return true;
  return false;
}

/// Lines of model.py (0-based) with a model-line lens (the launches of the line).
std::set<uint32_t> lensLines(LSPClient &client, const std::string &uri) {
  std::set<uint32_t> out;
  json lenses = client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  for (const json &l : lenses)
    if (l.contains("command") && l["command"].value("command", "") == "inductor.showLaunchSites")
      out.insert(l["range"]["start"]["line"].get<uint32_t>());
  return out;
}

/// Checks that the served run is `served` and nothing of `other` shows: lenses, definitions, references,
/// artifacts, compile health.
void checkServes(LSPClient &client, const Fixture &f, const RunOracle &served, const RunOracle &other,
                 const std::string &otherDebugDir) {
  json status = client.request("inductor/status", json::object());
  CHECK(status["run"] == served.id);
  CHECK(status["otherRuns"] == 1);

  json runs = client.request("inductor/runs", json::object());
  REQUIRE(runs["runs"].size() == 2);
  CHECK(runs["runs"][0]["id"] == f.base.id); // Oldest first.
  CHECK(runs["runs"][1]["id"] == f.latest.id);
  for (const json &r : runs["runs"]) {
    std::string id = r["id"];
    CHECK(r["current"] == (id == served.id));
    CHECK(r["logs"].size() == 1);
    CHECK(r["ranks"].empty());
  }

  // No artifact of the other run.
  for (const json &a : client.request("inductor/listArtifacts", json::object())) {
    std::string uri = a["uri"];
    CHECK_MESSAGE(!pointsInto(uri, other, served, otherDebugDir), uri);
  }

  // Lenses: only on lines whose text the served run compiled; none on a line only the other run's frames
  // name (by number: what a merged index would show there).
  std::string uri = client.didOpen(f.model);
  std::vector<std::string> model = linesOf(f.model);
  std::set<uint32_t> lenses = lensLines(client, uri);
  CHECK(!lenses.empty());
  for (uint32_t l : lenses) {
    std::string text = l < model.size() ? trim(model[l]) : "";
    CHECK_MESSAGE(served.modelTexts.count(text), "lens on line " << l + 1 << ": " << text);
  }
  size_t otherOnly = 0;
  for (uint32_t line : other.modelLines) {
    std::string text = line - 1 < model.size() ? trim(model[line - 1]) : "";
    if (served.modelTexts.count(text)) continue;
    ++otherOnly;
    CHECK_MESSAGE(!lenses.count(line - 1), "lens on line " << line << " only the other run compiled");
  }
  CHECK(otherOnly > 0);

  // Definition and references from every line either run compiled: nothing of the other run.
  std::set<uint32_t> probe = lenses;
  for (uint32_t line : other.modelLines)
    probe.insert(line - 1);
  size_t locations = 0;
  for (uint32_t l : probe) {
    if (l >= model.size()) continue;
    uint32_t col = static_cast<uint32_t>(model[l].find_first_not_of(' '));
    if (col == static_cast<uint32_t>(std::string::npos)) continue;
    for (const char *method : {"textDocument/definition", "textDocument/references"}) {
      json params = textDocumentPosition(uri, l, col);
      if (std::string(method) == "textDocument/references")
        params["context"] = {{"includeDeclaration", true}};
      json locs = client.request(method, params);
      if (!locs.is_array()) continue;
      for (const json &loc : locs) {
        ++locations;
        std::string target = loc.value("uri", loc.value("targetUri", ""));
        CHECK_MESSAGE(!pointsInto(target, other, served, otherDebugDir),
                      method << " line " << l + 1 << ": " << target);
      }
    }
  }
  CHECK(locations > 0);

  // Compile health from the served run's log alone: its compiles (compile id and function) and its graph
  // breaks (the later run added a `.item()` print: only it breaks), not both runs'.
  auto compiles = [](const std::string &log) {
    std::set<std::string> ids;
    for (const RecordedHealthCompile &c : expectedHealth(log).compiles)
      ids.insert(c.id + "\n" + c.function);
    return ids;
  };
  auto graphBreaks = [](const std::string &log) {
    size_t n = 0;
    for (const ExpectedHealthEvent &e : expectedHealth(log).events)
      n += e.kind == "graph break";
    return n;
  };
  REQUIRE(graphBreaks(served.log) != graphBreaks(other.log)); // Merged runs would count otherwise.
  CHECK(status["counts"]["compiles"] == compiles(served.log).size());
  CHECK(status["counts"]["graphBreaks"] == graphBreaks(served.log));
}

std::string runExplain(const std::string &args) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(
      popen((std::string(INDUCTOR_LS_BINARY) + " explain --no-python " + args + " 2>/dev/null").c_str(), "r"),
      pclose);
  std::array<char, 4096> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe.get()))
    out += buf.data();
  return out;
}

} // namespace

TEST_CASE("runs: explain reports the latest run and names the other") {
  Fixture f = runsGpt();
  std::string text = runExplain("'" + f.root + "'");
  CHECK_MESSAGE(text.find("Reporting run " + f.latest.id + " (the latest; 1 other run: " + f.base.id + ")") !=
                    std::string::npos,
                text.substr(0, 600));
  json j = json::parse(runExplain("--json '" + f.root + "'"), nullptr, false);
  REQUIRE(j.is_object());
  REQUIRE(j["runs"].size() == 2);
  CHECK(j["runs"][1]["id"] == f.latest.id);
  CHECK(j["runs"][1]["current"] == true);
  CHECK(j["runs"][0]["current"] == false);
}

TEST_CASE("runs: files beside the traces that are not printer run logs are no indexing problem") {
  // Every *.log and *.txt beside the traces is a run-log candidate; only the printer's output (its
  // `before_launch` blocks, read here) may be reported as belonging to no run. The case folders with several
  // runs hold copies of the model (`model_base.py.txt`) and the runs' stdout (`run_base.log`).
  size_t checked = 0;
  for (const std::string &root : caseFolders()) {
    if (latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace")).size() ==
        filesIn(root + "/trace", "dedicated_log_torch_trace").size())
      continue; // One run: nothing is left out of it.
    CAPTURE(root);
    json j = json::parse(runExplain("--json '" + root + "'"), nullptr, false);
    REQUIRE(j.is_object());
    for (const json &d : j["diagnostics"]) {
      INFO(d.dump());
      std::string file = d["file"].get<std::string>();
      if (file.ends_with(".txt") || file.ends_with(".log")) {
        std::string text = readFile(fs::path(file).is_absolute() ? file : root + "/" + file);
        CHECK(text.find("before_launch") != std::string::npos);
      }
    }
    ++checked;
  }
  CHECK(checked >= 3);
}

TEST_CASE("runs: with no settings every answer comes from the latest run") {
  Fixture f = runsGpt();
  Session s(f.root);
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed(120s).is_object());
  checkServes(s.client, f, f.latest, f.base, "torch_compile_debug_base");
  s.client.shutdown();
}

TEST_CASE("runs: run \"previous\" serves the earlier run, and inductor.selectRun switches back") {
  Fixture f = runsGpt();
  Session s(f.root, {{"run", "previous"}, {"baseline", "none"}});
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed(120s).is_object());
  checkServes(s.client, f, f.base, f.latest, "torch_compile_debug_new");

  size_t builds = s.client.request("inductor/status", json::object())["builds"];
  s.client.request("workspace/executeCommand",
                   {{"command", "inductor.selectRun"}, {"arguments", {f.latest.id}}});
  json status;
  for (int i = 0; i < 600; ++i) {
    status = s.client.request("inductor/status", json::object());
    if (status["builds"].get<size_t>() > builds && status["indexing"] == false) break;
    std::this_thread::sleep_for(100ms);
  }
  CHECK(status["run"] == f.latest.id);
  json runs = s.client.request("inductor/runs", json::object());
  REQUIRE(runs["runs"].size() == 2);
  CHECK(runs["runs"][1]["current"] == true);
  s.client.shutdown();
}

TEST_CASE("runs: the baseline is the previous run by default, built after the current one") {
  Fixture f = runsGpt();
  Session s(f.root);
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed(120s).is_object());
  json status;
  for (int i = 0; i < 1200; ++i) {
    status = s.client.request("inductor/status", json::object());
    if (status["baseline"].is_string()) break;
    std::this_thread::sleep_for(100ms);
  }
  CHECK(status["baseline"] == f.base.id);
  json runs = s.client.request("inductor/runs", json::object());
  REQUIRE(runs["runs"].size() == 2);
  CHECK(runs["runs"][0]["baseline"] == true);
  CHECK(runs["runs"][1]["baseline"] == false);
  s.client.shutdown();
}

TEST_CASE("runs: a new log in the watched trace folder becomes the current run") {
  Fixture f = runsGpt();
  TempDir dir("runs-watch");
  fs::create_directories(dir.path() + "/trace");
  fs::copy_file(f.base.log, dir.path() + "/trace/" + fs::path(f.base.log).filename().string());
  ServerConfig config;
  config.watch = true;
  LSPClient client(config);
  client.initialize(dir.path());
  INFO(client.logTail());
  REQUIRE(client.waitForIndexed(120s).is_object());
  json status = client.request("inductor/status", json::object());
  CHECK(status["run"] == f.base.id);
  CHECK(status["otherRuns"] == 0);
  // Written under another name first, then renamed into place: the log appears whole.
  std::string tmp = dir.path() + "/incoming.tmp";
  fs::copy_file(f.latest.log, tmp);
  fs::rename(tmp, dir.path() + "/trace/" + fs::path(f.latest.log).filename().string());
  for (int i = 0; i < 1200; ++i) {
    status = client.request("inductor/status", json::object());
    if (status["run"] == f.latest.id && status["indexing"] == false) break;
    std::this_thread::sleep_for(100ms);
  }
  CHECK(status["run"] == f.latest.id);
  CHECK(status["otherRuns"] == 1);
  client.shutdown();
}

} // namespace inductor::e2e
