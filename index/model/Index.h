// index/model/Index.h: the artifact model of everything torch.compile left behind, and the queries the server
// asks.
//
// Inputs (see Discovery.h): TORCH_TRACE logs, TORCH_COMPILE_DEBUG directories, Inductor cache directories and
// standalone provenance maps. Build pipeline (Index::build):
//   1. discover input files;                              (Discovery.cpp)
//   2. memory-map and scan each log once (TraceLog.h); parse only record metadata;
//   3. cut each log into compiles: one Compile per output code (Python wrapper code or AOTI C++ wrapper
//   code),
//      owning the post-grad graph before it and the provenance artifacts after it, sharing the pre-grad graph
//      of its compile id;
//   4. analyse every compile's output code, provenance and graphs on worker threads (OutputCode.h,
//      Provenance.h, GraphDump.h), and resolve each launch's origins (the user source lines it came from);
//   5. merge the same artifact reached through several files (trace payload, cache file, debug-dir copy) into
//      one, by content;
//   6. freeze: build the lookup tables (path -> artifact, user file -> line -> launches, kernel name ->
//   symbols).
// After build() the Index is immutable and every query is a pure function of it: safe to call from any number
// of threads. A new build replaces it wholesale (the server swaps a shared_ptr<const Index>).
//
// Incremental builds: pass the same IndexCache to successive builds. A build then resumes each log of the
// previous build from where it stopped (TraceLog::resume: only appended bytes are read; an unchanged log is
// reused as is) and reuses the analysis (step 4) of every compile whose records did not change; steps 3, 5
// and 6 and the file inputs (debug directories, cache files) are redone, which is cheap. The result is the
// same Index a build without a cache would make.
//
// Units: lines are 0-based and columns are 0-based UTF-8 byte offsets, except `Origin::line`, which is
// 1-based as Python and the trace print it. Paths are absolute local paths when the file exists here, else
// the path as recorded in the trace. index/ knows nothing of URIs, UTF-16 or LSP.
//
// Origins of a launch (the "fallback chain"; the first step that yields a line wins; never a guessed line):
//   1. the stack traces recorded for its `kernel:debug_handle` key
//      (inductor_provenance_tracking_kernel_stack_traces, or AOTI's kernel_information.json): per stack
//      trace, the innermost model frame (ModelFrames.h: outside PyTorch, the standard library, synthetic
//      files and the user's libraryPaths; third-party packages are model code);
//   2. its post-grad FX nodes (provenance node mappings, or the kernel's `Source node to ATen node mapping`
//      comment) looked up in the post-grad graph dump's `# File:` comments, model frames only;
//   3. its pre-grad FX nodes (postToPre mappings, or the launch's `Topologically Sorted Source Nodes`
//      comment) looked up in the pre-grad graph dump's `# File:` comments, model frames only.
// When no step yields a model frame, the kernel came from code Dynamo traced inside PyTorch (a compiled
// optimizer step: `torch/optim/adam.py`): the innermost frame of each of its stacks (else of its post-grad,
// then pre-grad nodes' `# File:` comments), synthetic files aside, is kept as Launch::frameworkOrigins. Those
// are never origins: not counted as launches with an origin, not a user line of any file (no lens, no
// reference from a PyTorch file), not a missing source; definition, hover and explain answer them when a
// launch has no origin, marked as PyTorch's frame.
// Origins keep the line number and text the trace recorded; where that line is in the file today (the user
// edited it, or has another version of the library) is the caller's question: see Relocation.h and
// recordedLines().
#pragma once

#include "index/analysis/OutputCode.h"
#include "index/analysis/Relocation.h"
#include "index/files/Discovery.h"
#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/files/Runs.h"
#include "index/files/TritonCache.h"
#include "index/health/CompileHealth.h"
#include "index/support/Expected.h"
#include "index/support/SharedVector.h"
#include "index/support/TextLines.h"
#include "index/trace/CompileId.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

// The one name of a later stage here, and only as an opaque pointer (never included, its members never read
// in model/): the builder joins the runtime inputs after the model is built and freezes the result with it,
// so that one Index is one run's whole answer; runtime/ reads it (index/README.md).
struct RuntimeData;     // index/runtime/Runtime.h
struct RankReport;      // index/model/Ranks.h
struct TritonFileCache; // index/model/TritonQueries.cpp

/// Index of an artifact in Index::artifacts(). Stable for the lifetime of one Index.
struct ArtifactId {
  uint32_t value = UINT32_MAX;
  bool valid() const { return value != UINT32_MAX; }
  friend bool operator==(ArtifactId, ArtifactId) = default;
};

/// Index of a compile in Index::compiles().
struct CompileRef {
  uint32_t value = UINT32_MAX;
  bool valid() const { return value != UINT32_MAX; }
  friend bool operator==(CompileRef, CompileRef) = default;
};

enum class ArtifactKind {
  OutputCode,   ///< Python wrapper code (output_code.py, c<hash>.py, inductor_output_code payload).
  WrapperCode,  ///< AOTInductor C++ wrapper code (*.wrapper.cpp, output_code.cpp, inductor_aot_wrapper_code).
  KernelSource, ///< A kernel's own file in the cache (Triton c<hash>.py).
  Graph,        ///< An FX graph dump (fx_graph_readable.py, a graph payload of the log).
};

