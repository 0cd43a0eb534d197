// The run-log half of step 5b (see BuildRuntime.cpp): the printer's run logs are parsed and mapped to the
// launches of the compiles of their run (DebugPrinter.h), each launch gets the statistics of its first call,
// and where NaN/Inf first shows up becomes diagnostics on the launch and on the user lines that made it
// (Runtime.h).
#include "index/builder/IndexBuilder.h"
#include "index/files/ReadPolicy.h"
#include "index/runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace inductor::index {

namespace {

constexpr uint64_t kMaxRunLogBytes = 1ull << 30;

/// The op of an FX node target: `torch.ops.aten.log.default` -> `log`.
std::string_view opOfTarget(std::string_view target) {
  if (target.rfind("torch.ops.", 0) == 0) target.remove_prefix(10);
  size_t dot = target.find('.');
  if (dot == std::string_view::npos) return target;
  std::string_view rest = target.substr(dot + 1);
  return rest.substr(0, rest.find('.'));
}

/// Ops that can turn finite inputs into NaN or Inf, for picking the user line that made a NaN among a fused
/// kernel's origins.
bool canMakeNonFinite(std::string_view op) {
  static const std::set<std::string_view> ops = {"log",          "log2",        "log10",
                                                 "log1p",        "sqrt",        "rsqrt",
                                                 "pow",          "div",         "true_divide",
                                                 "floor_divide", "reciprocal",  "acos",
                                                 "asin",         "acosh",       "atanh",
                                                 "exp",          "exp2",        "expm1",
                                                 "lgamma",       "digamma",     "polygamma",
                                                 "erfinv",       "fmod",        "remainder",
                                                 "xlogy",        "var",         "std",
                                                 "var_mean",     "std_mean",    "logit",
                                                 "tan",          "mvlgamma",    "special_xlog1py",
                                                 "_log_softmax", "log_softmax", "logsumexp",
                                                 "mean",         "cosh",        "sinh"};
  return ops.count(op) > 0 || op.rfind("special_", 0) == 0;
}

/// Joins the pieces of a message with one allocation.
std::string concat(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (std::string_view p : parts)
    n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts)
    out += p;
  return out;
}

bool statsDiffer(const TensorStats &a, const TensorStats &b) {
  auto same = [](const std::optional<double> &x, const std::optional<double> &y) {
    if (!x || !y) return !x && !y;
    if (std::isnan(*x) || std::isnan(*y)) return std::isnan(*x) && std::isnan(*y);
    return *x == *y;
  };
  return !same(a.mean, b.mean) || !same(a.min, b.min) || !same(a.max, b.max) || !same(a.std, b.std) ||
         a.value != b.value;
}

