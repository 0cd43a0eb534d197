// tests/e2e/ModelCodeTests.cpp: model code wherever it lives (issue 8), through the real binary.
//  - Third-party model libraries in a virtual environment made here with `python3 -m venv` (this machine's
//    Python is not the 3.12 the traces recorded: resolution must not depend on the version directory): with
//    no settings (a `.venv` in the workspace, read and never run), with `pythonPath`, with `libraryPaths`;
//    the fixtures' hf_bert and the project's real traces hf_llama, tv_resnet and gpt2_profiled
//    (build/traces).
//  - Sources edited after the trace: lines inserted above and inside functions, a recorded line deleted,
//    unsaved edits in an open document, a library file of another version.
//  - Generated code opened from elsewhere: a copy of an output code in a folder that was not indexed, and an
//    edited copy.
//  - The interpreter missing, failing or hanging.
// Expected answers come from the traces' own stack traces (the innermost model frame of each, by
// TraceOracle's independent rule) and from the text of the files: a location is right when the line it names
// holds the text the trace recorded for that frame.
#include "e2e/E2E.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/stat.h>
#include <thread>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

/// A frame of a recorded traceback, with its code.
struct ModelFrame {
  std::string path;
  uint32_t line = 0;
  std::string function, code;
  friend auto operator<=>(const ModelFrame &, const ModelFrame &) = default;
};

/// (log, output code envelope line) -> `kernel:handle` -> the innermost model frame of each recorded
/// traceback.
using ModelOrigins = std::map<std::pair<std::string, uint32_t>, std::map<std::string, std::set<ModelFrame>>>;

void addModelOrigins(const std::string &log, ModelOrigins &out) {
  static const std::regex header(R"re(^\s*File "([^"]+)", line (\d+), in (.*)$)re");
  std::map<std::string, std::vector<uint32_t>> waiting; // Compile -> output codes without stack traces yet.
  for (const TraceRecord &r : readTraceLog(log)) {
    if (r.malformed) continue;
    const json &e = r.envelope;
    std::string compile = e.value("frame_id", -1) == -1 ? ""
                                                        : std::to_string(e.value("frame_id", 0)) + "/" +
                                                              std::to_string(e.value("frame_compile_id", 0)) +
                                                              "/" + std::to_string(e.value("attempt", 0));
    compile += "/" + std::to_string(e.value("rank", -1));
    bool output =
        e.contains("inductor_output_code") ||
        (e.contains("graph_dump") && e["graph_dump"].value("name", "") == "inductor_aot_wrapper_code");
    if (output) {
      waiting[compile].push_back(r.line);
      continue;
    }
    if (!e.contains("artifact") ||
        e["artifact"].value("name", "") != "inductor_provenance_tracking_kernel_stack_traces" ||
        waiting[compile].empty())
      continue;
    uint32_t code = waiting[compile].front();
    waiting[compile].erase(waiting[compile].begin());
    json traces = json::parse(r.payload, nullptr, false);
    if (!traces.is_object()) continue;
    for (auto it = traces.begin(); it != traces.end(); ++it) {
      if (!it.value().is_array()) continue;
      for (const json &tb : it.value()) {
        if (!tb.is_string()) continue;
        std::vector<std::string> lines = splitLines(tb.get<std::string>());
        std::optional<ModelFrame> innermost;
        for (size_t i = 0; i < lines.size(); ++i) {
          std::smatch m;
          if (!std::regex_match(lines[i], m, header) || isLibraryFrame(m[1].str())) continue;
          ModelFrame f{m[1].str(), static_cast<uint32_t>(std::stoul(m[2].str())), trimmed(m[3].str()), ""};
          if (i + 1 < lines.size() && !std::regex_match(lines[i + 1], header)) f.code = trimmed(lines[i + 1]);
          innermost = f;
        }
        if (innermost) out[{log, code}][it.key()].insert(*innermost);
      }
    }
  }
}

ModelOrigins modelOrigins(const std::vector<std::string> &logs) {
  ModelOrigins out;
  for (const std::string &log : logs)
    addModelOrigins(log, out);
  return out;
}

ModelOrigins modelOrigins(const std::string &log) {
  return modelOrigins(std::vector<std::string>{log});
}

/// `python3 -m venv --without-pip DIR`; returns its site-packages, whatever this machine's Python version.
std::string makeVenv(const std::string &dir) {
  std::string cmd = "python3 -m venv --without-pip '" + dir + "' >/dev/null 2>&1";
  REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
  for (const auto &e : fs::directory_iterator(dir + "/lib"))
    if (e.path().filename().string().rfind("python3", 0) == 0) return e.path().string() + "/site-packages";
  FAIL("no lib/python3.* in " << dir);
  return "";
}

/// Copies a case's `site-packages/` copies (not ORIGIN.txt) into `site`.
void installCopies(const std::string &caseSitePackages, const std::string &site) {
  for (const auto &e : fs::directory_iterator(caseSitePackages))
    if (e.is_directory())
      fs::copy(e.path(), site + "/" + e.path().filename().string(), fs::copy_options::recursive);
}

/// The local file for a recorded path: `<site>/<rest>` for installed packages, else under `workspace`.
std::string expectedLocal(const std::string &recorded, const std::string &site,
                          const std::string &project = "") {
  for (const char *dir : {"/site-packages/", "/dist-packages/"})
    if (size_t p = recorded.rfind(dir); p != std::string::npos)
      return site + "/" + recorded.substr(p + strlen(dir));
  // The user's own script, copied into the workspace (PackageWorkspace): `/tmp/work/<case>/REST`.
  if (!project.empty() && recorded.starts_with("/tmp/work/"))
    if (size_t slash = recorded.find('/', 10); slash != std::string::npos)
      if (std::string copy = project + recorded.substr(slash); fs::exists(copy)) return copy;
  return localPath(recorded);
}

/// Line `line` (0-based) of a file, trimmed; empty when out of range.
std::string lineOf(const std::string &path, uint32_t line) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, splitLines(readFile(path))).first;
  return line < it->second.size() ? trimmed(it->second[line]) : "";
}

