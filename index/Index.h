// index/Index.h: the artifact model of everything torch.compile left behind, and the queries the server asks.
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
//   (inductor_provenance_tracking_kernel_stack_traces,
//      or AOTI's kernel_information.json): per stack trace, the innermost frame outside installed libraries;
//   2. its post-grad FX nodes (provenance node mappings, or the kernel's `Source node to ATen node mapping`
//      comment) looked up in the post-grad graph dump's `# File:` comments;
//   3. its pre-grad FX nodes (postToPre mappings, or the launch's `Topologically Sorted Source Nodes`
//   comment)
//      looked up in the pre-grad graph dump's `# File:` comments.
#pragma once

#include "index/CompileId.h"
#include "index/OutputCode.h"
#include "index/PathResolver.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

struct RuntimeData; // index/Runtime.h

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
  /// "[0/0] forward", "[0/1_1] inference · rank 1", "AOTInductor"...
  std::string label() const;
  /// One word for counts and summaries: "forward", "backward", "inference", "AOT" (AOTInductor) or "other".
  std::string_view kindWord() const;
};

/// A kernel launch with everything resolved about it.
struct Launch {
  KernelLaunch site; ///< Kernel name, debug handle, position in the artifact's text.
  KernelKind kind = KernelKind::Unknown;
  std::vector<Origin> origins; ///< Deduplicated, in trace order.
  OriginSource originSource = OriginSource::None;
  /// All user frames of every stack trace (outermost first), for the "full stack" part of hovers.
  std::vector<std::vector<Origin>> stacks;
  std::vector<std::string> postGradNodes, preGradNodes, atenOps;
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
  std::vector<std::string>
      paths;               ///< Local files holding exactly this text (first = preferred); may be empty.
  std::string virtualName; ///< Unique, stable name for a log-only artifact ("<log>/<line>/<title>.py").
  /// Where the text lives inside a log, when it does: the log index in Index::traceFiles() and the record.
  uint32_t traceFile = UINT32_MAX, record = UINT32_MAX;

  // Analyses (only the one matching `kind` is filled).
  OutputCodeAnalysis code;
  std::vector<Launch> launches;                 ///< OutputCode/WrapperCode: one per code.launches entry.
  std::optional<KernelSourceFile> kernelSource; ///< KernelSource.
  std::vector<std::pair<ArtifactId, int>>
      kernelDefinitions; ///< KernelSource: the wrapper definitions using it.
  struct GraphNode {
    std::string name;
    uint32_t line = 0, column = 0;
    std::string target;
    std::optional<Origin> origin;
  };
  std::vector<GraphNode> graphNodes; ///< Graph.
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
  size_t traceBytesRead = 0;        ///< Bytes of logs scanned by this build.
  size_t compilesAnalysed = 0;      ///< Log compiles analysed by this build (the others came from the cache).
  size_t profiles = 0, runLogs = 0; ///< Profiler traces and printer run logs read (see Runtime.h).
};

struct IndexOptions {
  /// Files or directories to index (traceDirs). Empty: discover under `roots`.
  std::vector<std::string> inputs;
  /// Workspace folders: discovery when `inputs` is empty, and suffix matching of recorded paths.
  std::vector<std::string> roots;
  std::vector<PathMapping> pathMappings;
  /// Import roots of the user's Python environment (its interpreter's sys.path directories), filled by the
  /// server: recorded `.../site-packages/<rest>` paths resolve under them, and their files may be read (see
  /// ReadPolicy.h). Empty: none known.
  std::vector<std::string> pythonPaths;
  /// Worker threads for reading logs and analysing payloads; 0 or 1 runs everything on the calling thread.
  unsigned jobs = 0;
  /// torch.profiler Chrome traces (files or directories, plain or gzip) to join to the launches, in addition
  /// to those found under the inputs/roots and beside the traces (see Runtime.h). Default: none.
  std::vector<std::string> profiles;
  /// Run logs holding the intermediate value debug printer's output, in addition to those found. Default:
  /// none.
  std::vector<std::string> runLogs;
};

/// Progress of a build: (files done, files total, what is being done). Called from the building thread or its
/// workers, never concurrently (calls are serialised).
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
    size_t compilesAnalysed = 0; ///< Log compiles analysed.
    size_t profilesRead = 0;     ///< Profiler traces read and joined.
    size_t profilesReused = 0;   ///< Profiler traces unchanged (file and compiles), their join reused.
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

  /// The artifact whose text is the file at `path` (any alias), if indexed. Several compiles can share one
  /// file (identical output code on every rank, or after a cache hit): this is the first; see findAllByPath.
  std::optional<ArtifactId> findByPath(std::string_view path) const;
  /// Every artifact whose text is the file at `path`, in index order.
  std::vector<ArtifactId> findAllByPath(std::string_view path) const;
  /// The log-only artifact with this Artifact::virtualName.
  std::optional<ArtifactId> findByVirtualName(std::string_view name) const;
  /// The text of an artifact (read from its file or from its log payload). Empty on I/O error.
  std::string text(ArtifactId id) const;

  /// The kernel launch, kernel definition or FX node at a position of an artifact's text.
  SymbolAt symbolAt(ArtifactId id, uint32_t line, uint32_t column) const;
  /// Launches of a kernel definition (in its own artifact, or in every wrapper using a kernel file).
  std::vector<LaunchRef> launchesOfDefinition(ArtifactId id, uint32_t definition) const;
  /// Origins of a symbol: a launch's own, the union over a definition's launches, a graph node's origin.
  std::vector<Origin> originsOf(const SymbolAt &symbol) const;
  /// Launches whose origins include this user source line (1-based), across every compile and rank.
  /// `path` is a local path (as the editor knows the file).
  std::vector<LaunchRef> launchesForLine(std::string_view path, uint32_t line) const;
  /// Every user line of a file that produced kernels, in line order.
  std::vector<UserLine> userLines(std::string_view path) const;
  /// Graph nodes of graph artifacts whose origin is this user line: FX nodes that came from it.
  /// Launches that compute an FX node of a graph artifact (post-grad nodes, or pre-grad nodes).
  std::vector<LaunchRef> launchesForGraphNode(ArtifactId graph, uint32_t node) const;
  /// Kernels matching a workspace/symbol query (case-insensitive subsequence match, best first), at most
  /// `limit`.
  std::vector<KernelSymbol> searchKernels(std::string_view query, size_t limit = 256) const;

  const Launch &launch(LaunchRef ref) const { return artifacts_[ref.artifact.value].launches[ref.index]; }

  /// GPU time from profiles and tensor statistics from printer run logs, joined to launches and user lines
  /// (see Runtime.h, which also has the lookup helpers). Empty when there were none.
  const RuntimeData &runtime() const { return *runtime_; }

private:
  friend class IndexBuilder;
  std::vector<std::string> traceFiles_;
  std::vector<Compile> compiles_;
  std::vector<Artifact> artifacts_;
  std::vector<IndexDiagnostic> diagnostics_;
  IndexStats stats_;
  struct Tables;
  std::shared_ptr<const Tables> tables_;
  std::shared_ptr<const RuntimeData> runtime_;
};

} // namespace inductor::index
