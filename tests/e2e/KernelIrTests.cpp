// tests/e2e/KernelIrTests.cpp: kernel internals on kernel_ir (a Triton cache inside the Inductor cache):
// every Triton launch joined to its cache entry, hover values equal to the metadata JSON,
// `inductor/lowered`'s PTX lines equal to those the test's own parse of the .ptx attributes to the kernel
// line, definition from a PTX line to the kernel line and on to the model line, and document symbols of IR
// files. Expected values come from the fixture's files, read here (cache folders listed, JSON and IR parsed
// by regex).
#include "e2e/E2E.h"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <set>
#include <tuple>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

std::string caseRoot() {
  return fs::canonical(fixturesDir() + "/traces/kernel_ir").string();
}

/// A cache entry as the test reads it.
struct EntryOracle {
  std::string dir, name, kernelFile; ///< kernelFile: the file name the .source's first loc names.
  std::string hash;                  ///< The entry folder's name (the cache key).
  long numWarps = -1, numStages = -1, shared = -1;
  /// Named by a .best_config beside its own kernel file (autotune_cache.py writes the choice for a kernel
  /// file into that file's folder; another rank's kernel file of the same name has a choice of its own).
  bool chosen = false;
  int rank = 0; ///< N of `triton/N/`: the device that compiled it.
};

long jsonNumber(const std::string &text, const std::string &key) {
  std::smatch m;
  return std::regex_search(text, m, std::regex("\"" + key + "\": (\\d+)")) ? std::stol(m[1]) : -1;
}

/// The entries of a case's Triton cache, every rank's (`inductor_cache/triton/<rank>/<hash>/`).
std::vector<EntryOracle> cacheEntries(const std::string &root = caseRoot()) {
  std::vector<EntryOracle> out;
  for (auto &r : fs::directory_iterator(root + "/inductor_cache/triton"))
    for (auto &d : fs::directory_iterator(r.path())) {
      EntryOracle e;
      e.dir = d.path().string();
      e.hash = d.path().filename().string();
      e.rank = std::stoi(r.path().filename().string());
      for (auto &f : fs::directory_iterator(d.path())) {
        std::string n = f.path().filename().string();
        if (f.path().extension() == ".json" && n.rfind("__grp__", 0) != 0) e.name = f.path().stem().string();
      }
      std::string json = readFile(e.dir + "/" + e.name + ".json");
      e.numWarps = jsonNumber(json, "num_warps");
      e.numStages = jsonNumber(json, "num_stages");
      e.shared = jsonNumber(json, "shared");
      std::smatch m;
      std::string source = readFile(e.dir + "/" + e.name + ".source");
      // The kernel file as recorded on the machine that ran: `.../inductor_cache/<xy>/c<hash>.py`.
      REQUIRE(
          std::regex_search(source, m, std::regex("loc\\(\"[^\"]*/inductor_cache/([^/\"]+)/([^/\"]+)\":")));
      e.kernelFile = m[2];
      // Its .best_config files: in the case's copy of that folder.
      std::string folder = root + "/inductor_cache/" + std::string(m[1]);
      if (fs::is_directory(folder))
        for (auto &f : fs::directory_iterator(folder)) {
          if (f.path().extension() != ".best_config") continue;
          std::string text = readFile(f.path().string());
          if (text.find("\"triton_cache_hash\": \"" + e.hash + "\"") != std::string::npos) e.chosen = true;
        }
      out.push_back(e);
    }
  return out;
}

/// Triton launches of an output code: (line, column of the kernel name, kernel name, its kernel file name).
struct LaunchOracle {
  uint32_t line = 0, column = 0;
  std::string kernel, kernelFile;
};

