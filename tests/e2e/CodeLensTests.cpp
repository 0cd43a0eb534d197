// tests/e2e/CodeLensTests.cpp: textDocument/codeLens on user source (one lens per line that produced kernels,
// `N kernels · a forward · b backward`) and on generated code (the origin above each launch and kernel).
#include "e2e/E2E.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

std::vector<Loc> sorted(std::vector<Loc> v) {
  std::sort(v.begin(), v.end());
  return v;
}

/// The title the lens of a user line must have, from the launches the traces attribute to it: distinct
/// kernels per compile and graph (ranks together), then launch sites (a debug handle, else a line, counted
/// once per compile and graph), `over N compiles` when they are of several, then kernels per graph kind.
std::string userLineTitle(const std::vector<LaunchRef> &launches) {
  std::map<std::string, std::set<std::string>> kernels; // compile+graph -> kernel names
  std::map<std::string, std::set<std::string>> sites;   // compile+graph+kernel -> sites
  std::map<std::string, std::string> kindOf;            // compile+graph -> kind
  std::set<std::string> compiles;                       // compile ids, attempts together
  for (const LaunchRef &l : launches) {
    compiles.insert(l.code->record.compileId.substr(0, l.code->record.compileId.find('_')));
    std::string group = l.code->record.compileId + "|" + l.code->graphKind();
    kindOf[group] = l.code->graphKind();
    kernels[group].insert(l.site->kernel);
    sites[group + "|" + l.site->kernel].insert(l.site->handle >= 0 ? "h" + std::to_string(l.site->handle)
                                                                   : "l" + std::to_string(l.site->line));
  }
  size_t nKernels = 0, nLaunches = 0;
  std::map<std::string, size_t> byKind;
  for (const auto &[group, names] : kernels) {
    nKernels += names.size();
    byKind[kindOf[group]] += names.size();
  }
  for (const auto &[key, s] : sites)
    nLaunches += s.size();
  std::string title = std::to_string(nKernels) + (nKernels == 1 ? " kernel" : " kernels");
  if (nLaunches != nKernels)
    title += ", " + std::to_string(nLaunches) + (nLaunches == 1 ? " launch" : " launches");
  // Summed over several compiles: the lens says so (index/model/Counts.h).
  if (compiles.size() > 1) title += " over " + std::to_string(compiles.size()) + " compiles";
  for (const char *kind : {"forward", "backward", "inference", "AOT", "other"})
    if (byKind.count(kind)) title += " · " + std::to_string(byKind[kind]) + " " + kind;
  return title;
}

/// Where the server lists a launch: ranks whose output code of a compile is the same up to the device are
/// listed once, at the first rank's copy (at the same position).
Loc listedLoc(const LaunchRef &l, const std::vector<ExpectedOutputCode> &codes) {
  for (const ExpectedOutputCode &c : codes) {
    if (&c == l.code) break;
    if (sameUpToDevice(c, *l.code)) return launchLoc(c.uri, c.text, *l.site);
  }
  return l.loc();
}

