// tests/e2e/PlacementTests.cpp: where compile health is placed and what it is called, end to end (issue 32,
// points 1-4), on every case folder whose trace shows the situation: a frame past the recompile limit (its
// last compile's metrics name no function), a frame Dynamo skipped and ran eagerly, a failure raised inside
// PyTorch from a user line, one guard failing against several cached compiles. Expected values come from the
// test's own reading of the trace records (readTraceLog), never from the server's index/.
#include "e2e/E2E.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

/// A case folder: a `trace/` folder beside the model it ran (`/tmp/work/<case>/` as recorded).
struct Case {
  std::string name, root;
  std::vector<std::string> logs;
  /// The local file of a path recorded under `/tmp/work/<case>/`; empty for any other.
  std::string local(const std::string &recorded) const {
    std::string prefix = "/tmp/work/" + name + "/";
    if (recorded.rfind(prefix, 0) != 0) return "";
    return root + "/" + recorded.substr(prefix.size());
  }
};

/// Every case folder of the shared fixtures and of this project's traces (new ones are covered the day they
/// arrive).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string &dir : {fixturesDir() + "/traces", fs::canonical(INDUCTOR_TRACES_DIR).string()})
    for (const auto &e : fs::directory_iterator(dir)) {
      if (!e.is_directory() || !fs::exists(e.path() / "trace")) continue;
      Case c{e.path().filename().string(), e.path().string(),
             latestRunLogs(filesIn((e.path() / "trace").string(), "dedicated_log_torch_trace"))};
      if (!c.logs.empty()) out.push_back(std::move(c));
    }
  std::sort(out.begin(), out.end(), [](const Case &a, const Case &b) { return a.name < b.name; });
  return out;
}

std::string str(const json &j, const char *key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// A compile as its records say.
struct RecordedCompile {
  std::string log, id; ///< "0/3".
  int frame = 0;
  json metrics; ///< compilation_metrics; null when none was logged.
  std::vector<std::string> breaks, errors, recompileReasons;
};

std::vector<RecordedCompile> readCompiles(const std::string &log) {
  std::vector<RecordedCompile> out;
  std::map<std::string, size_t> byId;
  for (const TraceRecord &r : readTraceLog(log)) {
    if (r.malformed || !r.envelope.contains("frame_id") || !r.envelope["frame_id"].is_number()) continue;
    if (r.envelope.contains("compiled_autograd_id")) continue;
    std::string id = std::to_string(r.envelope["frame_id"].get<int>()) + "/" +
                     std::to_string(r.envelope.value("frame_compile_id", 0));
    auto [it, fresh] = byId.emplace(id, out.size());
    if (fresh) out.push_back({log, id, r.envelope["frame_id"].get<int>(), nullptr, {}, {}, {}});
    RecordedCompile &c = out[it->second];
    if (r.envelope.contains("compilation_metrics")) c.metrics = r.envelope["compilation_metrics"];
    if (!r.envelope.contains("artifact")) continue;
    std::string name = str(r.envelope["artifact"], "name");
    if (name == "dynamo_graph_break_reason") c.breaks.push_back(r.payload);
    if (name == "dynamo_error") c.errors.push_back(r.payload);
    if (name == "recompile_reasons") {
      json j = json::parse(r.payload, nullptr, false);
      if (j.is_string()) c.recompileReasons.push_back(j.get<std::string>());
      if (j.is_array())
        for (const json &s : j)
          if (s.is_string()) c.recompileReasons.push_back(s.get<std::string>());
    }
  }
  return out;
}

/// The first "please visit: URL" of a text, and the graph-break site id its file names ("gb0059").
std::pair<std::string, std::string> firstLink(const std::string &text) {
  static const std::regex link(R"(please visit: (\S+?)\.?(\n|$))");
  std::smatch m;
  if (!std::regex_search(text, m, link)) return {};
  std::string url = m[1].str(), file = url.substr(url.rfind('/') + 1);
  return {url, file.substr(0, file.find('.'))};
}

bool namesRecompileLimit(const std::string &reason) {
  return reason.find("recompile limit exceeded") != std::string::npos ||
         reason.find("recompile_limit") != std::string::npos ||
         reason.find("cache_size_limit") != std::string::npos;
}

bool skipsFrame(const std::string &text) {
  return text.find("falling back to eager") != std::string::npos ||
         text.find("Skipping frame") != std::string::npos ||
         text.find("Skipping the frame") != std::string::npos ||
         text.find("frame skipped: ") != std::string::npos;
}

json pullCapabilities() {
  json caps = LSPClient::defaultCapabilities();
  caps["textDocument"]["diagnostic"] = {{"dynamicRegistration", false}, {"relatedDocumentSupport", false}};
  return caps;
}

/// The compile-health diagnostics of a file.
std::vector<json> diagnosticsOf(Session &s, const std::string &path) {
  json report = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(path)}}}});
  std::vector<json> out;
  for (const json &d : report["items"])
    if (d.value("source", "") == "torch.compile") out.push_back(d);
  return out;
}