std::vector<LaunchOracle> tritonLaunches(const std::string &text) {
  std::vector<std::string> lines = splitLines(text);
  std::map<std::string, std::string> fileOf; // kernel -> kernel file name
  std::string lastPath;
  std::regex pathRe(R"(^# kernel path: .*/([^/]+\.py)$)"),
      defRe(R"(^(triton_\w+) = async_compile\.triton\()"), runRe(R"(^(\s+)(triton_\w+)\.run\()");
  std::vector<LaunchOracle> out;
  bool inSource = false; // Inside a kernel's embedded source (its benchmark harness launches it too).
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (inSource) {
      inSource = lines[i].rfind("''', device_str=", 0) != 0;
      continue;
    }
    if (std::regex_search(lines[i], m, pathRe)) lastPath = m[1];
    if (std::regex_search(lines[i], m, defRe)) {
      fileOf[m[1]] = lastPath;
      inSource = true;
    }
    if (std::regex_search(lines[i], m, runRe))
      out.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(m[1].length()), m[2], fileOf[m[2]]});
  }
  return out;
}

std::vector<std::string> outputCodes(const std::string &root = caseRoot()) {
  std::vector<std::string> out;
  for (auto &f : fs::recursive_directory_iterator(root + "/torch_compile_debug"))
    if (f.path().filename() == "output_code.py") out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The entry a launch ran, as the files say: of its name and kernel file, compiled on its device, the
/// autotuner's choice of several.
struct ExpectedJoin {
  enum class Kind {
    Entry,    ///< `entry` is it.
    Unchosen, ///< Several could be it and no .best_config beside the kernel file chose one (compiled for
              ///< each config, never autotuned: it did not run).
    NoSource, ///< No entry compiled its kernel file (a max-autotune template runs the entry compiled from
              ///< its benchmark module, another file whose text the case does not keep).
    NoName,   ///< No entry of its name at all.
  } kind = Kind::NoName;
  const EntryOracle *entry = nullptr;
};

ExpectedJoin expectedJoin(const std::vector<EntryOracle> &entries, const LaunchOracle &l, int device = 0) {
  std::vector<const EntryOracle *> candidates, chosen;
  for (const EntryOracle &e : entries)
    if (e.name == l.kernel && e.kernelFile == l.kernelFile && e.rank == device) {
      candidates.push_back(&e);
      if (e.chosen) chosen.push_back(&e);
    }
  if (candidates.empty()) {
    bool named =
        std::any_of(entries.begin(), entries.end(), [&](const EntryOracle &e) { return e.name == l.kernel; });
    return {named ? ExpectedJoin::Kind::NoSource : ExpectedJoin::Kind::NoName, nullptr};
  }
  if (candidates.size() == 1) return {ExpectedJoin::Kind::Entry, candidates.front()};
  REQUIRE_MESSAGE(chosen.size() <= 1, l.kernel << ": two entries chosen for one kernel file");
  if (chosen.empty()) return {ExpectedJoin::Kind::Unchosen, nullptr};
  return {ExpectedJoin::Kind::Entry, chosen.front()};
}

const EntryOracle *expectedEntryOrNull(const std::vector<EntryOracle> &entries, const LaunchOracle &l,
                                       int device = 0) {
  return expectedJoin(entries, l, device).entry;
}

const EntryOracle &expectedEntry(const std::vector<EntryOracle> &entries, const LaunchOracle &l,
                                 int device = 0) {
  const EntryOracle *e = expectedEntryOrNull(entries, l, device);
  REQUIRE_MESSAGE(e, l.kernel << ": several entries, none chosen");
  return *e;
}

std::string sharedText(long bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

/// PTX line numbers (0-based) the test attributes to line `kernelLine` of `kernelFile`: instruction lines of
/// the function body under a `.loc` naming it (the innermost `@[ file:line:col` of an inlined chain first).
std::vector<uint32_t> ptxLinesOf(const std::string &ptx, const std::string &kernelFile, long kernelLine) {
  std::vector<std::string> lines = splitLines(ptx);
  std::map<std::string, std::string> files;
  std::regex fileRe(R"(^\s*\.file\s+(\d+)\s+\"[^\"]*/([^/\"]+)\")"), locRe(R"(^\s*\.loc\s+(\d+)\s+(\d+))"),
      chainRe(R"(@\[ ([^ :]+):(\d+):)");
  for (const auto &l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, fileRe)) files[m[1]] = m[2];
  }
  std::vector<uint32_t> out;
  bool body = false, here = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &l = lines[i];
    if (l == "{" || l == "}") {
      body = l == "{";
      continue;
    }
    if (!body) continue;
    std::smatch m;
    if (std::regex_search(l, m, locRe)) {
      std::string f = files[m[1]];
      long line = std::stol(m[2]);
      std::string rest = l;
      for (std::smatch c; std::regex_search(rest, c, chainRe); rest = c.suffix()) {
        f = c[1];
        line = std::stol(c[2]);
      }
      here = f == kernelFile && line == kernelLine;
      continue;
    }
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string::npos || l[b] == '.' || l[b] == '/' || l[b] == '$' || l[b] == '{' || l[b] == '}')
      continue;
    if (here) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

} // namespace

