// tests/e2e/SecondPassNavigationTests.cpp: navigation on traces that the first pass had not seen (issue 32,
// points 5-8).
//  - A kernel whose stacks hold only PyTorch's frames (a compiled optimizer step) answers its innermost
//  frame,
//    marked as PyTorch's, and counts as no user line.
//  - No answer points to a file that is not on this machine: a trace copied alone answers the text the trace
//    recorded, as an inductor-trace: document.
//  - Only output code is a compile's output code: max-autotune's benchmark modules and kernel files in the
//    cache are not, in any case folder.
//  - A trace made without INDUCTOR_PROVENANCE=1 says so once, with what to do.
// Expected values come from the trace text (TraceOracle.h and the readers below), never from the server.
#include "e2e/E2E.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

const std::string kTraces = fs::canonical(INDUCTOR_TRACES_DIR).string();

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string percentDecode(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Every string of an answer that is a file:// URI (anywhere: locations, command arguments, link targets,
/// Markdown links in hovers) whose file does not exist here.
void missingFiles(const json &j, std::vector<std::string> &out) {
  if (j.is_string()) {
    const std::string &s = j.get_ref<const std::string &>();
    for (size_t at = s.find("file://"); at != std::string::npos; at = s.find("file://", at + 7)) {
      size_t end = s.find_first_of(")#\" \n", at);
      std::string path =
          percentDecode(s.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7));
      if (!fs::exists(path)) out.push_back(path);
    }
  } else if (j.is_array() || j.is_object()) {
    for (const json &v : j)
      missingFiles(v, out);
  }
}

/// A frame of a Python traceback as the trace recorded it, with its source text.
struct RecordedFrame {
  std::string path;
  uint32_t line = 0;
  std::string code;
};

std::string trimmed(std::string s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// The frames of one traceback (`  File "P", line N, in F` then the code line), outermost first.
std::vector<RecordedFrame> framesOf(const std::string &traceback) {
  std::vector<RecordedFrame> out;
  std::vector<std::string> lines = splitLines(traceback);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string l = trimmed(lines[i]);
    if (l.rfind("File \"", 0) != 0) continue;
    size_t q = l.find('"', 6);
    size_t ln = l.find(", line ", q);
    if (q == std::string::npos || ln == std::string::npos) continue;
    RecordedFrame f;
    f.path = l.substr(6, q - 6);
    f.line = static_cast<uint32_t>(std::stoul(l.substr(ln + 7)));
    if (i + 1 < lines.size() && trimmed(lines[i + 1]).rfind("File \"", 0) != 0)
      f.code = trimmed(lines[i + 1]);
    out.push_back(f);
  }
  return out;
}

/// The stack-trace artifacts of a log: `kernel:handle` -> tracebacks.
std::map<std::string, std::vector<std::string>> stackTraces(const std::string &log) {
  std::map<std::string, std::vector<std::string>> out;
  for (const TraceRecord &r : readTraceLog(log)) {
    if (r.malformed || !r.envelope.contains("artifact")) continue;
    if (r.envelope["artifact"].value("name", "") != "inductor_provenance_tracking_kernel_stack_traces")
      continue;
    json j = json::parse(r.payload, nullptr, false);
    if (!j.is_object()) continue;
    for (auto it = j.begin(); it != j.end(); ++it)
      for (const json &t : it.value())
        if (t.is_string()) out[it.key()].push_back(t.get<std::string>());
  }
  return out;
}

/// Identity of an output code's text across its copies (a cache file, the log payload): trailing whitespace,
/// and trailing blank and comment lines (the AOTI wrapper file ends with a comment the log's copy lacks),
/// aside.
std::string textKey(const std::string &text) {
  std::vector<std::string> lines = splitLines(text);
  auto comment = [](const std::string &l) {
    std::string t = trimmed(l);
    return t.empty() || t.rfind("#", 0) == 0 || t.rfind("//", 0) == 0;
  };
  while (!lines.empty() && comment(lines.back()))
    lines.pop_back();
  std::string out;
  for (const std::string &l : lines)
    out += l.substr(0, l.find_last_not_of(" \t\r") + 1) + "\n";
  return out;
}

/// The text of an artifact the server listed: its file, or its inductor-trace: document.
std::string artifactText(LSPClient &client, const std::string &uri) {
  if (uri.rfind("file://", 0) == 0) return readFile(percentDecode(uri.substr(7)));
  json r = client.request("inductor/artifactContent", {{"uri", uri}});
  return r.is_object() ? r.value("text", "") : "";
}