/// Checks the lenses of the case's model.py; returns how many user lines have one.
size_t checkUserLenses(LSPClient &client, const std::string &root,
                       const std::vector<ExpectedOutputCode> &codes) {
  const std::string caseName = fs::path(root).filename().string();
  std::string model = root + "/model.py";
  // The whole index, profiles joined: the first one served may be without them (lenses then say
  // "GPU time: joining the profile"; unit RuntimeFormatTests).
  REQUIRE(client.waitForIndexed().is_object());
  std::string uri = client.didOpen(model);
  std::map<uint32_t, std::vector<LaunchRef>> expected; // 0-based line -> launches.
  for (const auto &[frame, launches] : launchesByUserLine(codes))
    if (localPathIn(frame.path, root) == model) expected[frame.line - 1] = launches;
  json all = client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(all.is_array());
  // The kernels of lines; compiled functions' lenses (inductor.showCompiles) are CompileHealthTests'.
  json lenses = json::array();
  for (const json &l : all)
    if (l["command"]["command"] != "inductor.showCompiles") lenses.push_back(l);
  CHECK(lenses.size() == expected.size());
  std::set<uint32_t> seen;
  for (const json &lens : lenses) {
    uint32_t line = lens["range"]["start"]["line"].get<uint32_t>();
    INFO(caseName << " lens " << lens.dump());
    CHECK(seen.insert(line).second); // One lens per line.
    auto it = expected.find(line);
    REQUIRE(it != expected.end());
    CHECK(toLoc({{"uri", uri}, {"range", lens["range"]}}) == originLoc(Frame{model, line + 1}));
    REQUIRE(lens.contains("command"));
    const json &cmd = lens["command"];
    // Cases with a profile add the line's GPU time (RuntimeTests.cpp checks the value), or say it is unknown
    // when the kernels ran inside CUDA graph replays (the profile has no per-kernel events for them).
    // A folder of several runs compares with the previous one: withoutComparison.
    std::string title = withoutComparison(cmd["title"].get<std::string>()), base = userLineTitle(it->second);
    CHECK_MESSAGE((title == base || (title.starts_with(base + " · ") &&
                                     (title.ends_with(" total") || title.ends_with("/step") ||
                                      title == base + " · time unknown (CUDA graph)"))),
                  title << " vs " << base);
    // The lens carries no locations: clicked, the client asks inductor/launchSites at its position.
    CHECK(cmd["command"] == "inductor.showLaunchSites");
    REQUIRE(cmd["arguments"].is_array());
    REQUIRE(cmd["arguments"].size() == 2);
    CHECK(cmd["arguments"][0] == uri);
    CHECK(cmd["arguments"][1] == lens["range"]["start"]);
    json sites = client.request("inductor/launchSites",
                                {{"textDocument", {{"uri", uri}}}, {"position", cmd["arguments"][1]}});
    // One location per launch site the title counts: ranks that wrote the same output code file share their
    // sites, and ranks whose code differs only in its device are listed at the first one's (kernel_ranks;
    // TlparseTests has ranks with log-only copies, whose lens shows one).
    std::set<Loc> unique;
    for (const LaunchRef &l : it->second)
      unique.insert(listedLoc(l, codes));
    std::vector<Loc> want(unique.begin(), unique.end());
    std::set<Loc> got = toLocSet(sites), missing, extra;
    std::set_difference(unique.begin(), unique.end(), got.begin(), got.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(got.begin(), got.end(), unique.begin(), unique.end(),
                        std::inserter(extra, extra.end()));
    CHECK_MESSAGE(sorted(toLocs(sites)) == sorted(want),
                  "missing " << show(missing) << "; extra " << show(extra));
    // The lens's locations are the references of the line (ranks' identical copies listed once by both).
    json refs = client.request("textDocument/references", {{"textDocument", {{"uri", uri}}},
                                                           {"position", lens["range"]["start"]},
                                                           {"context", {{"includeDeclaration", false}}}});
    std::vector<Loc> refLocs = sorted(toLocs(refs)), lensLocs = sorted(toLocs(sites));
    CHECK(std::includes(refLocs.begin(), refLocs.end(), lensLocs.begin(), lensLocs.end()));
    CHECK(refLocs == sorted(want));
  }
  return seen.size();
}

/// Pinned numbers of user lines with a lens for the first cases (a regression check on the oracle too).
const std::map<std::string, size_t> kPinnedUserLines = {{"mlp_train", 6},    {"graph_break_dynamic", 5},
                                                        {"cpu_inductor", 4}, {"aoti_conv", 4},
                                                        {"multirank", 1},    {"profiled_mlp", 6}};

/// The user lines whose lenses were compared.
size_t checkCase(const std::string &root) {
  const std::string name = fs::path(root).filename().string();
  Session s(root);
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes =
      expectedOutputCodes(latestRunLogs(filesIn(root + "/trace")), &s.client);
  REQUIRE(!codes.empty());
  size_t n = checkUserLenses(s.client, root, codes);
  if (auto pin = kPinnedUserLines.find(name); pin != kPinnedUserLines.end()) CHECK(n == pin->second);
  recordUserLinesWithLenses(name, n);
  s.client.shutdown();
  return n;
}

TEST_CASE("codeLens: mlp_train model.py line 16 reads `4 kernels, 10 launches · 2 forward · 2 backward`") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::string uri = s.client.didOpen(caseDir("mlp_train") + "/model.py");
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(lenses.is_array());
  const json *line16 = nullptr;
  for (const json &l : lenses)
    if (l["range"]["start"]["line"] == 15) line16 = &l;
  REQUIRE(line16 != nullptr);
  // Forward: addmm (handles 2, 6) and gelu (3, 7); backward: gelu_backward (8, 13) and mm (9, 10, 14, 18).
  CHECK((*line16)["command"]["title"] == "4 kernels, 10 launches · 2 forward · 2 backward");
  CHECK((*line16)["range"] == json{{"start", position(15, 8)}, {"end", position(15, 31)}});
  json sites = s.client.request("inductor/launchSites", {{"textDocument", {{"uri", uri}}},
                                                         {"position", (*line16)["command"]["arguments"][1]}});
  CHECK(sites.size() == 10);
  // Other lines, documents and malformed params.
  CHECK(s.client.request("inductor/launchSites",
                         {{"textDocument", {{"uri", uri}}}, {"position", position(0, 0)}}) == json::array());
  CHECK(s.client.request("inductor/launchSites", {{"textDocument", {{"uri", "file:///nowhere/x.py"}}},
                                                  {"position", position(15, 0)}}) == json::array());
  json bad = s.client.requestRaw("inductor/launchSites", {{"textDocument", 3}});
  CHECK(bad.contains("error"));
  CHECK(bad["error"]["code"] == -32602);
  s.client.shutdown();
}

