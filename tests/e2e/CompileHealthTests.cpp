// tests/e2e/CompileHealthTests.cpp: compile health end to end, on every fixture: diagnostics (pulled, pushed,
// refreshed after a reindex), code lenses on compiled functions, hovers, code actions, `inductor/compiles`
// and `explain`. Expected values come from the tests' own reading of the traces (HealthOracle.h): every graph
// break, recompile and failure at its exact line with its reason, and no diagnostic where the trace records
// no event.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

const std::string kTraces = fs::canonical(INDUCTOR_TRACES_DIR).string();

/// A fixture: where the server is started, what it indexes, and where recorded paths live here.
struct Fixture {
  std::string name;
  std::string root;                ///< Workspace folder.
  std::vector<std::string> inputs; ///< traceDirs; empty: discovery under root.
  std::vector<std::string> logs;   ///< The logs the oracle reads.
  std::string recordedRoot;        ///< `/tmp/work/<case>` for the real traces, "" for tlparse inputs.
};

/// A case directory: this project's traces (build/traces) first, then the shared fixtures.
std::string caseRoot(const std::string &name) {
  std::string traced = kTraces;
  traced += "/";
  traced += name;
  return fs::exists(traced) ? traced : caseDir(name);
}

std::vector<Fixture> fixtures() {
  std::vector<Fixture> out;
  auto addCases = [&](const std::string &dir) {
    for (const auto &e : fs::directory_iterator(dir)) {
      if (!e.is_directory() || !fs::exists(e.path() / "trace")) continue;
      Fixture f;
      f.name = e.path().filename().string();
      f.root = e.path().string();
      // The server serves the latest run of a folder (index/files/Runs.h).
      f.logs = latestRunLogs(filesIn((e.path() / "trace").string(), "dedicated_log_torch_trace"));
      f.recordedRoot = "/tmp/work/" + f.name;
      out.push_back(std::move(f));
    }
  };
  addCases(fixturesDir() + "/traces");
  addCases(kTraces);
  const std::string tl = fixturesDir() + "/tlparse-inputs";
  for (const auto &e : fs::directory_iterator(tl)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !(name.ends_with(".log") || name.ends_with(".txt"))) continue;
    out.push_back({"tlparse-inputs/" + name, tl, {e.path().string()}, {e.path().string()}, ""});
  }
  Fixture messy{"tlparse-inputs/multi_rank_messy_input",
                tl + "/multi_rank_messy_input",
                {tl + "/multi_rank_messy_input"},
                filesIn(tl + "/multi_rank_messy_input", "dedicated_log"),
                ""};
  out.push_back(messy);
  std::sort(out.begin(), out.end(), [](const Fixture &a, const Fixture &b) { return a.name < b.name; });
  return out;
}

/// The ` · `-separated segments of a lens title.
std::vector<std::string> segments(const std::string &title) {
  std::vector<std::string> out;
  const std::string sep = " · ";
  size_t at = 0;
  for (size_t next; (next = title.find(sep, at)) != std::string::npos; at = next + sep.size())
    out.push_back(title.substr(at, next - at));
  out.push_back(title.substr(at));
  return out;
}

/// A segment that is a time (`12 s`, `2.3 s`, `45 ms`, `300 µs`): its seconds and half its last printed
/// digit (the rounding the title may have done).
std::optional<std::pair<double, double>> parseSeconds(const std::string &segment) {
  static const std::regex time(R"(^([0-9]+)(\.([0-9]+))? (s|ms|µs)$)");
  std::smatch m;
  if (!std::regex_match(segment, m, time)) return std::nullopt;
  double scale = m[4] == "s" ? 1 : m[4] == "ms" ? 1e-3 : 1e-6;
  double half = 0.5 * scale * std::pow(10.0, -static_cast<double>(m[3].length()));
  return std::pair{std::stod(m[1].str() + (m[2].matched ? m[2].str() : "")) * scale, half};
}

/// The compile time of the compile ids `ids` (`8/1`), from their records in `logs`: per compile id, its
/// `compilation_metrics` (entire_frame_compile_time_s, else duration_us; the last record of the id), plus its
/// backward's (`bwd_compilation_metrics`/`aot_autograd_backward_compilation_metrics`: inductor_compile_time_s
/// or elapsed_time, else duration_us) and its first run's (`compilation_metrics_runtime`: duration_us, else
/// autotuning plus CUDA graphs). None when no record gives a time.
std::optional<double> metricsSeconds(const std::vector<std::string> &logs, const std::set<std::string> &ids) {
  auto number = [](const json &o, const char *key) -> std::optional<double> {
    if (o.contains(key) && o[key].is_number()) return o[key].get<double>();
    return std::nullopt;
  };
  std::map<std::string, double> frame;
  std::map<std::string, double> extra;
  bool any = false;
  for (const std::string &log : logs)
    for (const TraceRecord &r : readTraceLog(log)) {
      if (r.malformed || !r.envelope.is_object() || r.envelope.empty()) continue;
      // The record's kind is its one member that names a metrics record (nlohmann orders members by name).
      std::string kind;
      for (const char *k : {"compilation_metrics", "bwd_compilation_metrics",
                            "aot_autograd_backward_compilation_metrics", "compilation_metrics_runtime"})
        if (r.envelope.contains(k)) kind = k;
      if (kind.empty()) continue;
      const json &m = r.envelope[kind];
      if (!m.is_object()) continue;
      std::string id = m.value("compile_id", "");
      if (id.empty()) id = compileIdText(r.envelope);
      id = id.substr(0, id.find('_')); // The attempt is the same compile.
      if (!ids.count(id)) continue;
      std::optional<double> s;
      if (kind == "compilation_metrics") {
        s = number(m, "entire_frame_compile_time_s");
        if (!s)
          if (auto us = number(m, "duration_us")) s = *us / 1e6;
        if (s) frame[id] = *s;
      } else if (kind == "bwd_compilation_metrics" || kind == "aot_autograd_backward_compilation_metrics") {
        s = number(m, "inductor_compile_time_s");
        if (!s) s = number(m, "elapsed_time");
        if (!s)
          if (auto us = number(m, "duration_us")) s = *us / 1e6;
        if (s) extra[id] += *s;
      } else if (kind == "compilation_metrics_runtime") {
        if (auto us = number(m, "duration_us")) {
          s = *us / 1e6;
        } else {
          auto a = number(m, "runtime_triton_autotune_time_us"),
               b = number(m, "runtime_cudagraphify_time_us");
          if (a || b) s = (a.value_or(0) + b.value_or(0)) / 1e6;
        }
        if (s) extra[id] += *s;
      }
      any |= s.has_value();
    }
  if (!any) return std::nullopt;
  double total = 0;
  for (const auto &[id, s] : frame)
    total += s;
  for (const auto &[id, s] : extra)
    total += s;
  return total;
}