/// explain --json's answer for a case.
json explainJson(const std::string &root) {
  std::string cmd = "cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --json --no-python '" + root +
                    "' 2>/dev/null";
  FILE *pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;)
    out.append(buf, n);
  REQUIRE(::pclose(pipe) == 0);
  json j = json::parse(out, nullptr, false);
  REQUIRE(j.is_object());
  return j;
}

/// Every Triton launch of every output code of a case, on every rank and in every graph: its hover and its
/// explain --json `kernels` entries (one per kernel source: the entries of its name, rank and kernel file)
/// give the metadata of the entry the test expects (of the launch's device, read from the code's
/// `get_raw_stream(N)`; of several, the one a .best_config beside the kernel file chose), registers from its
/// cubin, and links into that entry's folder; a launch whose entry nothing chose is said to be unknown, never
/// given another's values. Returns the launches checked: joined, and said to have no entry (both kinds).
std::pair<size_t, size_t> checkEveryLaunchJoined(const std::string &root) {
  Session s(root);
  std::vector<EntryOracle> entries = cacheEntries(root);
  REQUIRE(entries.size() >= 10);
  json explained = explainJson(root);
  REQUIRE(explained["kernels"].is_array());
  bool ranked = fs::exists(root + "/inductor_cache/triton/1");
  size_t joined = 0, unresolved = 0;
  for (const std::string &path : outputCodes(root)) {
    std::string text = readFile(path);
    std::smatch device;
    int rank =
        std::regex_search(text, device, std::regex(R"(get_raw_stream\((\d+)\))")) ? std::stoi(device[1]) : 0;
    for (const LaunchOracle &l : tritonLaunches(text)) {
      ExpectedJoin expected = expectedJoin(entries, l, rank);
      const EntryOracle *e = expected.entry;
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(fileURI(path), l.line, l.column + 1));
      REQUIRE_MESSAGE(hover.is_object(), l.kernel);
      std::string md = hover["contents"]["value"];
      INFO(path << " " << l.kernel << " (device " << rank << ")\n" << md);
      // Its explain entries: this name, compiled for this rank from this kernel file.
      std::vector<json> mine;
      for (const json &k : explained["kernels"])
        if (k["name"] == l.kernel && (!ranked || k["rank"] == rank) && k["kernelPath"].is_string() &&
            fs::path(k["kernelPath"].get<std::string>()).filename() == l.kernelFile)
          mine.push_back(k);
      REQUIRE_MESSAGE(!mine.empty(), "no explain --json kernels entry for " << l.kernel);
      if (!e) {
        // No values, never another entry's: and the reason.
        std::string why = expected.kind == ExpectedJoin::Kind::Unchosen ? "autotuner recorded no choice"
                          : expected.kind == ExpectedJoin::Kind::NoSource
                              ? "no cache entry compiled this kernel's source"
                              : "no Triton cache entry of this kernel";
        CHECK(md.find("**Triton:** num_warps") == std::string::npos);
        CHECK(md.find(why) != std::string::npos);
        for (const json &k : mine) {
          CHECK(k["cacheEntry"].is_null());
          CHECK(k["numWarps"].is_null());
          CHECK(k["join"].get<std::string>().find(why) != std::string::npos);
        }
        ++unresolved;
        continue;
      }
      std::string want = "**Triton:** num_warps " + std::to_string(e->numWarps) + " · num_stages " +
                         std::to_string(e->numStages) + " · " + sharedText(e->shared) + " shared · ";
      CHECK(md.find(want) != std::string::npos);
      // Registers from the cubin (every entry here has one), never "unknown".
      CHECK(std::regex_search(md, std::regex(R"(shared · \d+ registers · \d+ spills)")));
      // The IR links point into the entry's folder: of this device's cache.
      CHECK(md.find(fileURI(e->dir + "/" + e->name + ".ptx")) != std::string::npos);
      if (e->chosen) CHECK(md.find("**Autotuned:** ") != std::string::npos);
      for (const json &k : mine) {
        INFO(k.dump());
        CHECK(k["cacheEntry"] == e->dir);
        CHECK(k["numWarps"] == e->numWarps);
        CHECK(k["numStages"] == e->numStages);
        CHECK(k["sharedBytes"] == e->shared);
        CHECK(k["registers"].is_number_integer());
        CHECK(k["spills"] == 0);
        CHECK(k["ir"]["ptx"] == e->dir + "/" + e->name + ".ptx");
        CHECK(!k["compileId"].get<std::string>().empty());
        CHECK(k["graph"].is_string());
      }
      ++joined;
    }
  }
  return {joined, unresolved};
}