/// The statement of a line as the server compares it: without a trailing comment.
std::string statement(const std::string &line) {
  std::string s = line;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quote) {
      if (s[i] == '\\')
        ++i;
      else if (s[i] == quote)
        quote = 0;
    } else if (s[i] == '"' || s[i] == '\'') {
      quote = s[i];
    } else if (s[i] == '#') {
      return trimmed(s.substr(0, i));
    }
  }
  return trimmed(s);
}

struct PackageCount {
  size_t launches = 0;   ///< Launch sites.
  size_t withFrames = 0; ///< Launch sites whose trace records a model frame.
  size_t reached = 0;    ///< ... whose definition gives lines holding the recorded text, all of them.
  size_t missed = 0;     ///< ... whose definition is empty (counted apart: neither reached nor wrong).
  size_t wrong = 0;      ///< Locations on a line that does not hold the recorded text of any origin.
  size_t inPackage = 0;  ///< Reached launches with a location under `site`.
  size_t recorded = 0;   ///< Not strict: launches answered with recorded frames only, each at its line.
};

/// The recorded path a location names when it points at a file that is not here: its file:// URI, or the
/// `inductor-trace:/recorded-source/...` document of the text the trace recorded of it (issue 32 point 6);
/// empty for any other URI.
std::string recordedPathOf(const std::string &uri) {
  for (const char *scheme : {"file://", "inductor-trace:/recorded-source"})
    if (uri.rfind(scheme, 0) == 0) return uri.substr(strlen(scheme));
  return "";
}

/// Definition at every launch of every output code: each location must be a line holding the text recorded
/// for one of the launch's model frames (a right answer), in the file expected for that frame. Not strict
/// (the package is not found here): each location must be one of the launch's recorded frames, as recorded
/// (path and line), and `recorded` counts the launches so answered.
PackageCount checkDefinitions(LSPClient &client, const std::vector<ExpectedOutputCode> &codes,
                              const ModelOrigins &origins, const std::string &site, bool strict = true,
                              const std::string &project = "") {
  PackageCount count;
  for (const ExpectedOutputCode &code : codes) {
    INFO(code.label());
    // Output code found outside the workspace (the fixture's cache, not indexed here) is opened: a copy of
    // indexed generated code navigates like it.
    if (!code.path.empty()) client.didOpen(code.path);
    auto perKey = origins.find({code.record.traceFile, code.record.line});
    for (const LaunchSite &launch : code.launches) {
      INFO("launch " << launch.key());
      ++count.launches;
      std::set<ModelFrame> frames;
      if (perKey != origins.end())
        if (auto it = perKey->second.find(launch.key()); it != perKey->second.end()) frames = it->second;
      json result = client.request("textDocument/definition",
                                   textDocumentPosition(code.uri, launch.line, launch.column));
      REQUIRE(result.is_array());
      if (frames.empty()) {
        CHECK_MESSAGE(result.empty(), "no model frame recorded, yet " << result.dump());
        continue;
      }
      ++count.withFrames;
      if (result.empty()) ++count.missed;
      bool allRight = !result.empty(), anyPackage = false, allRecorded = !result.empty();
      for (const Loc &l : toLocs(result)) {
        bool right = false, asRecorded = false;
        for (const ModelFrame &f : frames) {
          if (recordedPathOf(l.uri) == f.path && l.line + 1 == f.line) asRecorded = true;
          std::string local = expectedLocal(f.path, site, project);
          if (l.uri != fileURI(local)) continue;
          std::string text = lineOf(local, l.line);
          if (!f.code.empty() && statement(text) == statement(f.code)) right = true;
          if (local.rfind(site, 0) == 0) anyPackage = true;
        }
        if (!asRecorded) allRecorded = false;
        if (!strict && !asRecorded && !right)
          FAIL_CHECK("neither a recorded frame nor a right line: " << show(l) << " for " << launch.key());
        if (!right) {
          ++count.wrong;
          allRight = false;
          if (strict) FAIL_CHECK("wrong location " << show(l) << " for " << launch.key());
        }
      }
      if (allRecorded) ++count.recorded;
      if (allRight) ++count.reached;
      if (allRight && anyPackage) ++count.inPackage;
    }
  }
  return count;
}

/// Output code as the same code on any GPU: the device index in its forms (`cuda:1`, `index=1`,
/// `get_raw_stream(1)`, `_DeviceGuard(1)`, `set_device(1)`, `stream1`), `# graph id:` addresses and cache
/// paths (`/xx/c<hash>`) blanked. Independent of the server's comparison (index/builder/IndexBuilder.cpp).
std::string deviceBlind(const std::string &text) {
  static const std::regex device(
      R"re((cuda:|index=|get_raw_stream\(|_DeviceGuard\(|set_device\(|\bstream|# graph id: )\d+|/[a-z0-9]{2}/c[a-z0-9]{20,})re");
  return std::regex_replace(text, device, "$1#");
}

