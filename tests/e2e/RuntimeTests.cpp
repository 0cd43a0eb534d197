// tests/e2e/RuntimeTests.cpp: runtime insight through the real server. GPU time from the profiles, compared
// with the test's own join of the same files (ProfileOracle.h): every launch and every user line of
// profiled_mlp, per step on gpt2_profiled, CUDA graph replays said so on cudagraph_profiled; tensor
// statistics and the first NaN of the printer's run logs (jit_printer, cppwrap_printer); inlay hints, lenses,
// hovers, code actions and diagnostics as an editor sees them.
#include "e2e/E2E.h"
#include "e2e/ProfileOracle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string tracesCase(const std::string &name) {
  return fs::canonical(INDUCTOR_TRACES_DIR).string() + "/" + name;
}

/// The output codes of a case whose recorded paths start with /tmp/work/<case>/ (local copy under `root`).
std::vector<ExpectedOutputCode> outputCodesUnder(const std::string &root, const std::string &caseName) {
  std::vector<ExpectedOutputCode> out;
  for (const std::string &trace : filesIn(root + "/trace"))
    for (OutputCodeRecord &r : readOutputCodes(trace)) {
      std::string prefix = "/tmp/work/" + caseName + "/";
      if (r.recordedPath.rfind(prefix, 0) != 0) continue;
      ExpectedOutputCode e;
      e.path = root + "/" + r.recordedPath.substr(prefix.size());
      if (!fs::exists(e.path)) continue;
      e.uri = fileURI(e.path);
      e.text = readFile(e.path);
      e.launches = findLaunches(e.text);
      e.record = std::move(r);
      out.push_back(std::move(e));
    }
  return out;
}

/// Cache key -> launch kernels, and cache key -> output code, for the oracle.
struct Keyed {
  std::map<std::string, std::vector<std::string>> launches;
  std::map<std::string, const ExpectedOutputCode *> code;
};

Keyed keyed(const std::vector<ExpectedOutputCode> &codes) {
  Keyed k;
  std::map<std::string, std::map<uint32_t, std::string>> keys; // trace -> line -> key
  for (const ExpectedOutputCode &c : codes) {
    if (!keys.count(c.record.traceFile)) keys[c.record.traceFile] = cacheKeysOf(c.record.traceFile);
    auto it = keys[c.record.traceFile].find(c.record.line);
    REQUIRE_MESSAGE(it != keys[c.record.traceFile].end(), "no FX graph cache key for " << c.label());
    for (const LaunchSite &s : c.launches)
      k.launches[it->second].push_back(s.kernel);
    k.code[it->second] = &c;
  }
  return k;
}

/// Server launch times by location, from inductor/hotLines.
/// The server's kernels by location. `codes`: a location in another copy of one of these files (the server
/// points into its preferred copy: TORCH_COMPILE_DEBUG's named file before the cache's) is keyed as in it.
std::map<Loc, json> kernelsByLoc(const json &hot, const std::vector<ExpectedOutputCode> &codes = {}) {
  std::map<Loc, json> out;
  for (const json &k : hot["kernels"]) {
    Loc l = toLoc(k["location"]);
    if (l.uri.rfind("file://", 0) == 0)
      for (const ExpectedOutputCode &c : codes)
        if (l.uri != c.uri && readFile(l.uri.substr(7)) == c.text) l.uri = c.uri;
    out[l] = k;
  }
  return out;
}

/// The latest diagnostics the server published for `uri` (null if none).
json published(LSPClient &client, const std::string &uri) {
  json last;
  for (const json &n : client.notifications("textDocument/publishDiagnostics"))
    if (n["uri"] == uri) last = n;
  return last;
}

/// Opens a document once the index is ready, and returns the diagnostics the server published for it (the
/// publisher runs while the server handles didOpen, before it answers the request sent after it).
json openAndDiagnose(LSPClient &client, const std::string &path) {
  client.request("inductor/hotLines", {{"limit", 1}}); // Answered once the index is ready (status is not).
  std::string uri = client.didOpen(path);
  client.request("inductor/hotLines", {{"limit", 1}});
  return published(client, uri);
}