TEST_CASE(
    "kernel_ir: every Triton launch is joined to its cache entry; hover values equal the metadata JSON") {
  auto [joined, unresolved] = checkEveryLaunchJoined(caseRoot());
  CHECK(joined >= 8);
  CHECK(unresolved == 0);
}

TEST_CASE("every launch of every traced Triton cache joins its own entry, per rank, graph and compile") {
  // kernel_ranks: two ranks' caches share one kernel file and .best_config per kernel. fsdp_ranks: four ranks
  // whose kernel files name their device, each autotuned on its own (rank 0 chose another XBLOCK than ranks
  // 1-3 for one kernel), and rank 3's recompiled backward compiled but never run (no choice recorded).
  // kernel_autotune, kernel_perf: max-autotune templates with many entries per name.
  struct Want {
    const char *name;
    size_t joined, unresolved;
  };
  for (Want w : {Want{"kernel_ranks", 16, 0}, Want{"fsdp_ranks", 130, 1}, Want{"kernel_autotune", 0, 5},
                 Want{"kernel_perf", 8, 0}}) {
    CAPTURE(w.name);
    std::string root = fs::canonical(INDUCTOR_TRACES_DIR).string() + "/" + w.name;
    REQUIRE(fs::exists(root + "/inductor_cache/triton"));
    auto [joined, unresolved] = checkEveryLaunchJoined(root);
    MESSAGE(std::string(w.name) << ": " << joined << " launches joined, " << unresolved
                                << " without an entry");
    CHECK(joined >= w.joined);
    CHECK(unresolved >= w.unresolved);
  }
}