/// References on every model line with kernels: each location one of that line's launches, none twice, and
/// one per launch site of each compile's distinct code: ranks whose output code is the same up to the GPU
/// they ran on are listed once; a recompile is listed on its own. Returns the lines asked.
size_t checkModelLineReferences(LSPClient &client, const std::vector<ExpectedOutputCode> &codes,
                                const ModelOrigins &origins, const std::string &site) {
  std::map<const ExpectedOutputCode *, std::string> blind, uri;
  for (const ExpectedOutputCode &code : codes) {
    blind.emplace(&code, deviceBlind(code.text));
    // Found outside the workspace (the fixture's cache): the server answers with its log copy.
    uri[&code] =
        code.uri.rfind("file:", 0) == 0
            ? findVirtualOutputCode(client, code.record.payload, code.record.traceFile, code.record.line)
            : code.uri;
  }
  // Local (file, 0-based line) -> its launches' locations, and their sites up to the device: compile id,
  // device-blind text, line, column.
  using Site = std::tuple<std::string, std::string, uint32_t, uint32_t>;
  std::map<std::pair<std::string, uint32_t>, std::map<Loc, Site>> lines;
  for (const ExpectedOutputCode &code : codes) {
    auto perKey = origins.find({code.record.traceFile, code.record.line});
    if (perKey == origins.end()) continue;
    for (const LaunchSite &launch : code.launches) {
      auto it = perKey->second.find(launch.key());
      if (it == perKey->second.end()) continue;
      for (const ModelFrame &f : it->second) {
        std::string local = expectedLocal(f.path, site);
        if (!fs::exists(local) || f.line == 0 || statement(lineOf(local, f.line - 1)) != statement(f.code))
          continue;
        lines[{local, f.line - 1}][launchLoc(uri[&code], code.text, launch)] = {
            code.record.compileId, blind[&code], launch.line, launch.column};
      }
    }
  }
  for (const auto &[where, launches] : lines) {
    const std::string &file = where.first; // Not a structured binding: INFO captures it in a lambda.
    const uint32_t line = where.second;
    INFO(file << ":" << line + 1);
    std::string text = readFile(file);
    uint32_t indent = static_cast<uint32_t>(splitLines(text)[line].find_first_not_of(' '));
    json result =
        client.request("textDocument/references", {{"textDocument", {{"uri", fileURI(file)}}},
                                                   {"position", {{"line", line}, {"character", indent}}},
                                                   {"context", {{"includeDeclaration", false}}}});
    REQUIRE(result.is_array());
    std::vector<Loc> got = toLocs(result);
    std::set<Site> sites, gotSites;
    for (const auto &[loc, siteKey] : launches)
      sites.insert(siteKey);
    for (const Loc &l : got) {
      auto it = launches.find(l);
      CHECK_MESSAGE(it != launches.end(), "not a launch of this line: " << show(l));
      if (it != launches.end())
        CHECK_MESSAGE(gotSites.insert(it->second).second, "listed twice: " << show(l));
    }
    CHECK(gotSites == sites);
  }
  return lines.size();
}

/// A workspace holding a copy of a case's trace (every rank's log) and a `.venv` with the case's package
/// copies.
struct PackageWorkspace {
  TempDir dir{"model-code"};
  std::vector<std::string> logs; ///< The copies, rank 0 first.
  std::string log, site;         ///< `log`: the first.
  PackageWorkspace(const std::string &caseDirectory, bool venvInWorkspace, const std::string &venvDir = "") {
    fs::create_directories(dir.path() + "/trace");
    for (const std::string &recorded : filesIn(caseDirectory + "/trace")) {
      logs.push_back(dir.path() + "/trace/" + fs::path(recorded).filename().string());
      fs::copy_file(recorded, logs.back());
    }
    REQUIRE(!logs.empty());
    log = logs.front();
    site = makeVenv(venvInWorkspace ? dir.path() + "/.venv" : venvDir);
    installCopies(caseDirectory + "/site-packages", site);
    // The user's project beside them: the case's own scripts (model.py), where frames outside the package
    // are.
    for (const fs::directory_entry &e : fs::directory_iterator(caseDirectory))
      if (e.is_regular_file() && e.path().extension() == ".py")
        fs::copy_file(e.path(), dir.path() + "/" + e.path().filename().string());
  }
};

std::string statusPython(LSPClient &client) {
  json status = client.request("inductor/status", json::object());
  return status.contains("python") ? status["python"].dump() : "{}";
}