json inlayHints(LSPClient &client, const std::string &uri, uint32_t lines) {
  return client.request("textDocument/inlayHint",
                        {{"textDocument", {{"uri", uri}}},
                         {"range", {{"start", position(0, 0)}, {"end", position(lines, 0)}}}});
}

/// Hints whose position is on `line`.
std::vector<json> hintsOn(const json &hints, uint32_t line) {
  std::vector<json> out;
  for (const json &h : hints)
    if (h["position"]["line"] == line) out.push_back(h);
  return out;
}

std::string explainJson(const std::string &dir) {
  std::string cmd = std::string(INDUCTOR_LS_BINARY) + " explain --json '" + dir + "' 2>/dev/null";
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

} // namespace

TEST_CASE(
    "runtime: profiled_mlp — the time of every launch and every user line is the join of profile.json") {
  std::string root = caseDir("profiled_mlp");
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(root + "/trace"), &s.client);
  REQUIRE(codes.size() == 2);
  Keyed k = keyed(codes);
  OracleJoin oracle = joinByOracle(readProfile(root + "/profile.json"), k.launches);
  CHECK(oracle.missed.empty()); // Every compiled launch is found in every call.
  for (const auto &[key, n] : oracle.calls)
    CHECK(n == 3);
  CHECK(oracle.steps.empty());

  json hot = s.client.request("inductor/hotLines", {{"limit", 1000}});
  REQUIRE(hot.is_object());
  CHECK(hot["basis"] == "total");
  CHECK(hot["totalNs"] == oracle.totalNs);
  CHECK(hot["eagerNs"] == oracle.eagerNs);
  CHECK(hot["eagerNs"].get<int64_t>() > 0); // The eager remainder (loss, optimizer) is reported as such.
  CHECK(hot["unjoinedNs"] == 0);
  CHECK(hot["caveats"].empty());

  // Every launch.
  std::map<Loc, json> server = kernelsByLoc(hot);
  size_t launches = 0;
  for (const auto &keyed : k.code)
    for (size_t l = 0; l < keyed.second->launches.size(); ++l) {
      // Named, not structured bindings: clang 14 cannot capture those in doctest's INFO lambda.
      const std::string &key = keyed.first;
      const ExpectedOutputCode *code = keyed.second;
      const LaunchSite &site = code->launches[l];
      INFO(code->label() << " " << site.key());
      auto it = server.find(launchLoc(code->uri, code->text, site));
      REQUIRE(it != server.end());
      CHECK(it->second["ns"] == oracle.launchNs.at(key)[l]);
      CHECK(oracle.launchNs.at(key)[l] > 0);
      ++launches;
    }
  CHECK(launches == 29);
  CHECK(server.size() == launches);

  // Every user line: the sum over the launches it became.
  std::map<Frame, int64_t> expected;
  for (const auto &[key, code] : k.code)
    for (size_t l = 0; l < code->launches.size(); ++l)
      for (const Frame &f : code->originsOf(code->launches[l]))
        expected[Frame{localPath(f.path), f.line}] += oracle.launchNs.at(key)[l];
  REQUIRE(expected.size() == 6);
  std::map<Frame, int64_t> lines;
  for (const json &l : hot["lines"]) {
    lines[Frame{l["path"].get<std::string>(), l["line"].get<uint32_t>()}] = l["ns"].get<int64_t>();
    CHECK(l["label"].get<std::string>().ends_with(" total"));
  }
  CHECK(lines == expected);
  // Largest first.
  for (size_t i = 1; i < hot["lines"].size(); ++i)
    CHECK(hot["lines"][i - 1]["ns"].get<int64_t>() >= hot["lines"][i]["ns"].get<int64_t>());

  // The lens of model.py:17 ends with its time, and its hover breaks it down.
  std::string model = root + "/model.py";
  std::string uri = s.client.didOpen(model);
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  bool seen = false;
  for (const json &lens : lenses)
    if (lens["range"]["start"]["line"] == 16) {
      std::string title = lens["command"]["title"].get<std::string>();
      INFO(title);
      CHECK(title.starts_with("4 kernels, 10 launches · 2 forward · 2 backward · "));
      CHECK(title.ends_with(" total"));
      seen = true;
    }
  CHECK(seen);
  json hover = s.client.request("textDocument/hover", textDocumentPosition(uri, 16, 8));
  std::string md = hover["contents"]["value"].get<std::string>();
  INFO(md);
  CHECK(contains(md, "**GPU time**"));
  CHECK(contains(md, "**By compile:** [0/0] forward"));
  CHECK(contains(md, "**By kernel:**"));

  // Inlay hints: one time hint at the end of every launch line, and the compile's time at `def call`.
  for (const auto &[key, code] : k.code) {
    s.client.didOpen(code->path);
    json hints = inlayHints(s.client, code->uri, static_cast<uint32_t>(splitLines(code->text).size()));
    REQUIRE(hints.is_array());
    for (const LaunchSite &site : code->launches) {
      INFO(site.key());
      std::vector<json> on = hintsOn(hints, site.line);
      REQUIRE(on.size() == 1);
      std::string label = on[0]["label"].get<std::string>();
      CHECK(contains(label, " total · "));
      CHECK(label.ends_with("%"));
      CHECK(on[0]["position"]["character"] == units(splitLines(code->text)[site.line]));
    }
    CHECK(hints.size() == code->launches.size() + 1);
  }
  s.client.shutdown();
}

