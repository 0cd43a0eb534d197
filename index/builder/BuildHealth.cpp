// Compile health, the build step (see IndexBuilder.h and CompileHealth.h): each log's records are read into
// RecordedCompiles (CompileHealth.cpp, on worker threads), then turned into the model: frames, compiles,
// attempts and events, every event placed on the innermost model frame the trace gives for it.
//
// Two seams, so that the rules of model code and of edited sources can change in one place each:
//  - the model-frame rule (ModelFrames.h, with the user's libraryPaths) decides which recorded frames are the
//    user's model code, as for kernel origins;
//  - Placer::place() turns a recorded file:line into a place (an Origin, resolved like every other user
//    origin by makeOrigin); nothing else creates places.
#include "index/builder/IndexBuilder.h"
#include "index/support/PathNames.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace inductor::index {

using namespace detail;

namespace {

constexpr std::string_view kResumePrefix = "torch_dynamo_resume_in_";

/// Recorded files of one log, to expand the shortened paths of guard comments ("mp/work/model.py", see
/// torch.utils._traceback.shorten_filename) to the file they name.
class KnownFiles {
public:
  void add(const std::string &file) {
    if (!file.empty() && files_.insert(file).second) byName_[std::string(baseName(file))].push_back(file);
  }
  void add(const std::vector<StackFrame> &stack) {
    for (const StackFrame &f : stack)
      add(f.file);
  }
  /// The recorded file `printed` names: itself when recorded as is, else the one recorded file that ends with
  /// it; nullopt when none or several do.
  std::optional<std::string> expand(const std::string &printed) const {
    if (printed.empty()) return std::nullopt;
    if (files_.count(printed)) return printed;
    std::optional<std::string> found;
    auto consider = [&](const std::string &f) {
      if (f.size() <= printed.size() || !f.ends_with(printed)) return true;
      if (found) {
        found.reset();
        return false; // Several: ambiguous.
      }
      found = f;
      return true;
    };
    // A name with a directory part ends with a whole file name: only the files of that name can end with it
    // (asked per guard comment, a scan of every recorded file was quadratic in files, issue 33). A shortened
    // name without one may be the tail of a file name: those look at every file.
    if (printed.find('/') != std::string::npos) {
      auto it = byName_.find(std::string(baseName(printed)));
      if (it == byName_.end()) return std::nullopt;
      for (const std::string &f : it->second)
        if (!consider(f)) return std::nullopt;
      return found;
    }
    for (const std::string &f : files_)
      if (!consider(f)) return std::nullopt;
    return found;
  }

private:
  std::set<std::string> files_;
  std::unordered_map<std::string, std::vector<std::string>> byName_; // Base name -> files of that name.
};

std::string firstLine(std::string_view s) {
  size_t nl = s.find('\n');
  return std::string(trim(s.substr(0, nl)));
}

/// The first line of an exception message, with the next one when it announces it ("backend='x' raised:").
std::string headline(std::string_view s) {
  std::string first = firstLine(s);
  size_t nl = s.find('\n');
  if (!first.empty() && first.back() == ':' && nl != std::string_view::npos) {
    std::string next = firstLine(s.substr(nl + 1));
    if (!next.empty()) first += " " + next;
  }
  return first;
}

bool isLimitFailure(const std::string &type, const std::string &reason) {
  for (std::string_view t :
       {"RecompileLimitExceeded", "FailOnRecompileLimitHit", "CacheLimitExceeded", "FailOnCacheLimitHit"})
    if (type == t) return true;
  for (std::string_view r : {"recompile_limit reached", "cache_size_limit reached", "cache limit exceeded",
                             "recompile_limit", "cache_size_limit"})
    if (reason.find(r) != std::string::npos) return true;
  return false;
}

/// "torch_dynamo_resume_in_<fn>_at_<line>" -> (<fn>, <line>).
std::optional<std::pair<std::string, uint32_t>> resumeTarget(std::string_view name) {
  if (!name.starts_with(kResumePrefix)) return std::nullopt;
  name.remove_prefix(kResumePrefix.size());
  size_t at = name.rfind("_at_");
  if (at == std::string_view::npos) return std::nullopt;
  uint32_t line = 0;
  for (char c : name.substr(at + 4)) {
    if (!isDigit(c)) return std::nullopt;
    line = line * 10 + static_cast<uint32_t>(c - '0');
  }
  return std::make_pair(std::string(name.substr(0, at)), line);
}

} // namespace

std::vector<std::function<void()>> IndexBuilder::healthReads(HealthRead &out) {
  const auto &logs = tables_->logs;
  out.recorded.resize(logs.size());
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < logs.size(); ++i)
    tasks.emplace_back([&out, &log = *logs[i], i] { out.recorded[i] = readCompileHealth(log, &out.trees); });
  return tasks;
}

