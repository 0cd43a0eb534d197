// index/runtime/Runtime.h: what the run itself recorded about the compiled code, joined to launches and user
// lines: GPU time from torch.profiler Chrome traces (Profile.h) and tensor statistics from the intermediate
// value debug printer's run logs (DebugPrinter.h). Built by the index (BuildRuntime.cpp) after its compiles,
// frozen with it, and read through Index::runtime() and the Index helpers below it.
//
// Inputs: profiles and run logs found under the inputs/roots or beside the traces (see Discovery.h), plus
// those named by IndexOptions::profiles / ::runLogs; each file is read only when the ReadPolicy allows it.
//
// Units: nanoseconds of device time; lines 0-based except user lines (1-based, as Origin::line); columns are
// UTF-8 byte offsets. Per-step values divide totals by RuntimeTimes::steps.size() when steps are marked
// (`ProfilerStep#N`); otherwise numbers are totals over the profiled region, and every text says which.
#pragma once

#include "index/model/Index.h"
#include "index/runtime/DebugPrinter.h"
#include "index/runtime/Profile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace inductor::index {

/// GPU time of one launch over every profile (ProfileJoin's LaunchTime, summed).
struct LaunchTiming {
  uint64_t ns = 0;
  uint32_t activities = 0;
  uint32_t calls = 0;
  std::vector<uint64_t> perStep; ///< One entry per RuntimeTimes::steps entry; empty when not marked.
};

/// GPU time of one compile over every profile (ProfileJoin's CompileTime, summed).
struct CompileTiming {
  uint64_t ns = 0, otherNs = 0, graphReplayNs = 0;
  uint32_t calls = 0, graphReplays = 0, launchesMissed = 0;
  bool byCompileId = false; ///< Some calls were tied by compile id (the log has no FX graph cache key).
  bool bySequence = false;  ///< Some calls were tied by their launch sequence alone (no key, no compile id).
  std::vector<std::pair<std::string, uint64_t>> replayKernels; ///< CUDA graph replays, largest first.
  std::vector<uint64_t> perStep;
};

/// One profile as the index read it.
struct ProfileInfo {
  std::string path;
  size_t steps = 0;
  uint64_t totalNs = 0, eagerNs = 0, unjoinedNs = 0, outsideStepsNs = 0;
  uint32_t calls = 0, unjoinedCalls = 0;
  uint64_t activities = 0, unlinkedActivities = 0;
  size_t skippedEvents = 0;
  size_t cutStrings = 0, cutWhitespace = 0; ///< Over the token limits (ProfileReadOptions), not kept.
  bool truncated = false;
  std::string problem;
};

/// The profiles, summed.
struct RuntimeTimes {
  std::vector<ProfileInfo> profiles;
  /// Step names over all profiles in order (`ProfilerStep#3`, prefixed by the file name when several
  /// profiles mark steps); empty when no profile marks steps.
  std::vector<std::string> steps;
  std::vector<uint64_t> stepNs;
  uint64_t totalNs = 0;    ///< Every device activity (in steps when marked).
  uint64_t eagerNs = 0;    ///< Outside compiled calls.
  uint64_t unjoinedNs = 0; ///< In compiled calls tied to no compile.
  uint64_t outsideStepsNs = 0;
  std::vector<std::pair<std::string, uint64_t>> eagerOps; ///< Largest first.
  /// The GPUs of the profiles' `deviceProperties`, distinct (name, compute capability, SMs), in order.
  std::vector<DeviceProperties> devices;
  /// Sentences saying where the join is not exact (CUDA graph replays, unjoined calls, launches not found,
  /// profiles without CPU activity or cut short). Empty when every compiled launch was joined exactly.
  std::vector<std::string> caveats;
  /// Profiles found and not read by this build (IndexOptions::deferProfiles): their times are missing, not
  /// zero, and a later build joins them.
  size_t deferred = 0;

  bool present() const { return !profiles.empty(); }
  bool stepsMarked() const { return !steps.empty(); }
  /// `ns` per step when steps are marked, else `ns` unchanged.
  uint64_t perStep(uint64_t ns) const { return steps.empty() ? ns : ns / steps.size(); }
  /// Share of the total device time, 0..100.
  double percent(uint64_t ns) const { return totalNs ? 100.0 * double(ns) / double(totalNs) : 0.0; }
};

