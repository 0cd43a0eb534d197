// server/format/CompareFormat.h: how a comparison with a baseline run (index/compare/Compare.h) reads in the
// views: the answer of inductor/compare and explain's `comparison`, a model line's code lens
// (`10 kernels (+2) · 133 µs/step (+35 µs vs baseline)`), its hover (kernels added, removed and changed, GPU
// time before and after) and the `new since run ...` of compile-health diagnostics. Every view says the same
// thing the same way; nothing is shown when there is no baseline.
#pragma once

#include "index/compare/Compare.h"
#include "index/model/Counts.h"
#include "protocol/InductorProtocol.h"
#include "protocol/Protocol.h"
#include "server/text/Convert.h"

#include <memory>
#include <string>
#include <vector>

namespace inductor::server {

/// What a run is called in texts: its id (index/files/Runs.h), else "baseline" / "current".
std::string runName(const index::Index &index, std::string_view fallback);

/// The compared lines of the user file `path` as it is now (the document at `uri`, else the file), kept with
/// its text per pair of indexes (TextViews::derived).
std::shared_ptr<const std::vector<index::ComparedLine>>
comparedLinesNow(TextCache &texts, const index::Index &current, const index::Index &baseline,
                 const std::string &uri, const std::string &path);
/// The line (1-based) of `lines`, or null.
const index::ComparedLine *comparedLineAt(const std::vector<index::ComparedLine> &lines, uint32_t line);

/// A model line's lens title against the baseline: `counts` (LaunchSummary::counts(): "10 kernels, 12
/// launches") with the change of its kernel count after the first number (" (+2)", " (−1)", " (new)",
/// " (code changed)"), then `rest` (the graph kinds), then `time` (lensTimeSuffix: " · 133 µs/step") with
/// " (+35 µs vs baseline)" when both runs timed the line. `baseline` or `line` null: the title without
/// comparison.
std::string lensTitleVsBaseline(const index::Index *baseline, const index::ComparedLine *line,
                                const index::LaunchSummary &summary, const std::string &rest,
                                const std::string &time);

/// Hover on a model line: how it compares with the baseline (kernels added, removed and changed, GPU time
/// before and after), a section of its own. "" when `line` is null.
std::string comparedLineMarkdown(const index::Index &current, const index::Index &baseline,
                                 const index::ComparedLine *line);

/// comparedLineMarkdown() of a line (1-based) of the user file `path` as it is now (the document at `uri`);
/// "" without a baseline or when neither run has kernels there.
std::string compareHover(TextCache &texts, const index::Index &current, const index::Index *baseline,
                         const std::string &uri, const std::string &path, uint32_t line);

/// Marks a compile-health diagnostic new since the baseline when one of `events` (indices into the current
/// run's CompileHealth::events) is among `fresh` (index::newEvents, sorted): `new since run <id>` on its
/// message's first line, and `data.newSinceRun` = the id.
void markNewSinceBaseline(protocol::Diagnostic &d, const std::vector<uint32_t> &events,
                          const std::vector<uint32_t> &fresh, const std::string &baselineName);

} // namespace inductor::server
