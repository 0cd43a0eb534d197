// tests/e2e/SurfacesTests.cpp: one figure on every surface. For every case folder whose traces come with a
// torch.profiler trace (single profiled runs, a run pair, three runs into one folder), each user line's GPU
// time as its code lens, its hover, inductor/hotLines and explain --json show it, against the test's own join
// of the served run's profile (ProfileOracle: correlation to CPU op, `## Call CompiledFxGraph <key> ##`
// range, launch order), line by line. A lens that shows a neighbouring line's time, a hover whose total
// contradicts its parts, or a view that counts a launch twice fails here.
//
// Which profile is the served run's: the server serves the latest run (TraceOracle's latestRunLogs); a
// profile belongs to it when it started after that run's first record (its events' "ts" plus
// "baseTimeNanoseconds" against the logs' chromium-event "ts", both epoch µs).
#include "e2e/E2E.h"
#include "e2e/ProfileOracle.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

/// The profiles of a case folder: `profile*.json` beside the trace, and `profile/*.json[.gz]` (TensorBoard).
std::vector<std::string> profilesOf(const std::string &root) {
  std::vector<std::string> out;
  for (const std::string &p : filesIn(root, "profile", ".json"))
    out.push_back(p);
  if (fs::is_directory(root + "/profile"))
    for (const auto &e : fs::directory_iterator(root + "/profile")) {
      std::string name = e.path().filename().string();
      if (name.ends_with(".json") || name.ends_with(".json.gz")) out.push_back(e.path().string());
    }
  std::sort(out.begin(), out.end());
  return out;
}

/// When a profile started, in epoch µs: its earliest event "ts" plus "baseTimeNanoseconds" / 1000.
int64_t profileStartUs(const json &profile) {
  double first = 0;
  bool any = false;
  if (profile.contains("traceEvents"))
    for (const json &e : profile["traceEvents"])
      if (e.contains("ts") && e["ts"].is_number()) {
        double ts = e["ts"].get<double>();
        if (!any || ts < first) first = ts;
        any = true;
      }
  int64_t base = profile.value("baseTimeNanoseconds", int64_t{0}) / 1000;
  return base + static_cast<int64_t>(first);
}

/// "133 µs/step", "4.21 ms total": the value in ns (as printed, 3 significant digits).
std::optional<double> labelNs(const std::string &label) {
  std::smatch m;
  if (!std::regex_search(label, m, std::regex(R"(([0-9.]+) (ns|µs|ms|s)\b)"))) return std::nullopt;
  double v = std::stod(m[1]);
  std::string unit = m[2];
  return v * (unit == "ns" ? 1 : unit == "µs" ? 1e3 : unit == "ms" ? 1e6 : 1e9);
}

/// The expected GPU time of each user line (local path, 1-based line now) of the served run: ProfileOracle's
/// join of each of its profiles to its output codes' launches, summed over the origins' lines (a launch once
/// per line, at the line its recorded text is on now: TraceOracle's relocatedFrame); ns in all, and the
/// number of marked steps (0 when none).
struct ExpectedTimes {
  std::map<std::pair<std::string, uint32_t>, int64_t> lines;
  size_t steps = 0;
  size_t profiles = 0;
};

ExpectedTimes expectedTimes(const std::string &root) {
  ExpectedTimes out;
  std::vector<std::string> logs = latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace"));
  if (logs.empty()) return out;
  int64_t runStart = INT64_MAX;
  for (const std::string &log : logs)
    runStart = std::min(runStart, firstTimestampUs(log));
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs);
  std::map<std::string, std::vector<std::string>> launches; // Cache key -> kernels in launch order.
  std::map<std::string, const ExpectedOutputCode *> byKey;
  std::map<std::string, std::map<uint32_t, std::string>> keys; // Log -> envelope line -> key.
  for (const ExpectedOutputCode &c : codes) {
    if (!keys.count(c.record.traceFile)) keys[c.record.traceFile] = cacheKeysOf(c.record.traceFile);
    auto it = keys[c.record.traceFile].find(c.record.line);
    if (it == keys[c.record.traceFile].end()) continue;
    if (byKey.count(it->second)) continue; // One graph, joined once (a recompile hitting the FX cache).
    for (const LaunchSite &s : c.launches)
      launches[it->second].push_back(s.kernel);
    byKey[it->second] = &c;
  }
  std::map<std::string, std::vector<std::string>> fileLines; // Local path -> trimmed lines.
  for (const std::string &path : profilesOf(root)) {
    json profile = readProfile(path);
    if (!profile.is_object() || profileStartUs(profile) < runStart) continue; // An earlier run's.
    ++out.profiles;
    OracleJoin join = joinByOracle(profile, launches);
    out.steps += join.steps.size();
    for (const auto &[key, code] : byKey) {
      auto ns = join.launchNs.find(key);
      if (ns == join.launchNs.end()) continue;
      for (size_t l = 0; l < code->launches.size() && l < ns->second.size(); ++l) {
        if (ns->second[l] <= 0) continue;
        // A launch counts once on each of its lines, where its recorded text is now (a compile that hit the
        // FX graph cache replays the stack traces of the run that filled it, with that run's numbers).
        std::set<std::pair<std::string, uint32_t>> lines;
        for (const Frame &f : code->originsOf(code->launches[l])) {
          std::string local = localPathIn(f.path, root);
          if (!fileLines.count(local)) fileLines[local] = trimmedLines(local);
          if (std::optional<Frame> now = relocatedFrame(f, fileLines[local]))
            lines.insert({local, now->line});
        }
        for (const auto &line : lines)
          out.lines[line] += ns->second[l];
      }
    }
  }
  return out;
}

