// End-to-end tests of the comparison with a baseline run (issue 28 points 3 and 4) on runs_gpt: two runs of
// one small GPT from one folder, `model.py` edited in between (GELU+dropout became SiLU with a `.item()`
// print, an RMSNorm line was added, a second batch size recompiles). What the comparison must say is derived
// here from the two versions of the model (`model_base.py.txt`, `model_new.py.txt`) and each log by the
// tests' own oracles (TraceOracle.h, HealthOracle.h), never from the server's output.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"
#include "e2e/ProfileOracle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string trimmed(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// The log of run `run` ("base" or "new"): the one whose first record's pid is in the name of the run's
/// `torch_compile_debug_<run>/run_<time>-pid_<pid>` directory.
std::string logOf(const std::string &root, const std::string &run) {
  std::string pid;
  for (const auto &e : fs::directory_iterator(root + "/torch_compile_debug_" + run)) {
    std::string name = e.path().filename().string();
    pid = name.substr(name.rfind("pid_") + 4);
  }
  for (const std::string &log : filesIn(root + "/trace")) {
    std::istringstream fields(readFile(log).substr(0, 200)); // `V1127 02:31:04.296000 2145 torch/...`
    std::string level, time, p;
    fields >> level >> time >> p;
    if (p == pid) return log;
  }
  return {};
}

/// The model as run `run` saw it, by 1-based line.
std::vector<std::string> modelOf(const std::string &root, const std::string &run) {
  return splitLines(readFile(root + "/model_" + run + ".py.txt"));
}

std::string textAt(const std::vector<std::string> &model, uint32_t line) {
  return line >= 1 && line <= model.size() ? trimmed(model[line - 1]) : "";
}

/// The texts of the model lines that a run's output code launches kernels for (TraceOracle's origins).
std::set<std::string> kernelLineTexts(const std::string &root, const std::string &run) {
  std::set<std::string> out;
  std::vector<std::string> model = modelOf(root, run);
  for (const auto &entry : launchesByUserLine(expectedOutputCodes({logOf(root, run)})))
    if (localPath(entry.first.path) == root + "/model.py") out.insert(textAt(model, entry.first.line));
  return out;
}

/// A run's compile-health events as (kind word, line text, title) (HealthOracle), with their lines.
std::map<std::tuple<std::string, std::string, std::string>, uint32_t> healthEvents(const std::string &root,
                                                                                   const std::string &run) {
  // The kinds a comparison reports (specialisations are not compared).
  static const std::set<std::string> kinds = {"graph break", "recompile", "failure"};
  std::map<std::tuple<std::string, std::string, std::string>, uint32_t> out;
  std::vector<std::string> model = modelOf(root, run);
  for (const ExpectedHealthEvent &e : expectedHealth(logOf(root, run)).events) {
    if (!kinds.count(e.kind)) continue;
    uint32_t line = e.at ? e.at->line : 0;
    out.emplace(std::make_tuple(e.kind, e.at ? textAt(model, line) : "", e.title), line);
  }
  return out;
}

/// GPU time of each model line (by its text) in run `run`: ProfileOracle's exact join of that run's own
/// profile to the launches of its output code (TraceOracle's origins), summed per line; per step when the
/// profile marks steps (else the total over the profiled region), in µs.
std::map<std::string, double> oracleLineTimes(const std::string &root, const std::string &run) {
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({logOf(root, run)});
  std::map<std::string, std::vector<std::string>> launches; // Cache key -> kernels in launch order.
  std::map<std::string, const ExpectedOutputCode *> byKey;
  std::map<std::string, std::map<uint32_t, std::string>> keys; // Log -> envelope line -> key.
  for (const ExpectedOutputCode &c : codes) {
    if (!keys.count(c.record.traceFile)) keys[c.record.traceFile] = cacheKeysOf(c.record.traceFile);
    auto it = keys[c.record.traceFile].find(c.record.line);
    if (it == keys[c.record.traceFile].end()) continue;
    for (const LaunchSite &s : c.launches)
      launches[it->second].push_back(s.kernel);
    byKey[it->second] = &c;
  }
  OracleJoin join = joinByOracle(readProfile(root + "/profile_" + run + ".json"), launches);
  std::vector<std::string> model = modelOf(root, run);
  std::map<std::string, double> out;
  double steps = join.steps.empty() ? 1.0 : static_cast<double>(join.steps.size());
  for (const auto &[key, code] : byKey) {
    auto ns = join.launchNs.find(key);
    if (ns == join.launchNs.end()) continue;
    for (size_t l = 0; l < code->launches.size() && l < ns->second.size(); ++l)
      for (const Frame &f : code->originsOf(code->launches[l]))
        if (localPath(f.path) == root + "/model.py")
          out[textAt(model, f.line)] += static_cast<double>(ns->second[l]) / 1000.0 / steps;
  }
  return out;
}