enum class Language { Python, Cpp };

/// Where a kernel came from in user code.
struct Origin {
  std::string path;         ///< Resolved local path (see PathResolver), else the recorded path.
  std::string recordedPath; ///< As written in the trace.
  uint32_t line = 0;        ///< 1-based.
  std::string code;         ///< The source line as the trace recorded it (may be empty).
  std::string function;     ///< Enclosing function name, when known.
  bool exists = false;      ///< `path` exists on this machine.
  /// A frame of a file the user's libraryPaths mark as library code: kept in Launch::stacks (hover shows the
  /// whole stack), never one of Launch::origins.
  bool library = false;
  friend bool operator==(const Origin &a, const Origin &b) { return a.path == b.path && a.line == b.line; }
};

/// How an origin was found (for hover text and tests).
enum class OriginSource { None, StackTrace, PostGradGraph, PreGradGraph };

/// One torch.compile graph compilation: its output code and what belongs to it.
struct Compile {
  CompileId id;
  std::optional<int> rank;
  GraphKind graphKind = GraphKind::Unknown;
  bool aoti = false;     ///< AOTInductor (C++ wrapper code, or an export trace without compile id).
  std::string aotId;     ///< From `# AOT ID:`, e.g. "0_forward".
  std::string traceFile; ///< The log it came from (local path); empty for compiles found only in files.
  /// The FX graph cache key of its output code (the `fx_graph_cache_miss`/`_hit` artifact after it), which
  /// names the compile in profiles (`## Call CompiledFxGraph <key> ##`); empty when the log has none.
  std::string cacheKey;
  ArtifactId outputCode;
  ArtifactId postGradGraph, preGradGraph; ///< The graphs origins were looked up in; invalid when none.
  /// Every graph artifact of this compile (log payloads and debug-directory files), with their role.
  std::vector<ArtifactId> graphs;
  /// "[0/0] forward", "[0/1_1] inference rank 1", "AOTInductor"...; without the rank when `withRank` is
  /// false (to group the ranks that compiled the same graph).
  std::string label(bool withRank = true) const;
  /// One word for counts and summaries: "forward", "backward", "inference", "AOT" (AOTInductor) or "other".
  std::string_view kindWord() const;
};

/// A kernel launch with everything resolved about it.
struct Launch {
  KernelLaunch site; ///< Kernel name, debug handle, position in the artifact's text.
  KernelKind kind = KernelKind::Unknown;
  /// Deduplicated, in trace order; launches with the same origins share one vector.
  SharedVector<Origin> origins;
  OriginSource originSource = OriginSource::None;
  /// Every frame of every stack trace except PyTorch's, the standard library's and synthetic ones (outermost
  /// first), for the "full stack" part of hovers; frames of the user's libraryPaths have Origin::library.
  /// Launches with the same recorded stack (a node's kernels, its forward and backward, every recompile of
  /// the same code at another shape) share one vector: stacks were most of a large trace's index memory.
  std::vector<SharedVector<Origin>> stacks;
  /// Only when `origins` is empty: the innermost frame of each stack (or FX node comment) that holds no model
  /// frame, PyTorch's own code (see the fallback chain above); deduplicated, shared like `origins`.
  SharedVector<Origin> frameworkOrigins;
  /// Whether its compile was traced with provenance (INDUCTOR_PROVENANCE=1): debug handles in the output
  /// code, provenance maps, stack traces or kernel_information.json. Without it, origins come only from the
  /// FX graphs' `# File:` comments.
  bool provenance = false;
  /// Shared with every launch of the build that has the same (recompiles name the same nodes).
  SharedVector<std::string> postGradNodes, preGradNodes, atenOps;
  int definition = -1; ///< Index into the artifact's KernelDefinitions, -1 for extern kernels.
};

/// A generated file or payload: output code, wrapper code, a kernel file, or an FX graph dump.
struct Artifact {
  ArtifactKind kind = ArtifactKind::OutputCode;
  Language language = Language::Python;
  CompileRef compile;    ///< Owning compile (invalid for kernel files shared by several compiles).
  std::string title;     ///< For pickers and hovers: "[0/0] forward output code".
  std::string graphName; ///< For graphs: the artifact name ("inductor_post_grad_graph", ...).
  /// For graphs: whose node names they use. Post-grad: the post-grad graph and the graphs Inductor was given
  /// (fx_graph_readable.py, fx_graph_transformed.py); pre-grad: the Dynamo graph after pre-grad passes.
  enum class GraphRole { None, PreGrad, PostGrad } graphRole = GraphRole::None;
  /// Local files holding exactly this text; may be empty. The first is the one to show: a file named by
  /// TORCH_COMPILE_DEBUG (`torch_compile_debug/.../output_code.py`) before one in a cache `c<hash>.debug/`
  /// directory, and both before the cache's hash-named `c<hash>.py`.
  std::vector<std::string> paths;
  std::string virtualName; ///< Unique, stable name for a log-only artifact ("<log>/<line>/<title>.py").
  /// Where the text lives inside a log, when it does: the log index in Index::traceFiles() and the record.
  uint32_t traceFile = UINT32_MAX, record = UINT32_MAX;
  /// Identity of the text across its copies (trailing blank and comment lines aside), for output code,
  /// wrapper code and kernel files; 0 for graphs.
  uint64_t contentHash = 0;