/// The local file of a recorded path: under the fixture's root for `/tmp/work/<case>/...`, else as recorded.
std::string local(const Fixture &f, const std::string &recorded) {
  if (!f.recordedRoot.empty() && recorded.rfind(f.recordedRoot + "/", 0) == 0) {
    std::string path = f.root + recorded.substr(f.recordedRoot.size());
    if (fs::exists(path)) return path;
  }
  // An installed package's file: the case's copy of the package, as the server finds it (suffix match).
  for (const char *dir : {"/site-packages/", "/dist-packages/"})
    if (size_t at = recorded.rfind(dir); at != std::string::npos) {
      std::string path = f.root + "/site-packages/" + recorded.substr(at + std::string(dir).size());
      if (fs::exists(path)) return path;
    }
  return recorded;
}

/// The expected range of a line: first to last non-blank character when the file exists, else empty at 0.
Loc lineLoc(const std::string &path, uint32_t line) {
  Loc l;
  l.uri = fileURI(path);
  l.line = l.endLine = line - 1;
  // A file not here: the text the trace recorded of it (server/text/Convert.h recordedSourceURI).
  if (!fs::exists(path)) {
    l.uri = "inductor-trace:/recorded-source" + l.uri.substr(std::string("file://").size());
    return l;
  }
  std::vector<std::string> lines = splitLines(readFile(path));
  if (l.line >= lines.size()) return l;
  const std::string &text = lines[l.line];
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) begin = text.size();
  size_t end = text.find_last_not_of(" \t");
  end = end == std::string::npos ? begin : end + 1;
  l.startChar = units(std::string_view(text).substr(0, begin));
  l.endChar = units(std::string_view(text).substr(0, end));
  return l;
}

/// What one diagnostic must be: the events of one kind on one line.
struct ExpectedDiagnostic {
  std::string kind;
  uint32_t line = 0; ///< 1-based.
  int severity = 4;
  std::string code, href;
  std::vector<const ExpectedHealthEvent *> events;
  /// Where it happened, when that file is not here and the diagnostic is on the call that led there.
  std::optional<Frame> inCall;
};

/// Expected diagnostics per local file.
std::map<std::string, std::vector<ExpectedDiagnostic>>
expectedDiagnostics(const Fixture &f, const std::vector<ExpectedHealthEvent> &events) {
  std::map<std::string, std::map<std::pair<uint32_t, std::string>, ExpectedDiagnostic>> byLine;
  for (const ExpectedHealthEvent &e : events) {
    if (!e.at) continue;
    // Where it happened, or when that file is not here, the innermost frame of its traceback that is.
    Frame shown = *e.at;
    bool inCall = false;
    if (std::error_code ec; !fs::exists(local(f, e.at->path), ec))
      for (auto s = e.stack.rbegin(); s != e.stack.rend(); ++s)
        if (!(*s == *e.at) && fs::exists(local(f, s->path), ec)) {
          shown = *s;
          inCall = true;
          break;
        }
    ExpectedDiagnostic &d = byLine[local(f, shown.path)][{shown.line, e.kind}];
    if (inCall && d.events.empty()) d.inCall = *e.at;
    if (!inCall) d.inCall.reset();
    d.kind = e.kind;
    d.line = shown.line;
    d.severity = std::min(d.severity, e.severity);
    if (d.events.empty()) {
      d.code = e.code.empty() ? (e.kind == "graph break" ? "graph-break" : e.kind) : e.code;
      d.href = e.href;
    }
    d.events.push_back(&e);
  }
  // Ranks that disagree (issue 29): the events of a line that some ranks of the run had and others did not,
  // compile by compile (a recompile every rank had in [0/1] and only rank 3 in [0/3] is a divergence), are at
  // least a Warning (`recompiled on rank 2 only (1 of 4)`). The ranks of the run: its logs' ranks.
  std::set<int> runRanks;
  for (const std::string &log : f.logs)
    if (size_t at = log.find("_rank_"); at != std::string::npos)
      runRanks.insert(std::atoi(log.c_str() + at + 6));
  std::map<std::string, std::vector<ExpectedDiagnostic>> out;
  for (auto &[file, lines] : byLine)
    for (auto &[key, d] : lines) {
      std::map<std::string, std::set<int>> ranksOf; // Compile id -> the ranks with one of these events in it.
      for (const ExpectedHealthEvent *e : d.events)
        if (e->rank) ranksOf[e->compile].insert(*e->rank);
      // (Specialisations are no divergence: their line is what the union of its ranks says.)
      std::set<int> all;
      for (const auto &[compile, ranks] : ranksOf) {
        all.insert(ranks.begin(), ranks.end());
        if (d.kind != "specialization" && runRanks.size() > 1 && ranks.size() < runRanks.size())
          d.severity = std::min(d.severity, 2);
      }
      if (runRanks.size() > 1 && !all.empty() && all.size() < runRanks.size())
        d.severity = std::min(d.severity, 2);
      out[file].push_back(d);
    }
  return out;
}