/// Whether a module defines a kernel at module level with the harness that benchmarks it: the shape of
/// max-autotune's benchmark modules (the oracle's own reading: a `@triton.jit` line and a
/// `def benchmark_all_configs(` line at column 0).
bool isBenchmarkModule(const std::string &text) {
  bool jit = false, bench = false;
  for (const std::string &l : splitLines(text)) {
    jit |= l.rfind("@triton.jit", 0) == 0;
    bench |= l.rfind("def benchmark_all_configs(", 0) == 0;
  }
  return jit && bench;
}

/// An output code as the server lists it (its URI is only an address), with its launches and their expected
/// origins read by the oracle from the log record of the same text.
struct ListedCode {
  std::string uri, text, label;
  std::vector<LaunchSite> launches;
  std::map<std::string, std::set<Frame>> origins; ///< `kernel:handle` -> expected origins.
  std::set<Frame> originsOf(const LaunchSite &l) const {
    auto it = origins.find(l.key());
    return it == origins.end() ? std::set<Frame>{} : it->second;
  }
};

std::vector<ListedCode> listedCodes(LSPClient &client, const std::vector<std::string> &logs) {
  std::vector<OutputCodeRecord> records;
  for (const std::string &log : logs)
    for (OutputCodeRecord &r : readOutputCodes(log))
      records.push_back(std::move(r));
  std::vector<ListedCode> out;
  json list = client.request("inductor/listArtifacts", json::object());
  for (const json &a : list) {
    if (a["kind"] != "outputCode" && a["kind"] != "wrapperCode") continue;
    ListedCode c;
    c.uri = a["uri"];
    c.label = a.value("label", "");
    c.text = artifactText(client, c.uri);
    c.launches = findLaunches(c.text);
    for (const OutputCodeRecord &r : records)
      if (textKey(r.payload) == textKey(c.text)) c.origins.insert(r.origins.begin(), r.origins.end());
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace

TEST_CASE("output code: in every case folder, the compiles' output code is exactly what the trace logged") {
  size_t cases = 0, benchmarkModules = 0;
  for (const std::string &dir : caseFolders()) {
    INFO(dir);
    std::set<std::string> logged;
    for (const std::string &log : latestRunLogs(filesIn(dir + "/trace"))) // The run served.
      for (const OutputCodeRecord &r : readOutputCodes(log))
        logged.insert(textKey(r.payload));
    for (const auto &e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".py" &&
          isBenchmarkModule(readFile(e.path().string())))
        ++benchmarkModules;
    Session s(dir);
    INFO(s.client.logTail());
    json list = s.client.request("inductor/listArtifacts", json::object());
    REQUIRE(list.is_array());
    std::set<std::string> kept;
    for (const json &a : list)
      if (a["kind"] == "outputCode" || a["kind"] == "wrapperCode")
        kept.insert(textKey(artifactText(s.client, a["uri"])));
    // AOTInductor's C++ wrapper is logged as `inductor_aot_wrapper_code`, which readOutputCodes reads too.
    CHECK(kept == logged);
    CHECK(!kept.empty());
    ++cases;
    s.client.shutdown();
  }
  CHECK(cases >= 20);
  CHECK(benchmarkModules > 0); // adam_autotune's cache holds them: the sweep would prove nothing otherwise.
}

TEST_CASE("output code: max-autotune's benchmark modules are not compiles, in status or explain") {
  std::string dir = kTraces + "/adam_autotune";
  size_t logged = 0;
  for (const std::string &log : filesIn(dir + "/trace"))
    logged += readOutputCodes(log).size();
  REQUIRE(logged > 0);
  Session s(dir);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["counts"]["graphs"] == logged);
  s.client.shutdown();
  // explain lists one output-code section per compile: none of them a benchmark module's.
  TempDir out("explain");
  std::string cmd =
      std::string("'") + INDUCTOR_LS_BINARY + "' explain '" + dir + "' > '" + out.path() + "/out.txt' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string text = readFile(out.path() + "/out.txt");
  INFO(text);
  size_t sections = 0;
  for (const std::string &l : splitLines(text))
    if (has(l, "output code  (")) ++sections;
  CHECK(sections == logged);
  CHECK_FALSE(has(text, "compile output code"));
}

TEST_CASE("definition: a kernel of PyTorch's own code answers its innermost frame, marked as PyTorch's") {
  std::string dir = kTraces + "/adam_autotune";
  std::vector<std::string> logs = filesIn(dir + "/trace");
  REQUIRE(logs.size() == 1);
  // The oracle: launches whose every traceback has no model frame, and the innermost frame of each.
  std::map<std::string, std::set<std::pair<std::string, uint32_t>>> expected;
  std::map<std::string, std::string> codeOf;
  size_t withModelFrame = 0;
  for (const auto &[key, tracebacks] : stackTraces(logs[0])) {
    bool model = false;
    std::set<std::pair<std::string, uint32_t>> inner;
    for (const std::string &t : tracebacks) {
      std::vector<RecordedFrame> frames = framesOf(t);
      for (const RecordedFrame &f : frames)
        model |= !isLibraryFrame(f.path);
      if (!frames.empty()) {
        inner.insert({frames.back().path, frames.back().line});
        codeOf[frames.back().path + ":" + std::to_string(frames.back().line)] = frames.back().code;
      }
    }
    if (model)
      ++withModelFrame;
    else if (!inner.empty())
      expected[key] = inner;
  }
  REQUIRE(!expected.empty());
  for (const auto &[key, frames] : expected)
    for (const auto &f : frames)
      REQUIRE(f.first.find("/torch/") != std::string::npos); // A compiled optimizer step: torch/optim.

  Session s(dir);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  std::vector<ListedCode> codes = listedCodes(s.client, logs);
  size_t checked = 0;
  std::set<std::string> torchFiles;
  for (const ListedCode &code : codes) {
    for (const LaunchSite &l : code.launches) {
      auto it = expected.find(l.key());
      if (it == expected.end()) continue;
      INFO(code.label << " " << l.key());
      json defs =
          s.client.request("textDocument/definition", textDocumentPosition(code.uri, l.line, l.column));
      REQUIRE(defs.is_array());
      std::set<std::pair<std::string, uint32_t>> got;
      for (const json &d : defs) {
        std::string uri = d["uri"];
        // torch is not installed here: the recorded text, as an inductor-trace: document.
        REQUIRE(uri.rfind("inductor-trace:", 0) == 0);
        uint32_t line = d["range"]["start"]["line"];
        json content = s.client.request("inductor/artifactContent", {{"uri", uri}});
        REQUIRE(content.is_object());
        std::vector<std::string> lines = splitLines(content["text"]);
        REQUIRE(line < lines.size());
        std::string path;
        for (const auto &f : it->second)
          if (uri.find(f.first.substr(1)) != std::string::npos && f.second == line + 1) path = f.first;
        REQUIRE(!path.empty());
        CHECK(trimmed(lines[line]) == codeOf[path + ":" + std::to_string(line + 1)]);
        got.insert({path, line + 1});
        torchFiles.insert(uri);
      }
      CHECK(got == it->second);
      json hover = s.client.request("textDocument/hover", textDocumentPosition(code.uri, l.line, l.column));
      std::string md = hover["contents"]["value"];
      CHECK(has(md, "PyTorch's frame, not yours"));
      ++checked;
    }
  }
  CHECK(checked == expected.size());
  // Not user lines: launches with a user origin are those with a model frame, and a PyTorch file gets no lens
  // of user-line kernels.
  CHECK(status["launchesWithOrigin"] == withModelFrame);
  for (const std::string &uri : torchFiles) {
    json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
    CHECK(lenses.is_array());
    CHECK(lenses.empty());
  }
  s.client.shutdown();
}

TEST_CASE("definition: a PyTorch frame resolves to the local torch installation when it is found") {
  std::string dir = kTraces + "/adam_autotune";
  std::vector<std::string> logs = filesIn(dir + "/trace");
  REQUIRE(logs.size() == 1);
  // A local "installation": the recorded torch files, with the recorded lines at their numbers, mapped from
  // the recorded site-packages the way a user points pathMappings (or pythonPath) at their environment.
  std::string prefix;
  std::map<std::string, std::map<uint32_t, std::string>> files;
  for (const auto &[key, tracebacks] : stackTraces(logs[0]))
    for (const std::string &t : tracebacks)
      for (const RecordedFrame &f : framesOf(t))
        if (size_t at = f.path.find("/site-packages/"); at != std::string::npos) {
          prefix = f.path.substr(0, at + 14);
          files[f.path.substr(at + 15)][f.line] = f.code;
        }
  REQUIRE(!files.empty());
  TempDir env("torchenv");
  for (const auto &[rel, lines] : files) {
    std::string text;
    uint32_t at = 1;
    for (const auto &[line, code] : lines) {
      for (; at < line; ++at)
        text += "\n";
      text += "        " + code + "\n";
      ++at;
    }
    env.write(rel, text);
  }
  Session s(dir, {{"pathMappings", json::array({{{"from", prefix}, {"to", env.path()}}})}});
  INFO(s.client.logTail());
  std::vector<ListedCode> codes = listedCodes(s.client, logs);
  size_t checked = 0;
  for (const ListedCode &code : codes) {
    for (const LaunchSite &l : code.launches) {
      if (!code.originsOf(l).empty()) continue;
      json defs =
          s.client.request("textDocument/definition", textDocumentPosition(code.uri, l.line, l.column));
      if (!defs.is_array() || defs.empty()) continue;
      for (const json &d : defs) {
        std::string uri = d["uri"];
        INFO(uri);
        CHECK(uri.rfind(fileURI(env.path()), 0) == 0);
        std::string path = percentDecode(uri.substr(7));
        uint32_t line = d["range"]["start"]["line"];
        CHECK(trimmed(splitLines(readFile(path)).at(line)) ==
              files[path.substr(env.path().size() + 1)][line + 1]);
      }
      ++checked;
    }
  }
  CHECK(checked > 0);
  s.client.shutdown();
}

TEST_CASE("definition: with only trace/ copied, no answer names a file that is not on this machine") {
  for (const std::string &source :
       {caseDir("mlp_train"), kTraces + "/adam_autotune", kTraces + "/hf_llama"}) {
    INFO(source);
    TempDir workspace("traceonly");
    fs::copy(source + "/trace", workspace.path() + "/trace", fs::copy_options::recursive);
    std::vector<std::string> logs = filesIn(workspace.path() + "/trace");
    REQUIRE(!logs.empty());
    Session s(workspace.path());
    INFO(s.client.logTail());
    std::vector<ListedCode> codes = listedCodes(s.client, logs);
    REQUIRE(!codes.empty());
    std::vector<std::string> missing;
    size_t answered = 0, recorded = 0;
    std::set<std::string> sourceUris;
    for (const ListedCode &code : codes) {
      REQUIRE(code.uri.rfind("inductor-trace:", 0) == 0); // Only the log: every output code is virtual.
      REQUIRE(!code.origins.empty());
      for (const LaunchSite &l : code.launches) {
        INFO(code.label << " " << l.key());
        json defs =
            s.client.request("textDocument/definition", textDocumentPosition(code.uri, l.line, l.column));
        missingFiles(defs, missing);
        std::set<Frame> origins = code.originsOf(l);
        if (!origins.empty()) CHECK(defs.size() == origins.size());
        for (const json &d : defs) {
          ++answered;
          std::string uri = d["uri"];
          uint32_t line = d["range"]["start"]["line"];
          REQUIRE(uri.rfind("inductor-trace:", 0) == 0);
          sourceUris.insert(uri);
          // The recorded line is at its own number in the recorded text, as the traceback printed it.
          json content = s.client.request("inductor/artifactContent", {{"uri", uri}});
          REQUIRE(content.is_object());
          std::vector<std::string> lines = splitLines(content["text"]);
          REQUIRE(line < lines.size());
          CHECK(!trimmed(lines[line]).empty());
          bool matches = false;
          for (const Frame &f : origins)
            matches |= f.line == line + 1 && uri.find(f.path.substr(1)) != std::string::npos;
          if (!origins.empty()) CHECK(matches);
          ++recorded;
        }
        missingFiles(s.client.request("textDocument/hover", textDocumentPosition(code.uri, l.line, l.column)),
                     missing);
        missingFiles(
            s.client.request("textDocument/references", {{"textDocument", {{"uri", code.uri}}},
                                                         {"position", position(l.line, l.column)},
                                                         {"context", {{"includeDeclaration", true}}}}),
            missing);
      }
      missingFiles(s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", code.uri}}}}),
                   missing);
      missingFiles(s.client.request("textDocument/documentLink", {{"textDocument", {{"uri", code.uri}}}}),
                   missing);
    }
    CHECK(answered > 0);
    CHECK(recorded == answered);
    // In the recorded text itself, the lines navigate back to their launches, and nothing names a missing
    // file.
    for (const std::string &uri : sourceUris) {
      json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
      missingFiles(lenses, missing);
      json content = s.client.request("inductor/artifactContent", {{"uri", uri}});
      std::vector<std::string> lines = splitLines(content["text"]);
      for (uint32_t i = 0; i < lines.size(); ++i) {
        if (trimmed(lines[i]).empty()) continue;
        json refs = s.client.request("textDocument/references",
                                     {{"textDocument", {{"uri", uri}}},
                                      {"position", position(i, static_cast<uint32_t>(lines[i].size() / 2))},
                                      {"context", {{"includeDeclaration", false}}}});
        missingFiles(refs, missing);
        missingFiles(s.client.request("textDocument/hover", textDocumentPosition(uri, i, 0)), missing);
      }
    }
    missingFiles(s.client.request("workspace/symbol", {{"query", ""}}), missing);
    missingFiles(s.client.request("inductor/listArtifacts", json::object()), missing);
    missingFiles(s.client.request("inductor/compiles", json::object()), missing);
    CHECK_MESSAGE(missing.empty(),
                  "answers name files that are not here, first: " << (missing.empty() ? "" : missing[0]));
    s.client.shutdown();
  }
}

TEST_CASE("notices: a trace made without INDUCTOR_PROVENANCE says how many launches lack an origin, once") {
  std::string dir = kTraces + "/no_provenance";
  // The oracle: the log holds no provenance artifact and its output code no debug handle.
  std::vector<std::string> logs = filesIn(dir + "/trace");
  REQUIRE(logs.size() == 1);
  for (const TraceRecord &r : readTraceLog(logs[0]))
    if (!r.malformed && r.envelope.contains("artifact"))
      REQUIRE(r.envelope["artifact"].value("name", "").find("provenance") == std::string::npos);
  for (const OutputCodeRecord &r : readOutputCodes(logs[0]))
    REQUIRE_FALSE(has(r.payload, "[Provenance debug handles]"));

  Session s(dir);
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  size_t launches = status["launches"], withOrigin = status["launchesWithOrigin"];
  REQUIRE(launches > 0);
  std::vector<json> notices;
  for (const json &n : status["notices"])
    if (n["kind"] == "noProvenance") notices.push_back(n);
  REQUIRE(notices.size() == 1);
  std::string message = notices[0]["message"];
  CHECK(has(message, std::to_string(launches) + " of " + std::to_string(launches) +
                         " kernel launches were "
                         "recorded without provenance"));
  if (launches > withOrigin) CHECK(has(message, std::to_string(launches - withOrigin) + " of them ha"));
  CHECK(has(message, "INDUCTOR_PROVENANCE=1"));
  size_t shown = 0;
  for (const json &m : s.client.notifications("window/showMessage"))
    shown += m["message"] == message;
  CHECK(shown == 1);
  // A reindex that finds the same says nothing again.
  size_t before = s.client.notifications("inductor/status").size();
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  REQUIRE(s.client.waitForIndexedAfter(before).is_object());
  shown = 0;
  for (const json &m : s.client.notifications("window/showMessage"))
    shown += m["message"] == message;
  CHECK(shown == 1);
  s.client.shutdown();

  // explain says the same.
  TempDir out("explain");
  std::string cmd =
      std::string("'") + INDUCTOR_LS_BINARY + "' explain '" + dir + "' > '" + out.path() + "/out.txt' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(has(readFile(out.path() + "/out.txt"), message));
}

TEST_CASE("notices: traces made with provenance say nothing about it") {
  for (const std::string &dir : {caseDir("mlp_train"), kTraces + "/adam_autotune", kTraces + "/hf_llama"}) {
    INFO(dir);
    Session s(dir);
    json status = s.client.waitForIndexed();
    REQUIRE(status.is_object());
    for (const json &n : status["notices"])
      CHECK(n["kind"] != "noProvenance");
    for (const json &m : s.client.notifications("window/showMessage"))
      CHECK_FALSE(has(m["message"], "INDUCTOR_PROVENANCE"));
    s.client.shutdown();
  }
}

} // namespace inductor::e2e