  // Analyses (only the one matching `kind` is filled).
  /// OutputCode/WrapperCode: its kernels and entry points; `code.launches` is empty once indexed, each having
  /// moved into its Launch (`launches[i].site`, its ATen ops into Launch::atenOps).
  OutputCodeAnalysis code;
  SharedVector<Launch>
      launches; ///< OutputCode/WrapperCode: one per launch the analysis found, in code order.
  std::optional<KernelSourceFile> kernelSource; ///< KernelSource.
  std::vector<std::pair<ArtifactId, int>>
      kernelDefinitions; ///< KernelSource: the wrapper definitions using it.
  /// Graph: a node of the dump. `name` and `target` are views of the graph's analysis, which graphText keeps
  /// alive (shared by the artifacts of every rank's copy, and by the index cache: not copied per artifact).
  struct GraphNode {
    std::string_view name;
    uint32_t line = 0, column = 0;
    std::string_view target;
    /// The model line of its `# File:` comment, null when it has none (or names no model frame). Nodes of one
    /// build with the same comment share one Origin (a model line's nodes, in every graph of every compile).
    std::shared_ptr<const Origin> origin;
  };
  SharedVector<GraphNode> graphNodes;    ///< Graph.
  std::shared_ptr<const void> graphText; ///< Graph: owns what graphNodes' names and targets view.
};

/// What is under the cursor in a generated artifact.
struct SymbolAt {
  enum class Kind { None, Launch, KernelDefinition, GraphNode } kind = Kind::None;
  ArtifactId artifact;
  uint32_t index = 0;                           ///< Launch index, definition index, or graph node index.
  uint32_t line = 0, column = 0, endColumn = 0; ///< The token's range.
};

/// A launch seen from elsewhere (a user line, a symbol search).
struct LaunchRef {
  ArtifactId artifact;
  uint32_t index = 0;
  friend bool operator==(LaunchRef, LaunchRef) = default;
};

/// User source lines that produced kernels, for code lenses on the user's own file.
struct UserLine {
  uint32_t line = 0; ///< 1-based.
  std::vector<LaunchRef> launches;
};

/// How a document's text relates to indexed generated code (Index::matchGeneratedCode).
struct GeneratedCodeMatch {
  /// Best first; several when the same code belongs to several compiles (every rank, a cache hit).
  std::vector<ArtifactId> artifacts;
  /// The same text as the indexed artifacts (positions are the index's); false for an edited copy, whose
  /// positions must be mapped through an analysis of its own text.
  bool exact = false;
};

/// Where the user's own code entered compiled code of an installed package: a script calling transformers'
/// `model.generate(...)`, whose forward transformers compiles. Every compiled frame and kernel of such a
/// trace lives in `site-packages/`, so the user's file would say nothing; its entry line names them. Found in
/// each compile's `dynamo_start` stack (FrameCompile::stack, outermost first): when the compiled function's
/// file is in an installed package (isInstalledPackagePath), the innermost frame of the stack outside
/// installed packages.
struct UserEntryPoint {
  uint32_t place = 0;             ///< Into CompileHealth::places: the line (1-based) as recorded, its text.
  std::vector<uint32_t> compiles; ///< Into CompileHealth::compiles, in compile order.
};

/// A kernel for workspace/symbol: one per (artifact, definition or extern launch).
struct KernelSymbol {
  std::string name;
  ArtifactId artifact;
  uint32_t line = 0, column = 0;
  KernelKind kind = KernelKind::Unknown;
};

/// A problem met while indexing; the index still serves everything else.
struct IndexDiagnostic {
  std::string file;
  uint32_t line = 0; ///< 0-based; 0 when not about a line.
  std::string message;
};