std::string kindWord(const std::string &kind) {
  if (kind == "graph break") return "Graph break";
  if (kind == "recompile") return "recompiled";
  if (kind == "recompileLimit") return "recompile limit";
  if (kind == "failure") return "Compile failed";
  return "specialized";
}

/// The kind of a received diagnostic, from its code.
std::string kindOfDiagnostic(const json &d) {
  std::string code = d.value("code", "");
  if (code == "recompile") return "recompile";
  if (code == "recompile-limit") return "recompileLimit";
  if (code == "specialization") return "specialization";
  if (d["severity"] == 1) return "failure";
  return "graph break";
}

/// Checks the diagnostics of one file against the expected ones.
void checkFile(const Fixture &f, const std::string &path, const json &items,
               const std::vector<ExpectedDiagnostic> &expected) {
  INFO(f.name << ": " << path << "\n" << items.dump(1));
  REQUIRE(items.is_array());
  // Rank divergences that are not compile-health events (different code, ...) are RanksTests' to check.
  size_t ranksOnly = 0;
  for (const json &d : items)
    ranksOnly += d.value("code", "").rfind("ranks-", 0) == 0;
  CHECK(items.size() - ranksOnly == expected.size());
  for (const ExpectedDiagnostic &e : expected) {
    INFO("expected " << e.kind << " at line " << e.line);
    const json *found = nullptr;
    for (const json &d : items)
      if (d["range"]["start"]["line"] == e.line - 1 && kindOfDiagnostic(d) == e.kind) found = &d;
    REQUIRE(found);
    const json &d = *found;
    CHECK(toLoc({{"uri", fileURI(path)}, {"range", d["range"]}}) == lineLoc(path, e.line));
    CHECK(d["source"] == "torch.compile");
    CHECK(d["severity"] == e.severity);
    CHECK(d["code"] == e.code);
    if (!e.href.empty()) {
      CHECK(d["codeDescription"]["href"] == e.href);
    }
    std::string message = d["message"].get<std::string>();
    CHECK(message.find(kindWord(e.kind)) != std::string::npos);
    std::set<std::string> compiles;
    for (const ExpectedHealthEvent *ev : e.events) {
      CHECK_MESSAGE(message.find(ev->title) != std::string::npos, "missing " << ev->title);
      CHECK_MESSAGE(message.find("[" + ev->compile + "]") != std::string::npos,
                    "missing [" << ev->compile << "]");
      compiles.insert(ev->compile);
    }
    if (e.kind == "recompile")
      CHECK(message.find("recompiled " + std::to_string(compiles.size()) + "×") != std::string::npos);
    if (e.inCall) {
      std::string at = fs::path(e.inCall->path).filename().string() + ":" + std::to_string(e.inCall->line);
      CHECK(message.rfind("in this call, at " + at + " (a file not on this machine): ", 0) == 0);
    }
    if (e.kind == "graph break") {
      // The user traceback, outermost first, without the line the diagnostic is on.
      std::set<Loc> want, got;
      for (const Frame &r : e.events.front()->stack)
        if (r.line != e.line || local(f, r.path) != path) want.insert(lineLoc(local(f, r.path), r.line));
      for (const json &r : d.value("relatedInformation", json::array()))
        got.insert(toLoc(r["location"]));
      CHECK(got == want);
    }
  }
}

/// Files that must have no diagnostic unless the trace says so: the case's Python sources.
std::set<std::string> sourceFiles(const Fixture &f) {
  std::set<std::string> out;
  if (f.recordedRoot.empty()) return out;
  if (fs::exists(f.root + "/model.py")) out.insert(f.root + "/model.py");
  if (fs::exists(f.root + "/site-packages"))
    for (const auto &e : fs::recursive_directory_iterator(f.root + "/site-packages"))
      if (e.is_regular_file() && e.path().extension() == ".py") out.insert(e.path().string());
  return out;
}

json initOptions(const Fixture &f) {
  if (f.inputs.empty()) return nullptr;
  return json{{"traceDirs", f.inputs}};
}

json pullCapabilities() {
  json caps = LSPClient::defaultCapabilities();
  caps["textDocument"]["diagnostic"] = {{"dynamicRegistration", false}, {"relatedDocumentSupport", false}};
  caps["workspace"]["diagnostics"] = {{"refreshSupport", true}};
  return caps;
}

HealthExpectation expectationOf(const Fixture &f) {
  HealthExpectation all;
  for (const std::string &log : f.logs) {
    HealthExpectation one = expectedHealth(log);
    all.events.insert(all.events.end(), one.events.begin(), one.events.end());
    all.compiles.insert(all.compiles.end(), one.compiles.begin(), one.compiles.end());
  }
  return all;
}

