// Tests for index/compare/Compare.h on runs_gpt: two runs of one small GPT from one folder, the model edited
// in between (GELU+dropout became SiLU with a `.item()` print, an RMSNorm line was added, a second batch size
// recompiles). Each run is indexed from its own log; what the comparison must say is read from the two
// versions of the model (model_base.py.txt, model_new.py.txt) and the logs' text here, not from the index.
#include "index/compare/Compare.h"
#include "index/files/PathResolver.h"
#include "index/runtime/Runtime.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace inductor::index;

namespace {

const std::string kCase = normalizePath(INDUCTOR_FIXTURES_DIR) + "/traces/runs_gpt";

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The log of a run: the one whose first record's process id is the debug directory's `pid_N`.
std::string logOf(const std::string &run) {
  std::string pid;
  for (const auto &e : std::filesystem::directory_iterator(kCase + "/torch_compile_debug_" + run)) {
    std::string name = e.path().filename().string();
    pid = name.substr(name.rfind("pid_") + 4);
  }
  for (const auto &e : std::filesystem::directory_iterator(kCase + "/trace")) {
    std::string head = readFile(e.path().string()).substr(0, 200);
    // `V1127 02:31:04.296000 2145 torch/...`: the third field is the pid.
    std::istringstream fields(head);
    std::string level, time, p;
    fields >> level >> time >> p;
    if (p == pid) return normalizePath(e.path().string());
  }
  return {};
}

/// The index of one run of the case folder, picked by the path of its log (Runs.h).
std::shared_ptr<const Index> indexRun(const std::string &run) {
  IndexOptions o;
  o.inputs = {kCase};
  o.run = logOf(run);
  o.jobs = 2;
  return Index::build(o);
}

/// 1-based lines of `file`'s text holding `needle`.
std::vector<uint32_t> linesWith(const std::string &text, const std::string &needle) {
  std::vector<uint32_t> out;
  std::istringstream in(text);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) out.push_back(n);
  return out;
}

const ComparedLine *lineWith(const Comparison &c, const std::string &needle) {
  for (const ComparedLine &l : c.lines)
    if (l.text.find(needle) != std::string::npos) return &l;
  return nullptr;
}

struct Runs {
  std::shared_ptr<const Index> base, latest;
};
const Runs &runs() {
  static Runs r{indexRun("base"), indexRun("new")};
  return r;
}

} // namespace

