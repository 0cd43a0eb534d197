// index/model/Counts.h: the one definition of everything the views count. The status bar and `:Inductor
// status` (inductor/status), `inductor-ls explain` (text and --json), the code lenses and hovers of user
// lines and compiled functions, and the compiled frames view (inductor/compiles) all count through here, so
// that one trace tells one story in every view.
//
// Definitions (PyTorch's terms; ranks of a job together everywhere: they compile the same frames side by
// side, so a rank is not another compile):
//  - a compile: one Dynamo compile of a frame, its compile id `frame_id/frame_compile_id` (CompileId::str:
//    the attempts of a RestartAnalysis are the same compile, compiled autograd ids tell compiles apart);
//    the ranks that ran one id are one compile. A trace without Dynamo compiles (AOTInductor, debug or cache
//    directories only) counts its graphs as its compiles.
//  - a graph: one output code (forward, backward or inference; an AOTInductor wrapper) of a compile, as the
//    index holds it (Index::compiles: which files are output code is the index's decision); the ranks' copies
//    of one graph are one graph (per compile id and graph kind, the most any rank has).
//  - a kernel: a distinct kernel name launched by one graph (Triton, C++ and extern kernels alike); a launch:
//    a distinct launch site of a kernel in that graph (its debug handle, else its line). The same kernel in
//    two compiles (a recompile) counts twice: a line's total says so (`over 2 compiles`).
//  - problems: the compile-health events by kind: graph breaks (each break of each compile), recompiles (the
//    compiles that were recompiles, whatever number of guards failed) and failures (the compiles with a
//    failure event). Specialisations are information, not problems. Problems of indexing (unreadable files,
//    corrupted records) are another thing: IndexStats::errors.
// Pure functions of an immutable Index; safe from any thread.
#pragma once

#include "index/model/Index.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inductor::index {

/// Counts of some Dynamo compiles (indices into CompileHealth::compiles), as defined in the file comment.
struct CompileCounts {
  size_t compiles = 0;    ///< Distinct compile ids (of distinct functions), ranks together.
  size_t frames = 0;      ///< Distinct compiled frames (frame ids, or functions without one), ranks together.
  size_t graphBreaks = 0; ///< Graph-break events: per compile, the most any rank had.
  size_t recompiles = 0;  ///< Compiles that were recompiles.
  size_t failures = 0;    ///< Compiles with a failure event.
  size_t ranks = 0;       ///< Distinct ranks (0 for a single process).
  /// Seconds compiling (forward, backward and first run): per compile the longest rank's (ranks compile side
  /// by side), summed; nullopt when no compile recorded a time.
  std::optional<double> seconds;
  size_t problems() const { return graphBreaks + recompiles + failures; }
  /// "5 compiles · 1 failed · 4 graph breaks · 1 recompile": the compiles, then each kind of problem there
  /// is.
  std::string text() const;
};
CompileCounts countCompiles(const CompileHealth &health, const std::vector<uint32_t> &compiles);

/// Launches (from a user line, a graph node, a whole index) grouped for display and counted: by graph
/// (compile id with attempt and graph kind; the ranks that compiled the same graph are one group), then by
/// distinct kernel, then by distinct launch site. A launch site counts once per group, whatever the number of
/// ranks running it.
struct LaunchSummary {
  struct Kernel {
    std::string name;
    KernelKind kind = KernelKind::Unknown;
    std::vector<LaunchRef> launches; ///< One per distinct launch site, in code order.
    /// The same sites in other code of the same graph: ranks whose output code for this compile id differs
    /// (an uneven batch, another branch) launch it at other lines of other files. Not counted; listed by
    /// locations() so that a user sees every version.
    std::vector<LaunchRef> variants;
  };
  /// The ranks of a group that ran one version of its code (Index::firstEquivalent: the same text up to the
  /// device) and what that version launches: each its own kernels, sites and debug handles, never another
  /// version's. A group of one version has one row, equal to the group.
  struct Row {
    std::string label;           ///< The group's label with this version's ranks: "[0/0] forward · rank 3".
    std::vector<Kernel> kernels; ///< In order of first launch; `variants` empty.
  };
  struct Group {
    std::string label;           ///< "[0/0] backward", "[0/0] forward · ranks 0, 1".
    std::string kindWord;        ///< Compile::kindWord(): "forward", "backward", "inference", "AOT", "other".
    std::string compile;         ///< The compile it belongs to (CompileId::str, "" when none): "0/0".
    std::vector<Kernel> kernels; ///< In order of first launch.
    std::vector<Row> rows;       ///< One per version of the code, in order of first launch (see Row).
  };
  std::vector<Group> groups; ///< In compile order.
  size_t kernels = 0, launches = 0;
  /// Distinct compiles (CompileId::str) among the groups; a group of no compile id (AOTInductor, files only)
  /// is a compile of its own.
  size_t compiles = 0;
  /// "4 kernels, 10 launches" ("2 kernels" when each is launched once), and " over 3 compiles" when the
  /// launches are of several compiles (the counts add up their kernels).
  std::string counts() const;
  /// " · 2 forward · 2 backward": kernels per graph kind, in a fixed order; they add up to `kernels`.
  std::string byKind() const;
  /// The launches counted by counts(): one per distinct site of each kernel in each group, the first of
  /// the ranks that share it (their copies are the same code at the same place).
  std::vector<LaunchRef> sites() const;
  /// sites() and the variants: where to look, one location per site in each distinct version of the code.
  std::vector<LaunchRef> locations() const;
};
LaunchSummary summarizeLaunches(const Index &index, const std::vector<LaunchRef> &launches);

