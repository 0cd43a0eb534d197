#include "server/format/RuntimeFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace inductor::server {

std::string formatDuration(uint64_t ns) {
  char buf[48];
  double v = double(ns);
  const char *unit = "ns";
  if (ns >= 1'000'000'000) {
    v /= 1e9;
    unit = "s";
  } else if (ns >= 1'000'000) {
    v /= 1e6;
    unit = "ms";
  } else if (ns >= 1'000) {
    v /= 1e3;
    unit = "µs";
  }
  if (v >= 100 || std::string_view(unit) == "ns")
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  else if (v >= 10)
    std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  return buf;
}

std::string timeText(const index::RuntimeTimes &times, uint64_t ns) {
  if (times.stepsMarked()) return formatDuration(times.perStep(ns)) + "/step";
  return formatDuration(ns) + " total";
}

std::string percentText(double percent) {
  char buf[32];
  if (percent <= 0) return "0%";
  if (percent < 0.1) return "<0.1%";
  if (percent < 10)
    std::snprintf(buf, sizeof buf, "%.1f%%", percent);
  else if (percent < 1e6)
    std::snprintf(buf, sizeof buf, "%.0f%%", percent);
  else // A share from outside estimates can be any size: printed whole it would not fit, and lose its '%'.
    std::snprintf(buf, sizeof buf, "%.2g%%", percent);
  return buf;
}

std::string timeBasis(const index::RuntimeTimes &times) {
  if (times.stepsMarked()) {
    std::string s = "per step over " + std::to_string(times.steps.size()) +
                    (times.steps.size() == 1 ? " step (" : " steps (") + times.steps.front();
    if (times.steps.size() > 1) s += " … " + times.steps.back();
    return s + ")";
  }
  return "totals over the profiled region (no ProfilerStep marks)";
}

std::string statNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "\u2212Inf";
  char buf[32];
  double a = std::fabs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3))
    std::snprintf(buf, sizeof buf, "%.1e", a);
  else
    std::snprintf(buf, sizeof buf, "%.2g", a);
  std::string s = buf;
  return v < 0 ? "\u2212" + s : s;
}

std::string shortDtype(const std::string &d) {
  static const std::pair<const char *, const char *> names[] = {
      {"float32", "f32"},       {"float", "f32"},   {"float16", "f16"}, {"half", "f16"},
      {"bfloat16", "bf16"},     {"float64", "f64"}, {"double", "f64"},  {"int64", "i64"},
      {"long", "i64"},          {"int32", "i32"},   {"int", "i32"},     {"int16", "i16"},
      {"int8", "i8"},           {"uint8", "u8"},    {"bool", "b8"},     {"float8_e4m3fn", "f8e4m3"},
      {"float8_e5m2", "f8e5m2"}};
  for (const auto &[from, to] : names)
    if (d == from) return to;
  return d;
}

std::string shapeText(const index::TensorStats &s) {
  if (!s.hasShape) return "";
  if (s.shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.shape.size(); ++i)
    out += (i ? "\u00d7" : "") + std::to_string(s.shape[i]);
  return out;
}

namespace {

std::string valueText(const index::TensorStats &s) {
  if (!s.tensor) return s.value;
  std::string out;
  auto add = [&](const std::string &part) {
    if (part.empty()) return;
    out += (out.empty() ? "" : " ") + part;
  };
  add(shapeText(s));
  add(shortDtype(s.dtype));
  if (s.hasNan()) {
    add("NaN");
  } else if (s.mean && s.min && s.max) {
    add("\u03bc " + statNumber(*s.mean) + " [" + statNumber(*s.min) + ", " + statNumber(*s.max) + "]");
  } else if (s.mean) {
    add("\u03bc " + statNumber(*s.mean));
  }
  return out;
}

} // namespace

std::string statsText(const index::ArgValues &arg) {
  const std::optional<index::TensorStats> &s = arg.after ? arg.after : arg.before;
  if (!s) return arg.arg;
  if (!s->tensor) return arg.arg + " = " + s->value;
  return arg.arg + " " + valueText(*s);
}

std::string launchStatsText(const index::LaunchValues &values) {
  std::string out;
  size_t shown = 0;
  for (const index::ArgValues &a : values.args)
    if (a.output && (a.after ? a.after->tensor : a.before && a.before->tensor) && shown < 2) {
      out += (out.empty() ? "" : " · ") + statsText(a);
      ++shown;
    }
  if (out.empty())
    for (const index::ArgValues &a : values.args)
      if (a.after && a.after->tensor) return statsText(a);
  return out;
}