/// Checks a comparison's lines (inductor/compare, explain's `comparison`) against the tests' own join of each
/// run's profile (oracleLineTimes): a line the oracle timed has its time exactly (up to the µs conversion's
/// rounding), every other line none
/// (null, never zero); every line the oracle timed in either run is listed with its time, and some are.
void checkLineTimes(const json &comparison, const std::map<std::string, double> &before,
                    const std::map<std::string, double> &after) {
  size_t timed = 0;
  for (const json &l : comparison["lines"]) {
    std::string text = l["text"].get<std::string>();
    INFO(text << " " << l.dump());
    for (const auto &side :
         {std::make_pair("gpuTimeBeforeUs", &before), std::make_pair("gpuTimeAfterUs", &after)}) {
      auto expected = side.second->find(text);
      if (expected == side.second->end() || expected->second <= 0) {
        CHECK(l[side.first].is_null());
        continue;
      }
      REQUIRE(l[side.first].is_number());
      CHECK(std::abs(l[side.first].get<double>() - expected->second) <= 1e-9 * expected->second + 1e-6);
      ++timed;
    }
  }
  size_t positive = 0;
  for (const auto *times : {&before, &after})
    for (const auto &entry : *times)
      positive += entry.second > 0;
  CHECK(timed == positive);
  CHECK(positive > 0);
}

std::string run(const std::string &cmd) {
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    pclose(p);
  }
  return out;
}

/// explain --json --baseline: the current run is `current`'s log, the baseline `baseline`'s.
json explainComparison(const std::string &root, const std::string &baseline, const std::string &current) {
  std::string cmd = std::string(INDUCTOR_LS_BINARY) + " explain --json --no-python --root '" + root +
                    "' --baseline '" + logOf(root, baseline) + "' '" + logOf(root, current) + "' 2>/dev/null";
  json out = json::parse(run(cmd), nullptr, false);
  return out.is_object() && out.contains("comparison") ? out["comparison"] : json();
}

/// What `inductor-ls explain --no-python ARGS` printed and its exit status, run from `cwd`.
struct Explained {
  int status = -1;
  std::string out, err;
};
Explained explainFrom(const std::string &cwd, const std::string &args) {
  TempDir errDir("explain-stderr");
  std::string errPath = errDir.path() + "/stderr";
  std::string cmd = "cd '" + cwd + "' && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --no-python " +
                    args + " 2>'" + errPath + "'";
  Explained e;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      e.out.append(buf, n);
    int status = pclose(p);
    e.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  e.err = readFile(errPath);
  return e;
}

/// explain --json's `comparison` for `args` run from `cwd` (null when it failed).
json comparisonFrom(const std::string &cwd, const std::string &args) {
  Explained e = explainFrom(cwd, "--json " + args);
  INFO(e.err);
  CHECK(e.status == 0);
  json out = json::parse(e.out, nullptr, false);
  return out.is_object() && out.contains("comparison") ? out["comparison"] : json();
}

/// The everyday layout, made at test time from runs_gpt's two logs: `traces/run1/` (the base run's log) and
/// `traces/run2/` (the new run's) in a temporary folder.
struct RunFolders {
  RunFolders() : dir("baseline-names") {
    root = caseDir("runs_gpt");
    for (const auto &[run, folder] : {std::pair{"base", "run1"}, std::pair{"new", "run2"}}) {
      std::string log = logOf(root, run);
      REQUIRE(!log.empty());
      fs::create_directories(dir.path() + "/traces/" + folder);
      std::string to = dir.path() + "/traces/" + folder + "/" + fs::path(log).filename().string();
      fs::copy_file(log, to);
      (std::string(run) == "base" ? run1Log : run2Log) = to;
    }
  }
  TempDir dir;
  std::string root, run1Log, run2Log;
};

