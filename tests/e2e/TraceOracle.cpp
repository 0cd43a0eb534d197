#include "e2e/TraceOracle.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace inductor::e2e {

namespace fs = std::filesystem;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    std::string line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = nl + 1;
  }
  return lines;
}

std::string fileURI(const std::string &path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string fixturesDir() {
  static const std::string dir = fs::canonical(INDUCTOR_FIXTURES_DIR).string();
  return dir;
}

std::string compileIdText(const json &envelope) {
  if (!envelope.contains("frame_id") || !envelope["frame_id"].is_number()) return "";
  std::string id = std::to_string(envelope["frame_id"].get<int>()) + "/" +
                   std::to_string(envelope.value("frame_compile_id", 0));
  if (envelope.contains("compiled_autograd_id") && envelope["compiled_autograd_id"].is_number())
    id = "!" + std::to_string(envelope["compiled_autograd_id"].get<int>()) + "/" + id;
  return id;
}

std::string caseDir(const std::string &name) {
  return fixturesDir() + "/traces/" + name;
}

std::string localPath(const std::string &recordedPath) {
  const std::string prefix = "/tmp/work/";
  if (recordedPath.rfind(prefix, 0) == 0) {
    std::string local = fixturesDir() + "/traces/" + recordedPath.substr(prefix.size());
    if (fs::exists(local)) return local;
  }
  return recordedPath;
}

std::vector<std::string> caseFolders() {
  std::vector<std::string> out;
  for (const std::string &parent : {fixturesDir() + "/traces", fs::canonical(INDUCTOR_TRACES_DIR).string()})
    for (const auto &e : fs::directory_iterator(parent))
      if (e.is_directory() && fs::is_directory(e.path() / "trace")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string localPathIn(const std::string &recordedPath, const std::string &caseRoot) {
  const std::string prefix = "/tmp/work/" + fs::path(caseRoot).filename().string() + "/";
  if (recordedPath.rfind(prefix, 0) == 0) {
    std::string local = caseRoot + "/" + recordedPath.substr(prefix.size());
    if (fs::exists(local)) return local;
  }
  const std::string site = "/site-packages/";
  if (size_t p = recordedPath.rfind(site); p != std::string::npos) {
    std::string local = caseRoot + site + recordedPath.substr(p + site.size());
    if (fs::exists(local)) return local;
  }
  return localPath(recordedPath);
}

std::vector<std::string> filesIn(const std::string &dir, const std::string &prefix,
                                 const std::string &suffix) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind(prefix, 0) != 0) continue;
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Logs.

namespace {

/// The JSON part of an envelope line `V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126] {...}`, or
/// nullopt. Parsed by hand: std::regex recurses per character and overflows the stack on 100 kB lines.
std::optional<std::string_view> envelopeJson(std::string_view line) {
  if (line.size() < 6 || std::string_view("VIWEDC").find(line[0]) == std::string_view::npos)
    return std::nullopt;
  for (size_t i = 1; i <= 4; ++i)
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return std::nullopt;
  if (line[5] != ' ') return std::nullopt;
  size_t close = line.find("] ");
  if (close == std::string_view::npos) return std::nullopt;
  return line.substr(close + 2);
}

} // namespace

std::vector<TraceRecord> readTraceLog(const std::string &path) {
  std::vector<TraceRecord> records;
  std::vector<std::string> lines = splitLines(readFile(path));
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<std::string_view> body = envelopeJson(lines[i]);
    if (!body) continue;
    TraceRecord r;
    r.line = static_cast<uint32_t>(i);
    r.envelope = json::parse(*body, nullptr, /*allow_exceptions=*/false);
    r.malformed = r.envelope.is_discarded() || !r.envelope.is_object();
    size_t j = i + 1;
    std::string payload;
    for (; j < lines.size() && !lines[j].empty() && lines[j][0] == '\t'; ++j) {
      if (j > i + 1) payload += '\n';
      payload += lines[j].substr(1);
    }
    r.payload = std::move(payload);
    records.push_back(std::move(r));
    i = j - 1;
  }
  return records;
}

bool isLibraryFrame(const std::string &path) {
  // Written independently of index/analysis/ModelFrames.cpp, from the rule of issue 8: PyTorch itself (torch,
  // functorch, torchgen, triton: installed, or torch's own subpackages in a checkout), the standard library
  // (not its site-packages), synthetic `<...>` files. Third-party packages are model code.
  if (!path.empty() && path[0] == '<') return true;
  static const std::regex installed(R"((site|dist)-packages/([^/]+)/)");
  std::string last;
  for (auto it = std::sregex_iterator(path.begin(), path.end(), installed); it != std::sregex_iterator();
       ++it)
    last = (*it)[2].str();
  if (!last.empty()) return last == "torch" || last == "functorch" || last == "torchgen" || last == "triton";
  static const std::regex stdlib(R"(/lib(64)?/python\d+\.\d+t?/)");
  if (std::regex_search(path, stdlib)) return true;
  static const std::regex checkout(
      R"((^|/)torch/(_[^/]*|nn|fx|autograd|utils|distributed|export|cuda|optim|amp)(/|$))");
  return std::regex_search(path, checkout);
}

namespace {

/// The rank a log's file name gives: `dedicated_log_torch_trace_rank_1[_xyz].log`; nullopt without one.
std::optional<int> rankInLogName(const std::string &tracePath) {
  static const std::regex rank(R"(_rank_(\d+)[_.])");
  std::smatch m;
  std::string name = fs::path(tracePath).filename().string();
  if (!std::regex_search(name, m, rank)) return std::nullopt;
  return std::stoi(m[1].str());
}

std::string trimmed(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

} // namespace

std::set<Frame> originsOfTracebacks(const json &tracebacks) {
  // `  File "/x/model.py", line 27, in forward\n    h = self.up(self.norm(x))`: the code on the next line.
  static const std::regex frame(R"re(File "([^"]+)", line (\d+))re");
  std::set<Frame> out;
  if (!tracebacks.is_array()) return out;
  for (const json &tb : tracebacks) {
    if (!tb.is_string()) continue;
    std::string text = tb.get<std::string>();
    std::optional<Frame> innermost;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), frame); it != std::sregex_iterator();
         ++it) {
      std::string p = (*it)[1].str();
      if (isLibraryFrame(p)) continue;
      size_t eol = text.find('\n', static_cast<size_t>(it->position() + it->length()));
      std::string code =
          eol == std::string::npos ? "" : text.substr(eol + 1, text.find('\n', eol + 1) - eol - 1);
      if (code.find("File \"") != std::string::npos) code.clear(); // No code line: the next frame.
      innermost = Frame{p, static_cast<uint32_t>(std::stoul((*it)[2].str())), trimmed(code)};
    }
    if (innermost) out.insert(*innermost);
  }
  return out;
}

std::vector<std::string> trimmedLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(trimmed(l));
  return lines;
}