PackageCount checkPackageCase(const std::string &name, const std::string &caseDirectory) {
  PackageWorkspace ws(caseDirectory, true);
  Session s(ws.dir.path()); // No settings at all.
  INFO(s.client.logTail());
  s.client.waitForIndexed();
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(ws.logs, &s.client);
  REQUIRE(!codes.empty());
  json status = s.client.request("inductor/status", json::object());
  INFO(status.dump());
  REQUIRE(status.contains("python"));
  // The workspace's `.venv` is read, never run (issue 33): the interpreter asked, if any, is python3 on PATH.
  CHECK(status["python"]["interpreter"].get<std::string>().rfind(ws.dir.path(), 0) != 0);
  REQUIRE(status["python"]["environments"].size() >= 1);
  CHECK(status["python"]["environments"][0]["prefix"] == ws.dir.path() + "/.venv");
  CHECK(status["python"]["error"] == "");
  std::vector<std::string> roots = status["python"]["importRoots"];
  CHECK(std::find(roots.begin(), roots.end(), ws.site) != roots.end());
  ModelOrigins origins = modelOrigins(ws.logs);
  PackageCount c = checkDefinitions(s.client, codes, origins, ws.site, true, ws.dir.path());
  // Counted in the table at the end (recordLaunches), not in a MESSAGE: one here carries the server's log.
  INFO(name << ": " << c.reached << " / " << c.withFrames << " launch sites with a model frame reach it ("
            << c.inPackage << " in the package), " << c.launches << " launch sites, " << c.wrong << " wrong, "
            << c.missed << " empty");
  CHECK(c.wrong == 0);
  CHECK(c.withFrames > 0);
  CHECK(c.missed == 0); // An empty answer is a miss: every launch with a model frame reaches it.
  CHECK(c.reached == c.withFrames);

  // Lenses on the package's files: every model line with kernels, on the line that holds its text.
  std::set<std::string> files;
  for (const auto &[line, perKey] : origins)
    for (const auto &[key, frames] : perKey)
      for (const ModelFrame &f : frames)
        files.insert(expectedLocal(f.path, ws.site, ws.dir.path()));
  size_t lensLines = 0;
  for (const std::string &f : files) {
    if (!fs::exists(f)) continue;
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", fileURI(f)}}}});
    REQUIRE(lenses.is_array());
    lensLines += lenses.size();
    for (const json &l : lenses)
      CHECK_MESSAGE(!lineOf(f, l["range"]["start"]["line"].get<uint32_t>()).empty(), l.dump());
  }
  CHECK(lensLines > 0);
  CHECK(checkModelLineReferences(s.client, codes, origins, ws.site) > 0);

  // Lenses in output code: each opens what definition at its range finds. They are made once per list of
  // origins per request (launches in every layer share one), and a kernel's is its launches' origins.
  size_t codeLenses = 0;
  for (const ExpectedOutputCode &code : codes) {
    INFO(code.label());
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", code.uri}}}});
    REQUIRE(lenses.is_array());
    for (const json &l : lenses) {
      if (l["command"]["command"] != "inductor.showLocations") continue;
      const json &start = l["range"]["start"];
      json defs = s.client.request(
          "textDocument/definition",
          textDocumentPosition(code.uri, start["line"].get<uint32_t>(), start["character"].get<uint32_t>()));
      REQUIRE(defs.is_array());
      std::set<std::string> want, got;
      for (const json &d : defs)
        want.insert(d.dump());
      for (const json &d : l["command"]["arguments"][2])
        got.insert(d.dump());
      CHECK_MESSAGE(got == want, l.dump());
      ++codeLenses;
    }
  }
  CHECK(codeLenses > 0);
  recordLaunches(name + " (venv, no settings)", c.withFrames, c.reached);
  recordUserLinesWithLenses(name + " (venv, no settings)", lensLines);
  s.client.shutdown();
  return c;
}

} // namespace

TEST_CASE("model code in a package: hf_bert in a .venv made here, no settings") {
  PackageCount c = checkPackageCase("hf_bert", caseDir("hf_bert"));
  CHECK(c.inPackage == c.reached);
}

TEST_CASE(
    "model code in a package: every case folder with the package's copies (site-packages/), any ranks") {
  size_t swept = 0;
  for (const std::string &folder : caseFolders()) {
    std::string name = fs::path(folder).filename().string();
    // hf_bert has its own case above.
    if (!fs::is_directory(folder + "/site-packages") || name == "hf_bert") continue;
    CAPTURE(name);
    checkPackageCase(name, folder);
    ++swept;
  }
  CHECK(swept >= 5);
  MESSAGE(swept << " case folders with model code in a package");
}

TEST_CASE("model code in a package: pythonPath names an environment outside the workspace") {
  TempDir env("venv");
  PackageWorkspace ws(caseDir("hf_bert"), false, env.path() + "/venv");
  std::vector<std::string> logs{ws.log};
  // Without the setting, nothing finds the package here: the recorded paths stay as recorded.
  {
    Session s(ws.dir.path(), json{{"pythonPath", "/nonexistent-inductor/python"}});
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs, &s.client);
    // Not strict: the recorded locations (files that do not exist here) are the expected answers.
    PackageCount c = checkDefinitions(s.client, codes, modelOrigins(ws.log), ws.site, false);
    CHECK(c.reached == 0);
    CHECK(c.withFrames > 0);
    CHECK(c.missed == 0); // An empty answer is a miss, not a pass.
    CHECK(c.recorded == c.withFrames);
    s.client.shutdown();
  }
  Session s(ws.dir.path(), json{{"pythonPath", env.path() + "/venv/bin/python"}});
  INFO(s.client.logTail());
  INFO(statusPython(s.client));
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs, &s.client);
  PackageCount c = checkDefinitions(s.client, codes, modelOrigins(ws.log), ws.site);
  CHECK(c.wrong == 0);
  CHECK(c.missed == 0); // An empty answer is a miss: every launch with a model frame reaches it.
  CHECK(c.reached == c.withFrames);
  CHECK(c.inPackage == c.reached);
  // Changing the setting asks the new interpreter (here: none that works), and answers follow.
  s.client.notify("workspace/didChangeConfiguration",
                  {{"settings", {{"inductorLs", {{"pythonPath", "/nonexistent-inductor/python"}}}}}});
  json message = s.client.waitForNotification("window/showMessage");
  REQUIRE(message.is_object());
  CHECK(message["message"].get<std::string>().find("/nonexistent-inductor/python") != std::string::npos);
  s.client.shutdown();
}