/// A copy of a case's model.py and trace log in `dir` (without anything else of the case), with its fixture
/// and the diagnostics the trace says model.py must have.
struct CaseCopy {
  CaseCopy(TempDir &dir, const std::string &source, const std::string &recordedRoot)
      : model(dir.write("model.py", readFile(source + "/model.py"))),
        log(dir.write("trace/" + fs::path(firstLog(source)).filename().string(), readFile(firstLog(source)))),
        fixture{"copy of " + source, dir.path(), {}, {log}, recordedRoot}, health(expectedHealth(log)),
        expected(expectedDiagnostics(fixture, health.events)) {
    REQUIRE(expected.count(model));
  }
  static std::string firstLog(const std::string &source) {
    return filesIn(source + "/trace", "dedicated_log_torch_trace").front();
  }
  std::string model, log;
  Fixture fixture;
  HealthExpectation health; ///< What `expected` points into.
  std::map<std::string, std::vector<ExpectedDiagnostic>> expected;
};

} // namespace

TEST_CASE(
    "compile health: every fixture's diagnostics, pulled, at the lines and with the reasons of the trace") {
  size_t graphBreaks = 0, recompiles = 0, failures = 0, fixturesWithEvents = 0;
  for (const Fixture &f : fixtures()) {
    CAPTURE(f.name);
    HealthExpectation expectation = expectationOf(f);
    auto expected = expectedDiagnostics(f, expectation.events);
    for (const ExpectedHealthEvent &e : expectation.events) {
      graphBreaks += e.kind == "graph break";
      recompiles += e.kind == "recompile";
      failures += e.kind == "failure";
      CHECK_MESSAGE(e.at, "no model line for " << e.kind << " [" << e.compile << "] " << e.title);
    }
    fixturesWithEvents += !expectation.events.empty();
    Session s(f.root, initOptions(f), pullCapabilities());
    INFO(s.client.logTail());
    CHECK(s.initializeResult["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"] == true);
    std::set<std::string> files = sourceFiles(f);
    for (const auto &[file, d] : expected)
      if (std::error_code ec; fs::exists(file, ec)) files.insert(file); // No editor shows the others.
    for (const std::string &file : files) {
      json report = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(file)}}}});
      CHECK(report["kind"] == "full");
      auto it = expected.find(file);
      json items =
          json::array(); // Compile health only: runtime findings (source inductor-ls) are tested apart.
      for (const json &d : report["items"])
        if (d.value("source", "") == "torch.compile") items.push_back(d);
      checkFile(f, file, items, it == expected.end() ? std::vector<ExpectedDiagnostic>{} : it->second);
    }
    // workspace/diagnostic: every file with events that exists here, and nothing else.
    json workspace = s.client.request("workspace/diagnostic", {{"previousResultIds", json::array()}});
    std::set<std::string> reported, want;
    // Compile health only: runtime findings and rank divergences that are no compile-health event (`ranks-*`
    // codes) are tested apart.
    for (const json &item : workspace["items"])
      for (const json &d : item["items"])
        if (d.value("source", "") == "torch.compile" && !d.value("code", "").starts_with("ranks-"))
          reported.insert(item["uri"].get<std::string>());
    for (const auto &[file, d] : expected)
      if (fs::exists(file)) want.insert(fileURI(file));
    std::string diff;
    for (const std::string &uri : reported)
      if (!want.count(uri)) diff += " extra " + uri;
    for (const std::string &uri : want)
      if (!reported.count(uri)) diff += " missing " + uri;
    CHECK_MESSAGE(reported == want, diff);
    // No pushes to a client that pulls.
    CHECK(s.client.notifications("textDocument/publishDiagnostics").empty());
    s.client.shutdown();
  }
  // The fixtures exercise every kind (numbers from the oracle, printed for the record).
  MESSAGE("compile health oracle: " << graphBreaks << " graph breaks, " << recompiles << " recompiles, "
                                    << failures << " failures in " << fixturesWithEvents << " fixtures");
  CHECK(graphBreaks >= 10);
  CHECK(recompiles >= 10);
  CHECK(failures >= 4);
}

TEST_CASE("compile health: a graph break in a library that is not here is shown on the call into it") {
  // health_lib's model and trace without its site-packages: the breaks inside mylib (only where the trace
  // was made) are shown on model.py's `y = mylib.noisy_norm(y)`, saying where they happened.
  TempDir dir("health-nolib");
  CaseCopy c(dir, kTraces + "/health_lib", "/tmp/work/health_lib");
  const std::string &model = c.model;
  const Fixture &f = c.fixture;
  auto &expected = c.expected;
  size_t inCall = 0;
  for (const ExpectedDiagnostic &d : expected[model])
    inCall += d.inCall.has_value();
  CHECK(inCall == 1); // The oracle moves them too: the test below is not vacuous.
  Session s(dir.path(), nullptr, pullCapabilities());
  INFO(s.client.logTail());
  json report = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(model)}}}});
  json items = json::array();
  for (const json &d : report["items"])
    if (d.value("source", "") == "torch.compile") items.push_back(d);
  checkFile(f, model, items, expected[model]);
  // The hover of that line says so too, above PyTorch's text.
  for (const ExpectedDiagnostic &d : expected[model]) {
    if (!d.inCall) continue;
    json h = s.client.request("textDocument/hover", textDocumentPosition(fileURI(model), d.line - 1, 4));
    REQUIRE(h.is_object());
    std::string md = h["contents"]["value"];
    std::string at = fs::path(d.inCall->path).filename().string() + ":" + std::to_string(d.inCall->line);
    CHECK(md.find("In this call, at `" + at + "` (a file not on this machine).") != std::string::npos);
    CHECK(md.find(d.events.front()->title) != std::string::npos);
  }
  s.client.shutdown();
}

