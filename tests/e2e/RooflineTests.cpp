// tests/e2e/RooflineTests.cpp: how close each kernel ran to the machine (issue 30 point 5) through the real
// server and `explain`. On traces made without TORCHINDUCTOR_BENCHMARK_KERNEL=1 (profiled_mlp, kernel_ir) no
// number is invented: hovers and hot kernels say how to get the estimates. On kernel_perf (made with it, and
// profiled), the achieved GB/s and TFLOP/s, the share of peak, the bound and the time left on the table equal
// what the test computes itself: Inductor's estimates read from the output code's inductor_meta text, the
// time per launch from its own join of profile.json (ProfileOracle.h), the peaks from the GPU the profile's
// deviceProperties name and the vendor's datasheet.
#include "e2e/E2E.h"
#include "e2e/ProfileOracle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string run(const std::string &cmd) {
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
      out.append(buf, n);
    pclose(p);
  }
  return out;
}

std::string explain(const std::string &dir, bool asJson) {
  return run("cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain " + (asJson ? "--json " : "") +
             "--no-python '" + dir + "' 2>/dev/null");
}

/// The estimates the test reads from an output code: kernel name -> (kernel_num_gb, kernel_flop; -1 when
/// absent), from each `inductor_meta={...}` line after `NAME = async_compile.triton('NAME'`.
struct Estimate {
  double numGb = -1;
  double flop = -1;
};
std::map<std::string, Estimate> estimatesIn(const std::string &text) {
  std::map<std::string, Estimate> out;
  std::istringstream in(text);
  std::regex defRe(R"(^(triton_\w+) = async_compile\.triton\()"), metaRe(R"(^\s*inductor_meta=\{)"),
      gbRe(R"('kernel_num_gb': ([0-9.eE+-]+))"), flopRe(R"('kernel_flop': (\d+))");
  std::string current;
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, defRe)) current = m[1];
    if (current.empty() || !std::regex_search(l, metaRe)) continue;
    Estimate e;
    if (std::regex_search(l, m, gbRe)) e.numGb = std::stod(m[1]);
    if (std::regex_search(l, m, flopRe)) e.flop = std::stod(m[1]);
    out[current] = e;
    current.clear();
  }
  return out;
}

/// The peaks of the vendor's datasheet for the GPU a profile names (only those this suite's traces use).
struct Peak {
  std::string model;
  double gbPerS = 0, tflopPerS = 0;
};
std::optional<Peak> datasheetPeak(const std::string &deviceName) {
  if (contains(deviceName, "H100") && contains(deviceName, "HBM3")) return Peak{"H100 SXM", 3350, 989.5};
  if (deviceName == "NVIDIA H200") return Peak{"H200 SXM", 4800, 989.5};
  return std::nullopt;
}

/// The first number in `text` after `prefix` ("312 GB/s", "3.35 TB/s": GB/s).
std::optional<double> rateAfter(const std::string &text, const std::string &prefix) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(prefix + R"(([0-9.]+) (GB|TB)/s)"))) return std::nullopt;
  return std::stod(m[1]) * (m[2] == "TB" ? 1000 : 1);
}

/// The server's hot kernels by location; a location in another copy of one of `codes` is keyed as in it.
std::map<Loc, json> kernelsByLoc(const json &kernels, const std::vector<ExpectedOutputCode> &codes) {
  std::map<Loc, json> out;
  for (const json &k : kernels) {
    Loc l = toLoc(k["location"]);
    if (l.uri.rfind("file://", 0) == 0)
      for (const ExpectedOutputCode &c : codes)
        if (l.uri != c.uri && readFile(l.uri.substr(7)) == c.text) l.uri = c.uri;
    out[l] = k;
  }
  return out;
}

/// What the test expects of one launch.
struct ExpectedPerf {
  std::string kernel;
  Loc loc;
  const ExpectedOutputCode *code = nullptr;
  const LaunchSite *site = nullptr;
  Estimate estimate;
  int64_t ns = 0, calls = 0;
  double gbPerS = 0, tflopPerS = 0, percent = 0;
  bool compute = false;
  bool latency = false; ///< Under the launch floor at the peaks.
  int64_t timeLeftNs = 0;
  std::string bound() const { return latency ? "latency" : compute ? "compute" : "memory"; }
};

/// The least device time of a launch that Roofline.h documents (kLaunchFloorNs): the fixtures' shortest
/// kernels take 0.93 µs on an H100.
constexpr double kFloorNs = 1000;