const json *lineWithText(const json &comparison, const std::string &text) {
  for (const json &l : comparison["lines"])
    if (l["text"] == text) return &l;
  return nullptr;
}

} // namespace

TEST_CASE("compare: runs_gpt — explain --baseline lists the lines only one run compiled, matched by text") {
  std::string root = caseDir("runs_gpt");
  REQUIRE(readFile(root + "/model.py") == readFile(root + "/model_new.py.txt"));
  std::set<std::string> before = kernelLineTexts(root, "base"), after = kernelLineTexts(root, "new");
  std::set<std::string> gone, added;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::inserter(gone, gone.end()));
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::inserter(added, added.end()));
  // The oracle agrees with the edit the issue describes.
  CHECK(gone.count("h = F.gelu(h)"));
  CHECK(gone.count("h = self.drop(h)"));
  CHECK(added.count("h = F.silu(h)"));
  CHECK(added.count("x = self.norm(x)"));

  json c = explainComparison(root, "base", "new");
  REQUIRE(c.is_object());
  REQUIRE(c["baseline"].is_object());
  CHECK(c["baseline"]["logs"] == json::array({logOf(root, "base")}));
  CHECK(c["current"]["logs"] == json::array({logOf(root, "new")}));
  std::vector<std::string> model = modelOf(root, "new");
  for (const auto &expectation : {std::make_pair(gone, "gone"), std::make_pair(added, "new")})
    for (const std::string &text : expectation.first) {
      std::string change = expectation.second;
      INFO(change << ": " << text);
      const json *l = lineWithText(c, text);
      REQUIRE(l);
      CHECK((*l)["change"] == change);
      CHECK((*l)["file"] == root + "/model.py");
      CHECK(textAt(model, (*l)["line"].get<uint32_t>()) == text); // Where that text is in model.py now.
      CHECK((*l)[change == "gone" ? "kernelsAfter" : "kernelsBefore"].empty());
    }
  // Every line either run compiled is listed once, and no other.
  std::set<std::string> listed;
  for (const json &l : c["lines"]) {
    std::string text = l["text"].get<std::string>();
    CHECK(listed.insert(text).second);
    CHECK((before.count(text) || after.count(text)));
    if (before.count(text) && after.count(text)) CHECK((l["change"] == "same" || l["change"] == "changed"));
  }
  CHECK(listed.size() == before.size() + added.size());
}

TEST_CASE("compare: runs_gpt — the new graph break on the print line and the new recompile") {
  std::string root = caseDir("runs_gpt");
  auto before = healthEvents(root, "base"), after = healthEvents(root, "new");
  // (kind, line) of the events only the new run has, by the oracle.
  std::set<std::pair<std::string, uint32_t>> expected;
  for (const auto &[key, line] : after)
    if (!before.count(key)) expected.insert({std::get<0>(key), line});
  std::vector<std::string> model = modelOf(root, "new");
  uint32_t print = 0;
  for (uint32_t l = 1; l <= model.size(); ++l)
    if (model[l - 1].find(".item()") != std::string::npos && trimmed(model[l - 1]).starts_with("print("))
      print = l;
  REQUIRE(print);
  CHECK(expected.count({"graph break", print}));
  bool recompile =
      std::any_of(expected.begin(), expected.end(), [](const auto &e) { return e.first == "recompile"; });
  CHECK(recompile);

  json c = explainComparison(root, "base", "new");
  REQUIRE(c.is_object());
  std::set<std::pair<std::string, uint32_t>> listed;
  for (const json &e : c["events"]) {
    INFO(e.dump());
    CHECK(e["change"] == "new");
    listed.insert({e["kind"].get<std::string>(), e["line"].get<uint32_t>()});
    if (e["kind"] == "graph break" && e["line"] == print) CHECK(e["file"] == root + "/model.py");
  }
  CHECK(listed == expected);

  // The other way round, the same events are gone and nothing is new.
  json back = explainComparison(root, "new", "base");
  REQUIRE(back.is_object());
  std::set<std::pair<std::string, uint32_t>> gone;
  for (const json &e : back["events"]) {
    CHECK(e["change"] == "gone");
    gone.insert({e["kind"].get<std::string>(), e["line"].get<uint32_t>()});
  }
  CHECK(gone == expected);
}

