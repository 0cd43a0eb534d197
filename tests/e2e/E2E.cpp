#include "e2e/E2E.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <unistd.h>

namespace inductor::e2e {

namespace fs = std::filesystem;

std::string withoutComparison(const std::string &title) {
  static const std::regex change(" \\((new|changed|\\+[^)]*|\xE2\x88\x92[^)]*)\\)");
  return std::regex_replace(title, change, "");
}

std::string show(const Loc &l) {
  return l.uri + ":" + std::to_string(l.line) + ":" + std::to_string(l.startChar) + "-" +
         (l.endLine == l.line ? "" : std::to_string(l.endLine) + ":") + std::to_string(l.endChar);
}

std::string show(const std::set<Loc> &locs) {
  std::string out = "{";
  for (const Loc &l : locs)
    out += "\n  " + show(l);
  return out + (locs.empty() ? "}" : "\n}");
}

Loc toLoc(const json &location) {
  Loc l;
  if (!location.is_object() || !location.contains("range")) return l;
  l.uri = location.value("uri", "");
  const json &r = location["range"];
  l.line = r["start"]["line"].get<uint32_t>();
  l.startChar = r["start"]["character"].get<uint32_t>();
  l.endLine = r["end"]["line"].get<uint32_t>();
  l.endChar = r["end"]["character"].get<uint32_t>();
  return l;
}

std::vector<Loc> toLocs(const json &locations) {
  std::vector<Loc> out;
  if (!locations.is_array()) return out;
  for (const json &l : locations)
    out.push_back(toLoc(l));
  return out;
}

std::set<Loc> toLocSet(const json &locations) {
  std::vector<Loc> v = toLocs(locations);
  return {v.begin(), v.end()};
}

json position(uint32_t line, uint32_t character) {
  return {{"line", line}, {"character", character}};
}

json textDocumentPosition(const std::string &uri, uint32_t line, uint32_t character) {
  return {{"textDocument", {{"uri", uri}}}, {"position", position(line, character)}};
}

uint32_t units(std::string_view bytes, bool utf8) {
  if (utf8) return static_cast<uint32_t>(bytes.size());
  uint32_t n = 0;
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    n += len == 4 ? 2 : 1; // Astral code points are surrogate pairs in UTF-16.
    i += len;
  }
  return n;
}

Loc originLoc(const Frame &f, bool utf8, const std::string &caseRoot) {
  std::string local = caseRoot.empty() ? localPath(f.path) : localPathIn(f.path, caseRoot);
  Loc l;
  l.uri = fileURI(local);
  l.line = l.endLine = f.line - 1;
  // A file that is not here: the text the trace recorded of it, an inductor-trace: document of its recorded
  // path (server/text/Convert.h recordedSourceURI), never a file:// URI an editor would open empty.
  if (!fs::exists(local)) {
    l.uri = "inductor-trace:/recorded-source" + fileURI(f.path).substr(std::string("file://").size());
    return l;
  }
  std::vector<std::string> lines = splitLines(readFile(local));
  if (l.line >= lines.size()) return l;
  const std::string &text = lines[l.line];
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) begin = text.size();
  size_t end = text.find_last_not_of(" \t");
  end = end == std::string::npos ? begin : end + 1;
  l.startChar = units(std::string_view(text).substr(0, begin), utf8);
  l.endChar = units(std::string_view(text).substr(0, end), utf8);
  return l;
}

std::set<Loc> originLocs(const std::set<Frame> &frames, bool utf8, const std::string &caseRoot) {
  std::set<Loc> out;
  for (const Frame &f : frames)
    out.insert(originLoc(f, utf8, caseRoot));
  return out;
}

Loc launchLoc(const std::string &uri, const std::string &text, const LaunchSite &s, bool utf8) {
  std::vector<std::string> lines = splitLines(text);
  std::string_view line = s.line < lines.size() ? std::string_view(lines[s.line]) : std::string_view();
  Loc l;
  l.uri = uri;
  l.line = l.endLine = s.line;
  l.startChar = units(line.substr(0, s.column), utf8);
  l.endChar = units(line.substr(0, s.column + s.kernel.size()), utf8);
  return l;
}