/// The estimates and achieved rates a kernel's JSON (inductor/hotLines, explain --json) gives, against the
/// test's own join.
void checkRates(const json &k, const ExpectedPerf &e) {
  CHECK(k["numGb"].get<double>() == e.estimate.numGb);
  CHECK(k["flop"].get<double>() == e.estimate.flop);
  CHECK(k["achievedGbPerS"].get<double>() == doctest::Approx(e.gbPerS).epsilon(1e-9));
  if (e.estimate.flop > 0)
    CHECK(k["achievedTflopPerS"].get<double>() == doctest::Approx(e.tflopPerS).epsilon(1e-9));
  else
    CHECK(k["achievedTflopPerS"].is_null()); // None counted: unknown, not 0.
}

} // namespace

TEST_CASE("roofline: profiled_mlp (no kernel_num_gb) — nothing invented, hovers say how to get it") {
  std::string root = caseDir("profiled_mlp");
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(root + "/trace"), &s.client);
  REQUIRE(!codes.empty());
  for (const ExpectedOutputCode &c : codes)
    REQUIRE_MESSAGE(!contains(c.text, "'kernel_num_gb'"), "the fixture has the estimates now: " << c.label());

  json hot = s.client.request("inductor/hotLines", {{"limit", 1000}});
  REQUIRE(hot.is_object());
  // The peaks are those of the GPU the profile names, as the datasheet gives them.
  json profile = readProfile(root + "/profile.json");
  std::string device = profile["deviceProperties"][0]["name"];
  std::optional<Peak> peak = datasheetPeak(device);
  REQUIRE_MESSAGE(peak, device);
  INFO(hot["peak"].dump());
  CHECK(hot["peak"].get<std::string>().rfind(peak->model + ": ", 0) == 0);
  CHECK(rateAfter(hot["peak"], peak->model + ": ") == peak->gbPerS);
  REQUIRE(!hot["kernels"].empty());
  size_t triton = 0;
  for (const json &k : hot["kernels"]) {
    INFO(k.dump());
    for (const char *unknown :
         {"numGb", "flop", "achievedGbPerS", "achievedTflopPerS", "peakPercent", "bound", "timeLeftNs"})
      CHECK(k[unknown].is_null());
    if (k["kernel"].get<std::string>().rfind("triton_", 0) == 0) {
      ++triton;
      CHECK(contains(k["roofline"], "TORCHINDUCTOR_BENCHMARK_KERNEL=1"));
    }
  }
  CHECK(triton > 0);
  CHECK(hot["kernelsByTimeLeft"].empty());

  // Every Triton launch's hover: the roofline line says why and how, and holds no rate.
  size_t hovers = 0;
  for (const ExpectedOutputCode &c : codes)
    for (const LaunchSite &l : c.launches) {
      if (l.kernel.rfind("triton_", 0) != 0) continue;
      json h = s.client.request("textDocument/hover", textDocumentPosition(c.uri, l.line, l.column));
      REQUIRE(h.is_object());
      std::string md = h["contents"]["value"];
      INFO(l.kernel << "\n" << md);
      CHECK(contains(md, "**Roofline:** unknown: no kernel_num_gb"));
      CHECK(contains(md, "TORCHINDUCTOR_BENCHMARK_KERNEL=1"));
      CHECK(!contains(md, "GB/s"));
      ++hovers;
    }
  CHECK(hovers >= 2);

  // explain: the section is there and says none is known, and why.
  std::string text = explain(root, false);
  CHECK(contains(text, "Time left on the table (roofline; peaks " + peak->model));
  CHECK(contains(text, "none known: no launch has Inductor's estimates"));
}

TEST_CASE("roofline: kernel_ir (no profile, no estimates) — the def's hover says how to get them") {
  std::string root = fs::canonical(fixturesDir() + "/traces/kernel_ir").string();
  Session s(root);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(root + "/trace"), &s.client);
  size_t defs = 0;
  for (const ExpectedOutputCode &c : codes) {
    if (c.path.empty()) continue;
    std::istringstream in(c.text);
    std::regex defRe(R"(^def (triton_\w+)\()");
    uint32_t i = 0;
    bool inSource = false;
    for (std::string l; std::getline(in, l); ++i) {
      if (contains(l, "async_compile.triton(")) inSource = true;
      std::smatch m;
      if (!inSource || !std::regex_search(l, m, defRe)) continue;
      json h = s.client.request("textDocument/hover", textDocumentPosition(c.uri, i, 5));
      REQUIRE(h.is_object());
      std::string md = h["contents"]["value"];
      INFO(c.path << ":" << i << "\n" << md);
      CHECK(contains(md, "**Roofline:** unknown: no kernel_num_gb"));
      CHECK(contains(md, "TORCHINDUCTOR_BENCHMARK_KERNEL=1"));
      inSource = false;
      ++defs;
    }
  }
  CHECK(defs >= 4);
}