/// Waits until the server log holds `n` lines with `text` (30 s at most); whether it did.
bool waitForLogLines(const LSPClient &client, const std::string &text, size_t n) {
  for (int i = 0; i < 300; ++i) {
    std::string log = client.logTail(100000);
    size_t count = 0;
    for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
      ++count;
    if (count >= n) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

/// Nanoseconds of a path's mtime, as the server's cache stamps it.
int64_t mtimeNs(const std::string &path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

TEST_CASE(
    "model code in a package: the interpreter's answer kept between sessions, asked again once served") {
  TempDir env("venv"), cache("server-cache");
  PackageWorkspace ws(caseDir("hf_bert"), false, env.path() + "/venv");
  std::string python = env.path() + "/venv/bin/python", file = cache.path() + "/python-import-roots.json";
  std::vector<std::string> logs{ws.log};
  json settings{{"pythonPath", python}};
  ServerConfig config;
  config.cacheDir = cache.path();
  auto checkAnswers = [&](LSPClient &client) {
    std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs, &client);
    PackageCount c = checkDefinitions(client, codes, modelOrigins(ws.log), ws.site);
    CHECK(c.wrong == 0);
    CHECK(c.withFrames > 0);
    CHECK(c.missed == 0); // An empty answer is a miss: every launch with a model frame reaches it.
    CHECK(c.reached == c.withFrames);
    CHECK(c.inPackage == c.reached);
  };
  {
    Session s(ws.dir.path(), settings, LSPClient::defaultCapabilities(), config);
    INFO(s.client.logTail());
    s.client.waitForIndexed();
    json status = s.client.request("inductor/status", json::object());
    CHECK(status["python"]["kept"] == false);
    checkAnswers(s.client);
    s.client.shutdown();
  }
  REQUIRE(fs::exists(file));
  {
    // Nothing changed: the kept answer is used at once, and the interpreter, asked again, agrees.
    Session s(ws.dir.path(), settings, LSPClient::defaultCapabilities(), config);
    INFO(s.client.logTail());
    checkAnswers(s.client);
    CHECK(waitForLogLines(s.client, "import roots kept from an earlier session", 1));
    CHECK(waitForLogLines(s.client, python + " (pythonPath setting): ", 2)); // Kept, then asked.
    CHECK(s.client.logTail(100000).find("indexing again") == std::string::npos);
    s.client.shutdown();
  }
  // A kept answer the stamps cannot tell from the truth (as after `pyenv global` behind a shim): it names
  // an empty directory instead of the venv's site-packages. Answers follow the interpreter once it is asked.
  TempDir empty("empty-root");
  json kept = json::parse(std::ifstream(file));
  REQUIRE(kept["entries"].size() == 1);
  kept["entries"][0]["roots"] = {empty.path()};
  kept["entries"][0]["rootStamps"] = {mtimeNs(empty.path())};
  std::ofstream(file) << kept.dump();
  Session s(ws.dir.path(), settings, LSPClient::defaultCapabilities(), config);
  INFO(s.client.logTail());
  s.client.waitForIndexed();
  REQUIRE(waitForLogLines(s.client, "indexing again", 1));
  REQUIRE(waitForLogLines(s.client, "] indexed ", 2));
  json status = s.client.request("inductor/status", json::object());
  CHECK(status["python"]["kept"] == false);
  std::vector<std::string> roots = status["python"]["importRoots"];
  CHECK(std::find(roots.begin(), roots.end(), ws.site) != roots.end());
  checkAnswers(s.client);
  // The interpreter's answer replaced the wrong one.
  json now = json::parse(std::ifstream(file));
  CHECK(now["entries"][0]["roots"] == json(roots));
  s.client.shutdown();
}

TEST_CASE("model code in a package: libraryPaths skips a package, hover still shows the whole stack") {
  PackageWorkspace ws(caseDir("hf_bert"), true);
  Session s(ws.dir.path(), json{{"libraryPaths", {"**/transformers/integrations/**"}}});
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({ws.log}, &s.client);
  size_t skipped = 0;
  for (const ExpectedOutputCode &code : codes) {
    if (!code.path.empty()) s.client.didOpen(code.path); // Outside the roots: read as the open document.
    for (const LaunchSite &launch : code.launches) {
      json defs = s.client.request("textDocument/definition",
                                   textDocumentPosition(code.uri, launch.line, launch.column));
      for (const Loc &l : toLocs(defs))
        CHECK_MESSAGE(l.uri.find("/integrations/") == std::string::npos, show(l));
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(code.uri, launch.line, launch.column));
      std::string md = hover.is_object() ? hover["contents"]["value"].get<std::string>() : "";
      if (md.find("sdpa_attention.py") == std::string::npos) continue;
      // The skipped frame is in the stack, marked, and the origin is its caller in modeling_bert.py.
      ++skipped;
      CHECK(md.find("(library)") != std::string::npos);
      CHECK(md.find("**From**\n- [modeling_bert.py:") != std::string::npos);
    }
  }
  CHECK(skipped > 0);
  s.client.shutdown();
}

TEST_CASE("model code in a package: a library file of another version") {
  PackageWorkspace ws(caseDir("hf_bert"), true);
  // Another version: lines added at the top and inside BertSelfAttention.forward.
  std::string path = ws.site + "/transformers/models/bert/modeling_bert.py";
  std::string text = readFile(path);
  text = "# a newer release\n# with a longer header\n\n" + text;
  size_t cls = text.find("class BertSelfAttention");
  REQUIRE(cls != std::string::npos);
  size_t at = text.find("hidden_shape = (*input_shape, -1, self.attention_head_size)", cls);
  REQUIRE(at != std::string::npos);
  text.insert(text.find('\n', at) + 1, "        # new in this version\n        _unused = None\n");
  std::ofstream(path, std::ios::binary) << text;
  Session s(ws.dir.path());
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({ws.log}, &s.client);
  PackageCount c = checkDefinitions(s.client, codes, modelOrigins(ws.log), ws.site);
  CHECK(c.wrong == 0);
  CHECK(c.missed == 0); // An empty answer is a miss: every launch with a model frame reaches it.
  CHECK(c.reached == c.withFrames);
  s.client.shutdown();
}

namespace {

/// mlp_train with its model.py replaced by `model` in a workspace, the trace mapped there.
struct EditedModel {
  TempDir dir{"edited"};
  std::string model;
  explicit EditedModel(const std::string &text) { model = dir.write("model.py", text); }
  json options() const {
    return json{{"traceDirs", {caseDir("mlp_train") + "/trace"}},
                {"pathMappings", {{{"from", "/tmp/work/mlp_train"}, {"to", dir.path()}}}}};
  }
};

/// Definition at every launch of mlp_train: each location holds the recorded text; returns the launches
/// whose recorded lines are all gone (no location at all).
size_t checkEditedDefinitions(LSPClient &client, const std::string &model) {
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &client);
  ModelOrigins origins = modelOrigins(log);
  size_t gone = 0;
  std::string text = readFile(model);
  for (const ExpectedOutputCode &code : codes) {
    // The fixture's own copy lies outside the roots: the server reads it only as the editor's open document.
    if (!code.path.empty()) client.didOpen(code.path);
    for (const LaunchSite &launch : code.launches) {
      INFO(launch.key() << " " << code.uri << ":" << launch.line);
      const std::set<ModelFrame> &frames = origins.at({log, code.record.line}).at(launch.key());
      json defs = client.request("textDocument/definition",
                                 textDocumentPosition(code.uri, launch.line, launch.column));
      std::set<std::string> recorded, found;
      for (const ModelFrame &f : frames)
        recorded.insert(f.code);
      for (const Loc &l : toLocs(defs)) {
        CHECK(l.uri == fileURI(model));
        std::string line = trimmed(splitLines(text).at(l.line));
        CHECK_MESSAGE(recorded.count(line) == 1, "line " << l.line + 1 << " holds `" << line << "`");
        found.insert(line);
      }
      // Every recorded line that is still in the file is found.
      for (const std::string &r : recorded)
        if (text.find(r) != std::string::npos)
          CHECK_MESSAGE(found.count(r) == 1, "recorded `" << r << "` not found in " << defs.dump());
      if (defs.empty()) ++gone;
    }
  }
  return gone;
}

std::string mlpModel() {
  return readFile(caseDir("mlp_train") + "/model.py");
}

std::string insertAfterLine(const std::string &text, const std::string &anchor, const std::string &what) {
  size_t pos = text.find(anchor);
  REQUIRE(pos != std::string::npos);
  pos = text.find('\n', pos) + 1;
  return text.substr(0, pos) + what + text.substr(pos);
}

} // namespace