std::optional<Frame> relocatedFrame(const Frame &f, const std::vector<std::string> &lines) {
  if (f.code.empty() || lines.empty()) return f;
  if (f.line >= 1 && f.line <= lines.size() && lines[f.line - 1] == f.code) return f;
  std::optional<Frame> best;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != f.code) continue;
    uint32_t line = i + 1;
    auto distance = [&](uint32_t l) { return l > f.line ? l - f.line : f.line - l; };
    if (!best || distance(line) < distance(best->line)) best = Frame{f.path, line, f.code};
  }
  return best;
}

namespace {

std::string compileKey(const json &env) {
  if (!env.contains("frame_id") || !env.contains("frame_compile_id")) return "";
  // PyTorch's text (compileIdText): a compiled-autograd graph's `!ca/` prefix keeps its compile apart from
  // the frame compile of the same numbers.
  std::string id = compileIdText(env);
  int attempt = env.value("attempt", 0);
  if (attempt) id += "_" + std::to_string(attempt);
  return id;
}

bool isOutputCode(const TraceRecord &r) {
  if (r.malformed) return false;
  if (r.envelope.contains("inductor_output_code")) return true;
  const json &gd = r.envelope.contains("graph_dump") ? r.envelope["graph_dump"] : json();
  return gd.is_object() && gd.value("name", "") == "inductor_aot_wrapper_code";
}

bool isStackTraces(const TraceRecord &r) {
  if (r.malformed || !r.envelope.contains("artifact")) return false;
  const json &a = r.envelope["artifact"];
  return a.is_object() && a.value("name", "") == "inductor_provenance_tracking_kernel_stack_traces";
}

} // namespace