std::string ExpectedOutputCode::label() const {
  std::string out = "[" + record.compileId + "]";
  if (record.rank) out += " rank " + std::to_string(*record.rank);
  return out + " " + (path.empty() ? uri : path);
}

bool sameUpToDevice(const ExpectedOutputCode &a, const ExpectedOutputCode &b) {
  if (&a == &b || a.record.compileId != b.record.compileId || a.record.rank == b.record.rank ||
      a.text.size() != b.text.size())
    return false;
  static const std::regex device(R"((cuda:|index=|get_raw_stream\(|_DeviceGuard\(|set_device\(|stream)\d+)"),
      kernelFile(R"(/[a-z0-9]{2}/c[a-z0-9]{20,}\.py)");
  auto blanked = [](const std::string &text) {
    return std::regex_replace(std::regex_replace(text, device, "$1#"), kernelFile, "/#/c#.py");
  };
  return blanked(a.text) == blanked(b.text);
}

std::string ExpectedOutputCode::graphKind() const {
  if (record.aoti) return "AOT";
  size_t header = text.find("# AOT ID: ['");
  if (header != std::string::npos) {
    size_t end = text.find("']", header);
    std::string id = text.substr(header + 12, end - header - 12); // "0_forward"
    for (const char *kind : {"forward", "backward", "inference"})
      if (id.size() >= std::strlen(kind) &&
          id.compare(id.size() - std::strlen(kind), std::string::npos, kind) == 0)
        return kind;
  }
  // Without the header (cpp_wrapper's Python shell), TORCH_COMPILE_DEBUG's folder names the graph
  // (torch/_inductor/debug.py: `model__<aot id>_<kind>_<n>`).
  std::string dir = std::filesystem::path(path).parent_path().filename().string();
  for (const char *kind : {"forward", "backward", "inference"})
    if (dir.starts_with("model__") && dir.find(std::string("_") + kind + "_") != std::string::npos)
      return kind;
  return "other";
}

std::map<Frame, std::vector<LaunchRef>> launchesByUserLine(const std::vector<ExpectedOutputCode> &codes) {
  std::map<Frame, std::vector<LaunchRef>> out;
  for (const ExpectedOutputCode &code : codes)
    for (const LaunchSite &site : code.launches)
      for (const Frame &f : code.originsOf(site))
        out[f].push_back({&code, &site});
  return out;
}

std::string kernelKindOf(const std::string &kernel) {
  auto starts = [&](const char *p) { return kernel.rfind(p, 0) == 0; };
  if (starts("triton_poi_")) return "pointwise";
  if (starts("triton_per_")) return "persistent reduction";
  if (starts("triton_red_")) return "reduction";
  if (starts("cpp_")) return "C++";
  if (starts("extern_kernels.") || starts("aoti_torch_")) return "extern";
  return "unknown";
}

std::set<Frame> ExpectedOutputCode::originsOf(const LaunchSite &s) const {
  auto it = record.origins.find(s.key());
  return it == record.origins.end() ? std::set<Frame>{} : it->second;
}

std::string findVirtualOutputCode(LSPClient &client, const std::string &payload, const std::string &traceFile,
                                  std::optional<uint32_t> recordLine) {
  std::string logName = traceFile.empty() ? "" : "/" + fs::path(traceFile).filename().string() + "/";
  // The server names log-only code `<log>/<1-based envelope line>/<title>`.
  if (!logName.empty() && recordLine) logName += std::to_string(*recordLine + 1) + "/";
  json list = client.request("inductor/listArtifacts", json::object());
  if (!list.is_array()) return "";
  for (const json &a : list) {
    std::string uri = a.value("uri", "");
    std::string kind = a.value("kind", "");
    if (uri.rfind("inductor-trace:", 0) != 0 || (kind != "outputCode" && kind != "wrapperCode")) continue;
    if (!logName.empty() && uri.find(fileURI(logName).substr(7)) == std::string::npos) continue;
    json content = client.request("inductor/artifactContent", {{"uri", uri}});
    if (!content.is_object()) continue;
    std::string text = content.value("text", "");
    auto trim = [](std::string s) {
      while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
      return s;
    };
    if (trim(text) == trim(payload)) return uri;
  }
  return "";
}