bool isBufferName(std::string_view arg) {
  return arg.size() > 3 && arg.rfind("buf", 0) == 0 &&
         std::all_of(arg.begin() + 3, arg.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

using namespace detail;

void IndexBuilder::buildRunLogs(const RuntimeFiles &files, const ReadPolicy &policy, RuntimeData &data) {
  Index &idx = *index_;
  size_t sniffed = 0;
  for (const std::string &path : files.runLogs) {
    if (cancelled()) return;
    bool isExplicit = files.explicitRunLogs.count(path) > 0;
    if (!isExplicit && ++sniffed > kMaxRunLogCandidates) break;
    if (!policy.allows(path)) {
      if (isExplicit) diag(path, 0, "run log not read: outside the workspace and the trace inputs");
      continue;
    }
    auto file = MappedFile::open(path);
    if (!file) {
      if (isExplicit) diag(path, 0, "cannot read run log: " + file.error().message);
      continue;
    }
    std::string_view text = file->text();
    if (!looksLikePrinterLog(text.substr(0, kSniffBytes))) {
      if (isExplicit) diag(path, 0, "no output of the intermediate value debug printer in this run log");
      continue;
    }
    bool cut = text.size() > kMaxRunLogBytes;
    if (cut) text = text.substr(0, kMaxRunLogBytes);
    RunLog log = parseRunLog(text);
    if (cut || log.truncated) diag(path, 0, "run log read in part (size limits)");
    // The compiles of this run: those whose trace or output code lies in the run log's folder tree (a
    // workspace may hold several runs whose kernels share names); all compiles when none does.
    std::string dir = normalizePath(fs::path(path).parent_path().string());
    std::vector<uint32_t> scope;
    for (uint32_t c = 0; c < idx.compiles_.size(); ++c) {
      const Compile &comp = idx.compiles_[c];
      bool near = !comp.traceFile.empty() && isWithin(normalizePath(comp.traceFile), dir);
      if (!near && comp.outputCode.valid())
        for (const std::string &p : idx.artifacts_[comp.outputCode.value].paths)
          near = near || isWithin(normalizePath(p), dir);
      if (near) scope.push_back(c);
    }
    if (scope.empty())
      for (uint32_t c = 0; c < idx.compiles_.size(); ++c)
        scope.push_back(c);
    std::vector<PrinterCompile> printerCompiles;
    for (uint32_t c : scope) {
      PrinterCompile pc;
      if (idx.compiles_[c].outputCode.valid())
        for (const Launch &l : idx.artifacts_[idx.compiles_[c].outputCode.value].launches)
          pc.launchKernels.push_back(l.site.kernel);
      printerCompiles.push_back(std::move(pc));
    }
    PrinterMapping mapping = mapRunLog(log, printerCompiles);
    RunLogInfo info;
    info.path = path;
    info.records = log.records.size();
    info.launchEvents = mapping.launches.size();
    info.unmatched = mapping.unmatched;
    info.malformed = log.malformed;
    info.truncated = cut || log.truncated;
    info.calls = mapping.calls.size();
    if (mapping.unmatched)
      diag(path, 0,
           std::to_string(mapping.unmatched) +
               " printed launches match no launch of the indexed output code");

    auto refOf = [&](const PrinterLaunch &pl) -> std::optional<LaunchRef> {
      if (pl.compile == kNoLaunch) return std::nullopt;
      const Compile &comp = idx.compiles_[scope[pl.compile]];
      if (!comp.outputCode.valid()) return std::nullopt;
      return LaunchRef{comp.outputCode, pl.launch};
    };
    // Statistics of each launch: the first call's arguments, and counts over all calls.
    std::map<uint32_t, std::set<std::string>> seenBuffers; // Per call.
    for (const PrinterLaunch &pl : mapping.launches) {
      auto ref = refOf(pl);
      std::set<std::string> &seen = seenBuffers[pl.call];
      std::vector<ArgValues> args;
      bool nonFinite = false;
      auto argOf = [&](const std::string &name) -> ArgValues & {
        for (ArgValues &a : args)
          if (a.arg == name) return a;
        args.push_back({name, std::nullopt, std::nullopt, false});
        return args.back();
      };
      for (uint32_t r : pl.before) {
        const PrinterRecord &rec = log.records[r];
        ArgValues &a = argOf(rec.arg);
        a.before = rec.stats;
        if (isBufferName(rec.arg) && !seen.count(rec.arg)) a.output = true;
      }
      for (uint32_t r : pl.after) {
        const PrinterRecord &rec = log.records[r];
        ArgValues &a = argOf(rec.arg);
        a.after = rec.stats;
        nonFinite = nonFinite || rec.stats.nonFinite();
        if (!a.before || statsDiffer(*a.before, rec.stats)) a.output = true;
      }
      for (const ArgValues &a : args)
        seen.insert(a.arg);
      if (!ref) continue;
      LaunchValues &v = data.launchValues[RuntimeData::key(*ref)];
      ++v.calls;
      if (nonFinite) ++v.nonFiniteCalls;
      if (v.args.empty()) {
        v.args = std::move(args);
        v.runLog = path;
        uint32_t first = !pl.before.empty() ? pl.before.front() : !pl.after.empty() ? pl.after.front() : 0;
        v.line = first < log.records.size() ? log.records[first].line : 0;
      }
    }

    // Diagnostics: where NaN/Inf first shows up, and a launch the run did not finish.
    auto launchLocation = [&](LaunchRef ref) {
      RuntimeLocation loc;
      loc.artifact = ref.artifact;
      const Artifact &a = idx.artifacts_[ref.artifact.value];
      if (!a.paths.empty()) loc.path = a.paths.front();
      const KernelLaunch &site = a.launches[ref.index].site;
      loc.line = site.line;
      loc.column = site.column;
      loc.endColumn = std::max(site.endColumn, site.column);
      loc.launch = ref.index;
      return loc;
    };
    auto launchName = [&](LaunchRef ref) {
      const KernelLaunch &site = idx.artifacts_[ref.artifact.value].launches[ref.index].site;
      return site.key();
    };
    auto userLocation = [&](const Origin &o) {
      RuntimeLocation loc;
      loc.path = o.path;
      loc.line = o.line > 0 ? o.line - 1 : 0;
      return loc;
    };
    auto originText = [&](const Origin &o) {
      std::string s = runtimeBaseName(o.path) + ":" + std::to_string(o.line);
      std::string code(trim(o.code));
      if (!code.empty()) s += " " + code;
      return s;
    };
    auto joinArgs = [](const std::vector<std::string> &args) {
      std::string s;
      for (size_t i = 0; i < args.size() && i < 4; ++i)
        s += (i ? ", " : "") + args[i];
      if (args.size() > 4) s += ", …";
      return s;
    };
    std::string logName = runtimeBaseName(path);
    if (auto origin = firstNonFinite(log, mapping)) {
      std::string what = origin->nan ? "NaN" : "Inf";
      std::optional<LaunchRef> ref =
          origin->launch != kNoLaunch ? refOf(mapping.launches[origin->launch]) : std::nullopt;
      uint32_t logLine = 0;
      if (origin->launch != kNoLaunch) {
        const PrinterLaunch &pl = mapping.launches[origin->launch];
        const auto &recs =
            origin->kind == NonFiniteOrigin::Kind::Produced && !pl.after.empty() ? pl.after : pl.before;
        if (!recs.empty()) logLine = log.records[recs.front()].line;
      }
      std::string where = logName + ":" + std::to_string(logLine + 1);
      if (origin->kind == NonFiniteOrigin::Kind::Produced && ref) {
        const Launch &l = idx.artifacts_[ref->artifact.value].launches[ref->index];
        const Compile *comp = idx.compileOf(ref->artifact);
        // The user lines to blame: among the launch's origins, those whose FX nodes compute an op that can
        // make NaN/Inf from finite values (log, sqrt, div...); all origins when none can be told.
        std::vector<Origin> suspects;
        if (comp && comp->postGradGraph.valid()) {
          const Artifact &g = idx.artifacts_[comp->postGradGraph.value];
          for (const std::string &node : l.postGradNodes)
            for (const Artifact::GraphNode &n : g.graphNodes)
              if (n.name == node && n.origin && canMakeNonFinite(opOfTarget(n.target)))
                for (const Origin &o : l.origins)
                  if (o.line == n.origin->line && normalizePath(o.path) == normalizePath(n.origin->path) &&
                      std::find(suspects.begin(), suspects.end(), o) == suspects.end())
                    suspects.push_back(o);
        }
        if (suspects.empty()) suspects = l.origins;
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Error;
        d.code = origin->nan ? "first-nan" : "first-inf";
        d.location = launchLocation(*ref);
        std::string name = launchName(*ref), args = joinArgs(origin->args);
        std::string compile = comp ? ", " + comp->label() : "";
        d.message = concat({"first ", what, ": ", name});
        if (!suspects.empty()) d.message += concat({" ← ", originText(suspects.front())});
        d.message += concat({"\n", args, " holds ", what, " after this launch while its inputs were finite (",
                             where, compile, ")."});
        for (const Origin &o : suspects)
          d.related.push_back({userLocation(o), "user line of " + launchName(*ref)});
        data.diagnostics.push_back(d);
        for (const Origin &o : suspects) {
          RuntimeDiagnostic u;
          u.severity = RuntimeDiagnostic::Severity::Error;
          u.code = d.code;
          u.location = userLocation(o);
          u.message = concat({"first ", what, ": ", name, " ← this line\n", args, " holds ", what,
                              " after the kernel while its inputs were finite (", where, compile, ")."});
          u.related.push_back({launchLocation(*ref), "the launch in the output code"});
          data.diagnostics.push_back(std::move(u));
        }
      } else if (origin->kind == NonFiniteOrigin::Kind::InInputs && ref) {
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Warning;
        d.code = "nan-in-inputs";
        d.location = launchLocation(*ref);
        d.message = concat(
            {what, " reaches ", launchName(*ref), " through ", joinArgs(origin->args),
             ": no printed launch made it (a graph input, a parameter, or a kernel the printer skipped; ",
             where, ")."});
        data.diagnostics.push_back(std::move(d));
      } else if (origin->kind == NonFiniteOrigin::Kind::GraphInput && origin->call != kNoLaunch) {
        const PrinterCall &call = mapping.calls[origin->call];
        const Compile &comp = idx.compiles_[scope[call.compile]];
        if (comp.outputCode.valid()) {
          const Artifact &a = idx.artifacts_[comp.outputCode.value];
          RuntimeDiagnostic d;
          d.severity = RuntimeDiagnostic::Severity::Warning;
          d.code = "nan-graph-input";
          d.location.artifact = comp.outputCode;
          if (!a.paths.empty()) d.location.path = a.paths.front();
          if (!a.code.entries.empty()) d.location.line = a.code.entries.front().line;
          uint32_t inputLine = call.inputs.empty() ? 0 : log.records[call.inputs.front()].line;
          d.message = concat({"graph input ", joinArgs(origin->args), " holds ", what, " when ", comp.label(),
                              " starts (", logName, ":", std::to_string(inputLine + 1), ")."});
          data.diagnostics.push_back(std::move(d));
        }
      }
    }
    if (uint32_t e = unfinishedLaunch(log, mapping); e != kNoLaunch)
      if (auto ref = refOf(mapping.launches[e])) {
        RuntimeDiagnostic d;
        d.severity = RuntimeDiagnostic::Severity::Warning;
        d.code = "unfinished-launch";
        d.location = launchLocation(*ref);
        d.message =
            "the run log ends inside this launch (before_launch printed, no after_launch): the process "
            "likely died here (" +
            logName + ").";
        data.diagnostics.push_back(std::move(d));
      }
    data.runLogs.push_back(std::move(info));
  }
  idx.stats_.runLogs = data.runLogs.size();
}

} // namespace inductor::index