/// Counts for status and logs. traceBytes is the size of the logs; traceBytesRead and compilesAnalysed
/// measure the work this build did, which an incremental build (IndexCache) keeps below traceBytes and
/// compiles.
struct IndexStats {
  size_t traceFiles = 0, traceBytes = 0, compiles = 0, artifacts = 0, kernels = 0, launches = 0;
  size_t launchesWithOrigin = 0, userLines = 0, corruptedRecords = 0, errors = 0;
  size_t traceBytesRead = 0; ///< Bytes of logs scanned by this build.
  /// Log compiles analysed by this build: the others came from the cache, or share the analysis of a compile
  /// with the same payloads, byte for byte or up to the device (another rank's, or a recompile that
  /// generated the same code; see Index::firstEquivalent).
  size_t compilesAnalysed = 0;
  size_t profiles = 0, runLogs = 0; ///< Profiler traces and printer run logs read (see Runtime.h).
  /// Compile health (CompileHealth.h): Dynamo compiles (frame_id/frame_compile_id, with or without output
  /// code), the frames compiled, and the events of each kind.
  size_t frameCompiles = 0, compiledFrames = 0, graphBreaks = 0, recompiles = 0, compileFailures = 0;
  /// Launches whose origins are known but none of whose user source files exists on this machine (traces
  /// copied from elsewhere without the sources, or recorded paths no mapping reaches).
  size_t launchesWithMissingSource = 0;
  /// The recorded path of the first such origin (in index order), empty when there is none.
  std::string firstMissingSource;
  /// Launches of output code recorded without provenance (Launch::provenance false: the script ran without
  /// INDUCTOR_PROVENANCE=1), and those of them with no origin at all.
  size_t launchesWithoutProvenance = 0, launchesWithoutProvenanceOrOrigin = 0;
  /// Launches with no origin whose stacks hold only PyTorch's frames (Launch::frameworkOrigins).
  size_t launchesWithFrameworkOrigin = 0;
  /// Ranks of the run whose logs this build left out (IndexOptions::deferRanksOver): 0 when every rank was
  /// read. The index then holds the lowest rank alone, and every figure of it is that rank's, not the run's:
  /// only navigation inside that rank's own generated code may be answered from it.
  size_t ranksDeferred = 0;
  /// Ranks of the run (Run::ranks), read or not; 0 for a run without ranks.
  size_t ranks = 0;
  /// With ranksDeferred: the one rank read (the lowest, or that of an open document: deferRanksOver).
  int rankRead = 0;
  /// Compiles of the logs read that this build left out (IndexOptions::firstDocuments): 0 when every one
  /// was analysed. The index then holds only the compiles of the documents wanted first, and, like one of
  /// the first rank, answers only navigation inside those documents.
  size_t compilesDeferred = 0;
  /// Whether this index holds part of its run (ranksDeferred, compilesDeferred): only navigation inside a
  /// document it holds may be answered from it; its figures are not the run's.
  bool partial() const { return ranksDeferred > 0 || compilesDeferred > 0; }
};

/// Limits on the work one input may cause (traces are outside input; see SECURITY.md). Each is far above what
/// PyTorch writes (the largest seen in real traces is in parentheses); an input past its limit is skipped and
/// reported as a diagnostic, never cut silently. TraceLog.h has the limits on record metadata.
struct IndexLimits {
  /// Output code, wrapper code or a kernel's source, as a log payload or a file (358 KB); analysing it costs
  /// about its size again.
  static constexpr size_t kCodeBytes = size_t{128} << 20;
  /// An FX graph dump, payload or file (364 KB); its analysis costs about 5 times its size.
  static constexpr size_t kGraphBytes = size_t{64} << 20;
  /// A provenance map, stack-trace map or kernel_information.json (7 MB); read without a DOM, so it costs
  /// about what is kept of it, which kMaxProvenanceEntries bounds too.
  static constexpr size_t kProvenanceBytes = size_t{64} << 20;
  /// The text of one artifact served to one request (Index::readText); bigger ones are refused, not copied.
  static constexpr size_t kServedTextBytes = size_t{128} << 20;
};