std::vector<OutputCodeRecord> readOutputCodes(const std::string &tracePath) {
  std::vector<TraceRecord> records = readTraceLog(tracePath);
  std::vector<OutputCodeRecord> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord &r = records[i];
    if (!isOutputCode(r)) continue;
    OutputCodeRecord oc;
    oc.traceFile = tracePath;
    oc.line = r.line;
    oc.compileId = compileKey(r.envelope);
    if (r.envelope.contains("rank")) {
      oc.rank = r.envelope["rank"].get<int>();
    } else {
      // Older logs say the rank only in the file name.
      oc.rank = rankInLogName(tracePath);
    }
    oc.aoti = r.envelope.contains("graph_dump");
    const json &meta = oc.aoti ? r.envelope["graph_dump"] : r.envelope["inductor_output_code"];
    if (meta.is_object()) oc.recordedPath = meta.value("filename", "");
    oc.payload = r.payload;
    // The stack traces that follow, in the same compile, before that compile's next output code.
    for (size_t j = i + 1; j < records.size(); ++j) {
      const TraceRecord &s = records[j];
      std::string key = s.malformed ? std::string("?") : compileKey(s.envelope);
      bool sameCompile = key.empty() || oc.compileId.empty() || key == oc.compileId;
      if (isOutputCode(s) && sameCompile) break;
      if (!isStackTraces(s) || !sameCompile) continue;
      json map = json::parse(s.payload, nullptr, false);
      if (!map.is_object()) break;
      oc.hasStackTraces = true;
      for (auto it = map.begin(); it != map.end(); ++it)
        oc.origins[it.key()] = originsOfTracebacks(it.value());
      break;
    }
    out.push_back(std::move(oc));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Output code.

namespace {

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Byte column of a call of `kernel` on `line`: `kernel(`, `kernel.run(`, `call_kernel(`.
std::optional<uint32_t> callColumn(const std::string &line, const std::string &kernel) {
  for (size_t pos = line.find(kernel); pos != std::string::npos; pos = line.find(kernel, pos + 1)) {
    size_t end = pos + kernel.size();
    bool callAfter = line.compare(end, 1, "(") == 0 || line.compare(end, 5, ".run(") == 0;
    bool boundaryBefore =
        pos == 0 || !identChar(line[pos - 1]) ||
        (pos >= 5 && line.compare(pos - 5, 5, "call_") == 0 && (pos == 5 || !identChar(line[pos - 6])));
    if (callAfter && boundaryBefore &&
        (pos == 0 || line[pos - 1] != '.' || kernel.find('.') != std::string::npos))
      return static_cast<uint32_t>(pos);
  }
  return std::nullopt;
}

} // namespace

std::vector<LaunchSite> findLaunches(const std::string &text) {
  static const std::regex comment(R"(^\s*(#|//) \[Provenance debug handles\] ([A-Za-z_][\w.]*):(\d+)\s*$)");
  std::vector<std::string> lines = splitLines(text);
  std::vector<LaunchSite> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (lines[i].find("[Provenance debug handles]") == std::string::npos ||
        !std::regex_match(lines[i], m, comment))
      continue;
    LaunchSite s;
    s.kernel = m[2].str();
    s.handle = std::stoi(m[3].str());
    s.commentLine = static_cast<uint32_t>(i);
    for (size_t j = i + 1; j < lines.size() && j < i + 12; ++j) {
      if (lines[j].find("[Provenance debug handles]") != std::string::npos) break;
      if (auto col = callColumn(lines[j], s.kernel)) {
        s.line = static_cast<uint32_t>(j);
        s.column = *col;
        out.push_back(s);
        break;
      }
    }
  }
  return out;
}