TEST_CASE("edited sources: lines inserted above and inside functions, the answers follow the text") {
  std::string text = "# Edited after the trace.\n# Two lines above everything.\n" + mlpModel();
  text = insertAfterLine(text, "h = self.norm(x)", "        h = h * 1.0  # inside Block.forward\n");
  EditedModel ws(text);
  Session s(ws.dir.path(), ws.options());
  INFO(s.client.logTail());
  CHECK(checkEditedDefinitions(s.client, ws.model) == 0);
  // The user file's lenses sit on the lines that hold the recorded text now: 16 was line 14 in the trace.
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", fileURI(ws.model)}}}});
  std::set<uint32_t> lensLines;
  for (const json &l : lenses) // Kernel lenses (a compiled function's lens sits on its def line).
    if (l["command"]["title"].get<std::string>().find("kernel") != std::string::npos)
      lensLines.insert(l["range"]["start"]["line"].get<uint32_t>() + 1);
  std::vector<std::string> lines = splitLines(text);
  CHECK(lensLines.size() == 6);
  for (uint32_t l : lensLines) {
    std::string t = trimmed(lines.at(l - 1));
    CHECK_MESSAGE(t != "h = h * 1.0  # inside Block.forward", l);
    CHECK_MESSAGE(t.rfind('#', 0) != 0, l);
  }
  CHECK(lensLines.count(19) == 1); // `h = F.gelu(self.fc1(h))`: 16 in the trace, +2 above, +1 inside.
  // Hover on the user line, and references, where it is now.
  json hover = s.client.request("textDocument/hover", textDocumentPosition(fileURI(ws.model), 18, 8));
  REQUIRE(hover.is_object());
  CHECK(hover["contents"]["value"].get<std::string>().find("from line 19") != std::string::npos);
  json refs = s.client.request("textDocument/references", {{"textDocument", {{"uri", fileURI(ws.model)}}},
                                                           {"position", position(18, 8)},
                                                           {"context", {{"includeDeclaration", false}}}});
  CHECK(refs.size() == 10);
  CHECK(s.client.request("textDocument/hover", textDocumentPosition(fileURI(ws.model), 15, 8)).is_null());
  s.client.shutdown();
}