TEST_CASE("kernel_ir: inductor/lowered gives exactly the PTX lines under the .loc lines of a kernel line") {
  Session s(caseRoot());
  std::vector<EntryOracle> entries = cacheEntries();
  size_t total = 0, found = 0, requests = 0;
  for (const std::string &path : outputCodes()) {
    std::string text = readFile(path);
    std::vector<std::string> lines = splitLines(text);
    std::set<std::string> seen;
    for (const LaunchOracle &l : tritonLaunches(text)) {
      if (!seen.insert(l.kernel).second) continue;
      const EntryOracle &e = expectedEntry(entries, l);
      std::string ptxPath = e.dir + "/" + e.name + ".ptx";
      std::string ptx = readFile(ptxPath);
      // The kernel's source in the output code: from the line after `'''` to the closing `''', ...`.
      size_t open = 0;
      for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].rfind(l.kernel + " = async_compile.triton(", 0) == 0) open = i;
      REQUIRE(open > 0);
      for (size_t i = open + 1; i < lines.size() && lines[i].rfind("''', device_str=", 0) != 0; ++i) {
        long kernelLine = static_cast<long>(i - open) + 1; // Kernel file line 1 is the rest of the ''' line.
        std::vector<uint32_t> want = ptxLinesOf(ptx, l.kernelFile, kernelLine);
        json r = s.client.request("inductor/lowered",
                                  textDocumentPosition(fileURI(path), static_cast<uint32_t>(i), 0));
        ++requests;
        REQUIRE(r.is_array());
        std::vector<uint32_t> got;
        for (const json &stage : r)
          if (stage["stage"] == "ptx")
            for (const json &loc : stage["locations"]) {
              CHECK_MESSAGE(loc["uri"] == fileURI(ptxPath), "a PTX line from another kernel");
              got.push_back(loc["range"]["start"]["line"]);
            }
        INFO(l.kernel << " kernel line " << kernelLine);
        for (uint32_t g : got)
          CHECK_MESSAGE(std::find(want.begin(), want.end(), g) != want.end(), "PTX line " << g + 1);
        total += want.size();
        for (uint32_t w : want)
          found += std::find(got.begin(), got.end(), w) != got.end();
        if (!want.empty()) CHECK(r.size() == 4); // ttir, ttgir, llir, ptx
      }
    }
  }
  CHECK(requests > 100);
  REQUIRE(total > 100);
  CHECK(found == total);
}

TEST_CASE("kernel_ir: definition on any line of a Triton kernel's source in output code = on its def") {
  Session s(caseRoot());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(filesIn(caseRoot() + "/trace"), &s.client);
  size_t kernels = 0;
  for (const ExpectedOutputCode &c : codes) {
    // The test's own reading of the code: `async_compile.triton('NAME', '''` opens a kernel's source, `def
    // NAME(` is in it, and the line holding `''', device_str=` closes it.
    std::vector<std::string> lines = splitLines(c.text);
    std::regex openRe(R"(async_compile\.triton\('(\w+)', ''')");
    for (uint32_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (!std::regex_search(lines[i], m, openRe)) continue;
      std::string name = m[1];
      uint32_t def = 0, end = i + 1;
      for (; end < lines.size() && lines[end].find("''', device_str=") == std::string::npos; ++end)
        if (lines[end].rfind("def " + name + "(", 0) == 0) def = end;
      REQUIRE(def > i);
      REQUIRE(end < lines.size());
      INFO(c.label() << " " << name);
      json atDef = s.client.request("textDocument/definition", textDocumentPosition(c.uri, def, 5));
      REQUIRE(atDef.is_array());
      REQUIRE(!atDef.empty());
      // Each line of its source but the def: imports, decorators, body, blank lines.
      for (uint32_t l = i + 1; l < end; ++l) {
        if (l == def) continue;
        json d = s.client.request("textDocument/definition", textDocumentPosition(c.uri, l, 0));
        CHECK_MESSAGE(d == atDef, "line " << l << ": " << lines[l]);
      }
      i = end;
      ++kernels;
    }
  }
  CHECK(kernels >= 8);
}

