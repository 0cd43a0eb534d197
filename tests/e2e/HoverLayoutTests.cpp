// tests/e2e/HoverLayoutTests.cpp: what a hover shows first and how much (docs/policy.md, "Hovers"), and
// where code actions appear, on every case folder:
//  - on a user line with compile health and kernels, compile health comes first (its events, each on one
//    line with the title the trace gives it), then the kernels;
//  - PyTorch's text beyond an event's title (explanation, hints, traceback: the diagnostic's message, shown
//    beside the hover) is never repeated in the hover;
//  - a hover keeps to about 25 non-blank lines, the rest counted behind "… N more";
//  - a kernel's stacks show the outer frames they share once;
//  - quick fixes come before the debug printer's commands, which a model line offers only once a run log
//    is there.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"
#include <algorithm>

#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::e2e {
namespace {

/// The hover keeps to about this many non-blank lines: 25, plus the headings of the sections past the
/// budget and the lines that say what was cut.
constexpr size_t kMaxLines = 32;
/// A kernel's hover (launch or definition): at most 40 non-blank lines, whatever it came from.
constexpr size_t kKernelMaxLines = 40;

struct Case {
  std::string name, root;
  std::vector<std::string> logs;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string &dir : {fixturesDir() + "/traces", fs::canonical(INDUCTOR_TRACES_DIR).string()})
    for (const auto &e : fs::directory_iterator(dir)) {
      if (!e.is_directory() || !fs::exists(e.path() / "trace") || !fs::exists(e.path() / "model.py"))
        continue;
      out.push_back({e.path().filename().string(), e.path().string(),
                     latestRunLogs(filesIn((e.path() / "trace").string(), "dedicated_log_torch_trace"))});
    }
  std::sort(out.begin(), out.end(), [](const Case &a, const Case &b) { return a.name < b.name; });
  return out;
}

size_t nonBlankLines(const std::string &md) {
  size_t n = 0;
  for (const std::string &l : splitLines(md))
    n += l.find_first_not_of(" \t") != std::string::npos;
  return n;
}

std::string hoverText(LSPClient &client, const std::string &uri, uint32_t line, uint32_t character = 4) {
  json h = client.request("textDocument/hover", textDocumentPosition(uri, line, character));
  return h.is_object() ? h["contents"]["value"].get<std::string>() : std::string();
}

TEST_CASE("hover layout: compile health first, PyTorch's text never repeated, about 25 lines") {
  size_t healthFirst = 0, hovers = 0, cut = 0;
  for (const Case &c : cases()) {
    CAPTURE(c.name);
    Session s(c.root);
    INFO(s.client.logTail());
    std::string model = c.root + "/model.py";
    std::string uri = s.client.didOpen(model);
    // The events of model.py's lines, by the oracle.
    std::map<uint32_t, std::vector<ExpectedHealthEvent>> events; // 1-based line.
    for (const std::string &log : c.logs)
      for (const ExpectedHealthEvent &e : expectedHealth(log).events)
        if (e.at && e.at->path.ends_with("/" + c.name + "/model.py") && e.kind != "specialization")
          events[e.at->line].push_back(e);
    // The diagnostics' messages: what the editor shows beside the hover.
    json report = s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
    std::map<uint32_t, std::vector<std::string>> messages; // 0-based line.
    if (report.is_object())
      for (const json &d : report["items"])
        if (d.value("source", "") == "torch.compile")
          messages[d["range"]["start"]["line"].get<uint32_t>()].push_back(d["message"]);
    // Lines with kernels (their lenses) and lines with events.
    std::set<uint32_t> kernelLines;
    for (const json &l : s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}))
      if (l["command"]["command"] == "inductor.showLaunchSites")
        kernelLines.insert(l["range"]["start"]["line"].get<uint32_t>());
    std::set<uint32_t> lines = kernelLines;
    for (const auto &[line, list] : events)
      lines.insert(line - 1);
    for (uint32_t line : lines) {
      std::string md = hoverText(s.client, uri, line);
      INFO("model.py:" << line + 1 << "\n" << md);
      if (md.empty()) continue;
      ++hovers;
      CHECK(nonBlankLines(md) <= kMaxLines);
      cut += md.find(" more") != std::string::npos;
      auto it = events.find(line + 1);
      if (it != events.end()) {
        // Compile health first: its heading opens the hover, every event's title is in it, before the
        // kernels.
        CHECK(md.rfind("### Compile health", 0) == 0);
        size_t kernels = md.find(" from line " + std::to_string(line + 1));
        for (const ExpectedHealthEvent &e : it->second) {
          size_t at = md.find(e.title);
          CHECK_MESSAGE(at != std::string::npos, e.title);
          if (kernels != std::string::npos) CHECK(at < kernels);
        }
        if (kernelLines.count(line) && kernels != std::string::npos) ++healthFirst;
      }
      // Never PyTorch's text again: no line of a diagnostic's message past its first (the title) is in the
      // hover, outside the one line of each event (which names it by its title).
      std::string rest;
      for (const std::string &l : splitLines(md))
        if (l.rfind("- **", 0) != 0) rest += l + "\n";
      for (const std::string &message : messages[line]) {
        std::vector<std::string> parts = splitLines(message);
        for (size_t i = 1; i < parts.size(); ++i)
          if (parts[i].size() > 30) CHECK_MESSAGE(rest.find(parts[i]) == std::string::npos, parts[i]);
      }
    }
    s.client.shutdown();
  }
  MESSAGE(hovers << " hovers, " << healthFirst << " with compile health and kernels, " << cut << " cut");
  CHECK(hovers > 100);
  CHECK(healthFirst > 0);
}