TEST_CASE("edited sources: a recorded line deleted is reported, never another line") {
  std::string text = mlpModel();
  size_t pos = text.find("        h = self.fc2(h)\n");
  REQUIRE(pos != std::string::npos);
  text.erase(pos, std::string("        h = self.fc2(h)\n").size());
  EditedModel ws(text);
  Session s(ws.dir.path(), ws.options());
  INFO(s.client.logTail());
  // Launches whose only origin was line 17 get no location; every other one still finds its lines.
  CHECK(checkEditedDefinitions(s.client, ws.model) > 0);
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  size_t reported = 0;
  for (const ExpectedOutputCode &code : codes) {
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", code.uri}}}});
    for (const json &l : lenses)
      CHECK(l["command"]["title"].get<std::string>().find("h = self.fc2(h)") == std::string::npos);
    for (const LaunchSite &launch : code.launches) {
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(code.uri, launch.line, launch.column));
      std::string md = hover["contents"]["value"].get<std::string>();
      if (md.find("model.py changed since the trace: line 17 `h = self.fc2(h)` not found") !=
          std::string::npos)
        ++reported;
    }
  }
  CHECK(reported > 0);
  s.client.shutdown();
}

TEST_CASE("edited sources: unsaved edits in an open document, lenses follow didChange") {
  EditedModel ws(mlpModel());
  Session s(ws.dir.path(), ws.options());
  INFO(s.client.logTail());
  std::string uri = s.client.didOpen(ws.model);
  auto lensLines = [&] {
    std::set<uint32_t> out;
    for (const json &l : s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}))
      out.insert(l["range"]["start"]["line"].get<uint32_t>() + 1);
    return out;
  };
  std::set<uint32_t> before = lensLines();
  CHECK(before.count(16) == 1);
  // Three lines inserted at the top, not saved.
  s.client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", uri}, {"version", 2}}},
                   {"contentChanges",
                    {{{"range", {{"start", position(0, 0)}, {"end", position(0, 0)}}},
                      {"text", "# one\n# two\n# three\n"}}}}});
  std::set<uint32_t> after = lensLines();
  std::set<uint32_t> shifted;
  for (uint32_t l : before)
    shifted.insert(l + 3);
  CHECK(after == shifted);
  // Definition from the output code lands in the open document's text.
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  const LaunchSite &first = codes.at(0).launches.at(0);
  if (!codes[0].path.empty()) s.client.didOpen(codes[0].path);
  json defs = s.client.request("textDocument/definition",
                               textDocumentPosition(codes[0].uri, first.line, first.column));
  REQUIRE(defs.size() == 1);
  CHECK(toLocs(defs)[0].line == 14 + 3); // `h = self.norm(x)`, line 15 in the trace.
  s.client.shutdown();
}

TEST_CASE("generated code opened from elsewhere: a copy of an output code, and an edited copy") {
  TempDir ws("copies");
  Session s(ws.path(),
            json{{"traceDirs", {caseDir("mlp_train") + "/trace"}},
                 {"pathMappings", {{{"from", "/tmp/work/mlp_train"}, {"to", caseDir("mlp_train")}}}}});
  INFO(s.client.logTail());
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  REQUIRE(codes.size() == 2);
  for (const ExpectedOutputCode &code : codes) {
    INFO(code.label());
    // An exact copy in a folder that was not indexed.
    std::string copy = ws.write("elsewhere/" + code.graphKind() + "/output_code.py", code.text);
    std::string uri = s.client.didOpen(copy);
    // An edited copy: five lines above, a comment inside `call`.
    std::string edited = "# copied\n# and\n# edited\n\n\n" + code.text;
    std::string editedURI = fileURI(ws.path() + "/edited_" + code.graphKind() + ".py");
    s.client.didOpen(editedURI, "python", edited);
    for (const LaunchSite &launch : code.launches) {
      INFO(launch.key());
      std::set<Loc> want = originLocs(code.originsOf(launch));
      CHECK(toLocSet(s.client.request("textDocument/definition",
                                      textDocumentPosition(uri, launch.line, launch.column))) == want);
      CHECK(toLocSet(s.client.request("textDocument/definition",
                                      textDocumentPosition(editedURI, launch.line + 5, launch.column))) ==
            want);
      // The old position now holds other text: another answer, unless that text names the same kernel (a
      // kernel named in a comment answers like its launch).
      std::vector<std::string> editedLines = splitLines(edited);
      if (launch.line < editedLines.size() && editedLines[launch.line].find(launch.kernel.substr(
                                                  launch.kernel.rfind('.') + 1)) == std::string::npos)
        CHECK(toLocSet(s.client.request("textDocument/definition",
                                        textDocumentPosition(editedURI, launch.line, launch.column))) !=
              want);
    }
    // Lenses of the edited copy sit on its own lines: on kernel names, as many as on the original.
    std::set<std::string> names;
    for (const LaunchSite &launch : code.launches) {
      names.insert(launch.kernel);
      names.insert(launch.kernel.substr(launch.kernel.rfind('.') + 1));
    }
    for (const KernelDef &d : findKernelDefs(code.text))
      names.insert(d.name);
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", editedURI}}}});
    CHECK(lenses.size() ==
          s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}).size());
    std::vector<std::string> lines = splitLines(edited);
    for (const json &l : lenses) {
      uint32_t line = l["range"]["start"]["line"];
      uint32_t c0 = l["range"]["start"]["character"], c1 = l["range"]["end"]["character"];
      CHECK_MESSAGE(names.count(lines.at(line).substr(c0, c1 - c0)) == 1, l.dump());
    }
  }
  // An unrelated Python file is still a user file.
  std::string other = ws.write("other.py", "print('hello')\n");
  s.client.didOpen(other);
  CHECK(s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", fileURI(other)}}}}).empty());
  s.client.shutdown();
}

