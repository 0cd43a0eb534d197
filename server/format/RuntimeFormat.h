// server/format/RuntimeFormat.h: how runtime data (index/runtime/Runtime.h) reads in hints, lenses, hovers
// and `explain`: durations, per-step or total wording, shares, and tensor statistics. Shared by the feature
// files so every view says the same thing the same way.
#pragma once

#include "index/runtime/Runtime.h"

#include <cstdint>
#include <string>

namespace inductor::server {

/// "850 ns", "41.2 µs", "1.31 ms", "2.05 s" (three significant digits at most).
std::string formatDuration(uint64_t ns);
/// "41.2 µs/step" when steps are marked (the total divided by the step count), else "123 µs total".
std::string timeText(const index::RuntimeTimes &times, uint64_t ns);
/// "9%", "0.4%", "<0.1%"; from a million on "4.1e+30%" (shares of outside estimates can be any size).
std::string percentText(double percent);
/// "per step over 3 steps (ProfilerStep#3 … ProfilerStep#5)" or "totals over the profiled region (no
/// ProfilerStep marks)": what the numbers are, for headers and hovers.
std::string timeBasis(const index::RuntimeTimes &times);
/// A statistic as printed in hints: two significant digits, U+2212 for minus, "NaN", "Inf", "−Inf".
std::string statNumber(double v);
/// "f32" for "float32", "bf16" for "bfloat16"...; the name itself when unknown.
std::string shortDtype(const std::string &dtype);
/// "4×128".
std::string shapeText(const index::TensorStats &s);
/// `buf1 4×128 f32 μ 0.05 [−2.1, 1.9]`, `buf1 4×128 f32 NaN`, `512` for scalars: one argument's
/// statistics (after the launch when known, else before).
std::string statsText(const index::ArgValues &arg);
/// The statistics hint of a launch: its outputs (ArgValues::output), else its first tensor argument.
std::string launchStatsText(const index::LaunchValues &values);
/// A markdown table of every argument before and after the launch (hover).
std::string statsTable(const index::LaunchValues &values);

// Pieces of the views that show runtime data. Each returns "" when there is nothing to show, so callers
// append them unconditionally.

/// While profiles found beside the trace are still being joined (the index was served before them,
/// index::RuntimeTimes::deferred): "joining the profile" / "joining 3 profiles", else "". The launch and line
/// pieces below say it in place of a time, so that no view passes a missing time off as none.
std::string joiningProfilesText(const index::RuntimeTimes &times);
/// A launch's GPU time (per step, share, per-step list, activities), or why it has none (CUDA graph
/// replays).
std::string launchTimeMarkdown(const index::Index &index, index::LaunchRef ref);
/// The printer's before/after statistics of a launch's arguments.
std::string launchValuesMarkdown(const index::Index &index, index::LaunchRef ref);
/// launchTimeMarkdown then launchValuesMarkdown (an inlay hint's tooltip).
std::string launchRuntimeMarkdown(const index::Index &index, index::LaunchRef ref);
/// Hover on a kernel definition: the time of all its launches.
std::string launchesRuntimeMarkdown(const index::Index &index, const std::vector<index::LaunchRef> &launches);
/// Hover on a user line, right under its heading: the GPU time of its launches (index::timeOfLaunches, the
/// lens's and inductor/hotLines' figure) and per step, or why it has none (CUDA graph replays).
std::string userLineTimeMarkdown(const index::Index &index, const std::vector<index::LaunchRef> &launches);
/// Hover on a user line, after its kernels: that time per compile and per kernel (largest first), and the
/// statistics of its launches' outputs.
std::string userLineTimeDetails(const index::Index &index, const std::vector<index::LaunchRef> &launches);
/// The code lens of a user line: ` · 133 µs/step` (or ` · 400 µs total`), ` · time unknown (CUDA graph)`
/// when its kernels ran only inside CUDA graph replays, ` · GPU time: joining the profile` while it is; ""
/// without profiles.
/// The time is index::timeOfLaunches of the line's launches now, as in its hover and inductor/hotLines.
std::string lensTimeSuffix(const index::Index &index, const std::vector<index::LaunchRef> &launches);

} // namespace inductor::server