TEST_CASE("kernel_ir: a PTX line -> its kernel line -> the model line; IR document symbols") {
  Session s(caseRoot());
  std::vector<EntryOracle> entries = cacheEntries();
  size_t checked = 0;
  for (const EntryOracle &e : entries) {
    if (!e.chosen && std::count_if(entries.begin(), entries.end(),
                                   [&](const EntryOracle &o) { return o.name == e.name; }) > 1)
      continue;
    std::string ptxPath = e.dir + "/" + e.name + ".ptx";
    std::string ptx = readFile(ptxPath);
    std::string kernelPath;
    for (auto &f : fs::recursive_directory_iterator(caseRoot() + "/inductor_cache"))
      if (f.path().filename() == e.kernelFile) kernelPath = f.path().string();
    REQUIRE(!kernelPath.empty());
    // Document symbols: the kernel, at its `.entry` line.
    json symbols =
        s.client.request("textDocument/documentSymbol", {{"textDocument", {{"uri", fileURI(ptxPath)}}}});
    REQUIRE(symbols.is_array());
    REQUIRE(symbols.size() == 1);
    CHECK(symbols[0]["name"] == e.name);
    // The first instruction under a `.loc 1 L` of the kernel's own file: definition leads to line L.
    std::vector<std::string> lines = splitLines(ptx);
    std::regex locRe(R"(^\s*\.loc\s+1\s+(\d+)\s+\d+\s+//[^@]*$)");
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      std::smatch m;
      if (!std::regex_search(lines[i], m, locRe) || std::stol(m[1]) == 0) continue;
      size_t b = lines[i + 1].find_first_not_of(" \t");
      if (b == std::string::npos || std::string(".$/{}").find(lines[i + 1][b]) != std::string::npos) continue;
      json defs = s.client.request("textDocument/definition",
                                   textDocumentPosition(fileURI(ptxPath), static_cast<uint32_t>(i + 1), 1));
      REQUIRE(defs.is_array());
      REQUIRE_MESSAGE(defs.size() == 1, e.name << " line " << i + 2);
      CHECK(defs[0]["uri"] == fileURI(kernelPath));
      CHECK(defs[0]["range"]["start"]["line"] == std::stol(m[1]) - 1);
      // The `.loc` line itself goes to the line it names too.
      json onLoc = s.client.request("textDocument/definition",
                                    textDocumentPosition(fileURI(ptxPath), static_cast<uint32_t>(i), 2));
      REQUIRE(onLoc.is_array());
      REQUIRE_MESSAGE(onLoc.size() == 1, e.name << " .loc line " << i + 1);
      CHECK(onLoc[0]["uri"] == fileURI(kernelPath));
      CHECK(onLoc[0]["range"]["start"]["line"] == std::stol(m[1]) - 1);
      // On to the model: definition on the kernel's `def` line of that file -> model.py.
      std::string kernelText = readFile(kernelPath);
      std::istringstream kin(kernelText);
      uint32_t defLine = 0, n = 0;
      for (std::string l; std::getline(kin, l); ++n)
        if (l.rfind("def " + e.name + "(", 0) == 0) defLine = n;
      json model =
          s.client.request("textDocument/definition", textDocumentPosition(fileURI(kernelPath), defLine, 5));
      REQUIRE(model.is_array());
      REQUIRE(!model.empty());
      for (const json &loc : model)
        CHECK(loc["uri"] == fileURI(caseRoot() + "/model.py"));
      // The line the PTX led to is one of the kernel's body: it leads to the same model lines as the def.
      uint32_t bodyLine = static_cast<uint32_t>(std::stol(m[1]) - 1);
      CHECK(bodyLine > defLine);
      json fromBody =
          s.client.request("textDocument/definition", textDocumentPosition(fileURI(kernelPath), bodyLine, 4));
      CHECK(fromBody == model);
      ++checked;
      break;
    }
  }
  CHECK(checked >= 8);
}