/// Case folders the lens sweeps do not compare yet (issue 32 point 19), each for a documented reason:
///  - no_provenance: made without INDUCTOR_PROVENANCE, no stack traces: the lenses come from the index's
///    fallbacks, which this oracle does not model;
///  - cppwrap_printer: a cpp_wrapper module carries no `# AOT ID:` header, so the oracle cannot tell its
///    graph kind (the lens says inference) nor find its launch lines.
/// Ranks that generated different code for one compile id (ranks_diverge, ranks_uneven) are compared: the
/// lens counts a site once, and lists it in each version of the code.
bool lensSweepSkips(const std::string &root) {
  std::string name = fs::path(root).filename().string();
  return name == "no_provenance" || name == "cppwrap_printer";
}

TEST_CASE("codeLens: user lines of every case folder (fixtures and build/traces)") {
  // Counted, so that a sweep that finds no case or no line fails instead of passing empty.
  size_t cases = 0, lines = 0, casesWithLines = 0;
  for (const std::string &root : caseFolders()) {
    if (!fs::exists(root + "/model.py")) continue; // Lenses of model.py; a case without one has none to ask.
    if (lensSweepSkips(root)) continue;
    CAPTURE(root);
    size_t n = checkCase(root);
    ++cases;
    lines += n;
    casesWithLines += n > 0;
  }
  MESSAGE("lens sweep: " << cases << " cases, " << lines << " user lines compared");
  CHECK(cases >= 10);
  CHECK(casesWithLines * 2 > cases);
}

/// `model.py:16  h = F.gelu(self.fc1(h))`, the start of a generated-code lens title for this origin.
std::string originTitle(const Frame &f, const std::string &root) {
  std::vector<std::string> lines = splitLines(readFile(localPathIn(f.path, root)));
  std::string code = f.line - 1 < lines.size() ? lines[f.line - 1] : "";
  code.erase(0, code.find_first_not_of(" \t"));
  code.erase(code.find_last_not_of(" \t") + 1);
  std::string base = f.path.substr(f.path.rfind('/') + 1);
  return base + ":" + std::to_string(f.line) + "  " + code;
}

/// Whether a launch lens's `title` shows `expected` (`file:line  code`): whole, or with a long code line
/// shortened to a prefix of it and `...` (the lens fits a line), before an optional `  +N more`.
bool titleShows(const std::string &title, const std::string &expected) {
  if (title.rfind(expected, 0) == 0) return true;
  std::string t = title;
  static const std::regex more(R"(  \+[0-9]+ more$)");
  t = std::regex_replace(t, more, "");
  if (t.size() < 3 || t.compare(t.size() - 3, 3, "...") != 0) return false;
  t.resize(t.size() - 3);
  size_t code = expected.find("  ");
  // The shortened title keeps the whole `file:line  ` and some of the code, a prefix of the recorded line.
  return code != std::string::npos && t.size() > code + 2 && expected.rfind(t, 0) == 0;
}