TEST_CASE("compile health: pushed to clients that do not pull, refreshed and cleared after a reindex") {
  TempDir dir("health-push");
  // A copy of compile_health's trace and model, so that the trace can be removed.
  CaseCopy c(dir, caseDir("compile_health"), "/tmp/work/compile_health");
  const std::string &model = c.model, &copy = c.log;
  const Fixture &f = c.fixture;
  auto &expected = c.expected;

  Session s(dir.path());
  INFO(s.client.logTail());
  CHECK_FALSE(s.initializeResult["capabilities"].contains("diagnosticProvider"));
  json published = s.client.waitForNotification("textDocument/publishDiagnostics");
  REQUIRE(published.is_object());
  CHECK(published["uri"] == fileURI(model));
  checkFile(f, model, published["diagnostics"], expected[model]);
  size_t before = s.client.notifications("textDocument/publishDiagnostics").size();
  CHECK(before == 1); // One file has events.

  // A reindex publishes again; with the trace gone, the file's diagnostics are cleared.
  fs::remove(copy);
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  json cleared;
  for (int i = 0; i < 300 && !cleared.is_object(); ++i) {
    auto all = s.client.notifications("textDocument/publishDiagnostics");
    if (all.size() > before)
      cleared = all.back();
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(cleared.is_object());
  CHECK(cleared["uri"] == fileURI(model));
  CHECK(cleared["diagnostics"].empty());
  s.client.shutdown();
}

TEST_CASE("compile health: pull result ids and workspace/diagnostic/refresh after a reindex") {
  Fixture f{"health_lib", kTraces + "/health_lib", {}, {}, "/tmp/work/health_lib"};
  Session s(f.root, nullptr, pullCapabilities());
  INFO(s.client.logTail());
  std::string uri = fileURI(f.root + "/model.py");
  json first = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(first["kind"] == "full");
  REQUIRE(first["resultId"].is_string());
  json again = s.client.request("textDocument/diagnostic",
                                {{"textDocument", {{"uri", uri}}}, {"previousResultId", first["resultId"]}});
  CHECK(again["kind"] == "unchanged");
  CHECK(again["resultId"] == first["resultId"]);
  json ws = s.client.request(
      "workspace/diagnostic",
      {{"previousResultIds", json::array({{{"uri", uri}, {"value", first["resultId"]}},
                                          {{"uri", "file:///nowhere/gone.py"}, {"value", "x"}}})}});
  bool sawModel = false, sawGone = false;
  for (const json &item : ws["items"]) {
    if (item["uri"] == uri) {
      sawModel = true;
      CHECK(item["kind"] == "unchanged");
    }
    if (item["uri"] == "file:///nowhere/gone.py") {
      sawGone = true;
      CHECK(item["kind"] == "full");
      CHECK(item["items"].empty());
    }
  }
  CHECK(sawModel);
  CHECK(sawGone);
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  CHECK(s.client.waitForServerRequest("workspace/diagnostic/refresh").is_object());
  s.client.shutdown();
}

TEST_CASE("compile health: code lenses on compiled functions' def lines") {
  for (const std::string &name :
       {std::string("health_lib"), std::string("compile_health"), std::string("graph_break_dynamic")}) {
    CAPTURE(name);
    std::string root = caseRoot(name);
    Fixture f{name, root, {}, {}, "/tmp/work/" + name};
    f.logs = filesIn(root + "/trace", "dedicated_log_torch_trace");
    HealthExpectation e = expectationOf(f);
    // Per def line: the compiles of the function and of the frames resumed after its graph breaks.
    std::map<uint32_t, std::vector<const RecordedHealthCompile *>> byDef;
    std::map<std::string, uint32_t> defOf; // function name -> def line (model.py only).
    for (const RecordedHealthCompile &c : e.compiles)
      if (local(f, c.file) == root + "/model.py" && c.function.rfind("torch_dynamo_resume_in_", 0) != 0)
        defOf[c.function] = c.firstLine;
    for (const RecordedHealthCompile &c : e.compiles) {
      if (local(f, c.file) != root + "/model.py") continue;
      std::string fn = c.function;
      if (fn.rfind("torch_dynamo_resume_in_", 0) == 0) fn = fn.substr(23, fn.rfind("_at_") - 23);
      if (defOf.count(fn)) byDef[defOf[fn]].push_back(&c);
    }
    Session s(root);
    std::string uri = fileURI(root + "/model.py");
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
    std::map<uint32_t, json> compileLenses;
    for (const json &l : lenses)
      // A line that calls into a library's compiled code shows its compiles too (EntryPointTests' to check).
      if (l["command"]["command"] == "inductor.showCompiles" &&
          l["command"]["title"].get<std::string>().rfind("calls compiled ", 0) != 0)
        compileLenses[l["range"]["start"]["line"].get<uint32_t>() + 1] = l;
    CHECK(compileLenses.size() == byDef.size());
    for (const auto &entry : byDef) {
      const uint32_t line = entry.first;
      const std::vector<const RecordedHealthCompile *> &compiles = entry.second;
      INFO("def line " << line);
      REQUIRE(compileLenses.count(line));
      const json &lens = compileLenses[line];
      std::string title = lens["command"]["title"];
      INFO(title);
      // Whole segments (`[8/0–8/4] 5 compiles · 1 failed · 4 graph breaks · 2.3 s`), never substrings:
      // "1 compile" is inside "11 compiles".
      std::vector<std::string> parts = segments(title);
      REQUIRE(!parts.empty());
      std::string counted =
          "] " + std::to_string(compiles.size()) + (compiles.size() == 1 ? " compile" : " compiles");
      CHECK(parts[0].size() > counted.size());
      CHECK(parts[0].ends_with(counted));
      size_t failed = 0, breaks = 0;
      std::set<std::string> ids;
      for (const RecordedHealthCompile *c : compiles) {
        CHECK(parts[0].find(c->id.substr(0, c->id.find('/'))) != std::string::npos);
        failed += !c->failType.empty();
        breaks += c->graphBreak;
        ids.insert(c->id);
      }
      auto has = [&](const std::string &segment) {
        return std::find(parts.begin(), parts.end(), segment) != parts.end();
      };
      auto endingWith = [&](const std::string &tail) {
        return std::count_if(parts.begin(), parts.end(),
                             [&](const std::string &p) { return p.ends_with(tail); });
      };
      if (failed)
        CHECK(has(std::to_string(failed) + " failed"));
      else
        CHECK(endingWith(" failed") == 0);
      if (breaks)
        CHECK(has(std::to_string(breaks) + (breaks == 1 ? " graph break" : " graph breaks")));
      else
        CHECK(endingWith(" graph break") + endingWith(" graph breaks") == 0);
      // The time: the compiles' own compilation_metrics (frame, backward, first run), as the title rounds it.
      std::optional<double> want = metricsSeconds(f.logs, ids);
      std::optional<std::pair<double, double>> shown; // Seconds, and half the last printed digit.
      for (const std::string &p : parts)
        if (auto t = parseSeconds(p)) shown = t;
      REQUIRE(shown.has_value() == want.has_value());
      if (want)
        CHECK_MESSAGE(std::fabs(shown->first - *want) <= shown->second * 1.001, "want " << *want << " s");
      CHECK(lens["command"]["arguments"][0] == uri);
      CHECK(lens["command"]["arguments"][2]["compileIds"].size() == compiles.size());
      CHECK(toLoc({{"uri", uri}, {"range", lens["range"]}}) == lineLoc(root + "/model.py", line));
    }
    s.client.shutdown();
  }
}

TEST_CASE("compile health: a def line's lens counts a compile id once, however many ranks ran it") {
  // multirank: two ranks compiled the same frames. With both logs, the lens says what rank 0's alone says
  // (and "all 2 ranks"); its time is the longest rank's per compile id, between the larger rank's and the
  // sum.
  const std::string root = caseDir("multirank");
  std::vector<std::string> logs = filesIn(root + "/trace", "dedicated_log_torch_trace");
  REQUIRE(logs.size() == 2);
  const std::regex time(" · ([0-9.]+) (µs|ms|s)");
  struct Title {
    std::string counts; ///< Without the time and the ranks.
    double seconds = 0;
  };
  auto titles = [&](const std::vector<std::string> &inputs) {
    Session s(root, json{{"traceDirs", inputs}});
    json lenses =
        s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", fileURI(root + "/model.py")}}}});
    std::map<uint32_t, Title> out;
    for (const json &l : lenses) {
      if (l["command"]["command"] != "inductor.showCompiles") continue;
      std::string t = l["command"]["title"];
      Title &title = out[l["range"]["start"]["line"].get<uint32_t>()];
      std::smatch m;
      if (std::regex_search(t, m, time)) {
        double unit = m[2] == "s" ? 1 : m[2] == "ms" ? 1e-3 : 1e-6;
        title.seconds = std::stod(m[1]) * unit;
        t = m.prefix().str() + m.suffix().str();
      }
      title.counts = t.substr(0, t.find(" · all 2 ranks"));
    }
    s.client.shutdown();
    return out;
  };
  auto both = titles(logs), rank0 = titles({logs[0]}), rank1 = titles({logs[1]});
  REQUIRE(!both.empty());
  REQUIRE(both.size() == rank0.size());
  for (const auto &entry : both) { // Not a structured binding: INFO captures it (clang 14).
    const uint32_t line = entry.first;
    const Title &title = entry.second;
    INFO("line " << line + 1 << ": " << title.counts);
    REQUIRE(rank0.count(line));
    CHECK(title.counts == rank0[line].counts);
    // Rounded to the title's precision (two significant digits at least).
    double larger = std::max(rank0[line].seconds, rank1[line].seconds);
    CHECK(title.seconds >= larger * 0.9);
    CHECK(title.seconds <= (rank0[line].seconds + rank1[line].seconds) * 1.1);
    CHECK(title.seconds < (rank0[line].seconds + rank1[line].seconds) * 0.9); // Not the sum of the ranks.
  }
}

TEST_CASE("compile health: hovers on diagnosed lines, def lines and guarded lines") {
  const std::string root = kTraces + "/health_lib";
  Fixture f{
      "health_lib", root, {}, filesIn(root + "/trace", "dedicated_log_torch_trace"), "/tmp/work/health_lib"};
  HealthExpectation e = expectationOf(f);
  Session s(root);
  std::string uri = fileURI(root + "/model.py");
  auto hover = [&](uint32_t line) {
    json h = s.client.request("textDocument/hover", textDocumentPosition(uri, line - 1, 4));
    return h.is_object() ? h["contents"]["value"].get<std::string>() : std::string();
  };
  // Every event's full reason is in the hover of its line.
  for (const ExpectedHealthEvent &ev : e.events) {
    if (!ev.at || local(f, ev.at->path) != root + "/model.py") continue;
    std::string md = hover(ev.at->line);
    INFO(ev.kind << " " << ev.title << "\n" << md);
    CHECK(md.find(ev.title) != std::string::npos);
    CHECK(md.find(ev.compile) != std::string::npos);
  }
  // A def line: one row per compile, with its status.
  for (const RecordedHealthCompile &c : e.compiles) {
    if (c.function.rfind("torch_dynamo_resume_in_", 0) == 0 || local(f, c.file) != root + "/model.py")
      continue;
    std::string md = hover(c.firstLine);
    INFO(c.function << "\n" << md);
    CHECK(md.find("| [" + c.id + "]") != std::string::npos);
    if (!c.failType.empty()) CHECK(md.find("| [" + c.id + "] | failed |") != std::string::npos);
  }
  // Guards installed for a line: the global's guard.
  std::string md = hover(40);
  CHECK(md.find("Guards installed for this line") != std::string::npos);
  CHECK(md.find("G['SCALE']") != std::string::npos);
  // No hover on a line without kernels or compile health.
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(uri, 0, 0)).is_null());
  s.client.shutdown();
}

