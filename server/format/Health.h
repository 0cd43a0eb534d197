// server/format/Health.h: compile health (index/health/CompileHealth.h) for people, shared by the features
// that show it: Diagnostics.cpp, CodeLens.cpp, Hover.cpp, CodeAction.cpp, Compiles.cpp and Explain.cpp. Text
// only, and the one conversion of a health place (a recorded user line) to an LSP location.
#pragma once

#include "index/model/Index.h"
#include "protocol/Protocol.h"
#include "server/text/Convert.h"

#include <optional>
#include <string>
#include <vector>

namespace inductor::server {

/// "3.7 s", "120 ms", "850 µs".
std::string formatSeconds(double seconds);

/// The compile ids of a list of compiles, compactly: "[8/0–8/4]", "[0/0, 1/0]", "[0/0–0/1, 1/0–1/1]".
std::string compileIdRange(const index::CompileHealth &health, const std::vector<uint32_t> &compiles);

/// Total compile time of some compiles (forward, backward and first-run cost); nullopt when none is recorded.
std::optional<double> compileCost(const index::CompileHealth &health, const std::vector<uint32_t> &compiles);

/// The code lens title of a compiled function: "[8/0–8/4] 5 compiles · 1 failed · 4 graph breaks · 2.3 s".
/// Counts are per compile id, whatever the number of ranks that ran it; the time of an id is its longest
/// rank's (ranks compile side by side).
std::string functionSummary(const index::CompileHealth &health, const index::CompiledFunction &fn);

/// One compile in a line: "graph break · 2 attempts · 3.70 s · 10 guards · FX graph cache miss".
std::string compileSummary(const index::CompileHealth &health, uint32_t compile);

/// The LSP location of a place as it is now (placeOrigin: the recorded line found again by its text in the
/// open document or the file): the line, from the first to the last non-blank character, else, for a file
/// that does not exist here, the empty range at the start of the recorded line. nullopt when the line is no
/// longer in the file (never a silent wrong line). The one conversion every compile-health answer uses.
std::optional<protocol::Location> placeLocation(TextCache &texts, const index::Index &index,
                                                const index::Origin &place);

/// `file.py:LINE` of a place.
std::string placeLabel(const index::Origin &place);

/// Compile health of one user line (1-based), as hover Markdown (server/format/HealthHover.cpp): `head` (its
/// events, then the compiled function's compiles) goes before the line's kernels, `tail` (guards installed,
/// dynamic shapes) after them; both empty when there is none.
struct HealthMarkdown {
  std::string head, tail;
};
HealthMarkdown healthMarkdown(const index::Index &index, const std::string &path, uint32_t line);

/// The recorded line of the user file `path` whose compile-health place (an event, a compiled function's def
/// line, a guard's or a dynamic shape's line) is at `line` (0-based) now; nullopt when none is.
std::optional<uint32_t> recordedHealthLine(TextCache &texts, const index::Index &index,
                                           const std::string &path, uint32_t line);

/// A user line through which the user's own code entered compiled code of an installed package
/// (index::UserEntryPoint; server/format/EntryPoints.cpp), as its code lens title: `calls compiled wrapper
/// (generic.py:933) · 1 compile · 15 kernels, 39 launches · 510 µs total (CUDA graph replays)`: the compiled
/// functions, their compiles and problems (index::countCompiles), their kernels (index::summarizeLaunches)
/// and the GPU time of their calls (index::compileTiming).
std::string entryPointTitle(const index::Index &index, const index::UserEntryPoint &entry);
/// Its hover: each compiled function linked to its def line in the library, each compile's status, kernels
/// and GPU time, and the graph breaks, recompiles and failures with links to where they are.
std::string entryPointMarkdown(const index::Index &index, TextCache &texts,
                               const index::UserEntryPoint &entry);
/// The entry points of the user file `path` whose recorded line is at `line` (1-based) now (placeLocation).
std::vector<const index::UserEntryPoint *> entryPointsAt(TextCache &texts, const index::Index &index,
                                                         const std::string &path, uint32_t line);

} // namespace inductor::server
