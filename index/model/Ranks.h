// index/model/Ranks.h: the ranks of one distributed run compared, and every place where they diverge.
//
// An Index holds one run (every rank's log of one job). Per compile id (`frame_id/frame_compile_id`, the
// attempts together; Compile::label without the rank for its graphs) this says which ranks compiled it and
// with what outcome (compile health: status and events), whether their generated code is the same (a copy,
// or the same up to the device: Index::firstEquivalent) or different, their FX graph and AOTAutograd cache
// outcomes, and the order and kind of the collectives of each graph (`inductor_collective_schedule`, a JSON
// list of op names that torch/_inductor/comms.py logs per graph; see torch/_inductor/debug.py).
//
// Divergences, each reported once, on the user line that caused it:
//  - recompile / graph break / failure: a compile-health event on some ranks only, the others compiling that
//    frame without it; one divergence per outcome: compile id, kind, line and reason (the event's title, the
//    device it names made neutral), so that ranks whose compile of one id recompiled for other reasons (rank
//    1 on grad_mode, rank 3 on a size) are other divergences, each naming only the ranks that gave its
//    reason;
//  - different code: ranks whose compile of an id had the same outcome but whose generated code differs (not
//    up to the device); placed on the first differing node of the Dynamo graph that names a model line;
//  - collective schedule: a graph whose collectives differ in order or kind between ranks (a hang);
//  - missing compile: a compile id some ranks compiled and others did not, that no recompile or graph break
//    divergence of those ranks explains (a recompile on rank 2 only makes [0/1] a compile of rank 2 only);
//  - cache: FX graph or AOTAutograd cache hit on some ranks, miss on others (views only, no diagnostic).
// Ranks that agree are the majority: the largest group (ties: the group holding the lowest rank); the ranks
// named are the others.
//
// Cost: O(compiles + events) to group, plus reading the texts of one representative per distinct payload of
// a divergent group (never per rank pair): ranks are grouped by a hash of what they compiled.
#pragma once

#include "index/health/CompileHealth.h"
#include "index/model/Index.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

enum class RankDivergenceKind : uint8_t {
  Recompile,
  GraphBreak,
  Failure,
  DifferentCode,
  CollectiveSchedule,
  MissingCompile,
  Cache,
};
/// As prose (hovers, diagnostics' codes, explain): "recompile", "graph break", "failure", "different code",
/// "collective schedule", "missing compile", "cache". The wire spells it in protocol::RankDivergenceKind.
std::string_view rankDivergenceName(RankDivergenceKind kind);

/// One divergence between the ranks of a run.
struct RankDivergence {
  RankDivergenceKind kind = RankDivergenceKind::Recompile;
  std::vector<int> ranks; ///< The ranks that differ from the others, sorted.
  size_t of = 0;          ///< Ranks in the run.
  std::string compileId;  ///< "0/1" (CompileId::str).
  /// The user line that caused it (Origin::path local when the file is here; `line` 1-based); none when
  /// nothing names one.
  std::optional<Origin> at;
  /// "recompiled on rank 2 only (1 of 4): temp == 1.0".
  std::string message;
  /// More for hovers: the first lines of generated code that differ, the collectives of each side.
  std::string detail;
  HealthSeverity severity = HealthSeverity::Warning; ///< Cache: Hint (views only).
  /// The compile-health events it is about (CompileHealth::events), when it is one.
  std::vector<uint32_t> events;
};

/// What one group of ranks did with one compile id.
struct RankGroup {
  std::vector<int> ranks;
  CompileStatus status = CompileStatus::Ok;
  std::vector<uint32_t> compiles; ///< Their CompileHealth::compiles, in rank order.
};

/// One compile id across the ranks.
struct RankCompile {
  std::string compileId;           ///< "0/0".
  std::vector<int> ranks;          ///< The ranks that compiled it, sorted.
  std::vector<RankGroup> outcomes; ///< Grouped by outcome (status, events); the majority first.
  /// Groups of ranks by generated code (equal up to the device), the majority first; one group when all
  /// agree.
  std::vector<std::vector<int>> code;
  /// Groups of ranks by cache outcomes, each graph's in log order ("FX graph hit, AOTAutograd miss, FX graph
  /// miss"; "" unknown), the majority first.
  std::vector<std::pair<std::string, std::vector<int>>> cache;
  /// The collective ops of its graphs (the majority's), in schedule order; empty when it issued none or no
  /// rank logged its schedule (an FX graph cache hit does not).
  std::vector<std::string> collectives;
};

/// The ranks of a run compared (see the file comment). `ranks` empty or of one rank: a single-process run,
/// nothing compared.
struct RankReport {
  std::vector<int> ranks;                  ///< Every rank of the run (logs, compiles), sorted.
  std::vector<RankCompile> compiles;       ///< In compile id order.
  std::vector<RankDivergence> divergences; ///< Kinds in the enum's order, then compile id.
  /// Per CompileHealth::compiles index: the RankCompile it belongs to (or UINT32_MAX).
  std::vector<uint32_t> compileOf;
};

/// Compares the ranks of `index` (see the file comment); `logs` are its logs (Index::traceFiles order), for
/// the collective schedules. Pure; reads payload texts of divergent groups only. Index::ranks() keeps its
/// answer.
RankReport compareRanks(const Index &index, const std::vector<const TraceLog *> &logs);

/// "2", "1, 3", "0–7, 9–15" (runs of three or more as ranges), ascending; at most `most` pieces, then "…".
std::string rankRanges(std::vector<int> ranks, size_t most);

/// "rank 2 only (1 of 4)", "ranks 1, 3 (2 of 4)", "ranks 0–511, 513–1023 (1023 of 1024)", "all 4 ranks"
/// (rankRanges, at most 8 pieces).
std::string rankSubsetText(const std::vector<int> &ranks, size_t of);

} // namespace inductor::index