TEST_CASE("compile health: code actions apply PyTorch's mechanical hints as edits") {
  // Counted per kind over the fixtures: each kind of action is checked somewhere, not only one of them.
  size_t hints = 0, removals = 0, markDynamic = 0;
  for (const std::string &name :
       {std::string("graph_break_dynamic"), std::string("compile_health"), std::string("health_lib")}) {
    CAPTURE(name);
    std::string root = caseRoot(name);
    Fixture f{name, root, {}, filesIn(root + "/trace", "dedicated_log_torch_trace"), "/tmp/work/" + name};
    HealthExpectation e = expectationOf(f);
    Session s(root);
    std::string model = root + "/model.py", uri = fileURI(model);
    std::vector<std::string> lines = splitLines(readFile(model));
    for (const ExpectedHealthEvent &ev : e.events) {
      if (!ev.at || local(f, ev.at->path) != model) continue;
      json actions = s.client.request(
          "textDocument/codeAction",
          {{"textDocument", {{"uri", uri}}},
           {"range", {{"start", position(ev.at->line - 1, 0)}, {"end", position(ev.at->line - 1, 0)}}},
           {"context", {{"diagnostics", json::array()}}}});
      REQUIRE(actions.is_array());
      auto find = [&](const std::string &title) -> const json * {
        for (const json &a : actions)
          if (a["title"].get<std::string>().find(title) != std::string::npos) return &a;
        return nullptr;
      };
      INFO(ev.kind << " " << ev.title << " " << actions.dump(1));
      if (!ev.hintConfig.empty()) {
        const json *a = find(ev.hintConfig);
        REQUIRE(a);
        CHECK((*a)["kind"] == "quickfix");
        const json &edit = (*a)["edit"]["changes"][uri][0];
        CHECK(edit["newText"] == ev.hintConfig + "\n");
        // After the imports.
        uint32_t line = edit["range"]["start"]["line"];
        REQUIRE(line > 0);
        CHECK(lines[line - 1].rfind("import ", 0) == 0);
        ++hints;
      }
      if (ev.removeGraphBreak) {
        const json *a = find("Remove the `torch._dynamo.graph_break()` call");
        REQUIRE(a);
        const json &edit = (*a)["edit"]["changes"][uri][0];
        CHECK(edit["range"]["start"] == position(ev.at->line - 1, 0));
        CHECK(edit["range"]["end"] == position(ev.at->line, 0));
        CHECK(edit["newText"] == "");
        ++removals;
      }
      if (ev.kind == "recompile" && ev.sizeIndex && ev.caller && local(f, ev.caller->path) == model) {
        // mark_dynamic on the argument, when the call passes the tensor by name.
        std::string call = lines[ev.caller->line - 1];
        bool byName = call.find("(" + ev.tensor + ",") != std::string::npos ||
                      call.find("(" + ev.tensor + ")") != std::string::npos;
        bool resumed = false;
        for (const RecordedHealthCompile &c : e.compiles)
          if (c.id == ev.compile) resumed = c.function.rfind("torch_dynamo_resume_in_", 0) == 0;
        const json *a = find("torch._dynamo.mark_dynamic");
        if (!byName || resumed) continue;
        REQUIRE(a);
        const json &edit = (*a)["edit"]["changes"][uri][0];
        CHECK(edit["range"]["start"] == position(ev.caller->line - 1, 0));
        std::string indent = call.substr(0, call.find_first_not_of(' '));
        CHECK(edit["newText"] == indent + "torch._dynamo.mark_dynamic(" + ev.tensor + ", " +
                                     std::to_string(*ev.sizeIndex) + ")\n");
        ++markDynamic;
      }
    }
    s.client.shutdown();
  }
  CHECK(hints > 0);
  CHECK(removals > 0);
  CHECK(markDynamic > 0);
}