namespace {

/// Text that identifies generated code across its copies: without trailing blank and comment-only lines
/// (the cache's `// Compile cmd` lines, a debug copy's closing note).
std::string identity(const std::string &text) {
  std::vector<std::string> lines = splitLines(text);
  while (!lines.empty()) {
    std::string t = lines.back();
    t.erase(0, t.find_first_not_of(" \t\r"));
    if (!t.empty() && t[0] != '#' && t.rfind("//", 0) != 0) break;
    lines.pop_back();
  }
  std::string out;
  for (const std::string &l : lines)
    out += l + "\n";
  return out;
}

/// 0: named after its graph by TORCH_COMPILE_DEBUG; 1: in a cache `c<hash>.debug/`; 2: a cache file.
int copyRank(const fs::path &p) {
  std::string name = p.filename().string();
  auto hashed = [](const std::string &stem) {
    return stem.size() >= 20 && stem[0] == 'c' && std::all_of(stem.begin() + 1, stem.end(), [](char c) {
             return std::isalnum(c) && !std::isupper(c);
           });
  };
  if (hashed(name.substr(0, name.find('.')))) return 2;
  std::string parent = p.parent_path().filename().string();
  if (parent.size() > 6 && parent.compare(parent.size() - 6, 6, ".debug") == 0 &&
      hashed(parent.substr(0, parent.size() - 6)))
    return 1;
  return 0;
}

/// The process id of a trace log: the third field of its first glog line (`V1127 14:32:52.870000 604 ...`).
std::string logPid(const std::string &log) {
  std::ifstream in(log);
  std::string level, time, pid;
  in >> level >> time >> pid;
  return pid;
}

/// Whether `dir` is a TORCH_COMPILE_DEBUG run directory (`run_<time>-pid_<pid>`) of a process other than
/// `pids`: another run's, which an answer about these logs' run never shows.
bool otherRunsDebugDir(const fs::path &dir, const std::set<std::string> &pids) {
  std::string name = dir.filename().string();
  size_t at = name.rfind("-pid_");
  return name.starts_with("run_") && at != std::string::npos && !pids.count(name.substr(at + 5));
}

/// The copy of `local` the server shows (see expectedOutputCodes): the most graph-like name, in these logs'
/// run.
std::string preferredCopy(const std::string &local, const std::vector<std::string> &roots,
                          const std::set<std::string> &pids) {
  std::string want = identity(readFile(local));
  std::string best = local;
  int bestRank = copyRank(local);
  for (const std::string &root : roots) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec) && otherRunsDebugDir(it->path(), pids)) {
        it.disable_recursion_pending();
        continue;
      }
      std::string name = it->path().filename().string();
      if (name != "output_code.py" && name != "output_code.cpp") continue;
      int rank = copyRank(it->path());
      std::string path = it->path().string();
      if ((rank < bestRank || (rank == bestRank && path < best)) && identity(readFile(path)) == want) {
        best = path;
        bestRank = rank;
      }
    }
  }
  return best;
}

} // namespace