json explainJson(const std::string &root) {
  std::string cmd = "cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --json --no-python '" + root +
                    "' 2>/dev/null";
  std::string out;
  if (FILE *pipe = ::popen(cmd.c_str(), "r")) {
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;)
      out.append(buf, n);
    ::pclose(pipe);
  }
  return json::parse(out, nullptr, false);
}

/// The first non-blank column of a line of a file (where a hover on the line is asked).
uint32_t firstColumn(const std::vector<std::string> &lines, uint32_t line) {
  if (line == 0 || line > lines.size()) return 0;
  size_t c = lines[line - 1].find_first_not_of(" \t");
  return c == std::string::npos ? 0 : static_cast<uint32_t>(c);
}

} // namespace

TEST_CASE("surfaces: each user line's GPU time reads the same in its lens, hover, hotLines and explain, and "
          "equals the test's own profile join, on every profiled case") {
  size_t cases = 0, lines = 0, lenses = 0;
  for (const std::string &root : caseFolders()) {
    if (profilesOf(root).empty()) continue;
    std::string name = fs::path(root).filename().string();
    CAPTURE(name);
    ExpectedTimes expected = expectedTimes(root);
    if (expected.profiles == 0) continue; // Profiles of earlier runs only.
    ++cases;
    Session s(root);
    INFO(s.client.logTail());
    json hot = s.client.request("inductor/hotLines", {{"limit", 100000}});
    REQUIRE(hot.is_object());
    json explained = explainJson(root);
    REQUIRE(explained.is_object());
    const json &runtimeLines = explained["runtime"]["lines"];
    REQUIRE(runtimeLines.is_array());
    std::map<std::pair<std::string, uint32_t>, const json *> hotByLine, explainByLine;
    for (const json &l : hot["lines"])
      hotByLine[{l["path"].get<std::string>(), l["line"].get<uint32_t>()}] = &l;
    for (const json &l : runtimeLines)
      explainByLine[{l["path"].get<std::string>(), l["line"].get<uint32_t>()}] = &l;
    // Every line the oracle timed, and no other, in both lists.
    CHECK(hotByLine.size() == expected.lines.size());
    CHECK(explainByLine.size() == expected.lines.size());
    double steps = expected.steps ? static_cast<double>(expected.steps) : 1.0;

    std::map<std::string, std::map<uint32_t, std::string>> lensTitles; // File -> line -> lens title.
    std::map<std::string, std::vector<std::string>> texts;
    for (const auto &[key, ns] : expected.lines) {
      // Not a structured binding: clang 14 cannot capture one in INFO's and REQUIRE_MESSAGE's lambdas.
      const auto &path = key.first;
      const auto line = key.second;
      const uint64_t expectedNs = ns;
      INFO(path << ":" << line << " expected " << expectedNs << " ns");
      ++lines;
      auto h = hotByLine.find(key);
      REQUIRE(h != hotByLine.end());
      CHECK((*h->second)["ns"] == ns);
      auto e = explainByLine.find(key);
      REQUIRE(e != explainByLine.end());
      CHECK((*e->second)["ns"] == ns);
      std::string label = (*h->second)["label"];
      CHECK((*e->second)["label"] == label);
      // The label says the oracle's figure (per step when steps are marked), to its 3 printed digits.
      std::optional<double> shown = labelNs(label);
      REQUIRE(shown);
      CHECK(std::abs(*shown - static_cast<double>(ns) / steps) <=
            0.005 * static_cast<double>(ns) / steps + 1);
      if (!fs::exists(path)) continue;
      // The lens of the line and its hover: the same label, not a neighbour's.
      std::string uri = fileURI(path);
      if (!lensTitles.count(path)) {
        s.client.didOpen(path);
        texts[path] = splitLines(readFile(path));
        json all = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
        REQUIRE(all.is_array());
        auto &titles = lensTitles[path];
        for (const json &l : all)
          if (l["command"]["command"] == "inductor.showLaunchSites")
            titles[l["range"]["start"]["line"].get<uint32_t>() + 1] = l["command"]["title"];
      }
      auto lens = lensTitles[path].find(line);
      REQUIRE_MESSAGE(lens != lensTitles[path].end(), "no lens on " << path << ":" << line);
      std::string title = withoutComparison(lens->second);
      INFO("lens: " << lens->second);
      CHECK(title.ends_with(" · " + label));
      ++lenses;
      json hover = s.client.request("textDocument/hover",
                                    textDocumentPosition(uri, line - 1, firstColumn(texts[path], line)));
      REQUIRE(hover.is_object());
      std::string md = hover["contents"]["value"];
      INFO("hover:\n" << md);
      CHECK(md.find("**GPU time** " + label + " · ") != std::string::npos);
    }
    // A lens shows a time only on a line the oracle timed.
    for (const auto &[path, titles] : lensTitles)
      for (const auto &[line, title] : titles) {
        const std::string where = path + ":" + std::to_string(line) + " " + title; // (clang 14: see above)
        INFO(where);
        if (!expected.lines.count({path, line})) CHECK(!labelNs(withoutComparison(title)));
      }
  }
  MESSAGE(cases << " profiled cases, " << lines << " timed lines, " << lenses << " lenses checked");
  CHECK(cases >= 6);
  CHECK(lenses >= 60);
}