/// Everything a whole index counts, as the status, explain and the compiles view show it.
struct IndexCounts {
  size_t traces = 0;   ///< Trace logs.
  size_t compiles = 0; ///< Dynamo compiles, or the graphs when the trace has none (see the file comment).
  size_t graphs = 0;   ///< Output codes, the ranks' copies of one graph together.
  size_t kernels = 0, launches = 0; ///< summarizeLaunches over every launch of the index.
  size_t launchesWithOrigin = 0;    ///< Of `launches`, those with a user origin.
  CompileCounts health;             ///< countCompiles over every Dynamo compile.
  /// The compile-health diagnostics (Index::healthDiagnostics of every file, specialisations left out): the
  /// problems merged per line, kind and file, as the Problems panel lists them.
  size_t problemLines = 0;
  /// Index::ranks() divergences, the cache outcomes' left out; 0 for a single process.
  size_t rankDivergences = 0;
  size_t problems() const { return health.problems(); }
};
/// O(launches + compiles + compile-health events), and the ranks report (Index::ranks) of a run of several.
IndexCounts countIndex(const Index &index);
/// countIndex() of an index, computed once per index (keyed by Index::serial; the last few are kept) and
/// shared: what the status, sent after every build and on request, reads. Thread-safe.
std::shared_ptr<const IndexCounts> countsOf(const Index &index);

/// `torch_dynamo_resume_in_<fn>_at_<line>` (torch/_dynamo/resume_execution.py names the code that runs after
/// a graph break so): <fn> and <line>; nullopt for other names.
std::optional<std::pair<std::string, uint32_t>> parseResumeName(std::string_view name);

/// The compiled frames as the user wrote them, what the compiled frames view lists and a compiled function's
/// lens and hover count: by function, with the user's names. A frame is named by its co_name, else by the
/// name its frame id has in another compile of the same log and rank (the compile that hit the recompile
/// limit logs none), else "(frame N)"; a `torch_dynamo_resume_in_<fn>_at_<line>` frame counts under <fn>
/// (through CompiledFrame::resumeOf, else by that name in the same log); the ranks' frames of one function
/// (same name and def line) are one function.
struct FunctionGroups {
  struct Function {
    std::string name;             ///< The user's name of the function.
    std::optional<uint32_t> def;  ///< Its def line (CompileHealth::places).
    std::vector<uint32_t> frames; ///< Its frames, then those resumed after its graph breaks, in index order.
    std::vector<uint32_t> compiles; ///< Every compile of those frames.
  };
  std::vector<Function> functions; ///< In order of their first frame.
  std::vector<std::string> name;   ///< Per frame: its own name as above (a resume keeps its own).
  std::vector<std::optional<uint32_t>>
      def;                        ///< Per frame: its def line, or the one its frame id has elsewhere.
  std::vector<uint32_t> function; ///< Per frame: index into `functions`.
};
FunctionGroups groupFunctions(const CompileHealth &health);

/// "1 kernel", "3 kernels", "1 launch"/"2 launches" (`many` defaults to `one` + "s").
std::string countText(size_t n, std::string_view one, std::string_view many = {});

} // namespace inductor::index
