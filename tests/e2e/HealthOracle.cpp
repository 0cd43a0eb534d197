#include "e2e/HealthOracle.h"

#include <regex>

namespace inductor::e2e {
namespace {

const std::regex kFrameLine(R"re(^\s*File "([^"]+)", line (\d+), in (.*)$)re");

std::string strip(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// `File "...", line N` frames of a traceback, outermost first, from `from` until a blank or unindented line.
std::vector<Frame> tracebackFrames(const std::vector<std::string> &lines, size_t from) {
  std::vector<Frame> out;
  for (size_t i = from; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i][0] != ' ') break;
    std::smatch m;
    if (std::regex_match(lines[i], m, kFrameLine))
      out.push_back({m[1].str(), uint32_t(std::stoul(m[2].str()))});
  }
  return out;
}

std::optional<Frame> innermostModel(const std::vector<Frame> &frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (isModelFrame(it->path)) return *it;
  return std::nullopt;
}

std::string compileOf(const json &env) {
  return compileIdText(env);
}

/// The record's kind: its one key that is not an envelope field (nlohmann's objects are sorted by key, so the
/// first key written is not the first key read).
std::string kindOf(const json &env) {
  if (!env.is_object()) return "";
  for (auto it = env.begin(); it != env.end(); ++it) {
    const std::string &k = it.key();
    if (k != "frame_id" && k != "frame_compile_id" && k != "attempt" && k != "compiled_autograd_id" &&
        k != "rank" && k != "has_payload" && k != "stack")
      return k;
  }
  return "";
}

std::vector<Frame> jsonStack(const json &stack, const std::map<int, std::string> &strs) {
  std::vector<Frame> out;
  if (!stack.is_array()) return out;
  for (const json &f : stack) {
    if (!f.is_object() || !f.contains("line")) continue;
    std::string file;
    if (f["filename"].is_number()) {
      auto it = strs.find(f["filename"].get<int>());
      if (it != strs.end()) file = it->second;
    } else if (f["filename"].is_string()) {
      file = f["filename"].get<std::string>();
    }
    out.push_back({file, f["line"].get<uint32_t>()});
  }
  return out;
}

/// The recorded file a shortened path ("mp/work/m.py") names: the only recorded file ending with it.
std::optional<std::string> expand(const std::string &printed, const std::set<std::string> &files) {
  std::optional<std::string> found;
  for (const std::string &f : files)
    if (f == printed ||
        (f.size() > printed.size() && f.compare(f.size() - printed.size(), printed.size(), printed) == 0)) {
      if (found) return std::nullopt;
      found = f;
    }
  return found;
}

} // namespace

bool isModelFrame(const std::string &path) {
  return !path.empty() && path[0] != '<' && !isLibraryFrame(path);
}

HealthExpectation expectedHealth(const std::string &logPath) {
  HealthExpectation out;
  std::vector<TraceRecord> records = readTraceLog(logPath);
  std::map<int, std::string> strs;
  std::set<std::string> files;
  std::map<std::string, json> metrics;                   // Compile -> its compilation_metrics.
  std::map<std::string, std::vector<std::string>> trees; // Compile -> guard tree lines.
  std::map<std::string, std::vector<std::vector<Frame>>> breakStacks;
  std::map<std::string, bool> outputs;
  std::map<std::string, std::vector<std::string>> recompileReasons;
  std::map<std::string, std::vector<Frame>> startStacks; // Compile -> dynamo_start's stack.
  std::map<std::string, Frame> callers; // Compile -> the frame that entered Dynamo (create_symbol stacks).
  std::map<std::string, std::vector<std::string>> errors;     // Compile -> dynamo_error tracebacks.
  std::map<std::string, std::vector<std::string>> breakTexts; // Compile -> dynamo_graph_break_reason texts.
  std::optional<int> fileRank;
  static const std::regex rankName(R"(_rank_(\d+)[_.])");
  std::smatch rm;
  std::string base = logPath.substr(logPath.rfind('/') + 1);
  if (std::regex_search(base, rm, rankName)) fileRank = std::stoi(rm[1].str());
  for (const TraceRecord &r : records) {
    if (r.malformed) continue;
    std::string kind = kindOf(r.envelope);
    if (kind == "str" && r.envelope["str"].is_array()) {
      strs[r.envelope["str"][1].get<int>()] = r.envelope["str"][0].get<std::string>();
      files.insert(r.envelope["str"][0].get<std::string>());
    }
    std::string id = compileOf(r.envelope);
    if (id.empty()) continue;
    if (kind == "compilation_metrics") {
      metrics[id] = r.envelope[kind];
      if (metrics[id].contains("co_filename") && metrics[id]["co_filename"].is_string())
        files.insert(metrics[id]["co_filename"].get<std::string>());
    }
    if (kind == "dynamo_cpp_guards_str") {
      std::vector<std::string> lines = splitLines(r.payload);
      trees[id] = lines;
    }
    if (kind == "inductor_output_code") outputs[id] = true;
    if (kind == "artifact" && r.envelope["artifact"].value("name", "") == "dynamo_error")
      errors[id].push_back(r.payload);
    if (kind == "artifact" && r.envelope["artifact"].value("name", "") == "dynamo_graph_break_reason")
      breakTexts[id].push_back(r.payload);
    if (kind == "dynamo_start") startStacks[id] = jsonStack(r.envelope[kind].value("stack", json()), strs);
    if (kind == "create_symbol" && !callers.count(id)) {
      std::vector<Frame> stack = jsonStack(r.envelope[kind].value("stack", json()), strs);
      for (size_t i = 1; i < stack.size(); ++i)
        if (stack[i].path.size() >= 27 &&
            stack[i].path.compare(stack[i].path.size() - 27, 27, "torch/_dynamo/eval_frame.py") == 0) {
          if (isModelFrame(stack[i - 1].path)) callers[id] = stack[i - 1];
          break;
        }
    }
  }

  // The compiled function's def line, else (a function in a library) the innermost model frame that led
  // to it.
  auto defOf = [&](const std::string &id) -> std::optional<Frame> {
    auto it = metrics.find(id);
    if (it != metrics.end() && it->second["co_filename"].is_string() &&
        it->second["co_firstlineno"].is_number()) {
      Frame f{it->second["co_filename"].get<std::string>(), it->second["co_firstlineno"].get<uint32_t>()};
      if (isModelFrame(f.path)) return f;
    }
    return innermostModel(startStacks[id]);
  };
  auto rankOf = [&](const json &env) -> std::optional<int> {
    if (env.contains("rank") && env["rank"].is_number()) return env["rank"].get<int>();
    return fileRank;
  };

  static const std::regex link(R"(please visit: (\S+))");
  static const std::regex configStatement("`(torch\\._dynamo\\.config\\.[A-Za-z_]+ = [^`]+)`");
  static const std::regex comment(R"(  # (\S+):(\d+) in \S+)");
  for (const TraceRecord &r : records) {
    if (r.malformed) continue;
    std::string kind = kindOf(r.envelope);
    std::string id = compileOf(r.envelope);
    if (id.empty()) continue;
    std::string name = kind == "artifact" ? r.envelope["artifact"].value("name", "") : "";
    if (name == "dynamo_graph_break_reason") {
      std::vector<std::string> lines = splitLines(r.payload);
      ExpectedHealthEvent e;
      e.kind = "graph break";
      e.compile = id;
      e.rank = rankOf(r.envelope);
      e.severity = 2;
      std::optional<Frame> at;
      std::vector<Frame> stack;
      std::string header, lastUnindented;
      bool explained = false;
      for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &l = lines[i];
        if (l.rfind("Graph break in user code at ", 0) == 0) {
          std::string rest = l.substr(28);
          size_t colon = rest.rfind(':');
          at = Frame{rest.substr(0, colon), uint32_t(std::stoul(rest.substr(colon + 1)))};
        } else if (l.rfind("Graph Break Reason: ", 0) == 0) {
          header = strip(l.substr(20));
        } else if (strip(l).rfind("Explanation:", 0) == 0 && !explained) {
          explained = true;
          e.title = lastUnindented.empty() ? header : lastUnindented;
        } else if (!l.empty() && l[0] != ' ' && !header.empty() && !explained) {
          lastUnindented = strip(l);
        } else if (strip(l).rfind("Hint:", 0) == 0) {
          std::smatch m;
          if (std::regex_search(l, m, configStatement)) e.hintConfig = m[1].str();
          if (l.find("Remove the `torch._dynamo.graph_break()` call") != std::string::npos)
            e.removeGraphBreak = true;
        }
        std::smatch m;
        // The first graph break's link: the ones after "*** While handling this graph break, another graph
        // break occurred: ***" are of follow-ups.
        if (e.href.empty() && std::regex_search(l, m, link)) {
          e.href = m[1].str();
          std::string file = e.href.substr(e.href.rfind('/') + 1);
          e.code = file.substr(0, file.find('.'));
        }
        if (l == "User code traceback:") {
          stack = tracebackFrames(lines, i + 1);
          break;
        }
      }
      if (e.title.empty()) e.title = header;
      e.at = at && isModelFrame(at->path) ? at : innermostModel(stack);
      if (!e.at) e.at = defOf(id);
      for (const Frame &f : stack)
        if (isModelFrame(f.path)) {
          e.stack.push_back(f);
          if (!e.at || !(f == *e.at)) e.related.insert(f);
        }
      breakStacks[id].push_back(stack);
      bool dup = false;
      for (const ExpectedHealthEvent &o : out.events)
        dup |= o.kind == e.kind && o.compile == e.compile && o.at == e.at && o.title == e.title &&
               o.rank == e.rank;
      if (!dup) out.events.push_back(std::move(e));
    } else if (name == "recompile_reasons") {
      json j = json::parse(r.payload, nullptr, false);
      std::vector<std::string> reasons;
      if (j.is_array())
        for (const json &s : j)
          reasons.push_back(s.get<std::string>());
      else if (j.is_string())
        reasons.push_back(j.get<std::string>());
      else
        reasons.push_back(r.payload);
      recompileReasons[id] = reasons;
    }
  }
  // Recompiles: the artifact's reasons, else compilation_metrics' recompile_reason.
  for (const auto &[id, m] : metrics)
    if (!recompileReasons.count(id) && m.contains("recompile_reason") && m["recompile_reason"].is_string())
      recompileReasons[id] = {m["recompile_reason"].get<std::string>()};
  for (const auto &[id, all] : recompileReasons) {
    // One event per distinct reason text (without its "N/M: " prefix): the same guard failing against several
    // cached compiles is one failure.
    std::vector<std::string> reasons;
    std::set<std::string> seenReasons;
    for (const std::string &reason : all) {
      std::string key = reason;
      static const std::regex prefix(R"(^[0-9!/]+: )");
      key = std::regex_replace(key, prefix, "", std::regex_constants::format_first_only);
      if (seenReasons.insert(key).second) reasons.push_back(reason);
    }
    for (const std::string &reason : reasons) {
      std::vector<std::string> lines = splitLines(reason);
      ExpectedHealthEvent e;
      e.kind = "recompile";
      e.compile = id;
      e.code = "recompile";
      e.severity = 3;
      // The guard failures of the compile that hit the recompile limit: a Warning (the frame now runs
      // eagerly).
      if (auto mm = metrics.find(id); mm != metrics.end() && mm->second["fail_reason"].is_string()) {
        std::string fr = mm->second["fail_reason"].get<std::string>();
        if (fr.find("recompile limit exceeded") != std::string::npos ||
            fr.find("recompile_limit") != std::string::npos ||
            fr.find("cache_size_limit") != std::string::npos)
          e.severity = 2;
      }
      std::string first = lines.empty() ? "" : lines[0];
      std::string cached;
      if (size_t colon = first.find(": ");
          colon != std::string::npos && first.substr(0, colon).find(' ') == std::string::npos) {
        cached = first.substr(0, colon);
        first = first.substr(colon + 2);
      }
      e.title = strip(first.substr(0, first.find("  #")));
      for (size_t i = 0; i < lines.size(); ++i)
        if (strip(lines[i]) == "User stack trace:") e.at = innermostModel(tracebackFrames(lines, i + 1));
      std::smatch m;
      std::string::const_iterator searchStart = first.cbegin();
      std::optional<Frame> commented;
      while (std::regex_search(searchStart, first.cend(), m, comment)) {
        if (auto file = expand(m[1].str(), files)) commented = Frame{*file, uint32_t(std::stoul(m[2].str()))};
        searchStart = m.suffix().first;
      }
      if (!e.at && commented && isModelFrame(commented->path)) e.at = commented;
      static const std::regex tensor(R"(^tensor '([A-Za-z_][A-Za-z0-9_]*)' )");
      static const std::regex size(R"(size mismatch at index (\d+))");
      if (std::regex_search(e.title, m, tensor)) {
        e.tensor = m[1].str();
        std::string want = "TENSOR_MATCH: check_tensor(L['" + e.tensor + "']";
        for (const std::string &g : trees[cached])
          if (g.find(want) != std::string::npos) {
            std::smatch c;
            std::string::const_iterator s = g.cbegin();
            std::optional<Frame> guardAt;
            while (std::regex_search(s, g.cend(), c, comment)) {
              if (auto file = expand(c[1].str(), files))
                guardAt = Frame{*file, uint32_t(std::stoul(c[2].str()))};
              s = c.suffix().first;
            }
            if (!e.at && guardAt && isModelFrame(guardAt->path)) e.at = guardAt;
          }
      }
      if (std::regex_search(e.title, m, size)) e.sizeIndex = std::stoi(m[1].str());
      if (!e.at) e.at = defOf(id);
      // The call of the compiled function: where a create_symbol's stack enters Dynamo, else the frame above
      // the function in a graph break's user traceback.
      if (auto c = callers.find(id); c != callers.end()) e.caller = c->second;
      if (auto mm = metrics.find(id); mm != metrics.end() && !e.caller)
        for (const auto &stack : breakStacks[id])
          for (size_t i = 1; i < stack.size(); ++i)
            if (mm->second["co_filename"].is_string() && mm->second["co_firstlineno"].is_number() &&
                stack[i].path == mm->second["co_filename"].get<std::string>() &&
                stack[i].line >= mm->second["co_firstlineno"].get<uint32_t>() &&
                isModelFrame(stack[i - 1].path))
              e.caller = stack[i - 1];
      out.events.push_back(std::move(e));
    }
  }
  // Failures and specialisations.
  for (const TraceRecord &r : records) {
    if (r.malformed) continue;
    std::string kind = kindOf(r.envelope);
    std::string id = compileOf(r.envelope);
    if (id.empty()) continue;
    if (kind == "compilation_metrics" && r.envelope[kind]["fail_type"].is_string()) {
      const json &m = r.envelope[kind];
      ExpectedHealthEvent e;
      e.kind = "failure";
      e.compile = id;
      e.rank = rankOf(r.envelope);
      e.severity = 1;
      e.code = m["fail_type"].get<std::string>();
      e.title = e.code;
      std::string reason = m["fail_reason"].is_string() ? m["fail_reason"].get<std::string>() : "";
      std::smatch lm;
      std::string firstLink = std::regex_search(reason, lm, link) ? lm[1].str() : "";
      // The recompile limit (unless configured to fail): a Warning on the function's def line, which an
      // earlier compile of the same frame id names (this one's metrics name no function).
      bool limit = reason.find("recompile limit exceeded") != std::string::npos ||
                   reason.find("recompile_limit") != std::string::npos ||
                   reason.find("cache_size_limit") != std::string::npos;
      if (limit && e.code.rfind("FailOn", 0) != 0) {
        e.kind = "recompileLimit";
        e.severity = 2;
        e.code = "recompile-limit";
        e.href = firstLink;
        std::smatch n;
        static const std::regex currently(R"(currently set to (\d+))");
        std::string value;
        if (std::regex_search(reason, n, currently)) {
          value = n[1].str();
        } else if (m.contains("dynamo_config") && m["dynamo_config"].is_string()) {
          json config = json::parse(m["dynamo_config"].get<std::string>(), nullptr, false);
          if (config.is_object() && config["recompile_limit"].is_number())
            value = std::to_string(config["recompile_limit"].get<int>());
        }
        e.title = "recompile limit" + (value.empty() ? std::string() : " (" + value + ")") + " reached";
        e.at = defOf(id);
        std::string frame = id.substr(0, id.find('/') + 1);
        for (auto it = metrics.rbegin(); it != metrics.rend() && !e.at; ++it)
          if (it->first.rfind(frame, 0) == 0 && it->first != id) e.at = defOf(it->first);
        out.events.push_back(std::move(e));
        continue;
      }
      // A graph break that made Dynamo skip the frame, which ran eagerly: the graph break's record says it;
      // without one, the failure is the graph break (a Warning with its first graph break's link).
      auto skips = [](const std::string &text) {
        return text.find("falling back to eager") != std::string::npos ||
               text.find("Skipping frame") != std::string::npos ||
               text.find("Skipping the frame") != std::string::npos ||
               text.find("frame skipped: ") != std::string::npos;
      };
      bool skipped = skips(reason);
      for (const std::string &b : breakTexts[id])
        skipped = skipped || skips(b);
      if (skipped) {
        if (!breakTexts[id].empty()) continue;
        e.kind = "graph break";
        e.severity = 2;
        e.href = firstLink;
        e.code = firstLink.substr(firstLink.rfind('/') + 1);
        e.code = e.code.substr(0, e.code.find('.'));
        e.title = strip(reason.substr(0, reason.find('\n')));
      }
      // Where Dynamo was tracing when it was raised: fail_user_frame, the "User stack:" of its reason, the
      // "from user code:" frames of its reason or traceback, the traceback's "User stack:", else the def.
      if (m["fail_user_frame_filename"].is_string() && m["fail_user_frame_lineno"].is_number()) {
        Frame f{m["fail_user_frame_filename"].get<std::string>(),
                m["fail_user_frame_lineno"].get<uint32_t>()};
        if (isModelFrame(f.path)) e.at = f;
      }
      auto section = [](const std::string &text, const std::string &heading) -> std::vector<Frame> {
        std::vector<std::string> lines = splitLines(text);
        std::vector<Frame> last;
        for (size_t i = 0; i < lines.size(); ++i)
          if (strip(lines[i]) == heading) last = tracebackFrames(lines, i + 1);
        return last;
      };
      std::vector<std::vector<Frame>> candidates{section(reason, "User stack:"),
                                                 section(reason, "from user code:")};
      for (const std::string &error : errors[id])
        candidates.push_back(section(error, "from user code:"));
      for (const std::string &error : errors[id])
        candidates.push_back(section(error, "User stack:"));
      for (const auto &frames : candidates)
        if (!e.at && !frames.empty()) e.at = innermostModel(frames);
      if (!e.at) e.at = defOf(id);
      out.events.push_back(std::move(e));
    }
    if (kind == "symbolic_shape_specialization") {
      const json &s = r.envelope[kind];
      ExpectedHealthEvent e;
      e.kind = "specialization";
      e.compile = id;
      e.rank = rankOf(r.envelope);
      e.severity = 3;
      e.code = "specialization";
      e.title = "specialized to " + s.value("value", "");
      e.at = innermostModel(jsonStack(s.value("user_stack", json()), strs));
      // No model frame in its stack (a graph of compiled autograd: Dynamo's trace of the autograd graph, in
      // a module with no file): the compile's own place, its def line or the user line that entered it.
      if (!e.at) e.at = defOf(id);
      out.events.push_back(std::move(e));
    }
  }
  // Compiles.
  for (const auto &[id, m] : metrics) {
    RecordedHealthCompile c;
    c.id = id;
    c.function = m["co_name"].is_string() ? m["co_name"].get<std::string>() : ""; // Null past the limit.
    c.file = m["co_filename"].is_string() ? m["co_filename"].get<std::string>() : "";
    c.firstLine = m["co_firstlineno"].is_number() ? m["co_firstlineno"].get<uint32_t>() : 0;
    c.failType = m["fail_type"].is_string() ? m["fail_type"].get<std::string>() : "";
    // Ran eagerly: the recompile limit (not configured to fail) or a skipped frame.
    for (const ExpectedHealthEvent &e : out.events)
      c.ranEagerly = c.ranEagerly || (e.compile == id && e.kind == "recompileLimit");
    if (!c.failType.empty()) {
      bool failure = false;
      for (const ExpectedHealthEvent &e : out.events)
        failure = failure || (e.compile == id && e.kind == "failure");
      c.ranEagerly = c.ranEagerly || !failure;
    }
    c.graphBreak = !breakStacks[id].empty();
    c.outputCode = outputs[id];
    c.recompile = recompileReasons.count(id) > 0;
    c.startStack = startStacks[id];
    out.compiles.push_back(std::move(c));
  }
  for (ExpectedHealthEvent &e : out.events)
    if (!e.rank) e.rank = fileRank;
  return out;
}

} // namespace inductor::e2e