struct IndexOptions {
  /// Files or directories to index (traceDirs). Empty: discover under `roots`.
  std::vector<std::string> inputs;
  /// Workspace folders: discovery when `inputs` is empty, and suffix matching of recorded paths. With
  /// `inputs`, the `to` side of `pathMappings` and `pythonPaths`, the roots of readPolicy(): nothing outside
  /// them is read.
  std::vector<std::string> roots;
  std::vector<PathMapping> pathMappings;
  /// Import roots of the user's Python environment (its interpreter's sys.path directories), filled by the
  /// server: recorded `.../site-packages/<rest>` paths resolve under them, and their files may be read (see
  /// ReadPolicy.h). Empty: none known.
  std::vector<std::string> pythonPaths;
  /// When valid, the import roots are still being asked for (the server runs the interpreter, which takes
  /// as long as reading a 100 MB log), in place of `pythonPaths`. The build goes on meanwhile and waits for
  /// them only when something depends on them: a recorded path that pathMappings, the path itself and the
  /// suffix search do not settle (PathResolver steps 2 and 5), a file outside the other roots, or an
  /// incremental build whose kept analyses used them. A build that needed none ends without waiting (the
  /// resolver it keeps, Index::resolvePath, still waits when a later lookup needs them).
  std::shared_future<std::vector<std::string>> pythonPathsLater;
  /// Called (from any thread, maybe after the build) before anything waits for pythonPathsLater: the server
  /// then gives the interpreter the CPU it left to the build.
  std::function<void()> pythonPathsNeeded;
  /// Told each directory discovery is about to list, before it lists it (DirectoryListed in Discovery.h):
  /// the server starts watching it there, so that nothing created after discovery looked goes unseen. May
  /// be empty.
  DirectoryListed directoryListed;
  /// Globs of files whose frames are library code (ModelFrames.h, matchGlob), from the `libraryPaths`
  /// setting. Default: empty (only PyTorch, the standard library and synthetic frames are skipped).
  std::vector<std::string> libraryPaths;
  /// Worker threads for reading logs and analysing payloads; 0 or 1 runs everything on the calling thread.
  unsigned jobs = 0;
  /// Bytes: every payload is checked against its has_payload md5 when the logs a build reads whole (not kept
  /// or resumed from an IndexCache) come to this much at most, all together; beyond it only each log's last
  /// record is (where a log cut short shows). A payload that lost a line still parses; only its md5 tells.
  /// Hashing runs at ~0.5 GB/s per core, and ranks on different devices write different bytes (no copy to
  /// compare instead), so a many-rank job would pay it on every byte. Default 64 MB.
  uint64_t verifyPayloadsUpTo = uint64_t{64} << 20;
  /// torch.profiler Chrome traces (files or directories, plain or gzip) to join to the launches, in addition
  /// to those found under the inputs/roots and beside the traces (see Runtime.h). Default: none.
  std::vector<std::string> profiles;
  /// Profiles that the IndexCache's previous build did not read are found and not read: the build ends
  /// without them (RuntimeTimes::deferred counts them) and a second build with the same cache joins them.
  /// The server's first build sets it, so that navigation never waits for a profile of hundreds of MB
  /// (issue 45); `explain` and the tests leave it off. Default: off.
  bool deferProfiles = false;
  /// When the run has more ranks than this (0: never), the build reads only the log of its lowest rank (or of
  /// the lowest rank whose log-only document is open, IndexOptions::firstDocuments), with
  /// the debug directory of that rank's process and the cache files its records name; it reads no runtime
  /// input (profiles, run logs) and counts the other ranks in IndexStats::ranksDeferred. A second build with
  /// the same IndexCache and this at 0 reads the rest and reuses the first rank's work. The server's first
  /// build sets it, so that navigation in rank 0's output code does not wait for a thousand ranks (issue 45);
  /// `explain` and the tests leave it at 0. Default: 0.
  size_t deferRanksOver = 0;
  /// With deferRanksOver: only when the run's logs hold at least this many bytes in all. Reading the first
  /// rank first costs the other ranks' documents that rank's build and a fixed part (what the first answer
  /// shows of it is worth it only when reading every rank takes long). Default: 0 (any size).
  uint64_t deferRanksFromBytes = 0;
  /// The generated documents wanted first (the editor's open ones), asked once the logs are read: each found
  /// by its virtual name (Artifact::virtualName, `<log file name>/<record line>/...`) or by its text (an
  /// output code record of the same lines: a debug directory's or a cache's copy, wherever it is now).
  /// When the logs hold deferCompilesFromBytes or more and one of them is found, the build analyses only the
  /// compiles holding them, reads no compile health, debug directory by path or runtime input, and counts
  /// the others in IndexStats::compilesDeferred; a second build with the same IndexCache and this unset
  /// reuses the logs and those compiles. The server's first build sets it, so that navigation in an open
  /// output code file does not wait for every compile of a 100 MB log (issue 45). Default: unset.
  struct FirstDocument {
    std::string name; ///< A virtual name, else anything (a path).
    std::string text; ///< The document's text as the editor has it; may be empty.
  };
  std::function<std::vector<FirstDocument>()> firstDocuments;
  /// With firstDocuments: only when the logs read hold at least this many bytes in all. Default: 0.
  uint64_t deferCompilesFromBytes = 0;
  /// The build right after one that deferred ranks or compiles, with the same IndexCache (the server's second
  /// build of one start, milliseconds later): takes that build's discovery and grouping into runs instead of
  /// walking the inputs and reading every log's head and tail again. A change on disk in between is the
  /// watcher's to report (it starts another build, without this). Without such a build before it: no effect.
  /// Default: off.
  bool reuseDiscovery = false;
  /// Run logs holding the intermediate value debug printer's output, in addition to those found. Default:
  /// none.
  std::vector<std::string> runLogs;
  /// The one run (index/files/Runs.h) the index is of: "latest", "previous", a run id ("2026-11-27 02:31:04")
  /// or a path of one of its logs or directories (selectRun). Unset: "latest". An index holds exactly one
  /// run's logs, debug directories, cache files and runtime inputs; one that names no run found builds the
  /// latest and says so in a diagnostic. Inputs without any log (debug directories alone) are one run.
  std::optional<std::string> run;
  /// Triton cache folders (TRITON_CACHE_DIR, or an Inductor cache's `triton/`) to read kernels' IR and
  /// resources from, in addition to those found under the inputs and inside the Inductor caches found (see
  /// TritonCache.h). Default: none.
  std::vector<std::string> tritonCacheDirs;
};

/// The runs the options' inputs hold, oldest first (discovery, the logs' first and last records, grouping and
/// attribution: Runs.h), without building an index: cheap (a directory walk and 128 KB per log).
std::vector<Run> findRuns(const IndexOptions &options);

/// A run a user named (NamedRun, resolveRunName): what a build of it takes as IndexOptions::run and ::inputs.
struct NamedRun {
  std::string id; ///< Its Run::id; empty for inputs without logs (debug directories alone: one run).
  /// The inputs that hold it: those of the options it was named against, or, for a path outside them, that
  /// path alone (a trace folder or log of its own).
  std::vector<std::string> inputs;
  bool outside = false; ///< Named by a path outside the options' inputs.
  friend bool operator==(const NamedRun &, const NamedRun &) = default;
};

/// The run `name` names, the one resolution of the `baseline` setting, inductor.selectBaseline and explain
/// --baseline: "latest", "previous" (the run before the latest), a run id, or a path, absolute or relative
/// to `base`, of a log, a debug directory, a file inside one, or a folder holding the run's logs
/// (selectRun). A path inside `options`' inputs names a run of `runs` (the runs of those inputs, as
/// findRuns(options) gives them); a path outside them names a run of that path alone (findRuns of it: a
/// folder holding several runs names the newest). Error (noRunMatches) when nothing of that name is a run.
Expected<NamedRun> resolveRunName(const IndexOptions &options, const std::vector<Run> &runs,
                                  std::string_view name, const std::string &base);

