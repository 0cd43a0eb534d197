// index/compare/Compare.h: what changed between two runs of the same code, a baseline run and the current
// one, each its own immutable Index (one run's logs: index/files/Runs.h). Users rerun one script into one
// TORCH_TRACE folder, editing their model in between, and ask "what changed?": which compile-health events
// are new or gone, and, per user line, which kernels it became before and after and what they cost.
//
// Matching (never by line number alone: the file was edited between the runs):
//  - lines: each run's recorded lines of a user file (Index::recordedLines: the text stack traces and graph
//    dumps recorded for each line) are found in the file's current text (index/analysis/Relocation.h: by
//    their text, anchored by the lines that did not move); a baseline line and a current line are the same
//    when their texts are found at the same line now. A baseline line whose text is no longer in the file is
//    `gone` at the baseline's line number. Without the current text (a file not on this machine, or not
//    readable), the current run's recorded lines stand for it.
//  - compile-health events (graph breaks, recompiles, failures; index/health/CompileHealth.h): by kind, the
//    recorded text of their user line (trimmed; a place recorded without text takes the text the same run
//    recorded for that line elsewhere) and their reason (HealthEvent::title). The ranks and compiles that
//    had the same event are one.
//  - kernels: by the name the output code gives them (`triton_poi_fused_gelu_2`, `extern_kernels.mm`); a
//    kernel of the same name whose generated source differs (its embedded Triton source, compared line by
//    line) has changed.
// A line is `new` when only the current run has kernels on it, `gone` when only the baseline has, `changed`
// when both have and the kernel names or the code of a same-named kernel differ, else `same`.
//
// Units: lines are 1-based (as Origin::line); GPU time is nanoseconds per step when the run's profiles mark
// steps (RuntimeTimes::perStep), else the total over the profiled region, none without profiles.
// Pure functions of their arguments (the indexes are immutable); safe from any thread. Cost: one pass over
// each run's launches and events, plus reading the output code of each (its kernels' sources).
#pragma once

#include "index/model/Index.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// How a line or an event differs from the baseline.
enum class Change : uint8_t { New, Gone, Changed, Same };
/// "new", "gone", "changed", "same" (explain's text; the wire spells it in protocol::Change).
std::string_view changeName(Change change);

/// One run of a comparison: what the caller names it, and its logs.
struct ComparedRun {
  std::string id;                ///< CompareOptions' name for it, else its Index::run() id (may be empty).
  std::vector<std::string> logs; ///< Index::traceFiles() of its index.
};

/// A compile-health event new since the baseline, or gone from the current run.
struct ComparedEvent {
  Change change = Change::New;                        ///< New or Gone only.
  HealthEventKind kind = HealthEventKind::GraphBreak; ///< GraphBreak, Recompile or Failure.
  std::string path;    ///< Local path of the user file (Origin::path); empty when no user line is known.
  uint32_t line = 0;   ///< 1-based, in the current text; a gone event's text no longer there: the baseline's.
  std::string code;    ///< The recorded source text of the line (trimmed), may be empty.
  std::string message; ///< The reason (HealthEvent::title).
  /// Its events in the index of the run it happened in (the current one for New, the baseline for Gone):
  /// indices into CompileHealth::events, in index order.
  std::vector<uint32_t> events;
};

/// One user line that has kernels in either run.
struct ComparedLine {
  std::string path;  ///< Local path of the user file (Origin::path).
  uint32_t line = 0; ///< 1-based, in the current text; for a line no longer there, the baseline's.
  std::string text;  ///< The line's text (trimmed): the current text's, else as recorded.
  Change change = Change::Same;
  /// Distinct kernel names (KernelLaunch::kernel), sorted, over every graph of the run.
  std::vector<std::string> kernelsBefore, kernelsAfter;
  /// Kernels in both whose generated code differs (sorted).
  std::vector<std::string> kernelsChanged;
  /// The line's kernels and compiles as its code lens counts them (index::LaunchSummary, Counts.h: a kernel
  /// once per graph of each compile, so a recompile counts its kernels again), before and after: the one
  /// figure the lens's `(+2)`, the hover and the comparison views show.
  size_t kernelCountBefore = 0, kernelCountAfter = 0, compilesBefore = 0, compilesAfter = 0;
  /// Launches of the line in each index (LaunchRef of the baseline's / the current's index).
  std::vector<LaunchRef> launchesBefore, launchesAfter;
  /// GPU time of the line's launches (see the file comment); none when the run has no profile.
  std::optional<uint64_t> gpuNsBefore, gpuNsAfter;
};

struct Comparison {
  ComparedRun baseline, current;
  /// New events first then gone ones, each by file and line.
  std::vector<ComparedEvent> events;
  /// By file, then line.
  std::vector<ComparedLine> lines;
  /// Whether each run's GPU times are per step (profiles mark `ProfilerStep#N`) rather than totals.
  bool perStepBefore = false, perStepAfter = false;

  /// The comparison of a line (1-based, in the current text) of a user file (a local path, compared
  /// normalized); null when neither run has kernels there.
  const ComparedLine *lineAt(std::string_view path, uint32_t line) const;
};

/// The current text of a user file (local path), valid during the call; null when there is none to read.
using CurrentText = std::function<const TextLines *(const std::string &path)>;

struct CompareOptions {
  /// The user files' current text (the server's open documents). Empty: read through the current index's
  /// ReadPolicy (SourceReader.h).
  CurrentText text;
  /// What to call the runs (ComparedRun::id); empty: their Index::run() ids.
  std::string baselineId, currentId;
};

/// The comparison of two runs (see the file comment). Never fails: an input missing something (no profile,
/// no readable source) gives fewer facts, never wrong ones.
Comparison compareRuns(const Index &baseline, const Index &current, const CompareOptions &options = {});

/// The lines of one user file only (compareRuns' `lines` of that file), against `text` (its current text;
/// null: the current run's recorded lines): what a code lens or hover of one document needs.
std::vector<ComparedLine> compareLines(const Index &baseline, const Index &current, const std::string &path,
                                       const TextLines *text);

/// The compile-health events of the current run that the baseline did not have (indices into
/// current.compileHealth().events, sorted): what diagnostics mark `new since run ...`. Needs no text.
std::vector<uint32_t> newEvents(const Index &baseline, const Index &current);

} // namespace inductor::index