std::vector<KernelDef> findKernelDefs(const std::string &text) {
  static const std::regex assign(R"(^([A-Za-z_]\w*) = async_compile\.(triton|cpp_pybinding|cpp)\()");
  static const std::regex cppCall(R"(^static inline void call_([A-Za-z_]\w*)\()");
  std::vector<std::string> lines = splitLines(text);
  std::vector<KernelDef> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (lines[i].rfind("static inline void call_", 0) == 0 && std::regex_search(lines[i], m, cppCall)) {
      // AOTI C++ wrapper: the `call_NAME` helper that launches a Triton kernel; the name is NAME.
      out.push_back(
          {m[1].str(), static_cast<uint32_t>(i), static_cast<uint32_t>(m.position(1)), std::nullopt});
      continue;
    }
    if (lines[i].find(" = async_compile.") == std::string::npos || !std::regex_search(lines[i], m, assign))
      continue;
    KernelDef d;
    d.name = m[1].str();
    d.line = static_cast<uint32_t>(i);
    d.column = 0;
    std::string def = "def " + d.name + "(";
    for (size_t j = i + 1; j < lines.size(); ++j) {
      if (lines[j].find(" = async_compile.") != std::string::npos) break;
      size_t pos = lines[j].find(def);
      if (pos != std::string::npos) {
        d.def = std::make_pair(static_cast<uint32_t>(j), static_cast<uint32_t>(pos + 4));
        break;
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Graph dumps.

std::map<std::string, Frame> graphNodeOrigins(const std::string &graphText) {
  static const std::regex file(R"(^\s*# File: (.+):(\d+) in [^,]*, code: .*$)");
  static const std::regex node(R"(^\s*([A-Za-z_]\w*)(: "[^"]*")? = )");
  std::map<std::string, Frame> out;
  std::optional<Frame> current;
  for (const std::string &line : splitLines(graphText)) {
    std::smatch m;
    if (line.find("# File: ") != std::string::npos && std::regex_match(line, m, file)) {
      current = Frame{m[1].str(), static_cast<uint32_t>(std::stoul(m[2].str()))};
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) {
      current.reset(); // A blank line ends the block a `# File:` comment heads.
      continue;
    }
    if (std::regex_search(line, m, node) && current) out.emplace(m[1].str(), *current);
  }
  return out;
}

std::map<std::string, std::pair<uint32_t, uint32_t>> graphNodePositions(const std::string &graphText) {
  static const std::regex node(R"(^(\s*)([A-Za-z_]\w*)(: "[^"]*")? = )");
  std::map<std::string, std::pair<uint32_t, uint32_t>> out;
  std::vector<std::string> lines = splitLines(graphText);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_search(lines[i], m, node))
      out.emplace(m[2].str(), std::make_pair(static_cast<uint32_t>(i), static_cast<uint32_t>(m[1].length())));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Runs.

int64_t firstTimestampUs(const std::string &log) {
  std::ifstream in(log);
  std::string line;
  for (int n = 0; n < 200 && std::getline(in, line); ++n) {
    size_t at = line.find("\"ts\": ");
    if (at != std::string::npos) return std::stoll(line.substr(at + 6));
  }
  return 0;
}

std::vector<std::string> latestRunLogs(const std::vector<std::string> &logs) {
  std::map<std::optional<int>, std::pair<int64_t, std::string>> latestOfRank; // rank -> (first ts, log)
  std::pair<int64_t, std::string> latest{INT64_MIN, ""};
  for (const std::string &log : logs) {
    std::pair<int64_t, std::string> t{firstTimestampUs(log), log};
    latest = std::max(latest, t);
    auto [it, fresh] = latestOfRank.try_emplace(rankInLogName(log), t);
    if (!fresh) it->second = std::max(it->second, t);
  }
  if (logs.empty()) return {};
  // An unranked log is a run of its own; a job's run is the latest log of each rank.
  if (!rankInLogName(latest.second)) return {latest.second};
  std::vector<std::string> out;
  for (const auto &[rank, t] : latestOfRank)
    if (rank) out.push_back(t.second);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace inductor::e2e
