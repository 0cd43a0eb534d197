// tests/e2e/RanksTests.cpp: ranks that disagree (issues 29, 42). inductor/ranks over the real binary on real
// multi-rank traces, against the test's own reading of the ranks' logs (TraceOracle.h) and model.py. One
// divergence per compile id, kind and reason; the ranks named are those that had it, the others compiled the
// function without it:
//  - recompile: a `recompile_reasons` reason (its first line without the `N/M: ` of the cached compile and
//    the guard's `# ...` comment) that some ranks logged for a compile id, on the innermost model frame of
//    its "User stack trace:", else on the compiled function's `def` line (its name in the compile's
//    `dynamo_start`, looked up in model.py);
//  - graph break: a `dynamo_graph_break_reason` of a compile id on some ranks only, at its "Graph break in
//    user code at F:L";
//  - different code: among the ranks that logged neither for a compile id, output code that differs from
//    the majority's (the same compile id and graph, in log order; the largest group, a tie: the lowest
//    rank's), on the model line of the first `# File:` comment above the first node of the Dynamo graph
//    (`dynamo_output_graph`) that differs, else of the post-grad graph (`inductor_post_grad_graph`);
//  - collective schedule: the ranks whose `inductor_collective_schedule` lists of a compile id (ranks that
//    logged none are not compared) differ from the majority's (the largest group; a tie: the lowest rank's),
//    on the origin of the launch of their first differing op in their output code;
//  - missing compile: a compile (function, frame_compile_id) some ranks did not make, that is not a
//    recompile of each rank that made it (its `recompile_reasons`) nor a resume function of ranks that broke.
// Traces whose ranks agree (ranks_agree, multirank, the project's NCCL traces) give none of those kinds.
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <set>