/// The roots a build may read under (Index::readPolicy()): `roots`, `inputs`, `profiles`, `runLogs`, the `to`
/// side of `pathMappings` and, `withImportRoots`, `pythonPaths`. The one place they are listed: the build's
/// discovery, its runtime inputs, the served index, the server's SourceReader and `inductor-ls explain` all
/// read under these roots.
std::vector<std::string> readRoots(const IndexOptions &options, bool withImportRoots = true);

/// Progress of a build: `done` of `total` units of the whole build (done * 100 / total is its percentage; the
/// units are thousandths today, reading logs weighted by bytes and analysis by compiles), and what is being
/// done in words, with its own counts ("reading trace logs: 120 of 800 MB", "analysing output code: 3 of 16
/// compiles"). Called from the building thread or its workers, never concurrently (calls are serialised);
/// `done` never decreases within a build.
using ProgressCallback = std::function<void(size_t done, size_t total, std::string_view message)>;

/// What one build leaves for the next, so that the next reads only what changed (see the file comment):
/// the logs of the build (shared with the Index it made, which keeps reading its own mapping of them while
/// the next build maps the files again) and the analysis of each compile of a log, keyed by the log, its
/// scan lineage and the record indices and extents of everything the compile uses (output code, post-grad
/// and pre-grad graphs, provenance artifacts), so a compile whose provenance arrived later, or whose last
/// record grew, is analysed again. Only entries used by the latest build are kept.
///
/// Resolved paths (origins, output-code files) are those of the build that analysed a compile; when the
/// options differ from the previous build's (path mappings, roots, inputs), everything is dropped. clear()
/// drops everything too, for a full rebuild (files that appeared under the workspace are then resolved
/// again).
///
/// Thread-safety: a cache is used by one build at a time; call clear() and lastBuild() only while no build
/// that uses it runs. The Index a build returns does not depend on the cache afterwards.
class IndexCache {
public:
  /// What the last build using this cache did.
  struct BuildStats {
    size_t logsReused = 0;       ///< Logs unchanged on disk, reused without reading.
    size_t logsResumed = 0;      ///< Logs that grew, of which only the new bytes were read.
    size_t logsOpened = 0;       ///< Logs read from the start (new, replaced, or no previous build).
    size_t bytesRead = 0;        ///< Log bytes read, all logs.
    size_t compilesReused = 0;   ///< Log compiles whose analysis came from the cache.
    size_t compilesAnalysed = 0; ///< Log compiles analysed (copies sharing an analysis count once).
    size_t profilesRead = 0;     ///< Profiler traces read from their files (and joined).
    size_t profilesReused = 0;   ///< Profiler traces unchanged (file and compiles), their join reused.
    size_t profilesRejoined = 0; ///< Profiler traces unchanged on disk, kept parsed, joined to new compiles.
    /// The inputs and runs were the build before's (IndexOptions::reuseDiscovery), not walked again.
    bool discoveryReused = false;
  };

  IndexCache();
  IndexCache(IndexCache &&) noexcept;
  IndexCache &operator=(IndexCache &&) noexcept;
  ~IndexCache();

  /// Drops every log and analysis: the next build is a full one.
  void clear();
  /// Whether a build has stored anything since construction or clear().
  bool empty() const;
  BuildStats lastBuild() const;

private:
  friend class IndexBuilder;
  struct State;
  std::unique_ptr<State> state_;
};

class Index {
public:
  /// Builds an index. Never fails: unreadable or malformed inputs become diagnostics. `cancelled`, if given,
  /// is polled between files; a cancelled build returns what it has (and leaves `cache` as it was). `cache`,
  /// if given, makes the build incremental (see IndexCache) and is updated for the next build.
  static std::shared_ptr<const Index> build(const IndexOptions &options,
                                            const ProgressCallback &progress = {},
                                            const std::atomic<bool> *cancelled = nullptr,
                                            IndexCache *cache = nullptr);

  const std::vector<Compile> &compiles() const { return compiles_; }
  const std::vector<Artifact> &artifacts() const { return artifacts_; }
  const Artifact &artifact(ArtifactId id) const { return artifacts_[id.value]; }
  const Compile *compileOf(ArtifactId id) const;
  const std::vector<IndexDiagnostic> &diagnostics() const { return diagnostics_; }
  const std::vector<std::string> &traceFiles() const { return traceFiles_; }
  IndexStats stats() const { return stats_; }
  /// A number no other Index of this process has (counted from 1 as indexes are made): what servers key
  /// the answers they keep between requests by, since an index's address can be reused once it is freed.
  uint64_t serial() const { return serial_; }