TEST_CASE(
    "Compare: runs_gpt — lines only the baseline compiled are gone, lines only the new run compiled new") {
  const Runs &r = runs();
  REQUIRE(r.base->traceFiles().size() == 1);
  REQUIRE(r.latest->traceFiles().size() == 1);
  REQUIRE(r.base->traceFiles() != r.latest->traceFiles());
  Comparison c = compareRuns(*r.base, *r.latest, {{}, "base", ""});
  CHECK(c.baseline.id == "base");
  CHECK(c.current.id == r.latest->run().id); // Unnamed: the run's own id.
  CHECK(!c.current.id.empty());
  CHECK(c.current.logs == r.latest->traceFiles());
  const std::string model = readFile(kCase + "/model.py");
  REQUIRE(model == readFile(kCase + "/model_new.py.txt"));
  // The edit: what only the base variant runs, and what only the new one does.
  struct Expect {
    std::string needle;
    Change change;
  };
  for (const Expect &e : {Expect{"h = F.gelu(h)", Change::Gone}, Expect{"h = self.drop(h)", Change::Gone},
                          Expect{"h = F.silu(h)", Change::New}, Expect{"x = self.norm(x)", Change::New}}) {
    CAPTURE(e.needle);
    const ComparedLine *l = lineWith(c, e.needle);
    REQUIRE(l);
    CHECK(l->change == e.change);
    CHECK(l->path == kCase + "/model.py");
    CHECK(std::vector<uint32_t>{l->line} == linesWith(model, e.needle));
    if (e.change == Change::Gone) {
      CHECK(!l->kernelsBefore.empty());
      CHECK(l->kernelsAfter.empty());
      CHECK(l->launchesAfter.empty());
      CHECK(!l->gpuNsAfter);
    } else {
      CHECK(l->kernelsBefore.empty());
      CHECK(!l->kernelsAfter.empty());
      CHECK(!l->gpuNsBefore);
    }
  }
  // Lines compiled in both runs: neither new nor gone, and their times come from each run's profile.
  const ComparedLine *fc = lineWith(c, "h = self.fc(self.ln2(x))");
  REQUIRE(fc);
  CHECK((fc->change == Change::Same || fc->change == Change::Changed));
  CHECK(fc->gpuNsBefore.value_or(0) > 0);
  CHECK(fc->gpuNsAfter.value_or(0) > 0);
  // runs_gpt's profiles mark no ProfilerStep: totals over the profiled region, as the runs' own lenses say.
  CHECK(c.perStepBefore == r.base->runtime().times.stepsMarked());
  CHECK(c.perStepAfter == r.latest->runtime().times.stepsMarked());
  // Each run's time of a line is the time of its launches in that run's own profile (Runs.h attributes
  // profile_base.json to the base run only).
  REQUIRE(r.base->runtime().times.profiles.size() == 1);
  CHECK(r.base->runtime().times.profiles[0].path == kCase + "/profile_base.json");
  REQUIRE(r.latest->runtime().times.profiles.size() == 1);
  CHECK(r.latest->runtime().times.profiles[0].path == kCase + "/profile_new.json");
  // Each line's times are checked exactly against an independent join of each run's profile (ProfileOracle)
  // in tests/e2e/CompareTests.cpp; computing them here with the product's own launchTiming would check the
  // product against itself.
  // Every line of the comparison has kernels in one run at least, and a line's kernels are its launches'.
  for (const ComparedLine &l : c.lines) {
    CAPTURE(l.text);
    CHECK((!l.launchesBefore.empty() || !l.launchesAfter.empty()));
    CHECK(l.kernelsBefore.empty() == l.launchesBefore.empty());
    CHECK(l.kernelsAfter.empty() == l.launchesAfter.empty());
    if (l.change == Change::Same) CHECK(l.kernelsBefore == l.kernelsAfter);
  }
}

TEST_CASE("Compare: runs_gpt — the new graph break on the print line and the new recompile") {
  const Runs &r = runs();
  Comparison c = compareRuns(*r.base, *r.latest);
  const std::string model = readFile(kCase + "/model.py");
  std::vector<uint32_t> print = linesWith(model, "print(\"mlp scale\"");
  REQUIRE(print.size() == 1);
  bool graphBreak = false, recompile = false;
  for (const ComparedEvent &e : c.events) {
    CHECK(e.change == Change::New); // The base run had no graph break, recompile or failure.
    CHECK(!e.events.empty());
    if (e.kind == HealthEventKind::GraphBreak && e.line == print[0]) {
      graphBreak = true;
      CHECK(e.code.find(".item()") != std::string::npos);
      CHECK(e.path == kCase + "/model.py");
    }
    if (e.kind == HealthEventKind::Recompile) recompile = true;
  }
  CHECK(graphBreak);
  CHECK(recompile);
  // The base log records no graph break or recompile reason; the new one does.
  std::string baseLog = readFile(r.base->traceFiles()[0]), newLog = readFile(r.latest->traceFiles()[0]);
  CHECK(baseLog.find("dynamo_graph_break_reason") == std::string::npos);
  CHECK(newLog.find("dynamo_graph_break_reason") != std::string::npos);
  CHECK(newLog.find("recompile_reasons") != std::string::npos);

  // newEvents: the current run's events of the comparison's new ones, exactly.
  std::vector<uint32_t> fresh = newEvents(*r.base, *r.latest);
  std::vector<uint32_t> fromComparison;
  for (const ComparedEvent &e : c.events)
    fromComparison.insert(fromComparison.end(), e.events.begin(), e.events.end());
  std::sort(fromComparison.begin(), fromComparison.end());
  CHECK(fresh == fromComparison);

  // The other way round, the same events are gone and nothing is new.
  Comparison back = compareRuns(*r.latest, *r.base);
  CHECK(back.events.size() == c.events.size());
  for (const ComparedEvent &e : back.events)
    CHECK(e.change == Change::Gone);
  CHECK(newEvents(*r.latest, *r.base).empty());
  const ComparedLine *silu = lineWith(back, "h = F.silu(h)");
  REQUIRE(silu);
  CHECK(silu->change == Change::Gone);
}