TEST_CASE(
    "kernel_ir: inductor/lowered latency on the kernel with the largest PTX (figure for bench/README.md)") {
  Session s(caseRoot());
  std::vector<EntryOracle> entries = cacheEntries();
  const EntryOracle *largest = nullptr;
  uintmax_t size = 0;
  for (const EntryOracle &e : entries)
    if (uintmax_t n = fs::file_size(e.dir + "/" + e.name + ".ptx"); n > size) {
      size = n;
      largest = &e;
    }
  REQUIRE(largest);
  std::string kernelPath;
  for (auto &f : fs::recursive_directory_iterator(caseRoot() + "/inductor_cache"))
    if (f.path().filename() == largest->kernelFile) kernelPath = f.path().string();
  REQUIRE(!kernelPath.empty());
  std::string uri = fileURI(kernelPath);
  size_t lines = 0;
  for (char c : readFile(kernelPath))
    lines += c == '\n';
  s.client.request("inductor/lowered", textDocumentPosition(uri, 0, 0)); // The index is ready.
  std::vector<double> ms;
  for (int round = 0; round < 5; ++round)
    for (uint32_t l = 0; l < lines; ++l) {
      auto start = std::chrono::steady_clock::now();
      json r = s.client.request("inductor/lowered", textDocumentPosition(uri, l, 0));
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      REQUIRE(r.is_array());
    }
  std::sort(ms.begin(), ms.end());
  double p50 = ms[ms.size() / 2], p99 = ms[ms.size() * 99 / 100];
  MESSAGE("inductor/lowered on " << largest->name << " (" << size << " B of PTX), " << ms.size()
                                 << " requests: p50 " << p50 << " ms, p99 " << p99 << " ms");
  CHECK(ms.size() > 100);
}

TEST_CASE("kernel_ir: inlay hints count the PTX instructions of each kernel line") {
  Session s(caseRoot());
  std::vector<EntryOracle> entries = cacheEntries();
  size_t hints = 0;
  for (const EntryOracle &e : entries) {
    if (!e.chosen && std::count_if(entries.begin(), entries.end(),
                                   [&](const EntryOracle &o) { return o.name == e.name; }) > 1)
      continue;
    std::string kernelPath;
    for (auto &f : fs::recursive_directory_iterator(caseRoot() + "/inductor_cache"))
      if (f.path().filename() == e.kernelFile) kernelPath = f.path().string();
    REQUIRE(!kernelPath.empty());
    std::string ptx = readFile(e.dir + "/" + e.name + ".ptx");
    std::string text = readFile(kernelPath);
    uint32_t lines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
    json r = s.client.request("textDocument/inlayHint",
                              {{"textDocument", {{"uri", fileURI(kernelPath)}}},
                               {"range", {{"start", position(0, 0)}, {"end", position(lines, 0)}}}});
    REQUIRE(r.is_array());
    std::map<uint32_t, std::string> got;
    for (const json &h : r)
      got[h["position"]["line"].get<uint32_t>()] = h["label"].get<std::string>();
    for (uint32_t l = 0; l < lines; ++l) {
      size_t want = ptxLinesOf(ptx, e.kernelFile, l + 1).size();
      INFO(e.name << " line " << l + 1);
      if (want == 0) {
        CHECK(got.count(l) == 0);
      } else {
        CHECK(got[l] == std::to_string(want) + " PTX");
        ++hints;
      }
    }
  }
  CHECK(hints > 50);
}

TEST_CASE("kernel_ir: explain --json `kernels` lists each kernel source once per graph, with its identity") {
  json j = explainJson(caseRoot());
  REQUIRE(j["kernels"].is_array());
  // The test's count: per output code, its distinct launched Triton kernels.
  size_t expected = 0;
  for (const std::string &path : outputCodes()) {
    std::set<std::string> names;
    for (const LaunchOracle &l : tritonLaunches(readFile(path)))
      names.insert(l.kernel);
    expected += names.size();
  }
  CHECK(j["kernels"].size() == expected);
  std::set<std::tuple<std::string, std::string, std::string>> identities;
  for (const json &k : j["kernels"]) {
    INFO(k.dump());
    CHECK(k["rank"].is_null());
    auto identity = std::make_tuple(k["name"].get<std::string>(), k["compileId"].get<std::string>(),
                                    k["graph"].get<std::string>());
    CHECK(identities.insert(identity).second); // Never two entries of one identity.
    for (const char *unknown : {"numGb", "flop", "achievedGbPerS", "achievedTflopPerS"})
      CHECK(k[unknown].is_null());
  }
}