  /// The artifact whose text is the file at `path` (any alias), if indexed. Several compiles can share one
  /// file (identical output code on every rank, or after a cache hit): this is the first; see findAllByPath.
  std::optional<ArtifactId> findByPath(std::string_view path) const;
  /// Every artifact whose text is the file at `path`, in index order.
  std::vector<ArtifactId> findAllByPath(std::string_view path) const;
  /// The log-only artifact with this Artifact::virtualName.
  std::optional<ArtifactId> findByVirtualName(std::string_view name) const;
  /// The text of an artifact, read from its log payload (TraceLog::readPayload: refused when the log was
  /// truncated, deleted or changed since it was indexed) or else from its first readable file (only files
  /// that readPolicy() allows, judged now: a file replaced by a link out of the roots after indexing is
  /// refused). Errors say why there is no text: those, I/O errors, and texts over
  /// IndexLimits::kServedTextBytes.
  Expected<std::string> readText(ArtifactId id) const;
  /// readText(), or empty on any error.
  std::string text(ArtifactId id) const;
  /// The lines of an artifact's log payload as views into the log's mapping, without copying or hashing it:
  /// for reading a few lines of log-only code (converting the columns of answers that point into it), where
  /// readText() would copy and check the whole payload each time. nullopt when the text is not in a log, is
  /// over IndexLimits::kServedTextBytes, or the log is no longer what was indexed (FileState other than
  /// Unchanged: then readText() says why). Views live as long as this Index.
  std::optional<TextLines> textLinesInLog(ArtifactId id) const;
  /// The first artifact (in index order) that is a copy of this one: a log payload that is the same byte for
  /// byte (the output code every rank of a job with one GPU per host writes; a recompile that generated the
  /// same code). `id` itself when there is none. Its text and positions are this one's: answers may read the
  /// first copy's lines (textLinesInLog) for all of them.
  ArtifactId firstCopy(ArtifactId id) const;
  /// The first artifact (in index order) of the same compile (Compile::label without the rank) that is the
  /// same code as this one up to the device: a log payload of the same length that differs from it at most
  /// in the device it names (`cuda:1`, `index=1`, `get_raw_stream(1)`, `stream1`) and in its kernels' cache
  /// paths, each at the same length (the ranks of a host of several GPUs), or a copy (firstCopy). Its
  /// kernels and launches are this one's, at the same positions, but its text is not: read it from `id`.
  /// `id` itself when there is none, and for a recompile that generated the same code (another compile).
  /// For listing each launch once for all ranks (references, launch sites).
  ArtifactId firstEquivalent(ArtifactId id) const;
  /// The indexed generated code that `text` is a copy of, for documents that are not indexed files (an
  /// output_code.py opened from a folder that was not indexed, a copied or edited file): first a copy of
  /// the same text (identityHash), else an edited copy: for Python or C++ wrapper code (`cpp`), the output
  /// code sharing the most launch keys (`name:handle`) and kernel names, at least half of both together;
  /// for a Triton kernel file, the kernel files defining the same kernel, those sharing the most lines
  /// first. Empty when nothing matches. Cost: linear in the index's launches (edited copies only).
  GeneratedCodeMatch matchGeneratedCode(std::string_view text, bool cpp) const;

  /// Which local files may be read (ReadPolicy.h): the roots are the workspace folders, the trace inputs, the
  /// `to` side of every path mapping and the Python environment's import roots of the options this index was
  /// built with. For everything that reads a file named by a trace or found under a root: the server's
  /// documents, user sources quoted in hovers and code lenses.
  const ReadPolicy &readPolicy() const { return readPolicy_; }
  /// A path as recorded in a trace (a `# File:` comment, a stack frame) resolved to a local file the way the
  /// build resolved origins (PathResolver: pathMappings, the path itself, suffix match under the roots).
  /// May stat files and, on first use, walk the roots; safe from any thread.
  ResolvedPath resolvePath(std::string_view recordedPath) const;