TEST_CASE("Compare: a run against itself — every line the same, no event") {
  const Runs &r = runs();
  Comparison c = compareRuns(*r.latest, *r.latest);
  CHECK(c.events.empty());
  CHECK(!c.lines.empty());
  for (const ComparedLine &l : c.lines) {
    CAPTURE(l.text);
    CHECK(l.change == Change::Same);
    CHECK(l.kernelsChanged.empty());
    CHECK(l.gpuNsBefore == l.gpuNsAfter);
  }
  CHECK(newEvents(*r.latest, *r.latest).empty());
}

TEST_CASE("Compare: lines follow the text, never the number") {
  const Runs &r = runs();
  const std::string path = kCase + "/model.py";
  std::string model = readFile(path);
  SUBCASE("three lines inserted at the top: every line moves with its text") {
    std::string edited = "# one\n# two\n# three\n" + model;
    TextLines lines = splitLines(edited);
    std::vector<ComparedLine> moved = compareLines(*r.base, *r.latest, path, &lines);
    Comparison asIs = compareRuns(*r.base, *r.latest);
    REQUIRE(moved.size() == asIs.lines.size());
    for (size_t i = 0; i < moved.size(); ++i) {
      CAPTURE(moved[i].text);
      CHECK(moved[i].line == asIs.lines[i].line + 3);
      CHECK(moved[i].text == asIs.lines[i].text);
      CHECK(moved[i].change == asIs.lines[i].change);
    }
  }
  SUBCASE("the GELU line deleted from the file: gone at the baseline's line, its text as recorded") {
    std::string edited;
    std::istringstream in(model);
    std::string line;
    while (std::getline(in, line))
      if (line.find("F.gelu(h)") == std::string::npos) edited += line + "\n";
    TextLines lines = splitLines(edited);
    std::vector<ComparedLine> out = compareLines(*r.base, *r.latest, path, &lines);
    const ComparedLine *gelu = nullptr;
    for (const ComparedLine &l : out)
      if (l.text == "h = F.gelu(h)") gelu = &l;
    REQUIRE(gelu);
    CHECK(gelu->change == Change::Gone);
    CHECK(std::vector<uint32_t>{gelu->line} ==
          linesWith(readFile(kCase + "/model_base.py.txt"), "F.gelu(h)"));
  }
  SUBCASE("no text to read: the current run's recorded lines stand for it") {
    std::vector<ComparedLine> out = compareLines(*r.base, *r.latest, path, nullptr);
    Comparison asIs = compareRuns(*r.base, *r.latest);
    REQUIRE(out.size() == asIs.lines.size());
    for (size_t i = 0; i < out.size(); ++i) {
      CAPTURE(out[i].text);
      CHECK(out[i].line == asIs.lines[i].line);
      CHECK(out[i].change == asIs.lines[i].change);
    }
  }
}

TEST_CASE("Compare: change names") {
  CHECK(changeName(Change::New) == "new");
  CHECK(changeName(Change::Gone) == "gone");
  CHECK(changeName(Change::Changed) == "changed");
  CHECK(changeName(Change::Same) == "same");
}