TEST_CASE("hover layout: a kernel's hover keeps to 40 lines and shows its stacks' shared outer frames once, "
          "on every case folder") {
  size_t multi = 0, launches = 0;
  for (const std::string &root : caseFolders()) {
    CAPTURE(root);
    Session s(root);
    INFO(s.client.logTail());
    for (const ExpectedOutputCode &code :
         expectedOutputCodes(latestRunLogs(filesIn(root + "/trace", "dedicated_log")), &s.client)) {
      if (!code.path.empty()) s.client.didOpen(code.path);
      for (const LaunchSite &site : code.launches) {
        std::string md = hoverText(s.client, code.uri, site.line, site.column);
        INFO(code.uri << ":" << site.line + 1 << "\n" << md);
        CHECK(nonBlankLines(md) <= kKernelMaxLines);
        ++launches;
        size_t stack = md.find("**User stack**");
        if (stack == std::string::npos || md.find("*Stack 2") == std::string::npos) continue;
        ++multi;
        // The shared outer frames are shown once, never again under a stack, and they are all the stacks
        // share: the stacks' first own frames are not all the same. (Frames that only some of the stacks
        // share are repeated under each of them.)
        std::set<std::string> shared;
        std::vector<std::string> firstOwn;
        enum { None, Shared, Own } section = None;
        bool first = false;
        size_t stacks = 0;
        std::vector<size_t> own; // Per stack, its own frames shown.
        for (const std::string &l : splitLines(md.substr(stack))) {
          if (l.rfind("*Shared by", 0) == 0)
            section = Shared;
          else if (l.rfind("*Stack ", 0) == 0)
            section = Own, first = true, ++stacks, own.push_back(0);
          else if (l.rfind("- [", 0) == 0 && section == Shared)
            CHECK_MESSAGE(shared.insert(l).second, l);
          else if (l.rfind("- [", 0) == 0 && section == Own) {
            CHECK_MESSAGE(shared.count(l) == 0, l);
            ++own.back();
            if (first) firstOwn.push_back(l);
            first = false;
          } else if (l.rfind("- ", 0) == 0 && section == Own) {
            first = false; // "- … N more": this stack's own frames were cut.
          }
        }
        // None of them cut, and each with more than the one own frame every stack keeps (a stack that is the
        // shared frames and one more repeats that one under each).
        bool deep = std::all_of(own.begin(), own.end(), [](size_t n) { return n >= 2; });
        bool whole = md.find("… ", stack) == std::string::npos; // No stack and no stack's frames cut.
        if (!shared.empty() && firstOwn.size() > 1 && firstOwn.size() == stacks && deep && whole)
          CHECK_FALSE(std::all_of(firstOwn.begin(), firstOwn.end(),
                                  [&](const std::string &l) { return l == firstOwn.front(); }));
      }
    }
    s.client.shutdown();
  }
  MESSAGE(launches << " launch hovers, " << multi << " with several stacks");
  CHECK(launches > 1000);
  CHECK(multi > 0);
}

TEST_CASE("code actions: quick fixes first; the printer's commands on launches, on model lines only with a "
          "run log") {
  size_t withFixes = 0, modelLines = 0, runLogLines = 0;
  for (const Case &c : cases()) {
    CAPTURE(c.name);
    Session s(c.root);
    INFO(s.client.logTail());
    s.client.request("inductor/compiles", json::object()); // Waits for the index.
    json status = s.client.request("inductor/status", json::object());
    bool runLog = status["runLogs"].get<size_t>() > 0;
    std::string uri = s.client.didOpen(c.root + "/model.py");
    std::set<uint32_t> lines;
    for (const json &l : s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}))
      lines.insert(l["range"]["start"]["line"].get<uint32_t>());
    for (uint32_t line : lines) {
      json actions = s.client.request("textDocument/codeAction",
                                      {{"textDocument", {{"uri", uri}}},
                                       {"range", {{"start", position(line, 0)}, {"end", position(line, 0)}}},
                                       {"context", {{"diagnostics", json::array()}}}});
      REQUIRE(actions.is_array());
      INFO("model.py:" << line + 1 << " " << actions.dump(1));
      bool printer = false, fixAfterPrinter = false, fix = false;
      for (const json &a : actions) {
        bool isPrinter = a.contains("command") && a["command"]["command"] == "inductor.showPrinterEnv";
        if (!isPrinter) {
          fix = true;
          fixAfterPrinter |= printer;
        }
        printer |= isPrinter;
      }
      CHECK_FALSE(fixAfterPrinter);
      if (!runLog) CHECK_FALSE(printer);
      withFixes += fix;
      ++modelLines;
      runLogLines += printer;
    }
    s.client.shutdown();
  }
  MESSAGE(modelLines << " model lines, " << withFixes << " with quick fixes, " << runLogLines
                     << " with the printer's commands (a run log)");
  CHECK(withFixes > 0);
  CHECK(runLogLines > 0);
}

} // namespace
} // namespace inductor::e2e