TEST_CASE("compare: runs_gpt — each line's GPU time before and after, as each run's profile gives it") {
  std::string root = caseDir("runs_gpt");
  std::map<std::string, double> before = oracleLineTimes(root, "base"), after = oracleLineTimes(root, "new");
  REQUIRE(!before.empty());
  REQUIRE(!after.empty());
  // Both runs in one folder, no --baseline path of its own: the latest run, compared with the previous one.
  std::string cmd = std::string(INDUCTOR_LS_BINARY) + " explain --json --no-python --root '" + root +
                    "' --baseline previous '" + root + "' 2>/dev/null";
  json out = json::parse(run(cmd), nullptr, false);
  REQUIRE(out.is_object());
  json c = out["comparison"];
  REQUIRE(c["baseline"].is_object());
  CHECK(c["baseline"]["logs"] == json::array({logOf(root, "base")}));
  CHECK(c["current"]["logs"] == json::array({logOf(root, "new")}));
  CHECK(c["baseline"]["id"] != c["current"]["id"]);
  checkLineTimes(c, before, after);
  for (const char *text : {"h = F.gelu(h)", "h = self.drop(h)"}) {
    const json *l = lineWithText(c, text);
    REQUIRE(l);
    CHECK((*l)["gpuTimeBeforeUs"].is_number());
    CHECK((*l)["gpuTimeAfterUs"].is_null());
  }
  for (const char *text : {"h = F.silu(h)", "x = self.norm(x)"}) {
    const json *l = lineWithText(c, text);
    REQUIRE(l);
    CHECK((*l)["gpuTimeBeforeUs"].is_null());
    CHECK((*l)["gpuTimeAfterUs"].is_number());
  }
}

TEST_CASE(
    "compare: runs_gpt over stdio — lenses and hovers against the previous run, new diagnostics say so") {
  std::string root = caseDir("runs_gpt");
  Session s(root);
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed(120s).is_object());
  // The baseline run is indexed after the current one is served: asked until it is there (bounded).
  json c;
  for (int i = 0; i < 600; ++i) {
    c = s.client.request("inductor/compare", json::object());
    if (c.is_object() && c["baseline"].is_object()) break;
    std::this_thread::sleep_for(100ms);
  }
  REQUIRE(c["baseline"].is_object());
  CHECK(c["baseline"]["logs"] == json::array({logOf(root, "base")}));
  CHECK(c["current"]["logs"] == json::array({logOf(root, "new")}));
  std::string baselineId = c["baseline"]["id"].get<std::string>();
  REQUIRE(!baselineId.empty());
  // Both runs' GPU times, each from its own profile (the served baseline is built with its profiles, not
  // served early without them as the current run may be), as the tests' own join gives them.
  {
    std::map<std::string, double> before = oracleLineTimes(root, "base"),
                                  after = oracleLineTimes(root, "new");
    checkLineTimes(c, before, after);
  }

  std::vector<std::string> model = modelOf(root, "new");
  auto lineOf = [&](const std::string &text) {
    for (uint32_t l = 1; l <= model.size(); ++l)
      if (trimmed(model[l - 1]) == text) return l;
    return 0u;
  };
  std::string uri = s.client.didOpen(root + "/model.py");
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  auto lensOn = [&](uint32_t line) {
    for (const json &lens : lenses)
      if (lens["range"]["start"]["line"] == line - 1 &&
          lens["command"]["command"] == "inductor.showLaunchSites")
        return lens["command"]["title"].get<std::string>();
    return std::string();
  };
  // A line only the new run compiled: its kernel count says so; one both compiled: its time's change.
  std::string silu = lensOn(lineOf("h = F.silu(h)"));
  INFO(silu);
  CHECK(silu.find(" (new)") != std::string::npos);
  std::string fc = lensOn(lineOf("h = self.fc(self.ln2(x))"));
  INFO(fc);
  CHECK(fc.find(" vs baseline)") != std::string::npos);
  // No lens on a line only the baseline compiled; its hover says what it was.
  CHECK(lensOn(lineOf("h = F.gelu(h)")).empty());
  json hover =
      s.client.request("textDocument/hover", textDocumentPosition(uri, lineOf("h = F.gelu(h)") - 1, 8));
  REQUIRE(hover.is_object());
  std::string md = hover["contents"]["value"].get<std::string>();
  INFO(md);
  CHECK(md.find("**Since run " + baselineId + "**: gone") != std::string::npos);

  // The graph break on the print line is new since the baseline: its diagnostic says so, in `data` too.
  uint32_t print = 0;
  for (uint32_t l = 1; l <= model.size(); ++l)
    if (trimmed(model[l - 1]).starts_with("print(") && model[l - 1].find(".item()") != std::string::npos)
      print = l;
  REQUIRE(print);
  json report = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(report.is_object());
  bool seen = false;
  for (const json &d : report["items"])
    if (d["range"]["start"]["line"] == print - 1 && d["source"] == "torch.compile") {
      INFO(d.dump());
      CHECK(d["message"].get<std::string>().find("new since run " + baselineId) != std::string::npos);
      CHECK(d["data"]["newSinceRun"] == baselineId);
      seen = true;
    }
  CHECK(seen);
  s.client.shutdown();
}