  /// The kernel launch, kernel definition or FX node at a position of an artifact's text.
  SymbolAt symbolAt(ArtifactId id, uint32_t line, uint32_t column) const;
  /// The kernel whose code holds a line: in output code, the definition whose embedded source
  /// (KernelDefinition::sourceFirstLine..sourceLastLine) holds it; in a kernel file, its kernel, on any line.
  /// A KernelDefinition symbol whose token is the kernel's name where it is defined (`def NAME` when the
  /// source has one); Kind::None elsewhere. Every line of a kernel came from the FX nodes of the whole kernel
  /// (Inductor records no finer provenance), so this is what definition answers on a body line: a PTX line
  /// leads to a kernel line, and that line to the model.
  SymbolAt kernelAround(ArtifactId id, uint32_t line) const;
  /// Launches of a kernel definition (in its own artifact, or in every wrapper using a kernel file).
  std::vector<LaunchRef> launchesOfDefinition(ArtifactId id, uint32_t definition) const;
  /// Origins of a symbol: a launch's own, the union over a definition's launches, a graph node's origin.
  std::vector<Origin> originsOf(const SymbolAt &symbol) const;
  /// For a symbol with no origin (originsOf empty): the PyTorch frames its launches came from
  /// (Launch::frameworkOrigins, the union over a definition's launches), to answer instead of nothing,
  /// marked as PyTorch's. Empty otherwise, and for graph nodes.
  std::vector<Origin> frameworkOriginsOf(const SymbolAt &symbol) const;
  /// Every distinct (line, text) the trace recorded for a file that is not on this machine (`path` as
  /// recorded: Origin::path of an origin whose file does not exist): recordedLines(path) and the compile
  /// health places in it. What an `inductor-trace:` document of that file shows.
  std::vector<RecordedLine> recordedSource(std::string_view path) const;
  /// Launches whose origins include this user source line (1-based), across every compile and rank.
  /// `path` is a local path (as the editor knows the file).
  std::vector<LaunchRef> launchesForLine(std::string_view path, uint32_t line) const;
  /// Every user line of a file that produced kernels, in line order.
  std::vector<UserLine> userLines(std::string_view path) const;
  /// The user files with a line that produced kernels: their normalized local paths (as userLines takes
  /// them), sorted.
  std::vector<std::string> userFiles() const;
  /// Every distinct (line, text) the trace recorded for the user source file at `path` (a local path, as
  /// userLines takes it): launch origins, stack frames and FX graph nodes, sorted by line. The views point
  /// into this index. Pass them all to relocateLines (Relocation.h) to find where they are in the file's
  /// current text: lines found without ambiguity anchor the others. Empty when nothing names the file.
  const std::vector<RecordedLine> &recordedLines(std::string_view path) const;
  /// Graph nodes of graph artifacts whose origin is this user line: FX nodes that came from it.
  /// Launches that compute an FX node of a graph artifact (post-grad nodes, or pre-grad nodes).
  std::vector<LaunchRef> launchesForGraphNode(ArtifactId graph, uint32_t node) const;
  /// launchesForGraphNode() for every node of a graph artifact at once (indexed like graphNodes): one pass
  /// over the launches, for code lenses.
  std::vector<std::vector<LaunchRef>> launchesForGraphNodes(ArtifactId graph) const;
  /// Kernels matching a workspace/symbol query (case-insensitive subsequence match, best first), at most
  /// `limit`. A kernel of code that other ranks wrote the same up to the device (firstEquivalent) is found
  /// once, in the first's artifact: a 1,024-rank trace would otherwise fill `limit` with copies of a few.
  std::vector<KernelSymbol> searchKernels(std::string_view query, size_t limit = 256) const;

  const Launch &launch(LaunchRef ref) const { return artifacts_[ref.artifact.value].launches[ref.index]; }

  // Compile health (CompileHealth.h; queries in HealthQueries.cpp). `path` is a local path as the editor
  // knows the file; lines are 1-based.
  /// Frames, compiles (every Dynamo compile, also those that produced no output code), events and places.
  const CompileHealth &compileHealth() const { return health_; }
  /// A user place (an index into compileHealth().places).
  const Origin &place(uint32_t index) const { return health_.places[index]; }
  /// One diagnostic per (line, kind) of a user file, in line order.
  std::vector<HealthDiagnostic> healthDiagnostics(std::string_view path) const;
  /// Local paths of the user files that have events, sorted.
  std::vector<std::string> healthPaths() const;
  /// The compiled functions whose def line is in this file (resumed frames folded into their function).
  std::vector<CompiledFunction> compiledFunctions(std::string_view path) const;
  /// Events, compiled functions, installed guards and dynamic-shape records of one line.
  HealthAtLine healthAt(std::string_view path, uint32_t line) const;
  /// The lines of the user file `path` (a local path) through which the user's own code entered compiled code
  /// of an installed package (UserEntryPoint), in line order; computed for every file on first use, then
  /// kept.
  const std::vector<UserEntryPoint> &entryPoints(std::string_view path) const;
  /// GPU time from profiles and tensor statistics from printer run logs, joined to launches and user lines
  /// (see Runtime.h, which also has the lookup helpers). Empty when there were none.
  const RuntimeData &runtime() const { return *runtime_; }
  /// The run this index was built for (IndexOptions::run); an empty Run (no id, no logs) when the inputs held
  /// no log.
  const Run &run() const;
  /// Every run the build found, oldest first (run() among them).
  const std::vector<Run> &runs() const { return runs_; }
  /// The ranks of this run compared, and where they diverge (Ranks.h): computed on first use, then kept.
  const RankReport &ranks() const;
  /// The Triton cache entries found (TritonCache.h): kernels' metadata and IR files. Read on first use (what
  /// the build's discovery saw, through readPolicy(); safe from any thread: the first caller reads, others
  /// wait), then kept; their IR is read and parsed only on request (TritonIR.h). Empty when there is no
  /// cache. Callers that may not need it (every definition request asks whether its document is an IR file)
  /// check first what they can without it.
  const TritonCache &tritonCache() const;
  /// The IR tables and cubin resources of that cache parsed so far, kept between requests: internal to
  /// index/model/TritonQueries.cpp (readTritonIr, cubinResources). Null for an index without tables.
  TritonFileCache *tritonFiles() const;

private:
  friend class IndexBuilder;
  static uint64_t nextSerial();
  uint64_t serial_ = nextSerial();
  ReadPolicy readPolicy_{std::vector<std::string>{}};
  std::vector<std::string> traceFiles_;
  std::vector<Compile> compiles_;
  std::vector<Artifact> artifacts_;
  std::vector<IndexDiagnostic> diagnostics_;
  IndexStats stats_;
  CompileHealth health_;
  struct Tables;
  std::shared_ptr<const Tables> tables_;
  std::shared_ptr<const RuntimeData> runtime_;
  std::vector<Run> runs_;
  std::optional<size_t> runIndex_;
};

} // namespace inductor::index