namespace inductor::e2e {
namespace {

struct Expected {
  std::string kind;
  std::vector<int64_t> ranks;
  std::string file;
  uint32_t line = 0;
  std::string compileId;
  std::string reason; ///< Recompiles: the reason every rank named logged for the compile id.
  friend auto operator<=>(const Expected &, const Expected &) = default;
};

std::string show(const Expected &e) {
  std::string s = e.kind + " [" + e.compileId + "] [";
  for (int64_t r : e.ranks)
    s += std::to_string(r) + " ";
  return s + "] " + e.file + ":" + std::to_string(e.line) + (e.reason.empty() ? "" : " " + e.reason);
}

std::string show(const std::set<Expected> &set) {
  std::string s;
  for (const Expected &e : set)
    s += show(e) + "; ";
  return s;
}

int rankOf(const std::string &path) {
  std::smatch m;
  static const std::regex re("_rank_([0-9]+)_");
  REQUIRE(std::regex_search(path, m, re));
  return std::stoi(m[1]);
}

std::string artifactName(const TraceRecord &r) {
  if (!r.envelope.contains("artifact")) return {};
  return r.envelope["artifact"].value("name", "");
}

std::string trimmed(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// The reasons of a `recompile_reasons` payload, each with the model frame its "User stack trace:" ends in.
std::vector<std::pair<std::string, std::optional<Frame>>> recompileReasons(const std::string &payload) {
  static const std::regex start(R"(^[0-9]+/[0-9]+: )");
  static const std::regex fileLine(R"re(File "([^"]+)", line ([0-9]+))re");
  std::vector<std::pair<std::string, std::optional<Frame>>> out;
  // torch/_dynamo/guards.py logs the reasons as text, or (`"encoding": "json"`) as a JSON list of them.
  std::string text = payload;
  if (json list = json::parse(payload, nullptr, false); list.is_array()) {
    text.clear();
    for (const json &reason : list)
      if (reason.is_string()) text += reason.get<std::string>() + "\n";
  }
  for (const std::string &line : splitLines(text)) {
    std::smatch m;
    if (std::regex_search(line, m, start)) {
      std::string reason = m.suffix();
      out.push_back({trimmed(reason.substr(0, reason.find("  #"))), std::nullopt});
    } else if (!out.empty() && std::regex_search(line, m, fileLine) && !isLibraryFrame(m[1])) {
      out.back().second = Frame{m[1], static_cast<uint32_t>(std::stoul(m[2]))};
    }
  }
  return out;
}

/// Output code with the device it names made neutral, as ranks on a host's GPUs write it: `cuda:1`,
/// `index=1`, `_DeviceGuard(1`, `get_raw_stream(1`, `set_device(1`, `stream1`, and the `# kernel path:` of
/// each kernel (a cache path that hashes the kernel's source, which names the device) left out.
std::string deviceNeutral(const std::string &text) {
  static const std::regex device(
      R"((cuda:|index=|_DeviceGuard\(|get_raw_stream\(|set_device\(|\bstream)[0-9]+)");
  std::string out;
  for (const std::string &line : splitLines(text))
    if (line.rfind("# kernel path:", 0) != 0) out += std::regex_replace(line, device, "$1#") + "\n";
  return out;
}

/// The logs of a case folder, by rank.
std::map<int, std::vector<TraceRecord>> logsByRank(const std::string &root) {
  std::map<int, std::vector<TraceRecord>> logs;
  // The served run's (a folder of several runs serves its latest, index/files/Runs.h).
  for (const std::string &f : latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace")))
    logs[rankOf(f)] = readTraceLog(f);
  return logs;
}

/// The name of the function a compile id compiles (the innermost frame of its `dynamo_start` stack).
std::map<std::string, std::string> functionsOf(const std::vector<TraceRecord> &records) {
  std::map<std::string, std::string> out;
  for (const TraceRecord &r : records)
    if (r.envelope.contains("dynamo_start") && r.envelope["dynamo_start"].contains("stack") &&
        !r.envelope["dynamo_start"]["stack"].empty())
      out[compileIdText(r.envelope)] = r.envelope["dynamo_start"]["stack"].back().value("name", "");
  return out;
}

/// The 1-based line of `def NAME(` in model.py.
uint32_t defLine(const std::string &root, const std::string &function) {
  std::vector<std::string> lines = splitLines(readFile(root + "/model.py"));
  for (uint32_t i = 0; i < lines.size(); ++i)
    if (trimmed(lines[i]).rfind("def " + function + "(", 0) == 0) return i + 1;
  return 0;
}

/// The divergences of every kind but cache, from the logs and model.py (the file comment's rules).
std::set<Expected> oracle(const std::string &root) {
  std::map<int, std::vector<TraceRecord>> logs = logsByRank(root);
  const size_t of = logs.size();
  // (compile id, reason or place) -> ranks, and where.
  std::map<std::pair<std::string, std::string>, std::set<int>> recompiles, breaks;
  std::map<std::pair<std::string, std::string>, Frame> placeOf;
  std::map<std::string, std::set<int>> eventful;   // compile id -> ranks that logged a break or recompile
  std::map<std::string, std::set<int>> recompiled; // compile id -> ranks that logged recompile reasons
  std::set<int> broke;                             // ranks that logged a graph break
  const std::regex breakAt(R"(Graph break in user code at (\S+):([0-9]+))");
  std::map<int, std::string> logPaths;
  for (const std::string &f : latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace")))
    logPaths[rankOf(f)] = f;
  for (const auto &[rank, records] : logs) {
    std::map<std::string, std::string> functions = functionsOf(records);
    std::optional<HealthExpectation> health; // Read once a reason names no frame of its own.
    for (const TraceRecord &r : records) {
      std::string name = artifactName(r), id = compileIdText(r.envelope);
      if (name == "recompile_reasons") {
        eventful[id].insert(rank);
        recompiled[id].insert(rank);
        for (const auto &[reason, frame] : recompileReasons(r.payload)) {
          recompiles[{id, reason}].insert(rank);
          Frame at{root + "/model.py", defLine(root, functions[id])};
          if (frame) {
            at = Frame{localPathIn(frame->path, root), frame->line};
          } else {
            // No user stack: placed by the compile-health rules (HealthOracle.h: the guard's comment, the
            // failed guard in the cached compile's guard tree, the user's call into a library).
            if (!health) health = expectedHealth(logPaths[rank]);
            for (const ExpectedHealthEvent &e : health->events)
              if (e.kind == "recompile" && e.compile == id && e.title == reason && e.at)
                at = Frame{localPathIn(e.at->path, root), e.at->line};
          }
          placeOf[{id, reason}] = at;
        }
      } else if (name == "dynamo_graph_break_reason") {
        eventful[id].insert(rank);
        broke.insert(rank);
        std::smatch m;
        Frame at{"", 0};
        if (std::regex_search(r.payload, m, breakAt))
          at = Frame{localPathIn(m[1], root), static_cast<uint32_t>(std::stoul(m[2]))};
        std::string key = at.path + ":" + std::to_string(at.line);
        breaks[{id, key}].insert(rank);
        placeOf[{id, key}] = at;
      }
    }
  }
  std::set<Expected> out;
  for (auto *kind : {&recompiles, &breaks})
    for (const auto &[key, ranks] : *kind)
      if (ranks.size() < of)
        out.insert({kind == &recompiles ? "recompile" : "graph break",
                    std::vector<int64_t>(ranks.begin(), ranks.end()), placeOf[key].path, placeOf[key].line,
                    key.first, kind == &recompiles ? key.second : ""});

  // Output code and Dynamo graphs per (compile id, n-th in the compile), per rank.
  std::map<std::pair<std::string, int>, std::map<int, std::string>> code, graphs, postGrad;
  for (const auto &[rank, records] : logs) {
    std::map<std::string, int> nthCode, nthGraph, nthPostGrad;
    for (const TraceRecord &r : records) {
      std::string id = compileIdText(r.envelope);
      if (r.envelope.contains("inductor_output_code")) code[{id, nthCode[id]++}][rank] = r.payload;
      if (r.envelope.contains("dynamo_output_graph")) graphs[{id, nthGraph[id]++}][rank] = r.payload;
      if (artifactName(r) == "inductor_post_grad_graph") postGrad[{id, nthPostGrad[id]++}][rank] = r.payload;
    }
  }
  std::map<std::string, std::set<int>> differing; // compile id -> ranks whose code differs
  for (const auto &[key, byRank] : code) {
    std::map<std::string, std::vector<int>> groups; // Ranks in order: the lowest first.
    for (const auto &[rank, text] : byRank)
      if (!eventful[key.first].count(rank)) groups[deviceNeutral(text)].push_back(rank);
    if (groups.size() < 2) continue;
    // The majority: the largest group; a tie, the one holding the lowest rank.
    const std::vector<int> *majority = nullptr;
    for (const auto &[text, ranks] : groups)
      if (!majority || ranks.size() > majority->size() ||
          (ranks.size() == majority->size() && ranks.front() < majority->front()))
        majority = &ranks;
    for (const auto &[text, ranks] : groups)
      if (&ranks != majority) differing[key.first].insert(ranks.begin(), ranks.end());
  }
  // The model line of the first `# File:` comment above the first node of graph `b` that differs from `a`
  // and has one (a collective's node names PyTorch's file only).
  auto firstDifferingLine = [](const std::string &textA, const std::string &textB) -> std::optional<Frame> {
    std::vector<std::string> a = splitLines(textA), b = splitLines(textB);
    const std::regex comment(R"(# File: (\S+):([0-9]+) in )");
    std::optional<Frame> last;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      std::smatch m;
      if (std::regex_search(b[i], m, comment)) {
        last = isLibraryFrame(m[1])
                   ? std::nullopt
                   : std::optional<Frame>(Frame{m[1], static_cast<uint32_t>(std::stoul(m[2]))});
        continue;
      }
      if (a[i] == b[i] || b[i].find(" = ") == std::string::npos) continue;
      if (last) return last;
    }
    return std::nullopt;
  };
  for (const auto &[id, ranks] : differing) {
    // The reference: a rank of the same compile id whose code is the majority's and that had no event.
    int ref = -1;
    for (const auto &[rank, records] : logs)
      if (!ranks.count(rank) && !eventful[id].count(rank) && ref < 0) ref = rank;
    REQUIRE(ref >= 0);
    int other = *ranks.begin();
    // The Dynamo graph, else the post-grad graph.
    std::optional<Frame> at = firstDifferingLine(graphs[{id, 0}][ref], graphs[{id, 0}][other]);
    if (!at) at = firstDifferingLine(postGrad[{id, 0}][ref], postGrad[{id, 0}][other]);
    REQUIRE(at);
    out.insert({"different code", std::vector<int64_t>(ranks.begin(), ranks.end()),
                localPathIn(at->path, root), at->line, id, ""});
  }

  // Collective schedules per compile id: each rank's lists, in log order.
  std::map<std::string, std::map<int, std::vector<std::string>>> schedules;
  for (const auto &[rank, records] : logs)
    for (const TraceRecord &r : records)
      if (artifactName(r) == "inductor_collective_schedule") {
        json ops = json::parse(r.payload, nullptr, false);
        REQUIRE(ops.is_array());
        for (const json &op : ops)
          schedules[compileIdText(r.envelope)][rank].push_back(op.get<std::string>());
      }
  for (const auto &[id, byRank] : schedules) {
    std::map<std::vector<std::string>, std::vector<int>> groups; // Ranks in order: the lowest first.
    for (const auto &[rank, ops] : byRank)
      groups[ops].push_back(rank);
    if (groups.size() < 2) continue;
    const std::vector<std::string> *majority = nullptr;
    size_t most = 0;
    int lowest = INT32_MAX;
    for (const auto &[ops, ranks] : groups)
      if (ranks.size() > most || (ranks.size() == most && ranks.front() < lowest)) {
        majority = &ops;
        most = ranks.size();
        lowest = ranks.front();
      }
    for (const auto &[ops, ranks] : groups) {
      if (&ops == majority) continue;
      size_t i = 0;
      while (i < ops.size() && i < majority->size() && ops[i] == (*majority)[i])
        ++i;
      REQUIRE(i < ops.size());
      // Their first differing op's launch (the n-th of that op) in the first such rank's output code.
      size_t nth = static_cast<size_t>(std::count(ops.begin(), ops.begin() + static_cast<long>(i), ops[i]));
      std::optional<Frame> at;
      for (const std::string &log : filesIn(root + "/trace", "dedicated_log_torch_trace"))
        if (rankOf(log) == ranks.front())
          for (const ExpectedOutputCode &c : expectedOutputCodes({log}))
            for (const LaunchSite &site : c.launches)
              if (c.record.compileId == id && site.kernel == ops[i] && !at && nth-- == 0) {
                // Of its origins (an in-place collective also has the line that made its buffer), the
                // model line that calls the op (`fc.broadcast(` for `broadcast_`).
                std::string call = ops[i].substr(0, ops[i].rfind(".default"));
                call = call.substr(call.rfind('.') + 1);
                if (!call.empty() && call.back() == '_') call.pop_back();
                std::vector<std::string> model = splitLines(readFile(root + "/model.py"));
                for (const Frame &o : c.originsOf(site))
                  if (o.line >= 1 && o.line <= model.size() &&
                      model[o.line - 1].find(call + "(") != std::string::npos)
                    at = Frame{localPathIn(o.path, root), o.line};
                REQUIRE(at);
              }
      REQUIRE(at);
      out.insert({"collective schedule", std::vector<int64_t>(ranks.begin(), ranks.end()), at->path, at->line,
                  id, ""});
    }
  }

  // Compiles some ranks did not make: (function, frame_compile_id) -> ranks that made it.
  std::map<std::pair<std::string, std::string>, std::set<int>> made;
  std::map<std::pair<std::string, std::string>, std::string> idOf;
  for (const auto &[rank, records] : logs)
    for (const auto &[id, function] : functionsOf(records)) {
      std::pair<std::string, std::string> key{function, id.substr(id.find('/') + 1)};
      made[key].insert(rank);
      if (!idOf.count(key)) idOf[key] = id;
    }
  for (const auto &entry : made) {
    const auto &key = entry.first; // Not a binding: the lambda below captures it.
    const std::set<int> &ranks = entry.second;
    if (ranks.size() == of) continue;
    const std::string &id = idOf[key];
    bool explained = std::all_of(ranks.begin(), ranks.end(), [&](int r) {
      return recompiled[id].count(r) ||
             (key.first.rfind("torch_dynamo_resume_in_", 0) == 0 && broke.count(r));
    });
    if (explained) continue;
    std::vector<int64_t> named;
    if (ranks.size() * 2 <= of) {
      named.assign(ranks.begin(), ranks.end());
    } else {
      for (const auto &[rank, records] : logs)
        if (!ranks.count(rank)) named.push_back(rank);
    }
    out.insert({"missing compile", named, root + "/model.py", defLine(root, key.first), id, ""});
  }
  return out;
}

/// The reason a recompile divergence's message gives: "recompiled on rank 1 only (1 of 4): REASON".
std::string reasonOf(const json &d) {
  if (d["kind"] != "recompile") return "";
  std::string m = d["message"];
  size_t at = m.find("): ");
  std::string reason = at == std::string::npos ? m : m.substr(at + 3);
  // One reason given against several earlier compiles is said once, with how many.
  static const std::regex against(R"( \(against [0-9]+ earlier compiles\)$)");
  return std::regex_replace(reason, against, "");
}

std::set<Expected> served(const json &result, const std::set<std::string> &kinds) {
  std::set<Expected> out;
  for (const json &d : result["divergences"])
    if (kinds.count(d["kind"].get<std::string>()))
      out.insert({d["kind"], d["ranks"].get<std::vector<int64_t>>(),
                  d["file"].is_string() ? d["file"].get<std::string>() : "",
                  d["line"].is_number() ? d["line"].get<uint32_t>() : 0, d["compileId"].get<std::string>(),
                  reasonOf(d)});
  return out;
}

json explainRanks(const std::string &root) {
  std::string cmd = "cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --json --no-python '" + root +
                    "' 2>/dev/null";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::array<char, 65536> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0)
    out.append(buf.data(), n);
  json j = json::parse(out, nullptr, false);
  REQUIRE(j.is_object());
  return j["ranks"];
}

const std::set<std::string> kOutcomeKinds = {"recompile", "graph break", "different code"};
/// Every kind but cache (hovers only).
const std::set<std::string> kKinds = {"recompile",      "graph break",         "failure",
                                      "different code", "collective schedule", "missing compile"};

/// Every recompile divergence names only ranks whose logs give its reason for its compile id.
void checkReasonsOfRanks(const std::string &root, const json &result) {
  std::map<int, std::vector<TraceRecord>> logs = logsByRank(root);
  for (const json &d : result["divergences"]) {
    if (d["kind"] != "recompile") continue;
    INFO(d.dump());
    for (int64_t rank : d["ranks"]) {
      std::set<std::string> theirs;
      for (const TraceRecord &r : logs[static_cast<int>(rank)])
        if (artifactName(r) == "recompile_reasons" && compileIdText(r.envelope) == d["compileId"])
          for (const auto &reason : recompileReasons(r.payload))
            theirs.insert(reason.first);
      CHECK_MESSAGE(theirs.count(reasonOf(d)), "rank " << rank << " logged another reason");
    }
  }
}

/// inductor/ranks of a case, its divergences of every kind but cache equal to the oracle's, the reasons of
/// recompiles the named ranks' own; explain --json writes the same answer. Returns the answer.
json checkAgainstOracle(const std::string &root, const std::set<Expected> &expected) {
  INFO("oracle: " << show(expected));
  Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
  json result = s.client.request("inductor/ranks", json::object());
  REQUIRE(result.is_object());
  CHECK(result["count"] == logsByRank(root).size());
  std::set<Expected> got = served(result, kKinds);
  INFO("served: " << show(got));
  CHECK(got == expected);
  checkReasonsOfRanks(root, result);
  for (const json &d : result["divergences"])
    CHECK(d["of"] == result["count"]);
  CHECK(explainRanks(root) == result);
  s.client.shutdown();
  return result;
}

} // namespace

TEST_CASE("ranks: ranks_diverge gives exactly its three divergences, on the lines and ranks of the logs") {
  const std::string root = caseDir("ranks_diverge");
  std::set<Expected> expected = oracle(root);
  INFO("oracle: " << show(expected));
  // The oracle itself: one of each kind, on three different ranks.
  REQUIRE(expected.size() == 3);
  std::set<std::string> kinds;
  std::set<int64_t> ranks;
  for (const Expected &e : expected) {
    kinds.insert(e.kind);
    ranks.insert(e.ranks.begin(), e.ranks.end());
  }
  CHECK(kinds == kOutcomeKinds);
  CHECK(ranks.size() == 3);
  checkAgainstOracle(root, expected);

  // Each divergence on its line as a diagnostic: a Warning naming the rank (recompile, graph break), an
  // Information (different code).
  Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
  json report =
      s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(root + "/model.py")}}}});
  for (const Expected &e : expected) {
    INFO(show(e));
    std::string rank = "rank " + std::to_string(e.ranks.front()) + " only (1 of 4)";
    bool found = false;
    for (const json &d : report["items"]) {
      if (d["range"]["start"]["line"] != e.line - 1) continue;
      std::string message = d["message"];
      if (message.find(rank) == std::string::npos) continue;
      found = true;
      CHECK(d["severity"] == (e.kind == "different code" ? 3 : 2));
    }
    CHECK(found);
  }
  // Once per divergence: no two diagnostics of the file say the same first line.
  std::set<std::pair<int, std::string>> firstLines;
  for (const json &d : report["items"]) {
    std::string m = d["message"];
    CHECK(firstLines.insert({d["range"]["start"]["line"].get<int>(), m.substr(0, m.find('\n'))}).second);
  }
  s.client.shutdown();
}