namespace {

/// mlp_train's first launch goes to its origin (a session with mlp_train's trace and its path mapped).
void checkMlpTrainDefinition(Session &s) {
  std::string log = filesIn(caseDir("mlp_train") + "/trace").at(0);
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  const LaunchSite &first = codes.at(0).launches.at(0);
  if (!codes[0].path.empty()) s.client.didOpen(codes[0].path);
  CHECK(toLocSet(s.client.request("textDocument/definition",
                                  textDocumentPosition(codes[0].uri, first.line, first.column))) ==
        originLocs(codes[0].originsOf(first)));
}

} // namespace

TEST_CASE("the interpreter missing, failing or hanging: reported, never fatal") {
  TempDir ws("python");
  std::string failing =
      ws.write("bin/failing-python", "#!/bin/sh\necho 'boom: no module named encodings' >&2\nexit 3\n");
  std::string hanging = ws.write("bin/hanging-python", "#!/bin/sh\nexec sleep 60\n");
  fs::permissions(failing, fs::perms::owner_all);
  fs::permissions(hanging, fs::perms::owner_all);
  struct Case {
    std::string pythonPath, error;
  };
  for (const Case &c : {Case{ws.path() + "/bin/missing-python", "no such file"},
                        Case{failing, "exited with status 3: boom: no module named encodings"},
                        Case{hanging, "timed out after 5 s"}}) {
    CAPTURE(c.pythonPath);
    Session s(ws.path(),
              json{{"pythonPath", c.pythonPath},
                   {"traceDirs", {caseDir("mlp_train") + "/trace"}},
                   {"pathMappings", {{{"from", "/tmp/work/mlp_train"}, {"to", caseDir("mlp_train")}}}}});
    INFO(s.client.logTail());
    json message = s.client.waitForNotification("window/showMessage");
    REQUIRE(message.is_object());
    CHECK(message["message"].get<std::string>().find(c.error) != std::string::npos);
    json status = s.client.request("inductor/status", json::object());
    CHECK(status["python"]["interpreter"] == c.pythonPath);
    CHECK(status["python"]["error"].get<std::string>().find(c.error) != std::string::npos);
    checkMlpTrainDefinition(s); // Everything else works.
    s.client.shutdown();
  }
}

TEST_CASE("paths settled without the import roots: answers come before the interpreter does") {
  // The interpreter answers after 60 s (killed at the timeout); the pathMappings settle every recorded path
  // of mlp_train, so nothing in the index waits for it.
  TempDir ws("python-late");
  std::string hanging = ws.write("bin/slow-python", "#!/bin/sh\nexec sleep 60\n");
  fs::permissions(hanging, fs::perms::owner_all);
  Session s(ws.path(),
            json{{"pythonPath", hanging},
                 {"traceDirs", {caseDir("mlp_train") + "/trace"}},
                 {"pathMappings", {{{"from", "/tmp/work/mlp_train"}, {"to", caseDir("mlp_train")}}}}});
  INFO(s.client.logTail());
  checkMlpTrainDefinition(s);
  // Answered before the interpreter's 5 s timeout ended: its message, which comes at the timeout, has not
  // (an order, not a duration: a slow machine runs both later).
  for (const json &m : s.client.notifications("window/showMessage"))
    CHECK_MESSAGE(m["message"].get<std::string>().find("timed out") == std::string::npos, m.dump());
  json status = s.client.request("inductor/status", json::object());
  CHECK(status["ready"] == true);
  CHECK(status["python"]["importRoots"].empty());
  CHECK(waitForLogLines(s.client, "served without the Python environment's import roots", 1));
  // The interpreter's failure is still reported once it comes.
  json message = s.client.waitForNotification("window/showMessage", 15s);
  REQUIRE(message.is_object());
  CHECK(message["message"].get<std::string>().find("timed out") != std::string::npos);
  s.client.shutdown();
}

} // namespace inductor::e2e
