// server/features/InductorRequests.h: the answers of the custom requests (protocol/InductorProtocol.h) as
// pure functions of an index, shared by their handlers (one file each: Compiles.cpp, HotLines.cpp,
// ListArtifacts.cpp, ArtifactContent.cpp, LaunchSites.cpp, Status.cpp) and by `inductor-ls explain --json`
// (server/cli/), which writes the same structs: one JSON shape for compile health and runtime, whoever asks.
//
// Each takes a TextCache (server/text/Convert.h) for the texts the answer points into: locations are in the
// negotiated encoding, and recorded user lines are found again in the text users have now.
#pragma once

#include "index/model/Index.h"
#include "protocol/InductorProtocol.h"
#include "server/text/Convert.h"

#include <cstdint>
#include <string>
#include <vector>

namespace inductor::server {

/// The compiled frames overview (inductor/compiles; explain's `compileHealth`). `filterPath` (a normalised
/// local path, or empty for all): only frames with a def line or an event in that user file.
protocol::CompilesResult compilesResult(const index::Index &index, TextCache &texts,
                                        const std::string &filterPath);

/// Where the ranks of the index's run diverge (inductor/ranks; explain's `ranks`): index::Index::ranks() as
/// the wire struct, every kind included (cache too), in its order.
protocol::RanksResult ranksResult(const index::Index &index);

/// The hottest user lines and kernel launches (inductor/hotLines; the core of explain's `runtime`): at most
/// `limit` of each, largest first; with `onlyPath` (a local path), only that file's lines and no kernels.
/// A line's time is index::timeOfLaunches of the launches its code lens counts (allUserLinesNow: the file's
/// lines as they are now), so the lens, the hover and these lines read the same figure.
protocol::HotLinesResult hotLinesResult(const index::Index &index, TextCache &texts, uint64_t limit,
                                        const std::string &onlyPath);

/// What changed since the baseline run (inductor/compare; explain's `comparison`): index::compareRuns over
/// the user files' texts now. Without a baseline: `baseline` null, `reason` saying why (`whyNone`, else that
/// no earlier run was found), no events or lines.
protocol::CompareResult compareResult(const index::Index &current, const index::Index *baseline,
                                      TextCache &texts, const std::string &whyNone = "");

/// Launch sites of `launches`, one location each (ranks sharing one output code file share their sites), as
/// the JSON text of an array of Location (inductor/launchSites, and the code lenses' arguments).
std::string launchLocations(TextCache &texts, const index::Index &index,
                            const std::vector<index::LaunchRef> &launches);

/// "python" or "cpp": an artifact's languageId (inductor/artifactContent, inductor/listArtifacts).
std::string artifactLanguageId(const index::Artifact &artifact);

/// The runs the current index's build found, oldest first, with the current one and the baseline's (null:
/// none) marked (inductor/runs; explain's `runs`).
protocol::RunsResult runsResult(const index::Index &current, const index::Index *baseline);

/// "run 2026-11-27 02:31:04 (the latest; 1 other run: 2026-11-27 02:30:00)", or "" when the traces hold at
/// most one run: what inductor/status's readers and explain's text say of the runs.
std::string runsSummary(const index::Index &current);

} // namespace inductor::server