std::string hoverText(Session &s, const std::string &path, uint32_t line) {
  json h = s.client.request("textDocument/hover", textDocumentPosition(fileURI(path), line, 4));
  return h.is_object() ? h["contents"].value("value", "") : "";
}

/// The entries of `inductor/compiles` for a compile id of one log: (frame, compile).
std::vector<std::pair<json, json>> compileEntries(const json &compiles, const std::string &log,
                                                  const std::string &id) {
  std::vector<std::pair<json, json>> out;
  for (const json &frame : compiles["frames"])
    for (const json &c : frame["compiles"])
      if (c["compileId"] == id && c["trace"].is_object() && c["trace"]["uri"] == fileURI(log))
        out.push_back({frame, c});
  return out;
}

std::string runExplain(const std::string &args) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(
      popen((std::string(INDUCTOR_LS_BINARY) + " explain --no-python " + args + " 2>&1").c_str(), "r"),
      pclose);
  std::array<char, 4096> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe.get()))
    out += buf.data();
  return out;
}

/// explain's event rows under the first user line numbered `line` ("  %4u  <text>", then rows indented by
/// ten spaces).
std::string eventRows(const std::string &out, uint32_t line) {
  char head[32];
  std::snprintf(head, sizeof head, "\n  %4u  ", line);
  size_t at = out.find(head);
  if (at == std::string::npos) return "";
  at = out.find('\n', at + 1);
  std::string rows;
  while (at != std::string::npos && out.compare(at + 1, 10, std::string(10, ' ')) == 0) {
    size_t end = out.find('\n', at + 1);
    rows += out.substr(at + 1, end == std::string::npos ? std::string::npos : end - at);
    at = end;
  }
  return rows;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

} // namespace