std::vector<ExpectedOutputCode> expectedOutputCodes(const std::vector<std::string> &traceFiles,
                                                    LSPClient *client,
                                                    std::optional<std::vector<std::string>> searchRoots) {
  std::vector<ExpectedOutputCode> out;
  std::set<std::string> pids;
  for (const std::string &trace : traceFiles)
    pids.insert(logPid(trace));
  for (const std::string &trace : traceFiles) {
    // Recorded source path -> its lines here (trimmed), read once for all the frames of this log naming it.
    std::map<std::string, std::vector<std::string>> sourceLines;
    std::vector<std::string> roots;
    if (searchRoots) {
      roots = *searchRoots;
    } else if (fs::path(trace).parent_path().filename() == "trace") {
      roots.push_back(fs::path(trace).parent_path().parent_path().string());
    }
    for (OutputCodeRecord &r : readOutputCodes(trace)) {
      ExpectedOutputCode e;
      std::string local = r.recordedPath.empty() ? "" : localPath(r.recordedPath);
      // A case folder outside the fixtures (build/traces): its own copy, when the log sits in it.
      for (const std::string &root : roots)
        if (!local.empty() && !fs::exists(local)) local = localPathIn(r.recordedPath, root);
      if (!local.empty() && fs::exists(local)) {
        e.path = preferredCopy(local, roots, pids);
        e.uri = fileURI(e.path);
        e.text = readFile(e.path);
      } else if (client) {
        e.uri = findVirtualOutputCode(*client, r.payload, r.traceFile, r.line);
        e.text = r.payload;
      } else {
        continue;
      }
      e.launches = findLaunches(e.text);
      // Origins where their recorded text is now (the server follows the recorded text, never the number
      // alone); a line whose text is gone has no location.
      for (auto &[key, frames] : r.origins) {
        std::set<Frame> now;
        for (const Frame &f : frames) {
          auto [lines, fresh] = sourceLines.try_emplace(f.path);
          if (fresh) {
            std::string file = localPath(f.path);
            for (const std::string &root : roots)
              if (!fs::exists(file)) file = localPathIn(f.path, root);
            lines->second = trimmedLines(file);
          }
          if (std::optional<Frame> at = relocatedFrame(f, lines->second)) now.insert(*at);
        }
        frames = std::move(now);
      }
      e.record = std::move(r);
      out.push_back(std::move(e));
    }
  }
  return out;
}

TempDir::TempDir(const std::string &tag) {
  std::string pattern = "/tmp/inductor-e2e-" + tag + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data())) path_ = fs::canonical(buffer.data()).string();
  REQUIRE_MESSAGE(!path_.empty(), "mkdtemp " << pattern);
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string &relative, const std::string &content) const {
  fs::path p = fs::path(path_) / relative;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p.string();
}

