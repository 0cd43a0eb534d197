// bench/Bench.cpp: the inductor-ls benchmark driver (see bench/README.md).
//
//   inductor-bench run   --server BIN --fixtures DIR [--sizes 10M,100M,1G,1G-single] [--work DIR]
//                        [--out FILE] [--requests N] [--starts N] [--no-append] [--commit TEXT]
//   inductor-bench table --sizes ... [--work DIR] [--out FILE]   (the table from stored results only)
//   inductor-bench smoke --server BIN --fixtures DIR             (the CI test: 10M, answers checked)
//
// For each workload (bench/Workload.h) the driver, with the page cache warm:
//  1. times `wc -l` and `cat > /dev/null` over the trace files (median of 3);
//  2. starts the server, waits for the index (inductor/listArtifacts), matches every output-code artifact to
//     its unit and reference (bench/Reference.h), opens a sample of documents as an editor would, and sends
//     --requests requests per method, one in flight at a time, checking every answer;
//  3. starts fresh servers (--starts) and times process start -> first correct `definition` answer;
//  4. appends one compile to a rank file of a running server and times until it is answered (then cuts the
//     file back).
// Results are kept as JSON under <work>/results/ and printed as a Markdown table (also written to --out).
// Timings are reported, never asserted; wrong answers make the exit status 1.
#include "bench/LspProcess.h"
#include "bench/Reference.h"
#include "bench/Workload.h"

#include "index/model/Index.h"
#include "index/runtime/Profile.h"
#include "index/trace/TraceLog.h"
#include "protocol/URI.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <random>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace inductor::bench {