TEST_CASE("placement: a frame past the recompile limit is named by its frame id and warned on its def line") {
  size_t seen = 0;
  for (const Case &k : cases())
    for (const std::string &log : k.logs) {
      std::vector<RecordedCompile> compiles = readCompiles(log);
      for (const RecordedCompile &c : compiles) {
        const std::string reason = c.metrics.is_object() ? str(c.metrics, "fail_reason") : "";
        if (!namesRecompileLimit(reason) || str(c.metrics, "fail_type").rfind("FailOn", 0) == 0) continue;
        CAPTURE(k.name);
        CAPTURE(c.id);
        // Its own metrics name no function: an earlier compile of the same frame id does.
        CHECK(str(c.metrics, "co_name").empty());
        std::string function, file;
        uint32_t def = 0;
        for (const RecordedCompile &o : compiles)
          if (o.frame == c.frame && o.metrics.is_object() && !str(o.metrics, "co_name").empty()) {
            function = str(o.metrics, "co_name");
            file = str(o.metrics, "co_filename");
            def = o.metrics.value("co_firstlineno", 0u);
          }
        REQUIRE(!function.empty());
        std::string model = k.local(file);
        REQUIRE(fs::exists(model));
        // N as the trace says it: the message, else the config.
        std::smatch m;
        std::string limit;
        if (std::regex_search(reason, m, std::regex(R"(currently set to (\d+))"))) {
          limit = m[1].str();
        } else {
          json config = json::parse(str(c.metrics, "dynamo_config"), nullptr, false);
          if (config.is_object() && config["recompile_limit"].is_number())
            limit = std::to_string(config["recompile_limit"].get<int>());
        }
        REQUIRE(!limit.empty());
        const std::string title =
            "recompile limit (" + limit + ") reached: this function runs eagerly from now on";
        const std::string label = "[" + c.id + "]";
        ++seen;

        Session s(k.root, nullptr, pullCapabilities());
        INFO(s.client.logTail());
        // Diagnostics: a Warning on the def line whose code and link name the limit.
        std::vector<json> diags = diagnosticsOf(s, model);
        const json *warning = nullptr;
        for (const json &d : diags) {
          if (d["code"] == "recompile-limit") warning = &d;
          CHECK_FALSE(
              (d["severity"] == 1 && d["message"].get<std::string>().find(label) != std::string::npos));
        }
        REQUIRE(warning);
        CHECK((*warning)["range"]["start"]["line"] == def - 1);
        CHECK((*warning)["severity"] == 2);
        CHECK((*warning)["codeDescription"]["href"] == firstLink(reason).first);
        std::string message = (*warning)["message"];
        CHECK(message.rfind(title, 0) == 0);
        CHECK(message.find(label) != std::string::npos);

        // The compile tree: the compile is in the function's frame, not in a nameless one.
        json tree = s.client.request("inductor/compiles", json::object());
        auto entries = compileEntries(tree, log, c.id);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].first["function"] == function);
        CHECK(entries[0].first["location"]["range"]["start"]["line"] == def - 1);
        CHECK(entries[0].second["status"] == "not compiled");
        size_t limits = 0;
        for (const json &e : entries[0].second["events"])
          limits += e["message"] == title && e["severity"] == 2 && e["kind"] == "recompile" &&
                    e["location"]["range"]["start"]["line"] == def - 1;
        CHECK(limits == 1);
        for (const json &frame : tree["frames"])
          CHECK_FALSE(frame["function"].get<std::string>().empty());
        // Hover on the def line says it.
        CHECK(hoverText(s, model, def - 1).find(title) != std::string::npos);
        s.client.shutdown();

        // explain: the compile row names the function; the event is on the def line.
        std::string out = runExplain("'" + log + "'");
        INFO(out);
        std::smatch row;
        REQUIRE(std::regex_search(out, row,
                                  std::regex("\n  \\" + label.substr(0, label.size() - 1) + "\\] +(.*)\n")));
        CHECK(row[1].str().rfind(function + " (" + fs::path(file).filename().string() + ":" +
                                     std::to_string(def) + ")",
                                 0) == 0);
        CHECK(out.find("(no model line)") == std::string::npos);
        std::string under = eventRows(out, def);
        CHECK(under.find("recompile " + label) != std::string::npos);
        CHECK(under.find(title) != std::string::npos);
      }
    }
  CHECK(seen >= 1); // health_zoo [0/3].
}