TEST_CASE("compare: a baseline named by its folder inside PATH compares, as by its log, id or \"previous\"") {
  // Issue 42: `explain --baseline traces/run1 traces/` answered no baseline ("none was named").
  RunFolders f;
  const std::string roots = "--root '" + f.root + "' ";
  // Named by its log (what CompareTests' other cases check against the oracles): the reference.
  json byLog = comparisonFrom(f.dir.path(), roots + "--baseline '" + f.run1Log + "' traces");
  REQUIRE(byLog.is_object());
  REQUIRE(byLog["baseline"].is_object());
  CHECK(byLog["baseline"]["logs"] == json::array({f.run1Log}));
  CHECK(byLog["current"]["logs"] == json::array({f.run2Log}));
  // Its new events are the oracle's (HealthOracle on each run's log: what only the new run had).
  auto before = healthEvents(f.root, "base"), after = healthEvents(f.root, "new");
  std::set<std::pair<std::string, uint32_t>> expected, listed;
  for (const auto &[key, line] : after)
    if (!before.count(key)) expected.insert({std::get<0>(key), line});
  REQUIRE(!expected.empty());
  for (const json &e : byLog["events"])
    listed.insert({e["kind"].get<std::string>(), e["line"].get<uint32_t>()});
  CHECK(listed == expected);
  // The same run by every other name: the folder (relative, with a trailing slash, absolute), its id and
  // "previous".
  std::string id = byLog["baseline"]["id"];
  for (const std::string &name : {std::string("traces/run1"), std::string("./traces/run1/"),
                                  f.dir.path() + "/traces/run1", id, std::string("previous")}) {
    INFO(name);
    CHECK(comparisonFrom(f.dir.path(), roots + "--baseline '" + name + "' traces") == byLog);
  }
  // PATH absolute, the baseline's folder relative to the current directory.
  CHECK(comparisonFrom(f.dir.path(), roots + "--baseline traces/run1 '" + f.dir.path() + "/traces'") ==
        byLog);
}

TEST_CASE("compare: a baseline folder outside PATH is the same run; a name that matches no run is an error") {
  RunFolders f;
  const std::string roots = "--root '" + f.root + "' ";
  json byLog = comparisonFrom(f.dir.path(), roots + "--baseline '" + f.run1Log + "' traces");
  REQUIRE(byLog["baseline"].is_object());
  // PATH is run2's folder alone; the baseline's folder is beside it.
  for (const std::string &name : {std::string("traces/run1"), f.dir.path() + "/traces/run1", f.run1Log}) {
    INFO(name);
    json outside = comparisonFrom(f.dir.path(), roots + "--baseline '" + name + "' traces/run2");
    REQUIRE(outside.is_object());
    REQUIRE(outside["baseline"].is_object());
    CHECK(outside["baseline"]["logs"] == json::array({f.run1Log}));
    CHECK(outside["baseline"]["id"] == byLog["baseline"]["id"]);
    CHECK(outside["events"] == byLog["events"]);
    CHECK(outside["lines"] == byLog["lines"]);
  }
  // No such folder, a folder without logs, an id no run has, "previous" of a single run: an error that says
  // so, never an empty comparison.
  fs::create_directories(f.dir.path() + "/traces/empty");
  for (const auto &wrong :
       {std::pair{"traces/run3", "traces"}, std::pair{"traces/empty", "traces"},
        std::pair{"2020-01-01 00:00:00", "traces"}, std::pair{"previous", "traces/run2"}}) {
    const std::string name = wrong.first, path = wrong.second; // Not bindings: INFO's lambda captures them.
    INFO(name);
    for (const char *asJson : {"", "--json "}) {
      Explained e =
          explainFrom(f.dir.path(), std::string(asJson) + roots + "--baseline '" + name + "' " + path);
      INFO(e.err);
      CHECK(e.status == 2); // A bad argument, as any other.
      CHECK(e.out.empty());
      CHECK(e.err.find("names no run") != std::string::npos);
      CHECK(e.err.find(name) != std::string::npos);
    }
  }
}