TEST_CASE(
    "runtime: gpt2_profiled — per-step times of every step, launch and compile (ProfilerStep#N, gzip)") {
  std::string root = tracesCase("gpt2_profiled");
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = outputCodesUnder(root, "gpt2_profiled");
  REQUIRE(codes.size() == 4);
  Keyed k = keyed(codes);
  std::string profile;
  for (const std::string &p : filesIn(root + "/profile", "worker0", ".pt.trace.json.gz"))
    profile = p;
  REQUIRE(!profile.empty());
  OracleJoin oracle = joinByOracle(readProfile(profile), k.launches);
  CHECK(oracle.missed.empty());
  CHECK(oracle.steps == std::vector<std::string>{"ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5"});

  json hot = s.client.request("inductor/hotLines", {{"limit", 1000}});
  REQUIRE(hot.is_object());
  CHECK(hot["basis"] == "perStep");
  CHECK(hot["steps"] == oracle.steps);
  CHECK(hot["stepNs"] == oracle.stepNs);
  CHECK(hot["totalNs"] == oracle.totalNs);
  CHECK(hot["eagerNs"] == oracle.eagerNs);
  CHECK(hot["caveats"].empty());
  std::map<Loc, json> server = kernelsByLoc(hot, codes);
  size_t timed = 0;
  for (const auto &keyed : k.code)
    for (size_t l = 0; l < keyed.second->launches.size(); ++l) {
      // Named, not structured bindings: clang 14 cannot capture those in doctest's INFO lambda.
      const std::string &key = keyed.first;
      const ExpectedOutputCode *code = keyed.second;
      const LaunchSite &site = code->launches[l];
      INFO(code->label() << " " << site.key());
      auto it = server.find(launchLoc(code->uri, code->text, site));
      int64_t ns = oracle.launchNs.at(key)[l];
      if (ns == 0) {
        CHECK((it == server.end() || it->second["ns"] == 0));
        continue;
      }
      REQUIRE(it != server.end());
      CHECK(it->second["ns"] == ns);
      CHECK(it->second["stepNs"] == json(oracle.launchStepNs.at(key)[l]));
      CHECK(it->second["perStepNs"] == ns / 3);
      CHECK(it->second["label"].get<std::string>().ends_with("/step"));
      ++timed;
    }
  CHECK(timed >= 80);
  s.client.shutdown();
}