TEST_CASE("placement: a frame Dynamo skipped is one graph-break Warning, its code and link the same break") {
  size_t seen = 0;
  for (const Case &k : cases())
    for (const std::string &log : k.logs)
      for (const RecordedCompile &c : readCompiles(log)) {
        const std::string reason = c.metrics.is_object() ? str(c.metrics, "fail_reason") : "";
        if (str(c.metrics, "fail_type").empty() || namesRecompileLimit(reason)) continue;
        bool skipped = skipsFrame(reason);
        for (const std::string &b : c.breaks)
          skipped = skipped || skipsFrame(b);
        if (!skipped) continue;
        CAPTURE(k.name);
        CAPTURE(c.id);
        ++seen;
        // The graph break: its record's (else the failure's) first graph break, at the user line.
        const std::string text = c.breaks.empty() ? reason : c.breaks.front();
        auto [url, code] = firstLink(text);
        REQUIRE(code.rfind("gb", 0) == 0);
        std::string model = k.local(str(c.metrics, "fail_user_frame_filename"));
        uint32_t line = c.metrics.value("fail_user_frame_lineno", 0u);
        REQUIRE(fs::exists(model));
        REQUIRE(line > 0);
        Session s(k.root, nullptr, pullCapabilities());
        INFO(s.client.logTail());
        size_t warnings = 0;
        for (const json &d : diagnosticsOf(s, model)) {
          if (d["range"]["start"]["line"] != line - 1) continue;
          INFO(d.dump(1));
          CHECK(d["severity"] != 1); // Not a failure: the call ran, eagerly.
          if (d["code"] == code) {
            ++warnings;
            CHECK(d["severity"] == 2);
            CHECK(d["codeDescription"]["href"] == url); // The code and the link name the same graph break.
            CHECK(d["message"].get<std::string>().find("runs eagerly") != std::string::npos);
            CHECK(d["message"].get<std::string>().find("[" + c.id + "]") != std::string::npos);
          }
        }
        CHECK(warnings == 1);
        // The compile tree: not compiled, one graph break, no failure.
        json tree = s.client.request("inductor/compiles", json::object());
        auto entries = compileEntries(tree, log, c.id);
        REQUIRE(entries.size() == 1);
        const json &compile = entries[0].second;
        CHECK(compile["status"] == "not compiled");
        size_t breaks = 0, failures = 0;
        for (const json &e : compile["events"]) {
          breaks += e["kind"] == "graph break";
          failures += e["kind"] == "failure";
          if (e["kind"] == "graph break") {
            CHECK(e["code"] == code);
            CHECK(e["severity"] == 2);
            CHECK(e["location"]["range"]["start"]["line"] == line - 1);
          }
        }
        CHECK(breaks == 1);
        CHECK(failures == 0);
        s.client.shutdown();
      }
  CHECK(seen >= 2); // health_zoo [1/0], runs_gpt [0/0].
}