void checkOutputCodeLenses(LSPClient &client, const ExpectedOutputCode &code, const std::string &root) {
  INFO(code.label());
  json lenses = client.request("textDocument/codeLens", {{"textDocument", {{"uri", code.uri}}}});
  REQUIRE(lenses.is_array());
  std::map<Loc, json> byRange;
  for (const json &l : lenses)
    byRange[toLoc({{"uri", code.uri}, {"range", l["range"]}})] = l;
  auto check = [&](const Loc &at, const std::set<Frame> &origins, const std::string &what) {
    INFO(what << " at " << show(at));
    auto it = byRange.find(at);
    // A launch whose stacks name no model frame (runs_gpt's `aten.randint.low_out`) has no origin to show.
    if (origins.empty() && it == byRange.end()) return;
    REQUIRE_MESSAGE(it != byRange.end(), "no lens; lenses: " << lenses.dump());
    const json &cmd = it->second["command"];
    std::string title = cmd["title"].get<std::string>();
    bool startsWithAnOrigin = false;
    for (const Frame &f : origins)
      startsWithAnOrigin |= titleShows(title, originTitle(f, root));
    CHECK_MESSAGE(startsWithAnOrigin, "title: " << title);
    if (origins.size() > 1) {
      std::string more = "  +" + std::to_string(origins.size() - 1) + " more";
      CHECK(title.size() > more.size());
      CHECK(title.compare(title.size() - more.size(), more.size(), more) == 0);
    }
    CHECK(cmd["command"] == "inductor.showLocations");
    CHECK(cmd["arguments"][0] == code.uri);
    CHECK(toLocSet(cmd["arguments"][2]) == originLocs(origins, false, root));
    byRange.erase(it);
  };
  for (const LaunchSite &l : code.launches)
    check(launchLoc(code.uri, code.text, l), code.originsOf(l), "launch " + l.key());
  for (const KernelDef &d : findKernelDefs(code.text)) {
    std::set<Frame> origins;
    for (const LaunchSite &l : code.launches)
      if (l.kernel == d.name)
        for (const Frame &f : code.originsOf(l))
          origins.insert(f);
    check(Loc{code.uri, d.line, d.column, d.line, static_cast<uint32_t>(d.column + d.name.size())}, origins,
          "definition " + d.name);
  }
  CHECK_MESSAGE(byRange.empty(), "unexpected lenses: " << byRange.size());
}

TEST_CASE("codeLens: output code has the origin above each launch and kernel definition") {
  size_t cases = 0, outputCodes = 0, launches = 0;
  for (const std::string &root : caseFolders()) {
    if (lensSweepSkips(root)) continue;
    CAPTURE(root);
    Session s(root);
    INFO(s.client.logTail());
    std::vector<ExpectedOutputCode> codes =
        expectedOutputCodes(latestRunLogs(filesIn(root + "/trace")), &s.client);
    REQUIRE(!codes.empty());
    for (const ExpectedOutputCode &code : codes) {
      if (!code.path.empty()) s.client.didOpen(code.path);
      checkOutputCodeLenses(s.client, code, root);
      ++outputCodes;
      launches += code.launches.size();
    }
    ++cases;
    s.client.shutdown();
  }
  MESSAGE("output code lens sweep: " << cases << " cases, " << outputCodes << " output codes, " << launches
                                     << " launches compared");
  CHECK(cases >= 10);
  CHECK(launches > 0);
}

TEST_CASE("codeLens: the title of a launch from line 16 starts with `model.py:16  h = F.gelu(self.fc1(h))`") {
  Session s(caseDir("mlp_train"));
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseDir("mlp_train") + "/trace"));
  REQUIRE(codes.size() == 2);
  const ExpectedOutputCode &forward = codes[0];
  REQUIRE(forward.graphKind() == "forward");
  auto gelu = std::find_if(forward.launches.begin(), forward.launches.end(),
                           [](const LaunchSite &l) { return l.key() == "triton_poi_fused_gelu_1:3"; });
  REQUIRE(gelu != forward.launches.end());
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", forward.uri}}}});
  bool found = false;
  for (const json &l : lenses)
    if (l["range"]["start"]["line"] == gelu->line) {
      found = true;
      CHECK(l["command"]["title"] == "model.py:16  h = F.gelu(self.fc1(h))");
    }
  CHECK(found);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