TEST_CASE("roofline: kernel_perf — achieved rates, share of peak, bound and time left are the test's own") {
  std::string root = fs::canonical(INDUCTOR_TRACES_DIR).string() + "/kernel_perf";
  REQUIRE(fs::exists(root + "/profile.json"));
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(root + "/trace"), &s.client);
  REQUIRE(!codes.empty());
  // The oracle's join (ProfileOracle.h): per FX graph cache key, each launch's ns over all calls.
  std::map<std::string, std::vector<std::string>> launches;
  std::map<std::string, const ExpectedOutputCode *> codeOf;
  std::map<std::string, std::map<uint32_t, std::string>> keys;
  for (const ExpectedOutputCode &c : codes) {
    if (!keys.count(c.record.traceFile)) keys[c.record.traceFile] = cacheKeysOf(c.record.traceFile);
    auto it = keys[c.record.traceFile].find(c.record.line);
    REQUIRE_MESSAGE(it != keys[c.record.traceFile].end(), "no FX graph cache key for " << c.label());
    for (const LaunchSite &l : c.launches)
      launches[it->second].push_back(l.kernel);
    codeOf[it->second] = &c;
  }
  json profile = readProfile(root + "/profile.json");
  OracleJoin oracle = joinByOracle(profile, launches);
  CHECK(oracle.missed.empty());
  std::optional<Peak> peak = datasheetPeak(profile["deviceProperties"][0]["name"]);
  REQUIRE(peak);
  const double ridge = peak->tflopPerS * 1e12 / (peak->gbPerS * 1e9); // FLOP per byte.

  std::vector<ExpectedPerf> expected;
  std::map<std::string, int> nameUses;
  for (const auto &[key, code] : codeOf) {
    std::map<std::string, Estimate> estimates = estimatesIn(code->text);
    for (size_t i = 0; i < code->launches.size(); ++i) {
      const LaunchSite &site = code->launches[i];
      if (site.kernel.rfind("triton_", 0) != 0) continue;
      ++nameUses[site.kernel];
      ExpectedPerf e;
      e.kernel = site.kernel;
      e.code = code;
      e.site = &site;
      e.loc = launchLoc(code->uri, code->text, site);
      REQUIRE_MESSAGE(estimates.count(site.kernel), site.kernel);
      e.estimate = estimates[site.kernel];
      REQUIRE(e.estimate.numGb > 0);
      REQUIRE(e.estimate.flop >= 0);
      e.ns = oracle.launchNs.at(key)[i];
      e.calls = static_cast<int64_t>(oracle.calls.at(key));
      REQUIRE(e.ns > 0);
      double seconds = double(e.ns) / double(e.calls) * 1e-9;
      e.gbPerS = e.estimate.numGb / seconds;
      e.tflopPerS = e.estimate.flop / seconds / 1e12;
      e.compute = e.estimate.flop > 0 && e.estimate.flop / (e.estimate.numGb * 1e9) > ridge;
      e.percent = e.compute ? 100 * e.tflopPerS / peak->tflopPerS : 100 * e.gbPerS / peak->gbPerS;
      double perLaunch =
          std::max(e.estimate.numGb / peak->gbPerS, e.estimate.flop / (peak->tflopPerS * 1e12)) * 1e9;
      e.latency = perLaunch < kFloorNs;
      if (e.latency) e.percent = 100 * kFloorNs / (double(e.ns) / double(e.calls));
      double atPeak = std::max(perLaunch, kFloorNs) * double(e.calls);
      e.timeLeftNs = std::max<int64_t>(0, e.ns - std::llround(atPeak));
      expected.push_back(e);
    }
  }
  REQUIRE(expected.size() >= 10);
  CHECK(std::any_of(expected.begin(), expected.end(), [](const ExpectedPerf &e) { return e.compute; }));
  CHECK(std::any_of(expected.begin(), expected.end(),
                    [](const ExpectedPerf &e) { return !e.compute && !e.latency; }));

  // inductor/hotLines: every Triton launch's figures.
  json hot = s.client.request("inductor/hotLines", {{"limit", 1000}});
  REQUIRE(hot.is_object());
  CHECK(hot["peak"].get<std::string>().rfind(peak->model + ": ", 0) == 0);
  std::map<Loc, json> server = kernelsByLoc(hot["kernels"], codes);
  for (const ExpectedPerf &e : expected) {
    INFO(e.code->label() << " " << e.kernel);
    auto it = server.find(e.loc);
    REQUIRE(it != server.end());
    const json &k = it->second;
    INFO(k.dump());
    CHECK(k["ns"] == e.ns);
    checkRates(k, e);
    CHECK(k["bound"] == e.bound());
    CHECK(k["peakPercent"].get<double>() == doctest::Approx(e.percent).epsilon(1e-9));
    CHECK(std::abs(k["timeLeftNs"].get<int64_t>() - e.timeLeftNs) <= 1);
  }

  // Ranked by time left: the same launches, most first.
  json ranked = hot["kernelsByTimeLeft"];
  REQUIRE(ranked.size() == expected.size());
  for (size_t i = 1; i < ranked.size(); ++i)
    CHECK(ranked[i - 1]["timeLeftNs"].get<int64_t>() >= ranked[i]["timeLeftNs"].get<int64_t>());
  const ExpectedPerf &most =
      *std::max_element(expected.begin(), expected.end(), [](const ExpectedPerf &a, const ExpectedPerf &b) {
        return a.timeLeftNs < b.timeLeftNs;
      });
  CHECK(std::abs(ranked[0]["timeLeftNs"].get<int64_t>() - most.timeLeftNs) <= 1);

  // Hovers on each launch, and on the kernel's def (its launches in that output code: the same one here).
  for (const ExpectedPerf &e : expected) {
    json h = s.client.request("textDocument/hover",
                              textDocumentPosition(e.code->uri, e.site->line, e.site->column + 1));
    REQUIRE(h.is_object());
    std::string md = h["contents"]["value"];
    INFO(e.kernel << "\n" << md);
    std::optional<double> rate = rateAfter(md, R"(\*\*Roofline:\*\* )");
    REQUIRE(rate);
    CHECK(*rate == doctest::Approx(e.gbPerS).epsilon(0.006)); // Three significant digits.
    CHECK(contains(md, " of HBM peak (3.35 TB/s, " + peak->model + ")"));
    CHECK(contains(md, "· " + e.bound() + "-bound"));
    if (e.compute) CHECK(contains(md, " TFLOP/s · "));
    if (e.latency)
      CHECK(contains(md, "none takes under ~1.00 µs"));
    else if (e.estimate.flop == 0)
      CHECK(contains(md, "Inductor counted no FLOPs"));
    CHECK(contains(md, " per launch over " + std::to_string(e.calls) + " launches"));
  }
  for (const ExpectedPerf &e : expected) {
    if (nameUses[e.kernel] != 1 || e.code->path.empty()) continue;
    std::istringstream in(e.code->text);
    uint32_t i = 0;
    for (std::string l; std::getline(in, l); ++i)
      if (l.rfind("def " + e.kernel + "(", 0) == 0) break;
    json h = s.client.request("textDocument/hover", textDocumentPosition(e.code->uri, i, 5));
    REQUIRE(h.is_object());
    std::string md = h["contents"]["value"];
    INFO(e.kernel << " def\n" << md);
    std::optional<double> rate = rateAfter(md, R"(\*\*Roofline:\*\* )");
    REQUIRE(rate);
    CHECK(*rate == doctest::Approx(e.gbPerS).epsilon(0.006));
  }

  // explain --json: the kernels' estimates and rates, one entry per kernel source (names used once: a
  // definition's figures are over its launches, which the test sums only for a name launched once).
  json j = json::parse(explain(root, true), nullptr, false);
  REQUIRE(j.is_object());
  REQUIRE(j["kernels"].is_array());
  size_t checked = 0;
  for (const ExpectedPerf &e : expected) {
    if (nameUses[e.kernel] != 1) continue;
    std::vector<json> named;
    for (const json &k : j["kernels"])
      if (k["name"] == e.kernel && k["graph"] == e.code->graphKind()) named.push_back(k);
    REQUIRE_MESSAGE(named.size() == 1, e.kernel);
    INFO(e.kernel << " " << named.front().dump());
    checkRates(named.front(), e);
    ++checked;
  }
  CHECK(checked >= 8);
  // explain's text: the section, the most time left first.
  std::string text = explain(root, false);
  size_t at = text.find("Time left on the table (roofline; peaks " + peak->model);
  REQUIRE(at != std::string::npos);
  std::string first = text.substr(text.find('\n', at) + 1);
  first = first.substr(0, first.find('\n'));
  CHECK(contains(first, most.kernel.substr(0, 40))); // explain cuts long names.
}

} // namespace inductor::e2e