TEST_CASE("ranks: ranks_uneven — rank 1 and rank 3 recompiled [0/1] for their own reasons, rank 0's code") {
  // tests/traces/README.md: rank 3's last batch is smaller (a recompile on its size), rank 1 evaluates once
  // under no_grad (a recompile on grad mode: the inference graph only it compiles), rank 0 takes another
  // normalisation branch (other code). One line, one compile id, two reasons: two divergences, each naming
  // only its rank (issue 42: both were one, `recompiled on ranks 1, 3: grad_mode`).
  const std::string root = std::string(INDUCTOR_TRACES_DIR) + "/ranks_uneven";
  std::set<Expected> expected = oracle(root);
  INFO("oracle: " << show(expected));
  // The oracle agrees with the README: two recompiles of [0/1] on the `def` line, one rank each, their
  // reasons apart; different code on rank 0; no collective schedule or missing compile.
  std::map<std::string, std::vector<const Expected *>> byKind;
  for (const Expected &e : expected)
    byKind[e.kind].push_back(&e);
  REQUIRE(byKind["recompile"].size() == 2);
  std::set<std::vector<int64_t>> recompiled;
  for (const Expected *e : byKind["recompile"]) {
    CHECK(e->compileId == "0/1");
    CHECK(e->line == defLine(root, "forward"));
    recompiled.insert(e->ranks);
  }
  CHECK(recompiled == std::set<std::vector<int64_t>>{{1}, {3}});
  CHECK(byKind["recompile"][0]->reason != byKind["recompile"][1]->reason);
  REQUIRE(byKind["different code"].size() == 1);
  CHECK(byKind["different code"][0]->ranks == std::vector<int64_t>{0});
  CHECK(byKind.count("collective schedule") == 0);
  CHECK(byKind.count("missing compile") == 0);
  checkAgainstOracle(root, expected);

  // The diagnostic of the def line says each divergence with its own ranks and reason.
  Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
  json report =
      s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(root + "/model.py")}}}});
  for (const Expected *e : byKind["recompile"]) {
    std::string said =
        "recompiled on rank " + std::to_string(e->ranks.front()) + " only (1 of 4): " + e->reason;
    bool found = false;
    for (const json &d : report["items"])
      found |= d["range"]["start"]["line"] == e->line - 1 &&
               d["message"].get<std::string>().find(said) != std::string::npos;
    CHECK_MESSAGE(found, said);
  }
  s.client.shutdown();
}