LongLowering copyKernelIrWithLongLowering(const std::string &dir, size_t copies) {
  const std::string from = fs::canonical(fixturesDir() + "/traces/kernel_ir").string();
  for (const char *part : {"trace", "torch_compile_debug", "inductor_cache", "model.py"})
    fs::copy(from + "/" + part, dir + "/" + part, fs::copy_options::recursive);
  for (auto &f : fs::recursive_directory_iterator(dir))
    fs::permissions(f.path(), fs::perms::owner_write, fs::perm_options::add);
  // Kernels compiled once: their name names one entry (an autotuned one has an entry per config).
  std::map<std::string, std::vector<fs::path>> byName;
  for (auto &f : fs::recursive_directory_iterator(dir + "/inductor_cache/triton"))
    if (f.path().extension() == ".ptx") byName[f.path().stem().string()].push_back(f.path());
  std::regex fileRe(R"(^\s*\.file\s+(\d+)\s+\"[^\"]*/([^/\"]+\.py)\")"),
      locRe(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s)");
  for (const auto &[name, paths] : byName) {
    if (paths.size() != 1) continue;
    std::vector<std::string> lines = splitLines(readFile(paths[0].string()));
    std::map<std::string, std::string> files; // .file number -> kernel file name
    for (const std::string &l : lines) {
      std::smatch m;
      if (std::regex_search(l, m, fileRe)) files[m[1]] = m[2];
    }
    // The first `.loc` of a kernel file without an inlined chain, and the instruction after it.
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      std::smatch m;
      if (!std::regex_search(lines[i], m, locRe) || !files.count(m[1]) ||
          lines[i].find("@[") != std::string::npos)
        continue;
      const std::string &next = lines[i + 1];
      size_t b = next.find_first_not_of(" \t");
      if (b == std::string::npos || next[b] == '.' || next[b] == '/' || next[b] == '$') continue;
      LongLowering out;
      out.ptx = paths[0].string();
      out.line = static_cast<uint32_t>(std::stoul(m[2])) - 1;
      for (auto &f : fs::recursive_directory_iterator(dir + "/inductor_cache"))
        if (f.path().filename() == files[m[1]]) out.kernelFile = f.path().string();
      if (out.kernelFile.empty()) continue;
      lines.insert(lines.begin() + static_cast<long>(i) + 2, copies, next);
      std::string text;
      for (const std::string &l : lines)
        text += l + "\n";
      std::ofstream(out.ptx, std::ios::trunc) << text;
      // The test's own reading: instruction lines of the body under a `.loc` of that file and line (an
      // inlined chain's innermost `@[ file:line:` taken instead, as the kernel line that called it).
      std::regex chainRe(R"(@\[ ([^ :]+):(\d+):)");
      bool here = false;
      for (size_t k = 0; k < lines.size(); ++k) {
        std::smatch lm;
        if (std::regex_search(lines[k], lm, locRe)) {
          std::string f = files.count(lm[1]) ? files[lm[1]] : "";
          unsigned long l = std::stoul(lm[2]);
          std::string rest = lines[k];
          for (std::smatch c; std::regex_search(rest, c, chainRe); rest = c.suffix()) {
            f = c[1];
            l = std::stoul(c[2]);
          }
          here = f == files[m[1]] && l == out.line + 1;
          continue;
        }
        size_t c = lines[k].find_first_not_of(" \t");
        if (c == std::string::npos || lines[k][c] == '.' || lines[k][c] == '/' || lines[k][c] == '$' ||
            lines[k][c] == '{' || lines[k][c] == '}' || lines[k].back() == ':')
          continue;
        if (here) out.ptxLines.push_back(static_cast<uint32_t>(k));
      }
      return out;
    }
  }
  FAIL("kernel_ir has no PTX of a kernel compiled once with a .loc of its file");
  return {};
}

Session::Session(const std::string &root, json initializationOptions, json capabilities, ServerConfig config)
    : client(std::move(config)) {
  initializeResult = client.initialize(root, std::move(initializationOptions), std::move(capabilities));
}

namespace {

/// The per-fixture table, printed when the test binary exits (after doctest's own summary). One object, so
/// that the table cannot be destroyed before it is printed.
struct StatsTable {
  std::mutex mutex;
  std::map<std::string, FixtureStats> rows;
  ~StatsTable() {
    if (rows.empty()) return;
    std::printf("\ninductor-ls e2e, per fixture: launch sites that navigate to a user line / launch sites; "
                "user lines with lenses\n");
    for (const auto &[name, s] : rows)
      std::printf("  %-40s %4zu / %-4zu %4zu user lines with lenses\n", name.c_str(), s.launchesWithUserLine,
                  s.launches, s.userLinesWithLenses);
    std::fflush(stdout);
  }
} stats;

} // namespace

void recordStats(const std::string &fixture, const FixtureStats &s) {
  std::lock_guard<std::mutex> lock(stats.mutex);
  stats.rows[fixture] = s;
}

void recordUserLinesWithLenses(const std::string &fixture, size_t count) {
  std::lock_guard<std::mutex> lock(stats.mutex);
  stats.rows[fixture].userLinesWithLenses = count;
}

void recordLaunches(const std::string &fixture, size_t launches, size_t withUserLine) {
  std::lock_guard<std::mutex> lock(stats.mutex);
  stats.rows[fixture].launches = launches;
  stats.rows[fixture].launchesWithUserLine = withUserLine;
}

} // namespace inductor::e2e