namespace {

using namespace std::chrono_literals;

struct Options {
  std::string server, fixtures, work = "/tmp/inductor-bench", out, commit;
  std::string llama;   ///< bench/llama/llama8l.log.xz, for the "llama" workloads.
  std::string tlparse; ///< A tlparse binary to time on the same files (empty: not timed).
  std::vector<std::string> sizes = {"10M", "100M", "1G", "1G-single"};
  size_t requests = 1000;
  size_t openDocs = 64; ///< Output-code documents (and as many user files) opened, as editor tabs.
  unsigned starts = 2;
  bool append = true;
  bool smoke = false;
  uint64_t seed = 20240607;
};

// ---------------------------------------------------------------------------------------------------------
// Small helpers.

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
double millis(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string replaceAll(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

/// Runs argv with stdout and stderr to /dev/null; returns the wall time, or a negative value on failure.
double timeCommand(const std::vector<std::string> &args) {
  std::vector<std::string> copy = args;
  std::vector<char *> argv;
  for (std::string &a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  auto start = Clock::now();
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  auto end = Clock::now();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? seconds(end - start) : -1;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Figures of the last index build line of a server log: "indexed N trace files (B bytes[, R read]), ... in
/// M ms" (or "reindexed incrementally: ...").
struct IndexLogLine {
  uint64_t bytes = 0; ///< Bytes read by that build (the whole trace for a full build).
  double ms = -1;
  size_t count = 0; ///< How many such lines the log has (one per build).
};
IndexLogLine lastIndexLine(const std::string &logPath) {
  IndexLogLine out;
  std::ifstream in(logPath);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find("indexed ");
    size_t files = at == std::string::npos ? at : line.find(" trace files (", at);
    if (files == std::string::npos) continue;
    ++out.count;
    size_t open = files + 14;
    out.bytes = std::strtoull(line.c_str() + open, nullptr, 10);
    size_t comma = line.find(" bytes, ", open);
    size_t read = line.find(" read)", open);
    if (comma != std::string::npos && read != std::string::npos && comma < read)
      out.bytes = std::strtoull(line.c_str() + comma + 8, nullptr, 10);
    size_t in_ = line.rfind(" in ");
    if (in_ != std::string::npos) out.ms = std::strtod(line.c_str() + in_ + 4, nullptr);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Results.

struct Latency {
  std::string method;
  size_t n = 0, wrong = 0;
  double p50 = 0, p99 = 0, max = 0, mean = 0; ///< Milliseconds.
};

Latency summarize(std::string method, std::vector<double> ms, size_t wrong) {
  Latency l;
  l.method = std::move(method);
  l.n = ms.size();
  l.wrong = wrong;
  if (ms.empty()) return l;
  std::sort(ms.begin(), ms.end());
  l.p50 = ms[ms.size() / 2];
  l.p99 = ms[std::min(ms.size() - 1, static_cast<size_t>(std::ceil(ms.size() * 0.99)) - 1)];
  l.max = ms.back();
  l.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  return l;
}

struct Result {
  std::string name;
  uint64_t bytes = 0;
  size_t files = 0, units = 0, compiles = 0, launches = 0, artifacts = 0;
  double wcSeconds = 0, catSeconds = 0;
  double scanSeconds = -1;  ///< In-process: TraceLog::open of every file (the scan), as Index::build runs it.
  double buildSeconds = -1; ///< In-process: Index::build, no server, no LSP.
  double buildCpuSeconds = -1;             ///< Its CPU time (user + sys, every thread), from getrusage.
  std::vector<double> startSeconds;        ///< Process start -> first correct definition, per start.
  std::vector<double> startIndexMs;        ///< The server's own "indexed ... in N ms", per start.
  std::vector<double> startCpuSeconds;     ///< CPU time (all threads) of the server at its first answer.
  uint64_t rssIndexKb = 0;                 ///< VmHWM right after the first answer of a fresh start.
  uint64_t rssEndKb = 0;                   ///< VmHWM after every request of the main session.
  uint64_t peakAnonKb = 0, peakFileKb = 0; ///< Largest RssAnon / RssFile seen while a fresh start indexes.
  std::vector<Latency> latencies;
  double appendSeconds = -1; ///< Append -> first correct answer about the appended compile.
  uint64_t appendBytesIndexed = 0, appendBytesAppended = 0, appendRchar = 0, appendFaultBytes = 0;
  size_t wrong = 0;
  std::vector<std::string> problems;
  double tlparseSeconds =
      -1; ///< tlparse on the same files (single log: --inductor-provenance; ranks: --all-ranks-html).
  std::string tlparseCommand;
};

json toJson(const Result &r) {
  json lat = json::array();
  for (const Latency &l : r.latencies)
    lat.push_back({{"method", l.method},
                   {"n", l.n},
                   {"wrong", l.wrong},
                   {"p50", l.p50},
                   {"p99", l.p99},
                   {"max", l.max},
                   {"mean", l.mean}});
  return {{"name", r.name},
          {"bytes", r.bytes},
          {"files", r.files},
          {"units", r.units},
          {"compiles", r.compiles},
          {"launches", r.launches},
          {"artifacts", r.artifacts},
          {"wcSeconds", r.wcSeconds},
          {"catSeconds", r.catSeconds},
          {"scanSeconds", r.scanSeconds},
          {"buildSeconds", r.buildSeconds},
          {"buildCpuSeconds", r.buildCpuSeconds},
          {"startSeconds", r.startSeconds},
          {"startIndexMs", r.startIndexMs},
          {"startCpuSeconds", r.startCpuSeconds},
          {"rssIndexKb", r.rssIndexKb},
          {"rssEndKb", r.rssEndKb},
          {"peakAnonKb", r.peakAnonKb},
          {"peakFileKb", r.peakFileKb},
          {"latencies", lat},
          {"appendSeconds", r.appendSeconds},
          {"appendBytesIndexed", r.appendBytesIndexed},
          {"appendBytesAppended", r.appendBytesAppended},
          {"appendRchar", r.appendRchar},
          {"appendFaultBytes", r.appendFaultBytes},
          {"wrong", r.wrong},
          {"problems", r.problems},
          {"tlparseSeconds", r.tlparseSeconds},
          {"tlparseCommand", r.tlparseCommand}};
}

Result fromJson(const json &j) {
  Result r;
  r.name = j.value("name", "");
  r.bytes = j.value("bytes", uint64_t{0});
  r.files = j.value("files", size_t{0});
  r.units = j.value("units", size_t{0});
  r.compiles = j.value("compiles", size_t{0});
  r.launches = j.value("launches", size_t{0});
  r.artifacts = j.value("artifacts", size_t{0});
  r.wcSeconds = j.value("wcSeconds", 0.0);
  r.catSeconds = j.value("catSeconds", 0.0);
  r.scanSeconds = j.value("scanSeconds", -1.0);
  r.buildSeconds = j.value("buildSeconds", -1.0);
  r.buildCpuSeconds = j.value("buildCpuSeconds", -1.0);
  r.startSeconds = j.value("startSeconds", std::vector<double>{});
  r.startIndexMs = j.value("startIndexMs", std::vector<double>{});
  r.startCpuSeconds = j.value("startCpuSeconds", std::vector<double>{});
  r.rssIndexKb = j.value("rssIndexKb", uint64_t{0});
  r.rssEndKb = j.value("rssEndKb", uint64_t{0});
  r.peakAnonKb = j.value("peakAnonKb", uint64_t{0});
  r.peakFileKb = j.value("peakFileKb", uint64_t{0});
  for (const json &l : j.value("latencies", json::array())) {
    Latency x;
    x.method = l.value("method", "");
    x.n = l.value("n", size_t{0});
    x.wrong = l.value("wrong", size_t{0});
    x.p50 = l.value("p50", 0.0);
    x.p99 = l.value("p99", 0.0);
    x.max = l.value("max", 0.0);
    x.mean = l.value("mean", 0.0);
    r.latencies.push_back(x);
  }
  r.appendSeconds = j.value("appendSeconds", -1.0);
  r.appendBytesIndexed = j.value("appendBytesIndexed", uint64_t{0});
  r.appendBytesAppended = j.value("appendBytesAppended", uint64_t{0});
  r.appendRchar = j.value("appendRchar", uint64_t{0});
  r.appendFaultBytes = j.value("appendFaultBytes", uint64_t{0});
  r.wrong = j.value("wrong", size_t{0});
  r.problems = j.value("problems", std::vector<std::string>{});
  r.tlparseSeconds = j.value("tlparseSeconds", -1.0);
  r.tlparseCommand = j.value("tlparseCommand", "");
  return r;
}

// ---------------------------------------------------------------------------------------------------------
// Talking to the server.

json initializeParams(const Workload &w) {
  json caps = {{"general", {{"positionEncodings", json::array({"utf-16"})}}},
               {"textDocument",
                {{"hover", {{"contentFormat", json::array({"markdown", "plaintext"})}}},
                 {"definition", {{"linkSupport", false}}}}}};
  json init = {{"traceDirs", json::array({w.traceDir()})}};
  for (const auto &[from, to] : w.mappings)
    init["pathMappings"].push_back({{"from", from}, {"to", to}});
  return {{"processId", static_cast<int>(getpid())},
          {"rootUri", protocol::fileURI(w.srcDir())},
          {"workspaceFolders", json::array({{{"uri", protocol::fileURI(w.srcDir())}, {"name", "src"}}})},
          {"capabilities", caps},
          {"initializationOptions", init}};
}

std::unique_ptr<LspProcess> startServer(const Options &o, const Workload &w, const std::string &tag,
                                        bool watch) {
  std::string logs = w.dir + "/logs";
  fs::create_directories(logs);
  // The server's cache (the Python environment's answer) is the workload's own, never the user's: the
  // first timed start empties it (nothing known), the second finds what the first kept.
  std::vector<std::string> args = {"--log-file",  logs + "/" + tag + ".log", "--log-level", "info",
                                   "--cache-dir", w.dir + "/server-cache"};
  if (!watch) args.push_back("--no-watch");
  auto p = std::make_unique<LspProcess>(o.server, args, logs + "/" + tag + ".stderr");
  if (!p->running()) return nullptr;
  json init = p->request("initialize", initializeParams(w), 60s);
  if (!init.is_object() || !init.contains("result")) return nullptr;
  p->notify("initialized", json::object());
  return p;
}

json textDocument(const std::string &uri) {
  return {{"uri", uri}};
}
json position(uint32_t line, uint32_t character) {
  return {{"line", line}, {"character", character}};
}

void didOpen(LspProcess &p, const std::string &uri, const std::string &languageId, const std::string &text) {
  p.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", languageId}, {"version", 1}, {"text", text}}}});
}

// ---------------------------------------------------------------------------------------------------------
// Samples: real positions in the workload, with their expected answers.

struct MatchedArtifact {
  std::string uri;
  const Unit *unit = nullptr;
  const RefArtifact *ref = nullptr;
};

struct PositionSample {
  std::string uri;
  uint32_t line = 0, column = 0;
  std::string token;
  std::vector<RefOrigin> origins; ///< Mapped to the unit's paths.
};

struct UserLineSample {
  std::string uri;
  uint32_t line = 0;   ///< 0-based.
  size_t launches = 0; ///< Per unit.
  /// The units whose launches the answer holds, `launches` each: the one unit of a fixture-mix copy, or every
  /// rank of a real-shaped workload (all ranks compiled the same user line).
  std::vector<const Unit *> units;
};

struct LensSample {
  std::string uri;
  size_t lenses = 0;
};

/// Where an inductor-trace URI points: (file, 0-based record line), if it parses.
std::optional<std::pair<int, uint64_t>> traceLocation(const Workload &w, const std::string &uri) {
  auto parsed = protocol::parseURI(uri);
  if (!parsed || parsed->scheme != "inductor-trace") return std::nullopt;
  std::vector<std::string> parts = split(parsed->path, '/');
  if (parts.size() < 3) return std::nullopt;
  int file = w.fileByBaseName(parts[0]);
  uint64_t line = std::strtoull(parts[1].c_str(), nullptr, 10);
  if (file < 0 || line == 0) return std::nullopt;
  return std::make_pair(file, line - 1);
}

std::vector<RefOrigin> mapOrigins(const std::vector<RefOrigin> &origins, const Workload &w, const Unit &u) {
  std::vector<RefOrigin> out;
  for (const RefOrigin &o : origins)
    out.push_back({w.localPath(u, o.path), o.line});
  return out;
}

/// An artifact's text as a unit holds it: paths rewritten for fixture-mix copies, as recorded otherwise.
std::string unitText(const std::string &text, const Unit &u) {
  return onDevice(u.prefix.empty() ? text : replaceAll(text, "/tmp/work/", u.prefix), u.device);
}

/// Problems collected while checking answers (the first few are kept as text).
struct Checker {
  size_t wrong = 0;
  std::vector<std::string> problems;
  void fail(std::string what) {
    ++wrong;
    if (problems.size() < 20) problems.push_back(std::move(what));
  }
};

bool checkDefinition(const json &response, const PositionSample &s, Checker &c) {
  const json &r = response.is_object() && response.contains("result") ? response["result"] : json();
  std::vector<RefOrigin> got;
  if (r.is_array())
    for (const json &loc : r) {
      std::string uri = loc.value("uri", "");
      std::string path = protocol::filePath(uri).value_or(uri);
      got.push_back({path, loc["range"]["start"]["line"].get<uint32_t>() + 1});
    }
  if (r.is_array() && got == s.origins) return true;
  std::string want;
  for (const RefOrigin &o : s.origins)
    want += " " + o.path + ":" + std::to_string(o.line);
  c.fail("definition " + s.uri + " " + std::to_string(s.line) + ":" + std::to_string(s.column) + " (" +
         s.token + "): got " + (response.is_null() ? std::string("no response") : r.dump().substr(0, 300)) +
         ", want" + want);
  return false;
}

bool checkHover(const json &response, const PositionSample &s, Checker &c) {
  const json &r = response.is_object() && response.contains("result") ? response["result"] : json();
  std::string text;
  if (r.is_object() && r.contains("contents")) {
    const json &contents = r["contents"];
    text = contents.is_object() ? contents.value("value", "") : contents.dump();
  }
  bool ok = text.find(s.token) != std::string::npos;
  if (ok && !s.origins.empty())
    ok = text.find(baseName(s.origins.front().path) + ":" + std::to_string(s.origins.front().line)) !=
         std::string::npos;
  if (!ok)
    c.fail("hover " + s.uri + " " + std::to_string(s.line) + ":" + std::to_string(s.column) + " (" + s.token +
           "): got " + (response.is_null() ? std::string("no response") : r.dump().substr(0, 300)));
  return ok;
}

/// A location-list answer about a user line: `want` locations, each in one of the units of that file.
bool checkLocationsInUnits(const json &response, const UserLineSample &s, const Workload &w, size_t want,
                           const std::string &method, Checker &c) {
  const json &r = response.is_object() && response.contains("result") ? response["result"] : json();
  bool ok = r.is_array() && r.size() == want;
  if (ok)
    for (const json &loc : r) {
      auto where = traceLocation(w, loc.value("uri", ""));
      const Unit *u = where ? w.unitAt(static_cast<uint32_t>(where->first), where->second) : nullptr;
      if (std::find(s.units.begin(), s.units.end(), u) == s.units.end()) ok = false;
    }
  if (!ok)
    c.fail(method + " " + s.uri + " line " + std::to_string(s.line + 1) + ": got " +
           (r.is_array() ? std::to_string(r.size()) + " locations" : std::string("no array")) + ", want " +
           std::to_string(want) + " in the unit(s) of that file");
  return ok;
}

/// references on a model line: each launch site once, the ranks' copies (byte for byte, or up to the device
/// they ran on) listed in one of them.
bool checkReferences(const json &response, const UserLineSample &s, const Workload &w, Checker &c) {
  return checkLocationsInUnits(response, s, w, s.launches, "references", c);
}

/// inductor/launchSites (a model line's lens clicked): the line's launch sites once, the ranks'
/// byte-identical copies merged, in one of the units of that file.
bool checkLaunchSites(const json &response, const UserLineSample &s, const Workload &w, Checker &c) {
  return checkLocationsInUnits(response, s, w, s.launches, "launchSites", c);
}

bool checkLenses(const json &response, const LensSample &s, Checker &c) {
  const json &r = response.is_object() && response.contains("result") ? response["result"] : json();
  // Kernel lenses only: compiled functions' def lines have a compile-health lens too (inductor.showCompiles).
  size_t kernelLenses = 0;
  if (r.is_array())
    for (const json &lens : r)
      kernelLenses +=
          !(lens.contains("command") && lens["command"].value("command", "") == "inductor.showCompiles");
  bool ok = r.is_array() && kernelLenses == s.lenses;
  if (!ok)
    c.fail("codeLens " + s.uri + ": got " +
           (r.is_array() ? std::to_string(kernelLenses) : std::string("no array")) + " kernel lenses, want " +
           std::to_string(s.lenses));
  return ok;
}

bool isSubsequence(std::string_view query, std::string_view name) {
  size_t q = 0;
  for (size_t i = 0; i < name.size() && q < query.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) ==
        std::tolower(static_cast<unsigned char>(query[q])))
      ++q;
  return q == query.size();
}

bool checkSymbols(const json &response, const std::string &query, bool exact, Checker &c) {
  const json &r = response.is_object() && response.contains("result") ? response["result"] : json();
  bool ok = r.is_array() && !r.empty();
  if (ok && exact) ok = r[0].value("name", "") == query;
  if (ok)
    for (const json &s : r)
      if (!isSubsequence(query, s.value("name", ""))) ok = false;
  if (!ok)
    c.fail("workspace/symbol '" + query + "': got " +
           (r.is_array() ? std::to_string(r.size()) + " symbols" +
                               (r.empty() ? "" : ", first " + r[0].value("name", ""))
                         : std::string("no array")));
  return ok;
}

// ---------------------------------------------------------------------------------------------------------
// One workload.

class Session {
public:
  Session(const Options &o, const Workload &w, const std::vector<FixtureLog> &fixtures,
          const std::vector<RefLog> &refs, Result &result)
      : o_(o), w_(w), fixtures_(fixtures), refs_(refs), r_(result), rng_(o.seed) {}

  void run() {
    timeRawReads();
    timeInProcess();
    mainSession();
    if (!definitionTarget_) {
      check_.fail("no output-code position with an origin: cannot time starts");
    } else {
      for (unsigned s = 0; s < o_.starts; ++s)
        timeStart(s);
    }
    if (o_.append) appendTest();
    if (!o_.tlparse.empty()) timeTlparse();
    r_.wrong = check_.wrong;
    r_.problems = check_.problems;
  }

private:
  void log(const std::string &what) { std::cerr << "[" << w_.spec.name << "] " << what << std::endl; }

  void timeRawReads() {
    std::vector<std::string> cat = {"cat"}, wc = {"wc", "-l"};
    cat.insert(cat.end(), w_.files.begin(), w_.files.end());
    wc.insert(wc.end(), w_.files.begin(), w_.files.end());
    timeCommand(cat); // Warm the page cache.
    std::vector<double> wcs, cats;
    for (int i = 0; i < 3; ++i) {
      wcs.push_back(timeCommand(wc));
      cats.push_back(timeCommand(cat));
    }
    r_.wcSeconds = median(wcs);
    r_.catSeconds = median(cats);
    log("wc -l " + std::to_string(r_.wcSeconds) + " s, cat " + std::to_string(r_.catSeconds) + " s");
  }

  /// The index without the server: the scan alone (TraceLog::open of every file, on as many threads as
  /// Index::build uses), then a whole Index::build; best of 3 and of 2.
  void timeInProcess() {
    unsigned jobs = std::max(1u, std::min(4u, std::thread::hardware_concurrency())); // inductor-ls's default
    std::vector<double> scans, builds;
    for (int rep = 0; rep < 3; ++rep) {
      std::atomic<size_t> next{0};
      auto start = Clock::now();
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < std::min<size_t>(jobs, w_.files.size()); ++t)
        threads.emplace_back([&] {
          for (size_t i; (i = next.fetch_add(1)) < w_.files.size();)
            (void)index::TraceLog::open(w_.files[i]);
        });
      for (std::thread &t : threads)
        t.join();
      scans.push_back(seconds(Clock::now() - start));
    }
    for (int rep = 0; rep < 2; ++rep) {
      index::IndexOptions options;
      options.inputs = {w_.traceDir()};
      options.roots = {w_.srcDir()};
      for (const auto &[from, to] : w_.mappings)
        options.pathMappings.push_back({from, to});
      options.jobs = jobs;
      auto cpu = [] {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
      };
      double cpu0 = cpu();
      auto start = Clock::now();
      auto idx = index::Index::build(options);
      builds.push_back(seconds(Clock::now() - start));
      double used = cpu() - cpu0;
      r_.buildCpuSeconds = r_.buildCpuSeconds < 0 ? used : std::min(r_.buildCpuSeconds, used);
    }
    r_.scanSeconds = *std::min_element(scans.begin(), scans.end());
    r_.buildSeconds = *std::min_element(builds.begin(), builds.end());
    log("in-process scan " + std::to_string(r_.scanSeconds) + " s, Index::build " +
        std::to_string(r_.buildSeconds) + " s");
  }

  /// Matches the server's output-code artifacts to units and references; every expected one must appear once.
  std::vector<MatchedArtifact> matchArtifacts(const json &list) {
    std::vector<MatchedArtifact> out;
    std::set<std::pair<uint32_t, uint32_t>> seen; // (unit, record line)
    for (const json &a : list) {
      std::string kind = a.value("kind", "");
      if (kind != "outputCode" && kind != "wrapperCode") continue;
      std::string uri = a.value("uri", "");
      auto where = traceLocation(w_, uri);
      if (!where) {
        check_.fail("output code without an inductor-trace URI: " + uri);
        continue;
      }
      const Unit *u = w_.unitAt(static_cast<uint32_t>(where->first), where->second);
      if (!u) {
        check_.fail("output code outside every unit: " + uri);
        continue;
      }
      uint32_t recordLine = static_cast<uint32_t>(where->second - u->firstLine + 1);
      const RefLog &ref = refs_[u->fixture];
      auto it = ref.outputs.find(recordLine);
      if (it == ref.outputs.end()) {
        check_.fail("output code not in the reference: " + uri);
        continue;
      }
      if (!seen.insert({u->id, recordLine}).second) check_.fail("output code listed twice: " + uri);
      out.push_back({uri, u, &it->second});
    }
    size_t expected = 0;
    for (const Unit &u : w_.units)
      expected += refs_[u.fixture].outputs.size();
    if (seen.size() != expected)
      check_.fail("matched " + std::to_string(seen.size()) + " output-code artifacts, want " +
                  std::to_string(expected) + " (one per compile of every unit)");
    return out;
  }

  void mainSession() {
    auto p = startServer(o_, w_, "session", /*watch=*/true);
    if (!p) return check_.fail("server did not start or initialize");
    Clock::duration listLatency{};
    json list = p->request("inductor/listArtifacts", json::object(), 1800s, &listLatency);
    if (!list.is_object() || !list.contains("result") || !list["result"].is_array())
      return check_.fail("inductor/listArtifacts failed: " + list.dump().substr(0, 300));
    json status = p->request("inductor/status", json::object(), 60s);
    if (status.contains("result")) {
      r_.compiles = status["result"].value("compiles", size_t{0});
      r_.launches = status["result"].value("launches", size_t{0});
    }
    r_.artifacts = list["result"].size();
    log("index ready after " + std::to_string(seconds(Clock::now() - p->started())) +
        " s: " + std::to_string(r_.compiles) + " compiles, " + std::to_string(r_.artifacts) + " artifacts");

    std::vector<MatchedArtifact> artifacts = matchArtifacts(list["result"]);
    std::shuffle(artifacts.begin(), artifacts.end(), rng_);
    // Open at most --open-docs; keep a quarter of the artifacts (at least) for the not-open case.
    size_t nOpen = std::min(o_.openDocs, artifacts.size() - artifacts.size() / 4);
    size_t nClosed = std::min(o_.openDocs, artifacts.size() - nOpen);

    std::vector<PositionSample> open, closed;
    std::vector<LensSample> outputLenses;
    for (size_t i = 0; i < nOpen + nClosed; ++i) {
      const MatchedArtifact &m = artifacts[i];
      bool isOpen = i < nOpen;
      if (isOpen) {
        json content = p->request("inductor/artifactContent", {{"uri", m.uri}}, 60s);
        std::string text = content.contains("result") ? content["result"].value("text", "") : "";
        std::string want = unitText(m.ref->text, *m.unit);
        if (text != want) check_.fail("inductor/artifactContent of " + m.uri + " differs from the fixture's");
        didOpen(*p, m.uri, m.ref->cpp ? "cpp" : "python", text);
        outputLenses.push_back({m.uri, m.ref->lenses});
      }
      for (const RefPosition &pos : m.ref->positions) {
        PositionSample s{m.uri, pos.line, pos.column, pos.token, mapOrigins(pos.origins, w_, *m.unit)};
        (isOpen ? open : closed).push_back(s);
        // The start target: a position with an origin in the last unit opened (late in its file).
        if (isOpen && !s.origins.empty() && (!definitionTarget_ || m.unit->id > definitionTargetUnit_)) {
          definitionTarget_ = s;
          definitionTargetUnit_ = m.unit->id;
          definitionTargetText_ = unitText(m.ref->text, *m.unit);
          definitionTargetCpp_ = m.ref->cpp;
        }
      }
    }

    // User files: as many as output-code documents, each opened with its user lines and lenses.
    std::vector<const Unit *> units;
    for (const Unit &u : w_.units)
      units.push_back(&u);
    std::shuffle(units.begin(), units.end(), rng_);
    std::vector<UserLineSample> userLines;
    std::vector<LensSample> userLenses;
    // Only files that exist here (the fixture's model files; library files where a real-shaped workload has
    // them), each once (the ranks of a real-shaped workload share theirs).
    std::set<std::string> opened;
    for (size_t i = 0; i < units.size() && userLenses.size() < o_.openDocs; ++i) {
      const Unit &u = *units[i];
      const RefLog &ref = refs_[u.fixture];
      std::set<std::string> here;
      for (const auto &[path, lenses] : ref.lensesPerUserFile) {
        std::string local = w_.localPath(u, path);
        std::error_code ec;
        if (!fs::is_regular_file(local, ec) || !opened.insert(local).second) continue;
        here.insert(path);
        std::string uri = protocol::fileURI(local);
        didOpen(*p, uri, "python", readFile(local));
        userLenses.push_back({uri, lenses});
      }
      for (const RefUserLine &ul : ref.userLines)
        if (here.count(ul.path))
          userLines.push_back(
              {protocol::fileURI(w_.localPath(u, ul.path)), ul.line - 1, ul.launches, w_.sameSources(u)});
    }

    // workspace/symbol queries: whole kernel names (the exact name must come first) and name fragments, of
    // the fixtures this workload holds (a small one holds only the first few fixture logs).
    std::vector<std::pair<std::string, bool>> queries;
    std::set<std::string> names;
    std::set<uint32_t> present;
    for (const Unit &u : w_.units)
      present.insert(u.fixture);
    for (uint32_t f : present)
      names.insert(refs_[f].kernelNames.begin(), refs_[f].kernelNames.end());
    for (const std::string &n : names) {
      queries.push_back({n, true});
      size_t fused = n.find("fused_");
      if (fused != std::string::npos) queries.push_back({n.substr(fused + 6, 10), false});
    }

    std::shuffle(open.begin(), open.end(), rng_);
    std::shuffle(closed.begin(), closed.end(), rng_);
    std::shuffle(userLines.begin(), userLines.end(), rng_);
    std::shuffle(queries.begin(), queries.end(), rng_);
    log(std::to_string(open.size()) + " positions in " + std::to_string(nOpen) + " open documents, " +
        std::to_string(userLines.size()) + " user lines in " + std::to_string(userLenses.size()) +
        " user files, " + std::to_string(queries.size()) + " symbol queries");

    auto measure = [&](const std::string &method, size_t count, auto &&send) {
      std::vector<double> ms;
      size_t before = check_.wrong;
      for (size_t i = 0; i < count; ++i) {
        Clock::duration d{};
        if (!send(i, d)) {
          if (!p->running()) break;
        }
        ms.push_back(millis(d));
      }
      r_.latencies.push_back(summarize(method, std::move(ms), check_.wrong - before));
      const Latency &l = r_.latencies.back();
      log(method + ": p50 " + std::to_string(l.p50) + " ms, p99 " + std::to_string(l.p99) + " ms, " +
          std::to_string(l.wrong) + " wrong");
    };
    size_t n = o_.requests;
    auto positionRequest = [&](const std::string &method, std::vector<PositionSample> &samples, bool hover) {
      if (samples.empty()) return check_.fail("no samples for " + method);
      measure(method, n, [&](size_t i, Clock::duration &d) {
        const PositionSample &s = samples[i % samples.size()];
        json resp = p->request(
            hover ? "textDocument/hover" : "textDocument/definition",
            {{"textDocument", textDocument(s.uri)}, {"position", position(s.line, s.column)}}, 60s, &d);
        return hover ? checkHover(resp, s, check_) : checkDefinition(resp, s, check_);
      });
    };
    positionRequest("definition", open, false);
    positionRequest("hover", open, true);
    if (userLines.empty()) {
      check_.fail("no user lines to ask references about");
    } else {
      measure("references (model line)", n, [&](size_t i, Clock::duration &d) {
        const UserLineSample &s = userLines[i % userLines.size()];
        json resp = p->request("textDocument/references",
                               {{"textDocument", textDocument(s.uri)},
                                {"position", position(s.line, 4)},
                                {"context", {{"includeDeclaration", false}}}},
                               60s, &d);
        return checkReferences(resp, s, w_, check_);
      });
      measure("launch sites (model-line lens clicked)", n, [&](size_t i, Clock::duration &d) {
        const UserLineSample &s = userLines[i % userLines.size()];
        json resp =
            p->request("inductor/launchSites",
                       {{"textDocument", textDocument(s.uri)}, {"position", position(s.line, 4)}}, 60s, &d);
        return checkLaunchSites(resp, s, w_, check_);
      });
    }
    auto lensRequest = [&](const std::string &method, std::vector<LensSample> &samples) {
      if (samples.empty()) return check_.fail("no samples for " + method);
      measure(method, n, [&](size_t i, Clock::duration &d) {
        const LensSample &s = samples[i % samples.size()];
        json resp = p->request("textDocument/codeLens", {{"textDocument", textDocument(s.uri)}}, 60s, &d);
        return checkLenses(resp, s, check_);
      });
    };
    lensRequest("codeLens (model file)", userLenses);
    lensRequest("codeLens (output code)", outputLenses);
    if (!queries.empty())
      measure("workspace/symbol", n, [&](size_t i, Clock::duration &d) {
        const auto &[query, exact] = queries[i % queries.size()];
        json resp = p->request("workspace/symbol", {{"query", query}}, 60s, &d);
        return checkSymbols(resp, query, exact, check_);
      });
    positionRequest("definition (document not open)", closed, false);

    r_.rssEndKb = p->figures().vmHwmKb;
    p->stop();
  }

  void timeStart(unsigned k) {
    const PositionSample &s = *definitionTarget_;
    if (k == 0) fs::remove_all(w_.dir + "/server-cache"); // Cold: not even the Python environment known.
    auto p = startServer(o_, w_, "start" + std::to_string(k), /*watch=*/true);
    if (!p) return check_.fail("server did not start or initialize");
    didOpen(*p, s.uri, definitionTargetCpp_ ? "cpp" : "python", definitionTargetText_);
    // Sample the resident set while the index builds: VmHWM has the peak, but not its heap / file split.
    std::atomic<bool> done{false};
    std::thread sampler([&] {
      while (!done) {
        ProcessFigures f = p->figures();
        r_.peakAnonKb = std::max(r_.peakAnonKb, f.rssAnonKb);
        r_.peakFileKb = std::max(r_.peakFileKb, f.rssFileKb);
        std::this_thread::sleep_for(2ms);
      }
    });
    Clock::time_point arrived;
    json resp = p->request("textDocument/definition",
                           {{"textDocument", textDocument(s.uri)}, {"position", position(s.line, s.column)}},
                           1800s, nullptr, &arrived);
    done = true;
    sampler.join();
    if (checkDefinition(resp, s, check_)) r_.startSeconds.push_back(seconds(arrived - p->started()));
    ProcessFigures f = p->figures();
    r_.rssIndexKb = std::max(r_.rssIndexKb, f.vmHwmKb);
    r_.startCpuSeconds.push_back(f.cpuSeconds);
    // The first start asks the interpreter beside the build, and answers may come first: its answer is kept
    // (--cache-dir) only once it comes. Waited for here, after the timing, so that the next start is the one
    // the "warm start" row says (stopped earlier, the server drops the question and the next asks again).
    if (k == 0)
      for (auto deadline = Clock::now() + 5s; Clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
        json status = p->request("inductor/status", json::object(), 5s);
        const json python = status.value("result", json::object()).value("python", json::object());
        if (!python.value("error", "").empty() ||
            (!python.value("interpreter", "").empty() && !python.value("kept", true)))
          break;
      }
    p->stop();
    IndexLogLine line = lastIndexLine(w_.dir + "/logs/start" + std::to_string(k) + ".log");
    r_.startIndexMs.push_back(line.ms);
    log("start " + std::to_string(k) + ": first correct definition after " +
        (r_.startSeconds.empty() ? std::string("-") : std::to_string(r_.startSeconds.back())) + " s");
  }

  /// tlparse over the same files, once (it takes seconds to minutes): one log with --inductor-provenance, the
  /// trace directory with --all-ranks-html when there are rank files. Its output goes to a scratch directory.
  void timeTlparse() {
    std::string out = w_.dir + "/tlparse-out";
    std::vector<std::string> args = {o_.tlparse};
    if (w_.files.size() == 1)
      args.insert(args.end(), {w_.files[0], "--inductor-provenance"});
    else
      args.insert(args.end(), {w_.traceDir(), "--all-ranks-html"});
    args.insert(args.end(), {"-o", out, "--overwrite", "--no-browser"});
    r_.tlparseSeconds = timeCommand(args);
    r_.tlparseCommand.clear();
    for (size_t i = 0; i < args.size(); ++i)
      r_.tlparseCommand += (i ? " " : "") + (i == 0 ? std::string("tlparse") : args[i]);
    std::error_code ec;
    fs::remove_all(out, ec);
    log("tlparse: " + std::to_string(r_.tlparseSeconds) + " s (" + r_.tlparseCommand + ")");
  }

  /// Appends one more compile (a fresh copy of mlp_train) to rank file 0 of a running server, and polls
  /// `references` on a line of its user file until the answer is right.
  void appendTest() {
    uint32_t fixture = 0;
    for (uint32_t i = 0; i < fixtures_.size(); ++i)
      if (fixtures_[i].caseName == "mlp_train") fixture = i;
    const RefLog &ref = refs_[fixture];
    if (ref.userLines.empty()) return check_.fail("append test: the fixture has no user lines");
    const RefUserLine &target =
        *std::max_element(ref.userLines.begin(), ref.userLines.end(),
                          [](const RefUserLine &a, const RefUserLine &b) { return a.launches < b.launches; });

    auto p = startServer(o_, w_, "append", /*watch=*/true);
    if (!p) return check_.fail("server did not start or initialize");
    if (!p->request("inductor/listArtifacts", json::object(), 1800s).contains("result"))
      return check_.fail("append test: index never ready");

    Unit u;
    u.id = static_cast<uint32_t>(w_.units.size());
    u.fixture = fixture;
    u.file = 0;
    u.firstLine = w_.fileLines[0];
    u.lines = fixtures_[fixture].lines;
    u.prefix = unitPrefix(w_.dir, u.id);
    UnitRewrite rw{u.id, u.prefix, w_.spec.ranks ? 0 : -1, w_.nextStrId[0]};
    std::string text = renderUnit(fixtures_[fixture], rw);
    std::string error;
    if (!writeUnitSources(fixtures_[fixture], u.prefix, error)) return check_.fail("append test: " + error);
    Workload grown = w_;
    grown.units.push_back(u);
    UserLineSample sample{protocol::fileURI(mapRecordedPath(target.path, u.prefix)),
                          target.line - 1,
                          target.launches,
                          {&grown.units.back()}};

    // Let the watcher settle (it reports a build that just finished), then append in one write.
    std::this_thread::sleep_for(1500ms);
    ProcessFigures before = p->figures();
    size_t buildsBefore = lastIndexLine(w_.dir + "/logs/append.log").count;
    int fd = open(w_.files[0].c_str(), O_WRONLY | O_APPEND);
    Clock::time_point appended = Clock::now();
    bool written = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0) close(fd);
    if (!written) check_.fail("append test: cannot append to " + w_.files[0]);

    Checker quiet; // Wrong answers are expected until the new compile is indexed.
    for (auto deadline = appended + 1800s; written && Clock::now() < deadline;) {
      Clock::time_point arrived;
      json resp = p->request("textDocument/references",
                             {{"textDocument", textDocument(sample.uri)},
                              {"position", position(sample.line, 4)},
                              {"context", {{"includeDeclaration", false}}}},
                             1800s, nullptr, &arrived);
      if (checkReferences(resp, sample, grown, quiet)) {
        r_.appendSeconds = seconds(arrived - appended);
        break;
      }
      if (!p->running()) break;
      std::this_thread::sleep_for(20ms);
    }
    if (r_.appendSeconds < 0) check_.fail("append test: the appended compile was never answered");
    ProcessFigures after = p->figures();
    std::this_thread::sleep_for(100ms); // The build's log line may follow its swap by a moment.
    IndexLogLine line = lastIndexLine(w_.dir + "/logs/append.log");
    r_.appendBytesAppended = text.size();
    r_.appendBytesIndexed = line.count > buildsBefore ? line.bytes : 0;
    json status = p->request("inductor/status", json::object(), 60s);
    if (status.contains("result") && status["result"].contains("traceBytesRead"))
      r_.appendBytesIndexed = status["result"]["traceBytesRead"].get<uint64_t>();
    r_.appendRchar = after.rchar - before.rchar;
    r_.appendFaultBytes = (after.minorFaults + after.majorFaults - before.minorFaults - before.majorFaults) *
                          static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    p->stop();
    if (truncate(w_.files[0].c_str(), static_cast<off_t>(w_.fileBytes[0])) != 0)
      check_.fail("append test: cannot cut " + w_.files[0] + " back");
    std::error_code ec;
    fs::remove_all(u.prefix, ec);
    log("appended compile answered after " + std::to_string(r_.appendSeconds) + " s");
  }

  const Options &o_;
  const Workload &w_;
  const std::vector<FixtureLog> &fixtures_;
  const std::vector<RefLog> &refs_;
  Result &r_;
  std::mt19937_64 rng_;
  Checker check_;
  std::optional<PositionSample> definitionTarget_;
  uint32_t definitionTargetUnit_ = 0;
  std::string definitionTargetText_;
  bool definitionTargetCpp_ = false;
};

// ---------------------------------------------------------------------------------------------------------
// The table.

std::string fmtBytes(double b) {
  char buf[32];
  if (b >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else if (b >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

std::string fmtSeconds(double s) {
  char buf[32];
  if (s < 0) return "–";
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.0f µs", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

std::string fmtMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.2f" : "%.0f", ms);
  return buf;
}

std::string fmtRatio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 10 ? "%.1f×" : "%.0f×", x);
  return buf;
}

std::string machineLine() {
  std::string cpu = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  uint64_t memKb = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemTotal:", 0) == 0) memKb = std::strtoull(line.c_str() + 9, nullptr, 10);
  std::string load = readFile("/proc/loadavg");
  load = load.substr(0, load.find(' ', load.find(' ', load.find(' ') + 1) + 1));
  utsname u{};
  uname(&u);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%u × %s (nproc %u), %.1f GiB RAM, Linux %s; load average %s",
                std::thread::hardware_concurrency(), cpu.c_str(), std::thread::hardware_concurrency(),
                static_cast<double>(memKb) / (1024.0 * 1024.0), u.release, load.c_str());
  return buf;
}

const Latency *findLatency(const Result &r, const std::string &method) {
  for (const Latency &l : r.latencies)
    if (l.method == method) return &l;
  return nullptr;
}

std::string renderTable(const std::vector<Result> &results, const Options &o) {
  std::ostringstream md;
  time_t now = time(nullptr);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  md << "Machine: " << machineLine() << ".  \n";
  md << "Commit: " << (o.commit.empty() ? std::string("unknown") : o.commit) << "; " << date << ".  \n";
  md << "Page cache warm. Requests: sequential, one in flight, over LSP pipes (UTF-16 positions), "
     << o.requests << " per method at real positions of " << o.openDocs
     << " open output-code documents and as many user files.\n\n";

  // The growth column compares the smallest and largest multi-rank workloads of this run.
  const Result *small = nullptr, *large = nullptr;
  for (const Result &r : results)
    if (r.name.find("single") == std::string::npos) {
      if (!small || r.bytes < small->bytes) small = &r;
      if (!large || r.bytes > large->bytes) large = &r;
    }
  bool growth = small && large && small != large;
  md << "| |";
  for (const Result &r : results)
    md << " " << r.name << " |";
  if (growth) md << " growth " << small->name << " → " << large->name << " |";
  md << "\n|---|";
  for (size_t i = 0; i < results.size(); ++i)
    md << "---:|";
  if (growth) md << "---:|";
  md << "\n";

  using Cell = std::function<std::string(const Result &)>;
  using Value = std::function<double(const Result &)>;
  auto row = [&](const std::string &label, const Cell &cell, const Value &value) {
    md << "| " << label << " |";
    for (const Result &r : results)
      md << " " << cell(r) << " |";
    if (growth) {
      double a = value ? value(*small) : 0, b = value ? value(*large) : 0;
      md << " " << (value && a > 0 && b > 0 ? fmtRatio(b / a) : std::string("")) << " |";
    }
    md << "\n";
  };
  auto minOf = [](const std::vector<double> &v) {
    return v.empty() ? -1.0 : *std::min_element(v.begin(), v.end());
  };
  auto startOf = [](const Result &r, size_t i) {
    return i < r.startSeconds.size() ? r.startSeconds[i] : -1.0;
  };

  row(
      "trace bytes (files; compiles)",
      [](const Result &r) {
        return fmtBytes(static_cast<double>(r.bytes)) + " (" + std::to_string(r.files) + "; " +
               std::to_string(r.compiles) + ")";
      },
      [](const Result &r) { return static_cast<double>(r.bytes); });
  row(
      "`wc -l`", [](const Result &r) { return fmtSeconds(r.wcSeconds); },
      [](const Result &r) { return r.wcSeconds; });
  row(
      "`cat > /dev/null`", [](const Result &r) { return fmtSeconds(r.catSeconds); },
      [](const Result &r) { return r.catSeconds; });
  row(
      "start → first correct definition (cold index)",
      [&](const Result &r) {
        double s = startOf(r, 0);
        return s < 0 ? std::string("–") : fmtSeconds(s) + " (" + fmtRatio(s / r.wcSeconds) + " wc)";
      },
      [&](const Result &r) { return startOf(r, 0); });
  row(
      "warm start (2nd start: the Python environment's answer kept; no index cache)",
      [&](const Result &r) {
        double s = startOf(r, 1);
        return s < 0 ? std::string("–") : fmtSeconds(s) + " (" + fmtRatio(s / r.wcSeconds) + " wc)";
      },
      [&](const Result &r) { return startOf(r, 1); });
  row(
      "tlparse on the same files (ratio: to the cold first answer)",
      [&](const Result &r) {
        double first = startOf(r, 0);
        if (r.tlparseSeconds < 0) return std::string("– (not built)");
        return fmtSeconds(r.tlparseSeconds) +
               (first > 0 ? " (" + fmtRatio(r.tlparseSeconds / first) + ")" : std::string());
      },
      [](const Result &r) { return r.tlparseSeconds; });
  auto vsWc = [](double s, const Result &r) {
    return s < 0 ? std::string("–") : fmtSeconds(s) + " (" + fmtRatio(s / r.wcSeconds) + " wc)";
  };
  row(
      "in-process: trace scan only (TraceLog::open, all files)",
      [&](const Result &r) { return vsWc(r.scanSeconds, r); }, [](const Result &r) { return r.scanSeconds; });
  row(
      "in-process: Index::build", [&](const Result &r) { return vsWc(r.buildSeconds, r); },
      [](const Result &r) { return r.buildSeconds; });
  row(
      "server CPU time (user + sys, all threads) at that first answer",
      [&](const Result &r) { return fmtSeconds(minOf(r.startCpuSeconds)); },
      [&](const Result &r) { return minOf(r.startCpuSeconds); });
  row(
      "in-process: Index::build CPU time (user + sys, all threads)",
      [&](const Result &r) { return fmtSeconds(r.buildCpuSeconds); },
      [](const Result &r) { return r.buildCpuSeconds; });
  row(
      "index build, server log (best start)",
      [&](const Result &r) {
        double ms = minOf(r.startIndexMs);
        return ms < 0 ? std::string("–")
                      : fmtSeconds(ms / 1e3) + " (" + fmtRatio(ms / 1e3 / r.wcSeconds) + " wc)";
      },
      [&](const Result &r) { return minOf(r.startIndexMs); });
  row(
      "peak RSS, index ready",
      [](const Result &r) {
        return fmtBytes(static_cast<double>(r.rssIndexKb) * 1024) + " (" +
               std::to_string(static_cast<int>(std::lround(100.0 * r.rssIndexKb * 1024 / r.bytes))) +
               "% of trace)";
      },
      [](const Result &r) { return static_cast<double>(r.rssIndexKb); });
  row(
      "of which heap / mapped trace (sampled peaks of RssAnon / RssFile)",
      [](const Result &r) {
        return fmtBytes(static_cast<double>(r.peakAnonKb) * 1024) + " / " +
               fmtBytes(static_cast<double>(r.peakFileKb) * 1024);
      },
      [](const Result &r) { return static_cast<double>(r.peakAnonKb); });
  row(
      "peak RSS, after all requests",
      [](const Result &r) {
        return fmtBytes(static_cast<double>(r.rssEndKb) * 1024) + " (" +
               std::to_string(static_cast<int>(std::lround(100.0 * r.rssEndKb * 1024 / r.bytes))) +
               "% of trace)";
      },
      [](const Result &r) { return static_cast<double>(r.rssEndKb); });
  std::vector<std::string> methods;
  for (const Result &r : results)
    for (const Latency &l : r.latencies)
      if (std::find(methods.begin(), methods.end(), l.method) == methods.end()) methods.push_back(l.method);
  for (const std::string &m : methods)
    row(
        m + " p50 / p99 ms",
        [&](const Result &r) {
          const Latency *l = findLatency(r, m);
          return l ? fmtMs(l->p50) + " / " + fmtMs(l->p99) : std::string("–");
        },
        [&](const Result &r) {
          const Latency *l = findLatency(r, m);
          return l ? l->p99 : -1.0;
        });
  row(
      "appended compile answered after", [](const Result &r) { return fmtSeconds(r.appendSeconds); },
      [](const Result &r) { return r.appendSeconds; });
  row(
      "bytes re-read for it (appended)",
      [](const Result &r) {
        if (r.appendSeconds < 0) return std::string("–");
        return fmtBytes(static_cast<double>(r.appendBytesIndexed)) + " (" +
               fmtBytes(static_cast<double>(r.appendBytesAppended)) + ")";
      },
      [](const Result &r) { return static_cast<double>(r.appendBytesIndexed); });
  row(
      "wrong answers", [](const Result &r) { return std::to_string(r.wrong); }, nullptr);
  md << "\nRatios in parentheses are to `wc -l` on the same files. Peak RSS is VmHWM of the server. "
        "\"bytes re-read\" is what the rebuild after the append read, as the server counts it "
        "(`inductor/status` traceBytesRead, else its `indexed ...` log line), with the bytes appended in "
        "parentheses. The growth column is the ratio of the largest to the smallest multi-rank workload (for "
        "latencies: of p99).\n";
  return md.str();
}

std::string resultPath(const Options &o, const std::string &name) {
  return o.work + "/results/" + name + ".json";
}

// ---------------------------------------------------------------------------------------------------------
// Commands.

int usage() {
  std::cerr
      << "usage: inductor-bench run|table|smoke --server BIN --fixtures DIR [--sizes 10M,100M,1G,1G-single]\n"
         "         [--work DIR] [--out FILE] [--requests N] [--open-docs N] [--starts N] [--no-append]\n"
         "         [--commit TEXT] [--seed N]\n"
         "       inductor-bench compiles --server BIN [--sizes compiles-20k,...,compiles-100k] [--work DIR]\n"
         "         [--out FILE]\n"
         "       inductor-bench profile FILE... (readChromeTrace's MB/s, best of 3, and what it kept)\n";
  return 2;
}

/// `inductor-bench profile FILE...`: each profile read three times as the index reads it
/// (index::readChromeTrace, plain or gzip); the best time, the inflated bytes per second, what was kept.
int runProfileReads(const std::vector<std::string> &files) {
  for (const std::string &path : files) {
    double best = 0;
    std::optional<index::ChromeTrace> kept;
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto trace = index::readChromeTrace(path);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!trace) {
        std::cerr << path << ": " << trace.error().message << "\n";
        return 1;
      }
      if (i == 0 || s < best) best = s;
      kept = std::move(*trace);
    }
    std::printf("%s: %.1f MB in %.3f s: %.0f MB/s; %zu CPU and %zu device events kept, %zu skipped%s\n",
                path.c_str(), double(kept->bytes) / 1e6, best, double(kept->bytes) / 1e6 / best,
                kept->cpu.size(), kept->device.size(), kept->skippedEvents,
                kept->truncated ? (", truncated: " + kept->problem).c_str() : "");
  }
  return 0;
}

/// The source log of a real-shaped workload, loaded and with its reference, appended to `logs` and `refs`
/// (once per source); its index in them, or -1 with `error`.
int loadRealSource(const Options &o, const std::string &name, std::vector<FixtureLog> &logs,
                   std::vector<RefLog> &refs, size_t fixtureCount, std::string &error) {
  for (size_t i = fixtureCount; i < logs.size(); ++i)
    if (logs[i].caseName == name || (name == "llama" && logs[i].caseName == "llama8l"))
      return static_cast<int>(i);
  std::string path, caseDir;
  if (name == "llama") {
    // bench/llama/llama8l.log.xz, decompressed once under the work directory with its model.py.
    if (o.llama.empty()) {
      error = "the llama workloads need --llama bench/llama/llama8l.log.xz";
      return -1;
    }
    caseDir = o.work + "/sources/llama8l";
    path = caseDir + "/trace/dedicated_log_torch_trace_llama8l.log";
    std::error_code ec;
    if (!fs::exists(path, ec) || fs::last_write_time(path, ec) < fs::last_write_time(o.llama, ec)) {
      fs::create_directories(caseDir + "/trace", ec);
      fs::copy_file(fs::path(o.llama).parent_path() / "model.py", caseDir + "/model.py",
                    fs::copy_options::overwrite_existing, ec);
      std::string tmp = path + ".tmp";
      if (timeCommand({"sh", "-c", "xz -dc \"$0\" > \"$1\"", o.llama, tmp}) < 0 || !fs::exists(tmp, ec)) {
        error = "cannot decompress " + o.llama;
        return -1;
      }
      fs::rename(tmp, path, ec);
    }
  } else {
    for (size_t i = 0; i < fixtureCount; ++i)
      if (logs[i].caseName == name) {
        path = logs[i].path;
        caseDir = logs[i].caseDir;
      }
    if (path.empty()) {
      error = "no source log named " + name + " (llama, or a fixture case)";
      return -1;
    }
  }
  auto log = loadLog(path, caseDir, error);
  if (!log) return -1;
  logs.push_back(std::move(*log));
  refs.push_back(buildReference(path));
  return static_cast<int>(logs.size() - 1);
}

/// The recorded `.../site-packages/` prefix of a log's library frames; empty when it has none.
std::string sitePackagesPrefix(const RefLog &ref) {
  for (const auto &[path, lenses] : ref.lensesPerUserFile)
    if (size_t k = path.find("/site-packages/"); k != std::string::npos)
      return path.substr(0, k + std::string_view("/site-packages/").size());
  return "";
}

int runBenchmark(const Options &o) {
  std::string error;
  std::vector<FixtureLog> fixtures = loadFixtures(o.fixtures, error);
  if (fixtures.empty()) {
    std::cerr << "inductor-bench: " << error << "\n";
    return 2;
  }
  size_t fixtureCount = fixtures.size();
  std::vector<RefLog> refs;
  for (const FixtureLog &f : fixtures)
    refs.push_back(buildReference(f.path));
  std::vector<Result> results;
  int status = 0;
  for (const std::string &size : o.sizes) {
    auto spec = WorkloadSpec::parse(size);
    if (!spec) {
      std::cerr << "inductor-bench: bad workload " << size
                << " (e.g. 10M, 100M, 1G, 1G-single, llama, llama-x8, hf_bert-x32)\n";
      return 2;
    }
    auto started = Clock::now();
    bool generated = false;
    std::optional<Workload> w;
    if (spec->source.empty()) {
      w = ensureWorkload(*spec, fixtures, o.work, generated, error);
    } else {
      int src = loadRealSource(o, spec->source, fixtures, refs, fixtureCount, error);
      if (src >= 0) {
        const FixtureLog &log = fixtures[static_cast<size_t>(src)];
        const RefLog &ref = refs[static_cast<size_t>(src)];
        RealSource source{spec->source, log.path, log.caseDir};
        std::string site = sitePackagesPrefix(ref);
        w = ensureRealWorkload(*spec, source, log, static_cast<uint32_t>(src), site, o.work, generated,
                               error);
        // Library files where the trace's site-packages are mapped (kept across runs; cheap to check).
        for (const auto &[path, lines] : ref.recordedText)
          if (w && !site.empty() && path.rfind(site, 0) == 0 &&
              !writeLibrarySource(log.caseDir, path.substr(site.size()), w->localPath(w->units[0], path),
                                  lines, error))
            w.reset();
      }
    }
    if (!w) {
      std::cerr << "inductor-bench: " << error << "\n";
      return 2;
    }
    std::cerr << "[" << size << "] " << (generated ? "generated " : "cached ") << w->units.size()
              << " units, " << w->bytes << " bytes in " << w->files.size() << " files under " << w->dir
              << " (" << seconds(Clock::now() - started) << " s)" << std::endl;
    Result r;
    r.name = size;
    r.bytes = w->bytes;
    r.files = w->files.size();
    r.units = w->units.size();
    Session(o, *w, fixtures, refs, r).run();
    for (const std::string &p : r.problems)
      std::cerr << "[" << size << "] WRONG: " << p << "\n";
    if (r.wrong) status = 1;
    fs::create_directories(o.work + "/results");
    std::ofstream(resultPath(o, size)) << toJson(r).dump(1) << "\n";
    results.push_back(std::move(r));
  }
  std::string table = renderTable(results, o);
  std::cout << table;
  if (!o.out.empty()) std::ofstream(o.out) << table;
  return status;
}

int tableOnly(const Options &o) {
  std::vector<Result> results;
  for (const std::string &size : o.sizes) {
    json j = json::parse(readFile(resultPath(o, size)), nullptr, false);
    if (j.is_discarded()) {
      std::cerr << "inductor-bench: no stored result for " << size << " in " << resultPath(o, size) << "\n";
      return 2;
    }
    results.push_back(fromJson(j));
  }
  std::string table = renderTable(results, o);
  std::cout << table;
  if (!o.out.empty()) std::ofstream(o.out) << table;
  return 0;
}

/// The compile-count workloads (issue 33, ensureCompilesWorkload): `inductor-ls explain <dir>` on one log of
/// N compiles without a rank, timed whole (wall time and peak RSS from wait4) and by the server's own
/// "Indexed ... in N ms" line. Explain builds the same index as the server (compile health included).
int runCompiles(const Options &o) {
  std::vector<std::string> sizes = o.sizes;
  if (sizes.empty() || sizes.front().rfind("compiles-", 0) != 0)
    sizes = {"compiles-20k", "compiles-40k", "compiles-80k", "compiles-100k"};
  std::ostringstream table;
  table << "| workload | compiles | log MB | explain wall s | index ms | peak RSS MB | RSS per compile KB |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n";
  int status = 0;
  for (const std::string &size : sizes) {
    auto count = parseCompilesSpec(size);
    std::string error;
    bool generated = false;
    auto w = count ? ensureCompilesWorkload(*count, o.work, generated, error) : std::nullopt;
    if (!w) {
      std::cerr << "inductor-bench: " << (count ? error : "bad workload " + size + " (e.g. compiles-100k)")
                << "\n";
      return 2;
    }
    std::cerr << "[" << size << "] " << (generated ? "generated " : "cached ") << w->bytes << " bytes in "
              << w->log << std::endl;
    const std::string output = w->dir + "/explain.out";
    std::vector<std::string> args = {o.server, "explain", w->dir + "/trace"};
    std::vector<char *> argv;
    argv.reserve(args.size() + 1);
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    auto start = Clock::now();
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      std::cerr << "inductor-bench: cannot run " << o.server << ": " << std::strerror(rc) << "\n";
      return 2;
    }
    int waited = 0;
    struct rusage usage {};
    wait4(pid, &waited, 0, &usage);
    double wall = seconds(Clock::now() - start);
    std::string text = readFile(output);
    // "Indexed 1 trace file (...), N compiles (...) ... in M ms"
    std::string indexMs = "?";
    if (size_t at = text.find("Indexed "); at != std::string::npos) {
      size_t end = text.find(" ms", at), in = text.rfind(" in ", end);
      if (end != std::string::npos && in != std::string::npos && in > at)
        indexMs = text.substr(in + 4, end - in - 4);
    }
    bool counted = text.find(std::to_string(w->compiles) + " compiles") != std::string::npos;
    if (!WIFEXITED(waited) || WEXITSTATUS(waited) != 0 || !counted) {
      std::cerr << "[" << size << "] WRONG: explain failed or did not count " << w->compiles
                << " compiles (see " << output << ")\n";
      status = 1;
    }
    double rssMb = double(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KB on Linux.
    char row[256];
    std::snprintf(row, sizeof row, "| %s | %u | %.1f | %.2f | %s | %.0f | %.2f |\n", size.c_str(),
                  w->compiles, double(w->bytes) / 1e6, wall, indexMs.c_str(), rssMb,
                  double(usage.ru_maxrss) / double(w->compiles));
    table << row;
  }
  std::cout << table.str();
  if (!o.out.empty()) std::ofstream(o.out) << table.str();
  return status;
}

} // namespace