TEST_CASE("ranks: ranks_order — rank 1 broadcasts before it reduces: a collective schedule divergence") {
  // tests/traces/README.md: two ranks whose graphs issue an all_reduce and a broadcast in opposite orders
  // (the job hangs). The lowest rank's schedule is the majority's in a tie: rank 1 is named, on the line of
  // its first collective that differs (its broadcast), an Error.
  const std::string root = std::string(INDUCTOR_TRACES_DIR) + "/ranks_order";
  std::set<Expected> expected = oracle(root);
  INFO("oracle: " << show(expected));
  // Its code differs too (the collectives in another order), on rank 1 as well.
  REQUIRE(expected.size() == 2);
  const Expected *schedule = nullptr;
  for (const Expected &e : expected) {
    CHECK(e.ranks == std::vector<int64_t>{1});
    if (e.kind == "collective schedule")
      schedule = &e;
    else
      CHECK(e.kind == "different code");
  }
  REQUIRE(schedule);
  const Expected &e = *schedule;
  std::vector<std::string> model = splitLines(readFile(root + "/model.py"));
  REQUIRE(e.line >= 1);
  CHECK(model.at(e.line - 1).find("fc.broadcast(") != std::string::npos);
  json result = checkAgainstOracle(root, expected);
  for (const json &d : result["divergences"])
    if (d["kind"] == "collective schedule") {
      std::string m = d["message"];
      CHECK(m.find("broadcast") != std::string::npos);
      CHECK(m.find("all_reduce") != std::string::npos);
    }
  Session s(root, json{{"traceDirs", json::array({root + "/trace"})}});
  json report =
      s.client.request("textDocument/diagnostic", {{"textDocument", {{"uri", fileURI(root + "/model.py")}}}});
  bool found = false;
  for (const json &d : report["items"])
    if (d["range"]["start"]["line"] == e.line - 1 && d["code"] == "ranks-collective-schedule") {
      found = true;
      CHECK(d["severity"] == 1);
    }
  CHECK(found);
  s.client.shutdown();
}

TEST_CASE("ranks: every case folder of several ranks gives exactly the oracle's divergences (none but cache "
          "where they agree)") {
  size_t agree = 0, diverge = 0;
  for (const std::string &root : caseFolders()) {
    // A distributed run: logs named by rank (torch/_logging/_internal.py), more than one.
    std::vector<std::string> logs = latestRunLogs(filesIn(root + "/trace", "dedicated_log_torch_trace"));
    if (std::count_if(logs.begin(), logs.end(),
                      [](const std::string &f) { return f.find("_rank_") != std::string::npos; }) < 2)
      continue;
    INFO(root);
    std::set<Expected> expected = oracle(root);
    (expected.empty() ? agree : diverge) += 1;
    checkAgainstOracle(root, expected);
  }
  // Both answers are swept: ranks_agree, multirank, ddp_gpt2... agree; ranks_diverge, ranks_uneven,
  // ranks_order do not.
  CHECK(agree >= 3);
  CHECK(diverge >= 3);
  MESSAGE(agree << " case folders whose ranks agree, " << diverge << " whose ranks diverge");
}

} // namespace inductor::e2e