/// GPU time of some launches (a user line's, a kernel's, a compile's part of a line): the one sum that every
/// view shows of them (lens, hover, inductor/hotLines, explain, the comparison with a baseline). Each
/// distinct launch counts once: a launch with several origins on one line, or listed twice, is one launch of
/// it.
struct LaunchesTiming {
  uint64_t ns = 0;                        ///< Sum over the timed launches.
  uint32_t launches = 0;                  ///< Distinct launches given.
  uint32_t timedLaunches = 0;             ///< Of those, the ones a profile timed.
  std::map<std::string, uint64_t> byKind; ///< Compile::kindWord() -> ns ("forward", "backward", ...).
  std::map<uint32_t, uint64_t> byCompile; ///< Index::compiles() entry -> ns.
  std::vector<uint64_t> perStep;          ///< Per RuntimeTimes::steps entry; empty when not marked.
  bool timed() const { return timedLaunches > 0; }
};

/// One argument of a launch as the printer saw it in one call.
struct ArgValues {
  std::string arg;
  std::optional<TensorStats> before, after;
  /// Written by the launch: a buffer first printed here, or one whose statistics changed.
  bool output = false;
};

/// What the printer recorded for one launch.
struct LaunchValues {
  uint32_t calls = 0;          ///< Calls of its output code in which it printed.
  std::vector<ArgValues> args; ///< Of the first of those calls, in print order.
  std::string runLog;          ///< The run log, and the 0-based line of the first block.
  uint32_t line = 0;
  uint32_t nonFiniteCalls = 0; ///< Calls in which some argument held NaN/Inf after the launch.
};

/// One run log as the index read it.
struct RunLogInfo {
  std::string path;
  size_t records = 0, launchEvents = 0, unmatched = 0, malformed = 0, calls = 0;
  bool truncated = false;
};

/// Where a runtime diagnostic is: generated code (artifact valid) or a user file (path).
struct RuntimeLocation {
  ArtifactId artifact;
  std::string path;  ///< The user file, or the artifact's first local path (may be empty: log-only code).
  uint32_t line = 0; ///< 0-based.
  uint32_t column = 0, endColumn = 0; ///< Byte columns; endColumn 0 means to the end of the line.
  uint32_t launch = UINT32_MAX;       ///< The launch index in `artifact` when the location is a launch.
};

/// A finding of the runtime data, as plain data for the server's diagnostics.
struct RuntimeDiagnostic {
  enum class Severity { Error, Warning, Information } severity = Severity::Error;
  std::string code; ///< "first-nan", "first-inf", "nan-in-inputs", "nan-graph-input", "unfinished-launch".
  RuntimeLocation location;
  std::string message;
  std::vector<std::pair<RuntimeLocation, std::string>> related;
};

/// Everything the runtime inputs added to an Index.
struct RuntimeData {
  RuntimeTimes times;
  std::vector<CompileTiming> compileTimes; ///< Per Index::compiles() entry; empty without profiles.
  std::unordered_map<uint64_t, LaunchTiming> launchTimes; ///< By packed LaunchRef (see key()).
  std::vector<RunLogInfo> runLogs;
  std::unordered_map<uint64_t, LaunchValues> launchValues; ///< By packed LaunchRef.
  std::vector<RuntimeDiagnostic> diagnostics;

  static uint64_t key(LaunchRef r) { return (uint64_t(r.artifact.value) << 32) | r.index; }
};

// Lookups (pure functions of the index; nullptr when there is nothing).
const LaunchTiming *launchTiming(const Index &index, LaunchRef ref);
const CompileTiming *compileTiming(const Index &index, CompileRef ref);
const LaunchValues *launchValues(const Index &index, LaunchRef ref);
/// A launch the profiles timed, and its time (owned by the index).
struct TimedLaunch {
  LaunchRef ref;
  const LaunchTiming *timing = nullptr;
};
/// Every timed launch of the compiles' output code, largest time first (index order among equals): the one
/// ranking of launches by GPU time (inductor/hotLines `kernels`, `explain`). Empty without profiles.
std::vector<TimedLaunch> hotLaunches(const Index &index);
/// The GPU time of `launches` (see LaunchesTiming); O(launches). Nothing timed without profiles.
LaunchesTiming timeOfLaunches(const Index &index, const std::vector<LaunchRef> &launches);
/// The runtime diagnostics located in a user file (by local path) or in one of `artifacts`.
std::vector<const RuntimeDiagnostic *> runtimeDiagnosticsIn(const Index &index, std::string_view path,
                                                            const std::vector<ArtifactId> &artifacts);

} // namespace inductor::index