TEST_CASE("runtime: cudagraph_profiled — kernels inside CUDA graph replays get no per-launch time, and it "
          "says so") {
  std::string root = tracesCase("cudagraph_profiled");
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = outputCodesUnder(root, "cudagraph_profiled");
  REQUIRE(codes.size() == 1);
  Keyed k = keyed(codes);
  OracleJoin oracle = joinByOracle(readProfile(root + "/profile.json"), k.launches);
  json hot = s.client.request("inductor/hotLines", {{"limit", 1000}});
  REQUIRE(hot.is_object());
  CHECK(hot["kernels"].empty());
  CHECK(hot["lines"].empty());
  CHECK(hot["totalNs"] == oracle.totalNs);
  REQUIRE(hot["caveats"].size() == 1);
  std::string caveat = hot["caveats"][0].get<std::string>();
  INFO(caveat);
  CHECK(contains(caveat, "CUDA graph"));
  CHECK(contains(caveat, "never a per-launch time"));

  const ExpectedOutputCode &code = codes[0];
  s.client.didOpen(code.path);
  json hints = inlayHints(s.client, code.uri, static_cast<uint32_t>(splitLines(code.text).size()));
  REQUIRE(hints.size() == 1); // Only the compile's total, at its entry point.
  CHECK(contains(hints[0]["label"].get<std::string>(), "CUDA graph replays: no per-launch time"));
  REQUIRE(!code.launches.empty());
  json hover = s.client.request(
      "textDocument/hover", textDocumentPosition(code.uri, code.launches[0].line, code.launches[0].column));
  CHECK(contains(hover["contents"]["value"].get<std::string>(), "unknown per launch"));

  std::string uri = s.client.didOpen(root + "/model.py");
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(!lenses.empty());
  for (const json &lens : lenses) // Kernel lenses; a compiled function's lens sits on its def line.
    if (lens["command"]["title"].get<std::string>().find("kernel") != std::string::npos)
      CHECK(lens["command"]["title"].get<std::string>().ends_with(" · time unknown (CUDA graph)"));
  s.client.shutdown();
}