std::string statsTable(const index::LaunchValues &values) {
  std::string md = "| argument | before | after |\n|---|---|---|";
  auto cell = [](const std::optional<index::TensorStats> &s) -> std::string {
    if (!s) return "—";
    if (!s->tensor) return s->value;
    std::string out = valueText(*s);
    if (s->std && !std::isnan(*s->std)) out += " σ " + statNumber(*s->std);
    if (s->numel) out += " (" + std::to_string(*s->numel) + " el.)";
    return out;
  };
  for (const index::ArgValues &a : values.args)
    md += "\n| `" + a.arg + "`" + (a.output ? " (out)" : "") + " | " + cell(a.before) + " | " +
          cell(a.after) + " |";
  return md;
}

namespace {

std::string code(std::string_view s) {
  return s.find('`') == std::string_view::npos ? "`" + std::string(s) + "`" : "`` " + std::string(s) + " ``";
}

std::string launchLabel(const index::Launch &l) {
  return l.site.key();
}

/// Whether the launch's compile ran only as CUDA graph replays (no per-launch time can exist).
bool onlyGraphReplays(const index::Index &index, index::ArtifactId artifact) {
  const index::CompileTiming *t = index::compileTiming(index, index.artifact(artifact).compile);
  return t && t->graphReplays > 0 && t->graphReplays == t->calls;
}

std::string perStepList(const index::RuntimeTimes &times, const std::vector<uint64_t> &perStep) {
  if (!times.stepsMarked() || perStep.empty()) return "";
  std::string out;
  for (size_t s = 0; s < perStep.size() && s < times.steps.size() && s < 12; ++s)
    out += (out.empty() ? "" : " · ") + times.steps[s] + " " + formatDuration(perStep[s]);
  if (perStep.size() > 12) out += " · …";
  return out;
}

} // namespace

std::string joiningProfilesText(const index::RuntimeTimes &times) {
  if (!times.deferred) return "";
  return times.deferred == 1 ? "joining the profile"
                             : "joining " + std::to_string(times.deferred) + " profiles";
}

std::string launchTimeMarkdown(const index::Index &index, index::LaunchRef ref) {
  const index::RuntimeData &rt = index.runtime();
  if (rt.times.deferred) return "\n\n**GPU time** " + joiningProfilesText(rt.times) + "…";
  std::string md;
  if (rt.times.present()) {
    if (const index::LaunchTiming *t = index::launchTiming(index, ref)) {
      md += "\n\n**GPU time** " + timeText(rt.times, t->ns) + " · " + percentText(rt.times.percent(t->ns)) +
            " of all device time";
      md += "\n\n" + std::to_string(t->activities) + " device " +
            (t->activities == 1 ? "activity" : "activities") + " in " + std::to_string(t->calls) +
            (t->calls == 1 ? " call" : " calls") + " (" + timeBasis(rt.times) + ")";
      std::string steps = perStepList(rt.times, t->perStep);
      if (!steps.empty()) md += "\n\n" + steps;
    } else if (onlyGraphReplays(index, ref.artifact)) {
      const index::CompileTiming *c = index::compileTiming(index, index.artifact(ref.artifact).compile);
      md += "\n\n**GPU time** unknown per launch: this code ran as a CUDA graph replay, whose kernels the "
            "profile cannot tie to single launches. The whole replay took " +
            timeText(rt.times, c->graphReplayNs) + ".";
    } else if (index::compileTiming(index, index.artifact(ref.artifact).compile)) {
      md += "\n\n**GPU time** none recorded for this launch in the profiled calls.";
    }
  }
  return md;
}

std::string launchValuesMarkdown(const index::Index &index, index::LaunchRef ref) {
  std::string md;
  if (const index::LaunchValues *v = index::launchValues(index, ref)) {
    md += "\n\n**Tensor statistics** (intermediate value debug printer, " +
          std::string(v->calls == 1 ? "1 call" : "first of " + std::to_string(v->calls) + " calls") +
          ")\n\n" + statsTable(*v);
    if (v->nonFiniteCalls)
      md += "\n\nNaN/Inf after the launch in " + std::to_string(v->nonFiniteCalls) + " of " +
            std::to_string(v->calls) + " calls.";
  }
  return md;
}

std::string launchRuntimeMarkdown(const index::Index &index, index::LaunchRef ref) {
  return launchTimeMarkdown(index, ref) + launchValuesMarkdown(index, ref);
}