int benchMain(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  Options o;
  std::string command = args[0];
  if (command == "profile") return runProfileReads(std::vector<std::string>(args.begin() + 1, args.end()));
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--server")
      o.server = value();
    else if (a == "--fixtures")
      o.fixtures = value();
    else if (a == "--sizes")
      o.sizes = split(value(), ',');
    else if (a == "--work")
      o.work = value();
    else if (a == "--out")
      o.out = value();
    else if (a == "--requests")
      o.requests = std::stoul(value());
    else if (a == "--open-docs")
      o.openDocs = std::stoul(value());
    else if (a == "--starts")
      o.starts = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--no-append")
      o.append = false;
    else if (a == "--commit")
      o.commit = value();
    else if (a == "--llama")
      o.llama = value();
    else if (a == "--tlparse")
      o.tlparse = value();
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else
      return usage();
  }
  if (command == "table") return tableOnly(o);
  if (command == "compiles") {
    if (o.server.empty()) return usage();
    return runCompiles(o);
  }
  if (o.server.empty() || o.fixtures.empty()) return usage();
  if (command == "run") return runBenchmark(o);
  if (command != "smoke") return usage();
  // The CI smoke test: the 10M workload in a fresh directory, fewer requests, every answer checked.
  o.smoke = true;
  o.sizes = {"10M"};
  o.requests = 100;
  o.openDocs = 16;
  o.starts = 1;
  fs::create_directories("/tmp/inductor-bench");
  char dir[] = "/tmp/inductor-bench/smoke-XXXXXX";
  if (!mkdtemp(dir)) {
    std::cerr << "inductor-bench: mkdtemp failed: " << std::strerror(errno) << "\n";
    return 2;
  }
  o.work = dir;
  int status = runBenchmark(o);
  std::error_code ec;
  if (status == 0)
    fs::remove_all(o.work, ec);
  else
    std::cerr << "inductor-bench: kept " << o.work << " (server logs under */logs/)\n";
  return status;
}

} // namespace inductor::bench

int main(int argc, char **argv) {
  return inductor::bench::benchMain(argc, argv);
}