namespace {

/// The printer's blocks in a run log, read here with the plainest rules: header `inductor: PHASE - K - ARG`
/// or
/// `[  PHASE - K - ARG  ]:`, then the block's `Mean:`/`Mean value:` line.
struct Block {
  std::string phase, kernel, arg;
  std::string mean;
};

std::vector<Block> readBlocks(const std::string &path) {
  std::vector<Block> out;
  std::string text = readFile(path);
  // Literal backslash-n separates C++ headers on one line: split there too.
  std::string flat;
  for (size_t i = 0; i < text.size(); ++i)
    if (text.compare(i, 3, "]\\n") == 0) {
      flat += "]\n";
      i += 2;
    } else {
      flat += text[i];
    }
  for (const std::string &line : splitLines(flat)) {
    std::string label;
    if (line.rfind("inductor: ", 0) == 0) label = line.substr(10);
    if (line.rfind("[  ", 0) == 0 && line.find("  ]") != std::string::npos) {
      label = line.substr(3, line.find("  ]") - 3);
      if (line.find("  ]:") == std::string::npos) label = label.substr(0, label.rfind(": ")); // `512L: 512`
    }
    if (!label.empty()) {
      size_t a = label.find(" - "), b = label.find(" - ", a + 3);
      if (label.rfind("aoti_model_inputs", 0) == 0 || b == std::string::npos) continue;
      out.push_back({label.substr(0, a), label.substr(a + 3, b - a - 3), label.substr(b + 3), ""});
      continue;
    }
    for (const char *key : {"Mean:", "Mean value:"})
      if (!out.empty() && out.back().mean.empty() && line.rfind(key, 0) == 0) {
        std::string v = line.substr(std::strlen(key));
        v.erase(0, v.find_first_not_of(' '));
        out.back().mean = v;
      }
  }
  return out;
}

std::string meanText(const json &stats) {
  if (stats.is_null() || !stats.contains("mean")) return "";
  const json &m = stats["mean"];
  if (m.is_string()) return m.get<std::string>();
  return std::to_string(m.get<double>());
}

bool sameMean(const std::string &printed, const json &stats) {
  if (stats.is_null()) return false;
  const json &m = stats["mean"];
  if (m.is_string()) return contains(printed, m.get<std::string>());
  return std::fabs(std::stod(printed) - m.get<double>()) <= 1e-6 * std::max(1.0, std::fabs(m.get<double>()));
}

/// The statistics `explain --json` reports for each printed launch equal the run log's blocks of that kernel;
/// returns the kernels with statistics.
std::set<std::string> checkValues(const std::string &dir, const std::vector<Block> &blocks) {
  json ex = json::parse(explainJson(dir), nullptr, false);
  REQUIRE(ex.is_object());
  std::set<std::string> kernels;
  for (const json &v : ex["runtime"]["values"]) {
    std::string kernel = v["kernel"].get<std::string>();
    INFO(kernel);
    kernels.insert(kernel);
    CHECK(v["calls"] == 1);
    for (const json &arg : v["args"])
      for (const char *phase : {"before", "after"}) {
        auto b = std::find_if(blocks.begin(), blocks.end(), [&](const Block &x) {
          return x.kernel == kernel && x.arg == arg["arg"] && x.phase == std::string(phase) + "_launch";
        });
        if (b == blocks.end()) {
          CHECK(arg[phase].is_null());
          continue;
        }
        if (b->mean.empty()) continue; // A scalar argument.
        CHECK_MESSAGE(sameMean(b->mean, arg[phase]),
                      phase << " " << arg["arg"] << ": " << b->mean << " vs " << meanText(arg[phase]));
      }
  }
  return kernels;
}

struct PrinterCase {
  const char *name;
  std::vector<std::string> kernels; ///< Printed, in order.
};

void checkFirstNanOnUserLine(LSPClient &client, const std::string &root) {
  json d = openAndDiagnose(client, root + "/model.py");
  REQUIRE(d.is_object());
  std::vector<json> errors;
  for (const json &x : d["diagnostics"])
    if (x["severity"] == 1) errors.push_back(x);
  REQUIRE(errors.size() == 1);
  const json &e = errors[0];
  INFO(e.dump());
  CHECK(e["range"]["start"]["line"] == 15); // h = torch.log(h - 0.5)
  CHECK(e["code"] == "first-nan");
  CHECK(e["source"] == "inductor-ls");
  CHECK(contains(e["message"].get<std::string>(), "first NaN: triton_poi_fused_addmm_log_relu_sub_0"));
  REQUIRE(e["relatedInformation"].size() == 1);
  // The launch in the output code's preferred copy (TORCH_COMPILE_DEBUG's named file, else the cache's).
  std::string related = e["relatedInformation"][0]["location"]["uri"].get<std::string>();
  CHECK((contains(related, "/torch_compile_debug/") || contains(related, "inductor_cache")));
}

/// The output code file of a case (the single wrapper in its cache that has a provenance comment).
std::string outputCodeOf(const std::string &root) {
  for (const auto &e : fs::recursive_directory_iterator(root + "/inductor_cache"))
    if (e.path().extension() == ".py" && e.path().parent_path().extension() != ".debug" &&
        contains(readFile(e.path().string()), "[Provenance debug handles]"))
      return e.path().string();
  return "";
}

} // namespace

