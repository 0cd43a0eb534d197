#include "server/RuntimeFormat.h"

#include <cmath>
#include <cstdio>

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
  else
    std::snprintf(buf, sizeof buf, "%.0f%%", percent);
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

} // namespace inductor::server