TEST_CASE("compile health: inductor/compiles lists frames, compiles, statuses, events and artifacts") {
  for (const Fixture &f : fixtures()) {
    if (f.name != "health_lib" && f.name != "compile_health" && f.name != "graph_break_dynamic" &&
        f.name != "multirank" && f.name != "tlparse-inputs/comp_failure.log" && f.name != "gpt2_profiled")
      continue;
    CAPTURE(f.name);
    HealthExpectation e = expectationOf(f);
    Session s(f.root, initOptions(f));
    json result = s.client.request("inductor/compiles", json::object());
    REQUIRE(result["frames"].is_array());
    std::map<std::string, std::vector<json>> compiles; // Compile id -> entries (one per rank).
    for (const json &frame : result["frames"])
      for (const json &c : frame["compiles"]) {
        compiles[c["compileId"]].push_back(c);
        CHECK(c["label"].get<std::string>().rfind("[" + c["compileId"].get<std::string>() + "]", 0) == 0);
      }
    size_t total = 0;
    for (const auto &[id, list] : compiles)
      total += list.size();
    CHECK(total == e.compiles.size());
    // The summary counts a compile id of a function once, whatever the number of ranks that ran it
    // (index/model/Counts.h; CountsTests holds every view to it).
    std::set<std::string> distinct;
    for (const RecordedHealthCompile &c : e.compiles)
      distinct.insert(c.id + "\n" + c.function);
    CHECK(result["summary"]["compiles"] == distinct.size());
    for (const RecordedHealthCompile &c : e.compiles) {
      INFO(c.id);
      REQUIRE(compiles.count(c.id));
      for (const json &got : compiles[c.id]) {
        if (c.ranEagerly) {
          CHECK(got["status"] == "not compiled");
        } else if (!c.failType.empty()) {
          CHECK(got["status"] == "failed");
          CHECK(got["failType"] == c.failType);
        } else if (c.graphBreak) {
          CHECK(got["status"] == "graph break");
        } else if (c.recompile) {
          CHECK(got["status"] == "recompiled");
        } else {
          CHECK(got["status"] == "ok");
        }
        CHECK(got["artifacts"].empty() == !c.outputCode);
        // Its events, each with its location when the trace gives a model line.
        size_t want = 0;
        for (const ExpectedHealthEvent &ev : e.events)
          want += ev.compile == c.id &&
                  (!ev.rank || !got["rank"].is_number() || ev.rank == got["rank"].get<int>());
        CHECK(got["events"].size() == want);
      }
    }
    // A filter by file keeps the frames defined or diagnosed there.
    if (fs::exists(f.root + "/model.py")) {
      json filtered = s.client.request("inductor/compiles", {{"uri", fileURI(f.root + "/model.py")}});
      // Not vacuous: a trace whose compiles name model.py lists frames there.
      bool anyInModel = false;
      for (const RecordedHealthCompile &c : e.compiles)
        anyInModel |= local(f, c.file) == f.root + "/model.py";
      CHECK(filtered["frames"].empty() == !anyInModel);
      for (const json &frame : filtered["frames"]) {
        bool here =
            frame["location"].is_object() && frame["location"]["uri"] == fileURI(f.root + "/model.py");
        for (const json &c : frame["compiles"])
          for (const json &ev : c["events"])
            here |= ev["location"].is_object() && ev["location"]["uri"] == fileURI(f.root + "/model.py");
        CHECK(here);
      }
    }
    s.client.shutdown();
  }
}