TEST_CASE("runtime: jit_printer and cppwrap_printer — statistics of the printed launches, the first NaN on "
          "model.py:16 and at its launch") {
  for (const char *name : {"jit_printer", "cppwrap_printer"}) {
    CAPTURE(name);
    std::string root = caseDir(name);
    Session s(root);
    INFO(s.client.logTail());
    checkFirstNanOnUserLine(s.client, root);
    // The launch in the output code carries the same Error, related to the user line.
    std::string code = outputCodeOf(root);
    REQUIRE(!code.empty());
    json d = openAndDiagnose(s.client, code);
    REQUIRE(d.is_object());
    REQUIRE(d["diagnostics"].size() == 1);
    const json &e = d["diagnostics"][0];
    CHECK(e["severity"] == 1);
    CHECK(e["code"] == "first-nan");
    std::vector<std::string> lines = splitLines(readFile(code));
    CHECK(contains(lines.at(e["range"]["start"]["line"].get<size_t>()),
                   "triton_poi_fused_addmm_log_relu_sub_0"));
    REQUIRE(e["relatedInformation"].size() == 1);
    CHECK(e["relatedInformation"][0]["location"]["range"]["start"]["line"] == 15);
    // Code actions at the launch: the printer environment for this kernel only, and the crash finder.
    json actions =
        s.client.request("textDocument/codeAction", {{"textDocument", {{"uri", fileURI(code)}}},
                                                     {"range", e["range"]},
                                                     {"context", {{"diagnostics", json::array()}}}});
    REQUIRE(actions.size() == 2);
    json env = actions[0]["command"]["arguments"][0]["env"];
    CHECK(actions[0]["command"]["command"] == "inductor.showPrinterEnv");
    CHECK(env["AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER"] == "2");
    CHECK(env["AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT"] == "triton_poi_fused_addmm_log_relu_sub_0");
    CHECK(actions[0]["command"]["arguments"][0]["shell"] ==
          "AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2 "
          "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT=triton_poi_fused_addmm_log_relu_sub_0");
    CHECK(actions[1]["command"]["arguments"][0]["env"]["CUDA_LAUNCH_BLOCKING"] == "1");
    // The statistics hints: NaN on the fused kernel's output.
    json hints = inlayHints(s.client, fileURI(code), static_cast<uint32_t>(lines.size()));
    std::vector<json> on = hintsOn(hints, e["range"]["start"]["line"].get<uint32_t>());
    REQUIRE(on.size() == 1);
    CHECK(contains(on[0]["label"].get<std::string>(), "buf1 4×128"));
    CHECK(contains(on[0]["label"].get<std::string>(), "NaN"));
    s.client.shutdown();

    // Every printed launch the index knows has the statistics of its blocks.
    std::vector<Block> blocks = readBlocks(root + "/run.log");
    REQUIRE(!blocks.empty());
    std::set<std::string> kernels = checkValues(root, blocks);
    CHECK(kernels.count("triton_poi_fused_addmm_log_relu_sub_0"));
    CHECK(kernels.count("triton_per_fused__softmax_exp_prepare_softmax_online_sub_1"));
  }
}

TEST_CASE("runtime: the printer's statistics on every launch of the output code, the first NaN at the launch "
          "line itself") {
  for (const char *name : {"jit_printer", "cppwrap_printer"}) {
    CAPTURE(name);
    std::string root = caseDir(name);
    std::string code = outputCodeOf(root);
    std::string text = readFile(code);
    std::vector<LaunchSite> launches = findLaunches(text);
    REQUIRE(launches.size() == 4);
    std::vector<Block> blocks = readBlocks(root + "/run.log");
    std::set<std::string> kernels = checkValues(root, blocks);
    for (const LaunchSite &l : launches)
      CHECK(kernels.count(l.kernel));
    Session s(root);
    json d = openAndDiagnose(s.client, code);
    REQUIRE(d.is_object());
    REQUIRE(d["diagnostics"].size() == 1);
    CHECK(d["diagnostics"][0]["range"]["start"]["line"] == launches[1].line);
    json hints = inlayHints(s.client, fileURI(code), static_cast<uint32_t>(splitLines(text).size()));
    for (const LaunchSite &l : launches)
      CHECK(hintsOn(hints, l.line).size() == 1);
    s.client.shutdown();
  }
}

} // namespace inductor::e2e