std::string launchesRuntimeMarkdown(const index::Index &index,
                                    const std::vector<index::LaunchRef> &launches) {
  const index::RuntimeData &rt = index.runtime();
  if (!rt.times.present()) return "";
  index::LaunchesTiming t = index::timeOfLaunches(index, launches);
  if (!t.timed()) return "";
  return "\n\n**GPU time** " + timeText(rt.times, t.ns) + " · " + percentText(rt.times.percent(t.ns)) +
         " over " + std::to_string(t.timedLaunches) + (t.timedLaunches == 1 ? " launch" : " launches");
}

std::string userLineTimeMarkdown(const index::Index &index, const std::vector<index::LaunchRef> &launches) {
  const index::RuntimeData &rt = index.runtime();
  if (rt.times.deferred && !launches.empty())
    return "\n\n**GPU time** " + joiningProfilesText(rt.times) + "…";
  if (!rt.times.present()) return "";
  // The line's time is its lens's (lensTimeSuffix) and inductor/hotLines' (hotLinesResult): one query.
  index::LaunchesTiming lt = index::timeOfLaunches(index, launches);
  if (!lt.timed()) {
    bool replays = !launches.empty() &&
                   std::all_of(launches.begin(), launches.end(),
                               [&](index::LaunchRef r) { return onlyGraphReplays(index, r.artifact); });
    return replays
               ? "\n\n**GPU time** unknown per line: its kernels ran inside CUDA graph replays, which the "
                 "profile records only as a whole."
               : "";
  }
  std::string md = "\n\n**GPU time** " + timeText(rt.times, lt.ns) + " · " +
                   percentText(rt.times.percent(lt.ns)) + " of all device time (" + timeBasis(rt.times) + ")";
  std::string steps = perStepList(rt.times, lt.perStep);
  if (!steps.empty()) md += "\n\n" + steps;
  return md;
}

std::string userLineTimeDetails(const index::Index &index, const std::vector<index::LaunchRef> &launches) {
  const index::RuntimeData &rt = index.runtime();
  std::string md;
  if (rt.times.present()) {
    index::LaunchesTiming lt = index::timeOfLaunches(index, launches);
    if (lt.timed()) {
      // Per compile, then per kernel, largest first.
      std::vector<std::pair<uint64_t, index::LaunchRef>> kernels;
      std::set<uint64_t> seen;
      for (index::LaunchRef r : launches) {
        if (!seen.insert(index::RuntimeData::key(r)).second) continue;
        if (const index::LaunchTiming *t = index::launchTiming(index, r)) kernels.emplace_back(t->ns, r);
      }
      std::stable_sort(kernels.begin(), kernels.end(),
                       [](const auto &a, const auto &b) { return a.first > b.first; });
      md += "\n\n**By compile:**";
      for (const auto &[c, ns] : lt.byCompile)
        md += " " + (c < index.compiles().size() ? index.compiles()[c].label() : std::string("?")) + " " +
              timeText(rt.times, ns) + ";";
      md.pop_back();
      md += "\n\n**By kernel:**";
      for (size_t i = 0; i < kernels.size() && i < 12; ++i) {
        const index::Compile *c = index.compileOf(kernels[i].second.artifact);
        md += "\n- " + code(launchLabel(index.launch(kernels[i].second))) + " " +
              timeText(rt.times, kernels[i].first) + (c ? " — " + c->label() : "");
      }
      if (kernels.size() > 12) md += "\n- … " + std::to_string(kernels.size() - 12) + " more";
    }
  }
  std::string stats;
  for (index::LaunchRef r : launches)
    if (const index::LaunchValues *v = index::launchValues(index, r)) {
      std::string s = launchStatsText(*v);
      if (!s.empty()) stats += "\n- " + code(launchLabel(index.launch(r))) + " " + s;
    }
  if (!stats.empty()) md += "\n\n**Tensor statistics** (outputs, first call)" + stats;
  return md;
}

std::string lensTimeSuffix(const index::Index &index, const std::vector<index::LaunchRef> &launches) {
  const index::RuntimeData &rt = index.runtime();
  if (rt.times.deferred && !launches.empty()) return " · GPU time: " + joiningProfilesText(rt.times);
  if (!rt.times.present()) return "";
  // The hover's and inductor/hotLines' figure for the same launches (index::timeOfLaunches).
  if (index::LaunchesTiming t = index::timeOfLaunches(index, launches); t.timed())
    return " · " + timeText(rt.times, t.ns);
  bool replays = !launches.empty() && std::all_of(launches.begin(), launches.end(), [&](index::LaunchRef r) {
    return onlyGraphReplays(index, r.artifact);
  });
  return replays ? " · time unknown (CUDA graph)" : "";
}

} // namespace inductor::server