TEST_CASE("compile health: explain prints a Compile health section; comp_failure.log has its compile") {
  auto run = [](const std::string &args) {
    std::string out;
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(
        popen((std::string(INDUCTOR_LS_BINARY) + " explain " + args + " 2>&1").c_str(), "r"), pclose);
    std::array<char, 4096> buf{};
    while (pipe && fgets(buf.data(), buf.size(), pipe.get()))
      out += buf.data();
    return out;
  };
  std::string log = fixturesDir() + "/tlparse-inputs/comp_failure.log";
  HealthExpectation e = expectedHealth(log);
  REQUIRE(e.compiles.size() == 1);
  std::string out = run(log);
  INFO(out);
  CHECK(out.find("1 compile (0 graphs with output code)") != std::string::npos);
  CHECK(out.find("Compile health: 1 compile(s)") != std::string::npos);
  CHECK(out.find(e.compiles[0].failType) != std::string::npos);
  std::string json = run("--json " + log);
  auto parsed = nlohmann::json::parse(json, nullptr, false);
  REQUIRE(parsed.is_object());
  CHECK(parsed["stats"]["frameCompiles"] == 1);
  // compileHealth is inductor/compiles' answer (issue 31; ProtocolAgreementTests.cpp): frames, their
  // compiles, and each compile's events at their LSP location (0-based lines).
  const nlohmann::json &failed = parsed["compileHealth"]["frames"][0]["compiles"][0];
  CHECK(failed["status"] == "failed");
  CHECK(failed["events"][0]["kind"] == "failure");
  CHECK(failed["events"][0]["location"]["range"]["start"]["line"] == e.events[0].at->line - 1);

  // A recompile placed at a frame's first line, whose text no record holds, in a library not installed
  // here (ddp_gpt2's transformers `@wraps(func)` wrapper): the line says why it has no text.
  std::string ddp = run("--no-python '" + kTraces + "/ddp_gpt2/trace'");
  INFO(ddp);
  CHECK(ddp.find("generic.py\n   933  (text not recorded; the file is not on this machine)\n          "
                 "recompile [4/1] rank 0") != std::string::npos);
  std::regex bare(R"(\n +[0-9]+ +\n)"); // A line number with no text after it.
  CHECK_FALSE(std::regex_search(ddp, bare));
}

} // namespace inductor::e2e