TEST_CASE(
    "compare: the baseline setting and inductor.selectBaseline take a folder; a wrong name is an error") {
  RunFolders f;
  // Relative to the workspace folder, as explain takes it relative to the current directory.
  Session s(f.dir.path(), json{{"baseline", "traces/run1"}});
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed(120s).is_object());
  auto baselineBuilt = [&] { // The baseline run is indexed after the current one is served.
    json status;
    for (int i = 0; i < 1200 && !status["baseline"].is_string(); ++i) {
      status = s.client.request("inductor/status", json::object());
      if (!status["baseline"].is_string()) std::this_thread::sleep_for(100ms);
    }
    return status["baseline"];
  };
  REQUIRE(baselineBuilt().is_string());
  json c = s.client.request("inductor/compare", json::object());
  REQUIRE(c["baseline"].is_object());
  CHECK(c["baseline"]["logs"] == json::array({f.run1Log}));
  CHECK(c["current"]["logs"] == json::array({f.run2Log}));

  // A name that matches no run: the command answers an error that says so, and the baseline stays.
  json bad = s.client.requestRaw("workspace/executeCommand",
                                 {{"command", "inductor.selectBaseline"}, {"arguments", {"traces/run3"}}});
  REQUIRE(bad.contains("error"));
  CHECK(bad["error"]["message"].get<std::string>().find("\"traces/run3\" names no run") != std::string::npos);
  CHECK(s.client.request("inductor/compare", json::object())["baseline"] == c["baseline"]);
  // The same run by its absolute folder and by its log.
  for (const std::string &name : {f.dir.path() + "/traces/run1", f.run1Log}) {
    json ok = s.client.requestRaw("workspace/executeCommand",
                                  {{"command", "inductor.selectBaseline"}, {"arguments", {name}}});
    CHECK(ok.contains("result"));
    CHECK(s.client.request("inductor/compare", json::object())["baseline"] == c["baseline"]);
  }

  // A baseline chosen by the command outlives a configuration change that names none (which reindexes).
  json chosen = s.client.requestRaw("workspace/executeCommand",
                                    {{"command", "inductor.selectBaseline"}, {"arguments", {"none"}}});
  CHECK(chosen.contains("result"));
  uint64_t builds = s.client.request("inductor/status", json::object())["builds"].get<uint64_t>();
  s.client.notify("workspace/didChangeConfiguration", {{"settings", {{"pathMappings", json::array()}}}});
  json after;
  for (int i = 0; i < 1200; ++i) {
    after = s.client.request("inductor/status", json::object());
    if (after["builds"].get<uint64_t>() > builds && after["indexing"] == false) break;
    std::this_thread::sleep_for(100ms);
  }
  REQUIRE(after["builds"].get<uint64_t>() > builds);
  json kept = s.client.request("inductor/compare", json::object());
  CHECK(kept["baseline"].is_null());
  CHECK(kept["reason"] == "no baseline: the `baseline` setting is \"none\"");

  // A setting that matches no run: compare says why, and the user is shown the error.
  s.client.notify("workspace/didChangeConfiguration", {{"settings", {{"baseline", "traces/run3"}}}});
  bool shown = false;
  for (int i = 0; i < 1200 && !shown; ++i) {
    for (const json &m : s.client.notifications("window/showMessage"))
      shown |= m["message"].get<std::string>().find("\"traces/run3\" names no run") != std::string::npos;
    if (!shown) std::this_thread::sleep_for(100ms);
  }
  CHECK(shown);
  json none = s.client.request("inductor/compare", json::object());
  CHECK(none["baseline"].is_null());
  CHECK(none["reason"].get<std::string>().find("\"traces/run3\" names no run") != std::string::npos);
  s.client.shutdown();
}