TEST_CASE("placement: a failure raised inside PyTorch is on the user line Dynamo was tracing") {
  // health_zoo's bad_matmul shape error as PyTorch logs some failures: fail_user_frame_* null. The
  // dynamo_error's "from user code:" section names the line it was raised from; the failure goes there, not
  // on the def line.
  const std::string source = fs::canonical(INDUCTOR_TRACES_DIR).string() + "/health_zoo";
  const std::string log = filesIn(source + "/trace", "dedicated_log_torch_trace").front();
  std::string text = readFile(log);
  std::optional<RecordedCompile> failed;
  for (const RecordedCompile &c : readCompiles(log))
    if (str(c.metrics, "fail_type") == "TorchRuntimeError" && !c.errors.empty()) failed = c;
  REQUIRE(failed);
  // The test's own reading of the section: the innermost `File "...", line N` after "from user code:".
  const std::string &error = failed->errors.front();
  size_t section = error.rfind("\nfrom user code:");
  REQUIRE(section != std::string::npos);
  std::string rest = error.substr(section);
  uint32_t line = 0;
  std::string recordedFile;
  static const std::regex frameLine(R"re(File "([^"]+)", line (\d+))re");
  for (std::sregex_iterator it(rest.begin(), rest.end(), frameLine), end; it != end; ++it) {
    recordedFile = (*it)[1].str();
    line = std::stoul((*it)[2].str());
  }
  REQUIRE(line > 0);
  const uint32_t def = failed->metrics.value("co_firstlineno", 0u);
  REQUIRE(line != def);
  // Remove the field that names it, keeping every byte count but the metrics line's.
  const std::string recorded = "\"fail_user_frame_filename\": \"" + recordedFile +
                               "\", \"fail_user_frame_lineno\": " + std::to_string(line);
  size_t at = text.find(recorded);
  REQUIRE(at != std::string::npos);
  text.replace(at, recorded.size(), "\"fail_user_frame_filename\": null, \"fail_user_frame_lineno\": null");
  TempDir dir("placement");
  std::string model = dir.write("model.py", readFile(source + "/model.py"));
  dir.write("trace/" + fs::path(log).filename().string(), text);

  Session s(dir.path(), nullptr, pullCapabilities());
  INFO(s.client.logTail());
  size_t errors = 0;
  for (const json &d : diagnosticsOf(s, model))
    if (d["severity"] == 1) {
      ++errors;
      INFO(d.dump(1));
      CHECK(d["range"]["start"]["line"] == line - 1);
      CHECK(d["code"] == "TorchRuntimeError");
      CHECK(d["message"].get<std::string>().find("[" + failed->id + "]") != std::string::npos);
    }
  CHECK(errors == 1);
  s.client.shutdown();
}

TEST_CASE("placement: every failure the traces record is on the user line they name, else the def line") {
  // Every case: a compile that failed (not the recompile limit, not a skipped frame) is an Error on the first
  // user line its records name (fail_user_frame, the "User stack:" of its reason, the "from user code:"
  // section of its error), else on its def line.
  size_t seen = 0;
  static const std::regex frame(R"re(File "([^"]+)", line (\d+))re");
  auto innermost = [&](const std::string &text, const std::string &heading) -> std::optional<Frame> {
    size_t at = text.rfind(heading);
    if (at == std::string::npos) return std::nullopt;
    std::string rest = text.substr(at);
    rest = rest.substr(0, rest.find("\n\n", heading.size() + 1));
    std::optional<Frame> out;
    for (std::sregex_iterator it(rest.begin(), rest.end(), frame), end; it != end; ++it)
      if (!isLibraryFrame((*it)[1].str())) out = Frame{(*it)[1].str(), uint32_t(std::stoul((*it)[2].str()))};
    return out;
  };
  for (const Case &k : cases())
    for (const std::string &log : k.logs)
      for (const RecordedCompile &c : readCompiles(log)) {
        const std::string reason = c.metrics.is_object() ? str(c.metrics, "fail_reason") : "";
        if (str(c.metrics, "fail_type").empty() || namesRecompileLimit(reason) || skipsFrame(reason))
          continue;
        CAPTURE(k.name);
        CAPTURE(c.id);
        std::optional<Frame> want;
        if (std::string f = str(c.metrics, "fail_user_frame_filename"); !f.empty() && !isLibraryFrame(f))
          want = Frame{f, c.metrics.value("fail_user_frame_lineno", 0u)};
        if (!want) want = innermost(reason, "User stack:");
        for (const std::string &e : c.errors)
          if (!want) want = innermost(e, "from user code:");
        if (!want) want = Frame{str(c.metrics, "co_filename"), c.metrics.value("co_firstlineno", 0u)};
        std::string model = k.local(want->path);
        if (!fs::exists(model)) continue;
        ++seen;
        Session s(k.root, nullptr, pullCapabilities());
        INFO(s.client.logTail());
        json tree = s.client.request("inductor/compiles", json::object());
        auto entries = compileEntries(tree, log, c.id);
        REQUIRE(entries.size() == 1);
        size_t failures = 0;
        for (const json &e : entries[0].second["events"])
          if (e["kind"] == "failure") {
            ++failures;
            CHECK(e["severity"] == 1);
            CHECK(e["location"]["uri"] == fileURI(model));
            CHECK(e["location"]["range"]["start"]["line"] == want->line - 1);
          }
        CHECK(failures == 1);
        s.client.shutdown();
      }
  CHECK(seen >= 4); // health_lib [13/0], [14/0], [16/0]; health_zoo [3/0].
}

TEST_CASE("placement: one guard failing against several earlier compiles is one entry in every view") {
  size_t seen = 0;
  for (const Case &k : cases())
    for (const std::string &log : k.logs)
      for (const RecordedCompile &c : readCompiles(log)) {
        // Reasons identical but for their "N/M: " prefix (the cached compile).
        std::map<std::string, std::vector<std::string>> groups;
        static const std::regex prefix(R"(^([0-9/]+): )");
        for (const std::string &r : c.recompileReasons) {
          std::smatch m;
          if (!std::regex_search(r, m, prefix)) continue;
          groups[r.substr(m[0].length())].push_back(m[1].str());
        }
        for (const auto &group : groups) {
          // Copies: clang 14 cannot capture structured bindings in doctest's CAPTURE.
          const std::string reason = group.first;
          const std::vector<std::string> &cached = group.second;
          if (cached.size() < 2) continue;
          CAPTURE(k.name);
          CAPTURE(c.id);
          CAPTURE(reason);
          ++seen;
          std::string first = reason.substr(0, reason.find('\n'));
          while (!first.empty() && first.back() == ' ')
            first.pop_back();
          const std::string title =
              first + " (against " + std::to_string(cached.size()) + " earlier compiles)";
          const std::string label = "[" + c.id + "]";
          Session s(k.root, nullptr, pullCapabilities());
          INFO(s.client.logTail());
          // The compile tree: one event for the reason.
          json tree = s.client.request("inductor/compiles", json::object());
          auto entries = compileEntries(tree, log, c.id);
          REQUIRE(entries.size() == 1);
          std::optional<json> location;
          size_t events = 0;
          for (const json &e : entries[0].second["events"])
            if (e["kind"] == "recompile" && e["message"].get<std::string>().rfind(first, 0) == 0) {
              ++events;
              CHECK(e["message"] == title);
              location = e["location"];
            }
          CHECK(events == 1);
          REQUIRE(location);
          REQUIRE(location->is_object());
          std::string model = fs::path(std::string((*location)["uri"]).substr(7)).string();
          uint32_t line = (*location)["range"]["start"]["line"];
          // The diagnostic on its line says it once.
          size_t diagnostics = 0;
          for (const json &d : diagnosticsOf(s, model)) {
            if (d["range"]["start"]["line"] != line || d["code"] != "recompile") continue;
            ++diagnostics;
            std::string message = d["message"];
            // Once, outside the lines that say which ranks diverged with which reason (RanksTests' to check).
            std::string own;
            for (const std::string &l : splitLines(message))
              if (l.find(" only (") == std::string::npos &&
                  l.find("recompiled on ranks ") == std::string::npos)
                own += l + "\n";
            // (Another compile's failure of the same guard has a title of its own: another number of
            // earlier compiles.)
            CHECK(count(own, title) == 1);
            for (size_t i = 1; i < cached.size(); ++i)
              CHECK(own.find(cached[i] + ": " + first) == std::string::npos);
            CHECK(message.find(title) != std::string::npos);
            CHECK(message.find(label) != std::string::npos);
          }
          CHECK(diagnostics == 1);
          // The hover: the failure and its earlier compiles, not one section per cached compile.
          std::string hover = hoverText(s, model, line);
          CHECK(hover.find("against " + std::to_string(cached.size()) + " earlier compiles") !=
                std::string::npos);
          for (size_t i = 1; i < cached.size(); ++i)
            CHECK(hover.find(cached[i] + ": " + first) == std::string::npos);
          s.client.shutdown();
          // explain: one row under its line.
          std::string out = runExplain("'" + log + "'");
          INFO(out);
          std::set<std::string> distinct;
          for (const std::string &r : c.recompileReasons)
            distinct.insert(std::regex_replace(r, prefix, "", std::regex_constants::format_first_only));
          CHECK(count(out, "recompile " + label + " ") == distinct.size());
          // One row of this compile with the title (another compile may fail the same guard: its own row).
          size_t rows = 0;
          for (const std::string &l : splitLines(out))
            rows +=
                l.find(title) != std::string::npos && l.find("recompile " + label + " ") != std::string::npos;
          CHECK(rows == 1);
        }
      }
  CHECK(seen >= 1); // health_zoo [4/3]: grad mode against [4/2], [4/1], [4/0].
}

} // namespace inductor::e2e
