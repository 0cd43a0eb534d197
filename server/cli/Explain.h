// server/cli/Explain.h: `inductor-ls explain`, the command-line view of an index: for each kernel launch its
// user origin, and for each user source line its kernels, then compile health and runtime. Plain text for
// people, `--json` for scripts.
//
// The CLI is a client of the server's features, not a second implementation of them: `--json` writes
// compile health (`compileHealth`) and runtime (`runtime`) as the custom requests' structs
// (protocol/InductorProtocol.h, built by server/features/InductorRequests.h: inductor/compiles and
// inductor/hotLines), so a script and an editor read one shape. Files: Explain.cpp (arguments, the build, the
// text), ExplainJson.cpp
// (`--json`), ExplainRuntime.cpp (the runtime section, text and the keys only explain writes).
#pragma once

#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "protocol/Json.h"
#include "server/text/TextCache.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace inductor::server {

/// Runs the explain command with its arguments (after the word `explain`). Returns the exit code.
int runExplain(const std::vector<std::string> &args);

// --- Shared by the CLI's files. -------------------------------------------------------------------------

/// The launches of every user line: path -> 1-based line -> launches, in index order.
using UserLineLaunches = std::map<std::string, std::map<uint32_t, std::vector<index::LaunchRef>>>;
UserLineLaunches userLineLaunches(const index::Index &index);

/// The text of an origin's line: as the trace recorded it, else the file's line here (read through the
/// SourceReader, like the server), else why there is none (never a bare line number that reads like an empty
/// line).
std::string sourceText(const index::Origin &o, const index::SourceReader &sources);

/// The runtime section of the text (ExplainRuntime.cpp): GPU time per user line (inductor/hotLines' lines,
/// as the lenses show them), launch and compile, and the printer's statistics and findings.
void printRuntime(const index::Index &index, TextCache &texts);

/// What only explain writes under `runtime` (ExplainRuntime.cpp), beside inductor/hotLines' members:
/// outsideStepsNs, profileDetails [{path, steps, totalNs, eagerNs, unjoinedNs, calls, truncated}], compiles,
/// eagerOps, values (the printer's statistics), diagnostics (runtime findings).
protocol::json runtimeDetails(const index::Index &index);

/// The `--json` document (ExplainJson.cpp): {stats, counts, launches, userLines, compileHealth
/// (inductor/compiles' answer), diagnostics, runtime (inductor/hotLines' answer with every line and launch,
/// and runtimeDetails())}. `sources`: the reader the index's build allowed; `milliseconds`: the build's time.
protocol::json explainJson(std::shared_ptr<const index::Index> index,
                           std::shared_ptr<const index::SourceReader> sources, long long milliseconds);

/// The index of the run `--baseline` names (ExplainCompare.cpp), resolved as the server's `baseline` setting
/// (index::resolveRunName; a relative path from the current directory): a run id, "previous", a log or a
/// folder of the runs of the current inputs, or a trace folder or log of its own (read with the current
/// run's roots, so that both find the same user files). Error when it names no run (index::noRunMatches), or
/// a path outside the inputs that holds no trace (a device, an empty folder): explain then stops (exit 2)
/// rather than compare with an empty run.
index::Expected<std::shared_ptr<const index::Index>> buildBaseline(const index::IndexOptions &current,
                                                                   const std::string &arg);

/// explain --json's `comparison` (ExplainCompare.cpp): inductor/compare's answer for the current index and
/// the baseline.
protocol::json comparisonJson(std::shared_ptr<const index::Index> current,
                              std::shared_ptr<const index::Index> baseline,
                              std::shared_ptr<const index::SourceReader> sources);

/// The comparison as text (ExplainCompare.cpp): events new and gone, then the user lines that changed.
void printComparison(std::shared_ptr<const index::Index> current,
                     std::shared_ptr<const index::Index> baseline,
                     std::shared_ptr<const index::SourceReader> sources);

} // namespace inductor::server