TEST_CASE(
    "compare: runs_ranks — two runs of two ranks, each run's logs together, lines by the model's texts") {
  // tests/traces/README.md: two runs of a two-rank job into one folder, ReLU becoming SiLU and a second
  // collective added between them (model_1.py.txt, model_2.py.txt). Lines only one run compiled are new or
  // gone, each as the oracle finds them: the lines of each run's launches, over both ranks' logs.
  const std::string root = std::string(INDUCTOR_TRACES_DIR) + "/runs_ranks";
  std::vector<std::string> logs = filesIn(root + "/trace", "dedicated_log_torch_trace");
  REQUIRE(logs.size() == 4);
  std::vector<std::string> latest = latestRunLogs(logs), earlier;
  for (const std::string &l : logs)
    if (std::find(latest.begin(), latest.end(), l) == latest.end()) earlier.push_back(l);
  REQUIRE(latest.size() == 2);
  REQUIRE(earlier.size() == 2);
  auto byRank = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end(), [](const std::string &a, const std::string &b) {
      return a.substr(a.find("_rank_")) < b.substr(b.find("_rank_"));
    });
    return v;
  };
  // The lines each run compiled kernels for (TraceOracle's origins over both ranks' logs), as text.
  auto texts = [&](const std::vector<std::string> &runLogs, const std::string &model) {
    std::set<std::string> out;
    std::vector<std::string> lines = splitLines(readFile(model));
    for (const auto &entry : launchesByUserLine(expectedOutputCodes(runLogs)))
      if (fs::path(entry.first.path).filename() == "model.py" && entry.first.line <= lines.size())
        out.insert(trimmed(lines[entry.first.line - 1]));
    return out;
  };
  std::set<std::string> before = texts(earlier, root + "/model_1.py.txt"),
                        after = texts(latest, root + "/model_2.py.txt");
  std::set<std::string> gone, added;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::inserter(gone, gone.end()));
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::inserter(added, added.end()));
  // The oracle agrees with the edit: the SiLU line and the second collective's line are new (run 1's
  // kernel stack traces do not name the ReLU line: the model's two versions say it is gone, below).
  std::string shown;
  for (const auto *set : {&before, &after}) {
    shown += set == &before ? "before:" : " after:";
    for (const std::string &t : *set)
      shown += " [" + t + "]";
  }
  INFO(shown);
  REQUIRE(added.size() == 2);
  CHECK(std::any_of(added.begin(), added.end(),
                    [](const std::string &t) { return t.find("silu(") != std::string::npos; }));
  CHECK(std::any_of(added.begin(), added.end(),
                    [](const std::string &t) { return t.find("amax()") != std::string::npos; }));

  json c = comparisonFrom(root, "--baseline previous .");
  REQUIRE(c.is_object());
  REQUIRE(c["baseline"].is_object());
  CHECK(c["baseline"]["logs"] == json(byRank(earlier)));
  CHECK(c["current"]["logs"] == json(byRank(latest)));
  for (const auto &expectation : {std::pair{&gone, "gone"}, std::pair{&added, "new"}})
    for (const std::string &text : *expectation.first) {
      const std::string change = expectation.second;
      INFO(change << ": " << text);
      const json *l = lineWithText(c, text);
      REQUIRE(l);
      CHECK((*l)["change"] == change);
    }
  // Every line listed is a line of one of the two versions of the model: only in the first, gone; only in
  // the second, new; in both, same or changed.
  std::set<std::string> first, second;
  for (const std::string &line : splitLines(readFile(root + "/model_1.py.txt")))
    first.insert(trimmed(line));
  for (const std::string &line : splitLines(readFile(root + "/model_2.py.txt")))
    second.insert(trimmed(line));
  size_t goneLines = 0;
  for (const json &l : c["lines"]) {
    std::string text = l["text"];
    INFO(l.dump());
    REQUIRE((first.count(text) || second.count(text)));
    if (!second.count(text)) {
      CHECK(l["change"] == "gone");
      ++goneLines;
    } else if (!first.count(text)) {
      CHECK(l["change"] == "new");
    } else {
      CHECK((l["change"] == "same" || l["change"] == "changed"));
    }
  }
  CHECK(goneLines == 1); // The ReLU line.
  // Named by one rank's log, or by its id, the baseline is that run: both ranks' logs.
  for (const std::string &name : {earlier[0], earlier[1], c["baseline"]["id"].get<std::string>()}) {
    INFO(name);
    CHECK(comparisonFrom(root, "--baseline '" + name + "' .") == c);
  }
}

} // namespace inductor::e2e