void IndexBuilder::buildHealth(HealthRead &read) {
  const auto &logs = tables_->logs;
  // Not const: each compile's shape records are moved into the model (nothing reads them after).
  std::vector<std::vector<RecordedCompile>> &recorded = read.recorded;
  if (cancelled()) return;

  CompileHealth &h = index_->health_;
  // Places, one per distinct (recorded file, line).
  std::map<std::pair<std::string, uint32_t>, uint32_t> placeIds;
  auto place = [&](const StackFrame &f) -> std::optional<uint32_t> {
    if (f.line == 0 || f.file.empty() || !frames_.isModelFrame(f.file)) return std::nullopt;
    auto [it, inserted] = placeIds.emplace(std::make_pair(f.file, f.line), uint32_t(h.places.size()));
    if (inserted) {
      h.places.push_back(makeOrigin(f.file, f.line, f.code, f.function));
    } else {
      // The same line reached from another record: keep whatever source text and function one of them has.
      Origin &o = h.places[it->second];
      if (o.code.empty()) o.code = f.code;
      if (o.function.empty()) o.function = f.function;
    }
    return it->second;
  };
  auto innermost = [&](const std::vector<StackFrame> &stack) -> std::optional<uint32_t> {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (auto p = place(*it)) return p;
    return std::nullopt;
  };
  auto placesOf = [&](const std::vector<StackFrame> &stack) {
    std::vector<uint32_t> out;
    for (const StackFrame &f : stack)
      if (auto p = place(f); p && std::find(out.begin(), out.end(), *p) == out.end()) out.push_back(*p);
    return out;
  };

  // Output code of each compile: (log path, ca id, frame id, frame compile id) -> (line of the output code
  // record in its log, Index::compiles() index); the line tells apart compiles of a process that reset
  // Dynamo.
  std::map<std::tuple<std::string, int, int, int>, std::vector<std::pair<uint32_t, uint32_t>>> outputs;
  for (uint32_t i = 0; i < index_->compiles_.size(); ++i) {
    const Compile &c = index_->compiles_[i];
    if (c.traceFile.empty() || !c.id.frameId) continue;
    uint32_t line = UINT32_MAX;
    if (c.outputCode.valid()) {
      const Artifact &a = index_->artifacts_[c.outputCode.value];
      if (a.traceFile < logs.size() && a.record < logs[a.traceFile]->records().size())
        line = logs[a.traceFile]->records()[a.record].line;
    }
    outputs[{c.traceFile, c.id.compiledAutogradId.value_or(-1), *c.id.frameId,
             c.id.frameCompileId.value_or(0)}]
        .push_back({line, i});
  }

  // Where installed guards are, found once per distinct guard tree and placement: the ranks of a
  // data-parallel job install the same trees (GuardTrees shares them; the compiles keep them, uncopied), and
  // where each guard's user line is depends only on how the log's recorded files expand the shortened file
  // names of the tree. Keyed by the tree's address: `recorded` holds the trees until this function returns.
  std::map<const void *, std::vector<std::string>> treeFiles;
  std::map<std::pair<const void *, std::string>, SharedVector<std::optional<uint32_t>>> installedTrees;

  for (uint32_t logIndex = 0; logIndex < recorded.size(); ++logIndex) {
    std::vector<RecordedCompile> &rcs = recorded[logIndex];
    KnownFiles known;
    for (const RecordedCompile &rc : rcs) {
      if (rc.valuesCut) // Bounded (hostile input): said, the rest of the compile read.
        diag(logs[logIndex]->path(), rc.firstLine,
             std::to_string(rc.valuesCut) + " metadata values over " +
                 std::to_string(kMaxMetadataValueBytes >> 20) + " MiB not read (the reading limit)");
      known.add(rc.file);
      known.add(rc.startStack);
      for (const auto &b : rc.graphBreaks)
        known.add(b.reason.userStack);
      for (const ShapeRecord &s : rc.shapes)
        known.add(s.userStack);
    }
    auto placeShortened = [&](const auto &at) -> std::optional<uint32_t> {
      if (!at) return std::nullopt;
      auto file = known.expand(std::string(at->file));
      if (!file) return std::nullopt;
      StackFrame f;
      f.file = *file;
      f.line = at->line;
      f.function = std::string(at->function);
      return place(f);
    };

    // Where each guard of `tree` is (places), made once per tree and placement.
    auto placeGuards = [&](const GuardTree &tree) {
      if (tree.empty()) return SharedVector<std::optional<uint32_t>>();
      const void *id = tree.identity();
      auto [files, newTree] = treeFiles.try_emplace(id);
      if (newTree) {
        std::set<std::string> distinct;
        for (const GuardEntry &g : tree)
          if (g.at) distinct.insert(std::string(g.at->file));
        files->second.assign(distinct.begin(), distinct.end());
      }
      std::string placement;
      for (const std::string &f : files->second)
        placement.append(known.expand(f).value_or("\x01")).push_back('\0');
      auto [it, inserted] = installedTrees.try_emplace({id, std::move(placement)});
      if (inserted) {
        std::vector<std::optional<uint32_t>> out;
        out.reserve(tree.size());
        for (const GuardEntry &g : tree)
          out.push_back(placeShortened(g.at));
        it->second = SharedVector<std::optional<uint32_t>>(std::move(out));
      }
      return it->second;
    };

    // (ca id, frame id, co_filename, co_name) -> frames index: a process that reset Dynamo reuses frame ids.
    std::map<std::tuple<int, int, std::string, std::string>, uint32_t> frameIds;
    // (ca id, frame id) -> the latest frame of that id: a compile that names no function is of it. The
    // compile that hits the recompile limit logs no co_name/co_filename (null in its compilation_metrics, and
    // it has no dynamo_start), though its frame id names the function of the earlier compiles.
    std::map<std::pair<int, int>, uint32_t> latestFrame;
    std::map<std::string, const RecordedCompile *> recordedByName;
    const uint32_t firstCompile = static_cast<uint32_t>(h.compiles.size());
    std::map<std::string, std::vector<uint32_t>> startsById; // Compile id -> first lines (ascending).
    for (const RecordedCompile &rc : rcs)
      startsById[rc.id.str()].push_back(rc.firstLine);
    // (function that broke, its file) -> the line the first function resumed after it names: looked up per
    // restart reason (a scan of every compile for each was quadratic in compiles, issue 33).
    std::map<std::pair<std::string, std::string>, uint32_t> resumedAt;
    for (const RecordedCompile &other : rcs)
      if (auto target = resumeTarget(other.function); target && target->second > 0)
        resumedAt.try_emplace({target->first, other.file}, target->second);

    for (RecordedCompile &rc : rcs) {
      const std::pair<int, int> frameIdKey{rc.id.compiledAutogradId.value_or(-1), *rc.id.frameId};
      std::optional<uint32_t> frameIndex;
      if (rc.function.empty() && rc.file.empty())
        if (auto it = latestFrame.find(frameIdKey); it != latestFrame.end()) frameIndex = it->second;
      if (!frameIndex) {
        auto frameKey = std::make_tuple(frameIdKey.first, frameIdKey.second, rc.file, rc.function);
        auto [fit, newFrame] = frameIds.emplace(frameKey, uint32_t(h.frames.size()));
        if (newFrame) {
          CompiledFrame f;
          f.frameId = rc.id.frameId;
          f.compiledAutogradId = rc.id.compiledAutogradId;
          f.rank = rc.rank;
          f.traceFile = logIndex;
          h.frames.push_back(std::move(f));
        }
        frameIndex = fit->second;
      }
      latestFrame[frameIdKey] = *frameIndex;
      CompiledFrame &frame = h.frames[*frameIndex];
      if (frame.function.empty() && !rc.function.empty()) {
        frame.function = rc.function;
        frame.recordedFile = rc.file;
        StackFrame def;
        def.file = rc.file;
        def.line = rc.firstLineNo;
        def.function = rc.function;
        frame.def = place(def);
      }

      const uint32_t ci = static_cast<uint32_t>(h.compiles.size());
      frame.compiles.push_back(ci);
      FrameCompile c;
      c.id = rc.id;
      c.rank = rc.rank;
      c.frame = *frameIndex;
      c.traceFile = logIndex;
      c.firstLine = rc.firstLine;
      c.failType = rc.failType;
      c.failReason = rc.failReason;
      c.compileSeconds = rc.compileSeconds;
      c.backwardSeconds = rc.backwardSeconds;
      c.runtimeSeconds = rc.runtimeSeconds;
      c.guardCount = rc.guardCount;
      c.shapeEnvGuardCount = rc.shapeEnvGuardCount;
      c.graphOpCount = rc.graphOpCount;
      c.fxGraphCache = rc.fxGraphCache;
      c.aotAutogradCache = rc.aotAutogradCache;
      c.restartReasons = rc.restartReasons;
      c.recompileReasons = rc.recompileReasons;
      size_t reasonsCut = rc.recompileReasonsCut;
      if (c.recompileReasons.empty() && !rc.recompileReasonMetric.empty())
        c.recompileReasons = splitRecompileReasons(rc.recompileReasonMetric, &reasonsCut);
      if (reasonsCut) // Bounded (hostile input); said where the reasons are shown.
        c.recompileReasons.push_back("(" + std::to_string(reasonsCut) +
                                     " recompile reasons not kept whole: at most " +
                                     std::to_string(kMaxRecompileReasons) + " are kept, each at most " +
                                     std::to_string(kMaxRecompileReasonBytes >> 10) + " KiB)");
      c.recompile = rc.id.frameCompileId.value_or(0) > 0 || !c.recompileReasons.empty();
      // Every model frame in order, repeats kept: a line can call twice (`run(lambda: f())`), and the
      // innermost frame is what Index::entryPoints reads.
      for (const StackFrame &f : rc.startStack)
        if (auto p = place(f)) c.stack.push_back(*p);
      for (const ShapeRecord &s : rc.shapes) {
        for (size_t i = 1; i < s.stack.size() && !c.caller; ++i)
          if (s.stack[i].file.ends_with("torch/_dynamo/eval_frame.py")) {
            c.caller = place(s.stack[i - 1]);
            break;
          }
        if (c.caller) break;
      }
      for (const auto &b : rc.graphBreaks) {
        const std::vector<StackFrame> &st = b.reason.userStack;
        for (size_t i = 1; i < st.size() && !c.caller; ++i)
          if (st[i].function == rc.function && st[i].file == rc.file) c.caller = place(st[i - 1]);
      }
      if (auto it = outputs.find({logs[logIndex]->path(), rc.id.compiledAutogradId.value_or(-1),
                                  *rc.id.frameId, rc.id.frameCompileId.value_or(0)});
          it != outputs.end()) {
        // The output code between this compile's first record and the next compile with the same id.
        const std::vector<uint32_t> &starts = startsById[rc.id.str()];
        auto next = std::upper_bound(starts.begin(), starts.end(), rc.firstLine);
        uint32_t end = next == starts.end() ? UINT32_MAX : *next;
        for (const auto &[line, ref] : it->second)
          if (line == UINT32_MAX || (line >= rc.firstLine && line < end)) c.outputs.push_back(ref);
      }
      std::optional<uint32_t> defPlace = frame.def;
      auto fallback = [&]() -> std::optional<uint32_t> {
        if (defPlace) return defPlace;
        return innermost(rc.startStack);
      };
      auto addEvent = [&](HealthEvent e) {
        e.compile = ci;
        c.events.push_back(static_cast<uint32_t>(h.events.size()));
        h.events.push_back(std::move(e));
      };

      // What the compile's outcome was. A limit hit fails the compile only when configured to
      // (FailOnRecompileLimitHit); otherwise the frame runs without compiling. A graph break that made Dynamo
      // skip the frame (GraphBreakReason::skipsFrame: a graph break in a loop, gb7000) is logged as a failure
      // (fail_type Unsupported) though the call ran, eagerly: it is a graph break, not a failure.
      const bool limit = isLimitFailure(rc.failType, rc.failReason);
      const bool notCompiled =
          !rc.started && !c.recompileReasons.empty() && c.outputs.empty() && rc.failType.empty();
      const GraphBreakReason failure = parseGraphBreakReason(rc.failReason);
      bool skipped = false;
      if (!rc.failType.empty() && !limit) {
        skipped = failure.skipsFrame;
        for (const auto &b : rc.graphBreaks)
          skipped = skipped || b.reason.skipsFrame;
      }
      const bool hardFailure =
          !rc.failType.empty() && !skipped && (!limit || rc.failType.starts_with("FailOn"));

      // Where a failure is: the user line Dynamo was tracing when it was raised (fail_user_frame, the "User
      // stack:" of its reason, the "from user code:" frames Dynamo appends to the exception's message, in the
      // reason or the dynamo_error traceback), else the function. Model frames only. Fills the event's stack.
      auto placeFailure = [&](HealthEvent &e) {
        if (rc.failUserFrame) e.at = place(*rc.failUserFrame);
        std::vector<StackFrame> userStack;
        auto userStackOf = [](std::string_view text) {
          size_t at = text.find("User stack:");
          return at == std::string_view::npos ? std::vector<StackFrame>()
                                              : parseStackTrace(text.substr(at + 11));
        };
        // The first of these with a model frame (a section of library frames only names no user line).
        auto consider = [&](std::vector<StackFrame> frames) {
          if (!userStack.empty()) return;
          std::optional<uint32_t> p = innermost(frames);
          if (!p) return;
          if (!e.at) e.at = p;
          userStack = std::move(frames);
        };
        consider(userStackOf(rc.failReason));
        consider(userCodeFrames(rc.failReason));
        for (const std::string &error : rc.errors)
          consider(userCodeFrames(error));
        for (const std::string &error : rc.errors)
          consider(userStackOf(error));
        if (!e.at) e.at = fallback();
        e.stack = placesOf(userStack);
      };
      // A graph break that made Dynamo skip the frame: a Warning that says so, its code and link the first
      // graph break's (the one to fix: the follow-ups, such as "graph break in loop", say why Dynamo could
      // not go on), its follow-ups' hints after the first's.
      auto markSkipped = [&](HealthEvent &e, const GraphBreakReason &r) {
        e.ranEagerly = true;
        std::string why;
        for (const GraphBreakReason &f : r.followUps)
          why += (why.empty() ? "" : "; ") + f.title;
        e.title += " (" + (why.empty() ? std::string() : why + ": ") +
                   "Dynamo skipped the frame, which runs eagerly)";
        for (const GraphBreakReason &f : r.followUps)
          for (const std::string &hint : f.hints)
            if (std::find(e.hints.begin(), e.hints.end(), hint) == e.hints.end()) e.hints.push_back(hint);
      };

      // Graph breaks, from their artifacts; restart reasons stand in for them in logs without any.
      std::set<std::pair<std::string, std::string>> seenBreaks;
      std::optional<uint32_t> lastBreak;
      bool markedSkip = false;
      for (const auto &b : rc.graphBreaks) {
        const GraphBreakReason &r = b.reason;
        std::string where = r.at ? r.at->file + ":" + std::to_string(r.at->line) : std::string();
        if (!seenBreaks.insert({where, r.title}).second) continue;
        HealthEvent e;
        e.kind = HealthEventKind::GraphBreak;
        e.severity = HealthSeverity::Warning;
        e.title = r.title.empty() ? "graph break" : r.title;
        e.explanation = r.explanation;
        e.hints = r.hints;
        e.text = r.text;
        e.id = r.id;
        e.url = r.url;
        if (r.at) e.at = place(*r.at);
        if (!e.at) e.at = innermost(r.userStack);
        if (!e.at) e.at = fallback();
        e.stack = placesOf(r.userStack);
        if (skipped && r.skipsFrame) {
          markSkipped(e, r);
          markedSkip = true;
        }
        lastBreak = static_cast<uint32_t>(h.events.size());
        addEvent(std::move(e));
      }
      if (rc.graphBreaks.empty())
        for (const std::string &reason : rc.restartReasons) {
          GraphBreakReason r = parseGraphBreakReason(reason);
          if (r.title.empty() || r.title.starts_with("Unknown fail_and_restart_analysis")) continue;
          if (!seenBreaks.insert({"", r.title}).second) continue;
          HealthEvent e;
          e.kind = HealthEventKind::GraphBreak;
          e.severity = HealthSeverity::Warning;
          e.title = r.title;
          e.explanation = r.explanation;
          e.hints = r.hints;
          e.text = r.text.empty() ? reason : r.text;
          e.id = r.id;
          e.url = r.url;
          // Where the function resumed after the break names its line.
          if (auto at = resumedAt.find({rc.function, rc.file}); at != resumedAt.end()) {
            StackFrame f;
            f.file = rc.file;
            f.line = at->second;
            e.at = place(f);
          }
          if (!e.at) e.at = fallback();
          lastBreak = static_cast<uint32_t>(h.events.size());
          addEvent(std::move(e));
        }
      if (skipped && !markedSkip) {
        if (lastBreak) {
          // The skip is said by the failure only: its graph break is the last one recorded.
          markSkipped(h.events[*lastBreak], failure);
        } else {
          // No graph-break record: the failure's reason is the graph break.
          HealthEvent e;
          e.kind = HealthEventKind::GraphBreak;
          e.severity = HealthSeverity::Warning;
          e.title = failure.title.empty() ? "graph break" : failure.title;
          e.explanation = failure.explanation;
          e.hints = failure.hints;
          e.text = rc.failType + ": " + rc.failReason;
          e.id = failure.id;
          e.url = failure.url;
          placeFailure(e);
          markSkipped(e, failure);
          addEvent(std::move(e));
        }
      }

      // The recompile limit: the function runs eagerly from now on. On its def line, where its compiles are.
      if (limit && !hardFailure) {
        RecompileLimit l = parseRecompileLimit(rc.failReason);
        bool accumulated = l.name.starts_with("accumulated");
        std::optional<int64_t> value = l.value;
        if (!value) value = accumulated ? rc.accumulatedRecompileLimit : rc.recompileLimit;
        HealthEvent e;
        e.kind = HealthEventKind::Recompile;
        e.severity = HealthSeverity::Warning;
        e.limitReached = true;
        e.ranEagerly = true;
        e.title = std::string(accumulated ? "accumulated recompile limit" : "recompile limit") +
                  (value ? " (" + std::to_string(*value) + ")" : "") +
                  " reached: this function runs eagerly from now on";
        e.explanation = failure.explanation;
        e.hints = failure.hints;
        e.id = failure.id;
        e.url = failure.url;
        // What it means, then what PyTorch said (hovers show the text).
        e.text = e.title + "\n\n" + rc.failType + ": " + rc.failReason;
        e.at = fallback();
        addEvent(std::move(e));
      }
      if (hardFailure) {
        HealthEvent e;
        e.kind = HealthEventKind::Failure;
        e.severity = HealthSeverity::Error;
        e.failType = rc.failType;
        e.limitReached = limit;
        e.title =
            rc.failType + ": " + (failure.explanation.empty() ? headline(rc.failReason) : failure.title);
        e.explanation = failure.explanation;
        e.hints = failure.hints;
        e.id = failure.id;
        e.url = failure.url;
        e.text = rc.failType + ": " + rc.failReason;
        placeFailure(e);
        // Where the error was raised in model code (a failing backend's own line), when the traceback says:
        // the traceback proper, not the user code Dynamo was tracing (placeFailure's).
        for (const std::string &error : rc.errors) {
          std::string_view raised = error;
          if (size_t at = raised.find("\nfrom user code:"); at != std::string_view::npos)
            raised = raised.substr(0, at);
          if (size_t at = raised.find("\nUser stack:"); at != std::string_view::npos)
            raised = raised.substr(0, at);
          if (auto p = innermost(parseStackTrace(raised));
              p && p != e.at && std::find(e.related.begin(), e.related.end(), *p) == e.related.end())
            e.related.push_back(*p);
        }
        addEvent(std::move(e));
      }
      if (!rc.backwardFailType.empty()) {
        HealthEvent e;
        e.kind = HealthEventKind::Failure;
        e.severity = HealthSeverity::Error;
        e.failType = rc.backwardFailType;
        e.title = "backward graph: " + rc.backwardFailType + ": " + headline(rc.backwardFailReason);
        e.text = rc.backwardFailType + ": " + rc.backwardFailReason;
        e.at = fallback();
        addEvent(std::move(e));
      }

      // Recompiles: one event per failed guard, with every cached compile it failed against (guards.py writes
      // one reason per cached compile: the same guard failing against three compiles is three identical
      // texts but for their "N/M: " prefix, one failure to the user). Different texts stay apart, also those
      // that differ only in a value ("expected 8" and "expected 16" are different guards).
      std::vector<std::pair<std::string, std::vector<const std::string *>>> reasonGroups;
      for (const std::string &reason : c.recompileReasons) {
        GuardFailure g = parseGuardFailure(reason);
        std::string_view key = reason;
        if (!g.cachedCompile.empty() && key.starts_with(g.cachedCompile + ": "))
          key.remove_prefix(g.cachedCompile.size() + 2);
        auto it = std::find_if(reasonGroups.begin(), reasonGroups.end(),
                               [&](const auto &group) { return group.first == key; });
        if (it == reasonGroups.end()) {
          reasonGroups.push_back({std::string(key), {}});
          it = std::prev(reasonGroups.end());
        }
        it->second.push_back(&reason);
      }
      for (const auto &[key, reasons] : reasonGroups) {
        const std::string &reason = *reasons.front();
        GuardFailure g = parseGuardFailure(reason);
        HealthEvent e;
        e.kind = HealthEventKind::Recompile;
        e.limitReached = limit || notCompiled;
        e.severity = e.limitReached ? HealthSeverity::Warning : HealthSeverity::Information;
        e.title = firstLine(g.reason);
        e.text = reason;
        for (const std::string *r : reasons)
          if (std::string cached = parseGuardFailure(*r).cachedCompile; !cached.empty())
            e.cachedCompiles.push_back(cached);
        if (reasons.size() > 1) {
          e.title += " (against " + std::to_string(reasons.size()) + " earlier compiles)";
          std::string ids;
          for (const std::string &id : e.cachedCompiles)
            ids += (ids.empty() ? "[" : ", [") + id + "]";
          e.text += "\n\nThe same guard failed against " + std::to_string(reasons.size()) +
                    " earlier compiles" + (ids.empty() ? std::string() : ": " + ids) + ".";
        }
        if (notCompiled && !limit)
          e.text +=
              "\n\nNo compile followed this guard failure in the trace: the recompile limit was most likely "
              "reached and the frame ran without compiling.";
        e.cachedCompile = g.cachedCompile;
        e.guardSource = g.source;
        e.sizeIndex = g.sizeIndex;
        e.at = innermost(g.userStack);
        if (!e.at) e.at = placeShortened(g.at);
        // The guard that failed, in the cached compile's guard tree.
        if (auto cached = recordedByName.find(g.cachedCompile);
            cached != recordedByName.end() && !g.source.empty()) {
          const GuardEntry *best = nullptr;
          for (const GuardEntry &guard : cached->second->guards) {
            if (!guard.at) continue;
            bool same =
                guard.source == g.source || (guard.source.empty() && guard.expression.find(g.source) == 0);
            if (!same) continue;
            if (!best || (guard.kind == "TENSOR_MATCH" && best->kind != "TENSOR_MATCH")) best = &guard;
          }
          if (best)
            if (auto p = placeShortened(best->at)) {
              if (!e.at)
                e.at = p;
              else if (*p != *e.at)
                e.related.push_back(*p);
            }
        }
        if (!e.at) e.at = fallback();
        e.stack = placesOf(g.userStack);
        addEvent(std::move(e));
      }

      // Dynamic shapes: specialisations become events; every record is kept for hovers.
      for (ShapeRecord &s : rc.shapes) {
        DynamicShape d;
        d.at = innermost(s.userStack);
        if (s.kind == ShapeRecord::Kind::Specialization) {
          HealthEvent e;
          e.kind = HealthEventKind::Specialization;
          e.severity = HealthSeverity::Information;
          e.symbolSource = s.source;
          e.title = (s.source.empty() ? s.symbol : s.source) + " specialized to " + s.value +
                    (s.reason.empty() ? "" : " (" + s.reason + ")");
          e.text = e.title + (s.symbol.empty() ? ""
                                               : "\nSymbol " + s.symbol + " was replaced by the constant " +
                                                     s.value + ": code compiled for this size only.");
          e.at = d.at ? d.at : fallback();
          e.stack = placesOf(s.userStack);
          addEvent(std::move(e));
        }
        // Moved, without its stacks (placed above; a guard's is the whole Python stack, KBs): nothing reads
        // the recorded compiles after this.
        s.stack = {};
        s.userStack = {};
        d.record = std::move(s);
        c.shapes.push_back(std::move(d));
      }

      c.guards = rc.guards;
      c.guardPlaces = placeGuards(rc.guards);

      // Attempts: every attempt but the last was restarted, by the graph break found in it.
      std::vector<int> attempts = rc.attempts.empty() ? std::vector<int>{0} : rc.attempts;
      for (size_t a = 0; a < attempts.size(); ++a) {
        CompileAttempt attempt;
        attempt.attempt = attempts[a];
        if (a + 1 < attempts.size()) {
          for (const auto &b : rc.graphBreaks)
            if (b.attempt == attempts[a]) attempt.restartReason = b.reason.title;
          if (attempt.restartReason.empty() && a < rc.restartReasons.size())
            attempt.restartReason = parseGraphBreakReason(rc.restartReasons[a]).title;
          if (attempt.restartReason.empty()) attempt.restartReason = "restarted";
        }
        c.attempts.push_back(std::move(attempt));
      }

      bool broke = std::any_of(c.events.begin(), c.events.end(),
                               [&](uint32_t e) { return h.events[e].kind == HealthEventKind::GraphBreak; });
      if (hardFailure)
        c.status = CompileStatus::Failed;
      else if (limit || notCompiled || skipped)
        c.status = CompileStatus::NotCompiled;
      else if (broke)
        c.status = CompileStatus::GraphBreak;
      else if (c.recompile)
        c.status = CompileStatus::Recompiled;
      else
        c.status = CompileStatus::Ok;

      recordedByName[rc.id.str()] = &rc;
      h.compiles.push_back(std::move(c));
    }

    // Frames resumed after a graph break belong to the function that broke. This log's frames by function,
    // in frame order, are the candidates: looking through every frame for each resumed one was quadratic in
    // frames (issue 33).
    std::unordered_map<std::string_view, std::vector<uint32_t>> framesByFunction;
    for (uint32_t fi = 0; fi < h.frames.size(); ++fi)
      if (h.frames[fi].traceFile == logIndex) framesByFunction[h.frames[fi].function].push_back(fi);
    for (uint32_t fi = 0; fi < h.frames.size(); ++fi) {
      CompiledFrame &f = h.frames[fi];
      if (f.traceFile != logIndex) continue;
      auto target = resumeTarget(f.function);
      if (!target) continue;
      std::optional<uint32_t> best;
      uint32_t bestLine = 0;
      auto candidates = framesByFunction.find(target->first);
      if (candidates != framesByFunction.end())
        for (uint32_t other : candidates->second) {
          const CompiledFrame &o = h.frames[other];
          if (other == fi || o.recordedFile != f.recordedFile) continue;
          uint32_t line = o.def ? h.places[*o.def].line : 0;
          if (line <= target->second && (!best || line > bestLine)) {
            best = other;
            bestLine = line;
          }
        }
      f.resumeOf = best;
    }
    // A function that resumed after a graph break whose reason the trace does not record (older PyTorch).
    for (uint32_t ci = firstCompile; ci < h.compiles.size(); ++ci) {
      const CompiledFrame &f = h.frames[h.compiles[ci].frame];
      auto target = resumeTarget(f.function);
      if (!target || !f.resumeOf) continue;
      const CompiledFrame &parent = h.frames[*f.resumeOf];
      bool explained = false;
      for (uint32_t pc : parent.compiles)
        for (uint32_t e : h.compiles[pc].events)
          explained |= h.events[e].kind == HealthEventKind::GraphBreak;
      if (explained || parent.compiles.empty()) continue;
      // The parent compile before this resumed one.
      uint32_t owner = parent.compiles.front();
      for (uint32_t pc : parent.compiles)
        if (pc < ci) owner = pc;
      StackFrame at;
      at.file = f.recordedFile;
      at.line = target->second;
      HealthEvent e;
      e.kind = HealthEventKind::GraphBreak;
      e.severity = HealthSeverity::Warning;
      e.title = "graph break (the trace records no reason)";
      e.text = "Dynamo compiled `" + f.function + "`, the rest of `" + target->first +
               "` after a graph break at line " + std::to_string(target->second) +
               "; this PyTorch did not log why it broke.";
      e.at = place(at);
      if (!e.at) e.at = parent.def;
      e.compile = owner;
      h.compiles[owner].events.push_back(static_cast<uint32_t>(h.events.size()));
      if (h.compiles[owner].status == CompileStatus::Ok ||
          h.compiles[owner].status == CompileStatus::Recompiled)
        h.compiles[owner].status = CompileStatus::GraphBreak;
      h.events.push_back(std::move(e));
    }
  }

  // Lookup tables by local path and line.
  auto lineIndex = [&](uint32_t placeId) -> std::pair<CompileHealth::LineIndex *, uint32_t> {
    const Origin &o = h.places[placeId];
    return {&h.byPath[normalizePath(o.path)], o.line};
  };
  for (uint32_t e = 0; e < h.events.size(); ++e) {
    HealthEvent &ev = h.events[e];
    ev.shownAt = ev.at;
    if (ev.at && !h.places[*ev.at].exists)
      for (auto s = ev.stack.rbegin(); s != ev.stack.rend(); ++s)
        if (*s != *ev.at && h.places[*s].exists) {
          ev.shownAt = *s;
          break;
        }
    if (ev.shownAt) {
      auto [index, line] = lineIndex(*ev.shownAt);
      index->events[line].push_back(e);
    }
  }
  for (uint32_t f = 0; f < h.frames.size(); ++f) {
    // Resumed frames are shown on the def line of the function they resume.
    uint32_t owner = f;
    for (int hops = 0; h.frames[owner].resumeOf && hops < 64; ++hops)
      owner = *h.frames[owner].resumeOf;
    if (h.frames[owner].def) {
      auto [index, line] = lineIndex(*h.frames[owner].def);
      index->defs[line].push_back(f);
    }
  }
  for (uint32_t ci = 0; ci < h.compiles.size(); ++ci) {
    const FrameCompile &c = h.compiles[ci];
    for (uint32_t g = 0; g < c.guardPlaces.size(); ++g)
      if (c.guardPlaces[g]) {
        auto [index, line] = lineIndex(*c.guardPlaces[g]);
        index->guards[line].push_back({ci, g});
      }
    for (uint32_t s = 0; s < c.shapes.size(); ++s)
      if (c.shapes[s].at) {
        auto [index, line] = lineIndex(*c.shapes[s].at);
        index->shapes[line].push_back({ci, s});
      }
  }

  IndexStats &stats = index_->stats_;
  stats.frameCompiles = h.compiles.size();
  stats.compiledFrames = h.frames.size();
  for (const HealthEvent &e : h.events) {
    stats.graphBreaks += e.kind == HealthEventKind::GraphBreak;
    stats.compileFailures += e.kind == HealthEventKind::Failure;
  }
  for (const FrameCompile &c : h.compiles)
    stats.recompiles += c.recompile;
}

} // namespace inductor::index
