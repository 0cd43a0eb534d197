// index/builder/IndexBuilder.h: the build pipeline of an Index (see Index.h), shared by the files that
// implement its steps. Internal to index/: nothing outside index/*.cpp includes it.
//   IndexBuilder.cpp  run(), freeze(), the build cache (IndexCache) and helpers shared by the steps;
//   BuildLogs.cpp     step 2, reading and verifying TORCH_TRACE logs;
//   BuildCompiles.cpp steps 3-5, cutting logs into compiles, analysing output code, graphs and provenance,
//                     merging file copies, linking kernel files;
//   Origins.cpp       step 4's origin resolution (the fallback chain of Index.h);
//   BuildHealth.cpp   compile health from the logs' records (CompileHealth.h), placed on user lines;
//   BuildRuntime.cpp  step 5b, runtime data (Runtime.h): finding profiles and printer run logs, then
//   BuildProfiles.cpp   profiler traces joined to launches, times per launch, compile and user line;
//   BuildRunLogs.cpp    printer run logs mapped to launches, statistics and the first NaN/Inf;
//   model/Index.cpp   the queries of a built Index (reading model/IndexTables.h).
#pragma once

#include "index/analysis/GraphDump.h"
#include "index/analysis/ModelFrames.h"
#include "index/analysis/Provenance.h"
#include "index/files/Discovery.h"
#include "index/files/ReadPolicy.h"
#include "index/model/Index.h"
#include "index/model/IndexTables.h"
#include "index/runtime/Profile.h"
#include "index/support/TextLines.h"
#include "index/trace/MappedFile.h"
#include "index/trace/TraceLog.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace inductor::index {

class ReadPolicy;

namespace detail {

/// Files a walk of the inputs (discovery) or of the roots (the suffix index of PathResolver) visits at most.
constexpr size_t kMaxDiscoveredFiles = 200000;

/// The bytes of a regular file of at most `maxBytes` (readRegularFile: never blocks on a FIFO); errors say
/// why not (cannot be opened, not a regular file, too large: checked before reading, so a huge file costs
/// nothing).
Expected<std::string> readFileBounded(const std::string &path, size_t maxBytes);

std::string basename(std::string_view p);
/// A file-name-safe form of a label ("[0/0] forward" -> "0-0-forward").
std::string slug(std::string_view s);
/// Priority of a graph artifact as the post-grad graph of a compile (higher wins), 0 if it is not one.
int postGradPriority(std::string_view name);
/// Priority of a graph artifact as the pre-grad graph (the graph whose node names provenance calls pre-grad).
int preGradPriority(std::string_view name);
/// The record's graph name: the artifact name, or the top-level key for `*_graph` records.
std::string_view recordGraphName(const TraceRecord &r);

// Compiles cut out of a log.

struct PendingCompile {
  uint32_t log = 0;
  CompileId id;
  std::optional<int> rank;
  int output = -1; ///< Record index of the output code.
  bool cpp = false;
  int postGrad = -1, preGrad = -1;
  int nodeMappings = -1, stackTraces = -1, kernelToPost = -1, postToPre = -1;
  /// The graph kind the stream's AOT graphs imply (`aot_inference_graph`; `aot_forward_graph`: the first
  /// output code is the forward, the next the backward), for output code without `# AOT ID:` (cpp_wrapper).
  GraphKind kindHint = GraphKind::Unknown;
  int cacheInfo = -1; ///< The `fx_graph_cache_{miss,hit}` artifact carrying the FX graph cache key.
};

enum class ProvenanceSlot { NodeMappings, StackTraces, KernelToPost, PostToPre };

/// Cuts a log into compiles. Per (compile id, rank) stream: an output code record starts a compile that owns
/// the best post-grad graph seen since the previous output code and the best pre-grad graph of the stream.
/// Provenance artifacts go to the latest compile whose slot is still empty; one that arrives before any
/// output code (some versions log provenance first) waits for the next output code.
std::vector<PendingCompile> segmentLog(uint32_t logIndex, const TraceLog &log);

/// The virtual name (Artifact::virtualName) of a document made of the record at 0-based line `line` of the
/// log at `logPath`: `<log file name>/<line + 1>/<title>`. virtualNameRecord reads the first two back.
std::string virtualName(std::string_view logPath, uint32_t line, std::string_view title);
struct VirtualNameRecord {
  std::string_view log; ///< The log's file name.
  uint32_t line = 0;    ///< 0-based, as TraceRecord::line.
};
std::optional<VirtualNameRecord> virtualNameRecord(std::string_view name);

// ---------------------------------------------------------------------------------------------------------------
// Provenance of one compile, whatever its source (log payloads or files).

struct CompileProvenance {
  NodeMappings mappings;
  bool hasMappings = false;
  std::unordered_map<std::string, std::vector<SharedVector<StackFrame>>> stackTraces;
  std::unordered_map<std::string, KernelInformation> kernelInformation;
};

struct GraphData {
  GraphData() = default;
  // Not copyable: nodeIndex's keys are views of analysis.nodes' names (moving keeps the nodes in place).
  GraphData(const GraphData &) = delete;
  GraphData &operator=(const GraphData &) = delete;
  GraphData(GraphData &&) noexcept = default;
  GraphData &operator=(GraphData &&) noexcept = default;
  ~GraphData() = default;

  GraphDumpAnalysis analysis;
  bool present = false;
  /// Present, but analysed for an earlier compile of the log that reads the same record (a backward reads its
  /// forward's pre-grad graph): `analysis` was dropped once the launches were resolved, and the graph's
  /// artifact is that compile's.
  bool analysedEarlier = false;
  /// Node name (a view of the node's own) -> index into analysis.nodes (first occurrence). A log compile's
  /// analysis empties it once its launches are resolved (resolveLaunches is its only reader there).
  std::unordered_map<std::string_view, uint32_t> nodeIndex;
  void index() {
    for (uint32_t i = 0; i < analysis.nodes.size(); ++i)
      nodeIndex.emplace(analysis.nodes[i].name, i);
  }
  const SourceComment *originOf(std::string_view node) const {
    auto it = nodeIndex.find(node);
    if (it == nodeIndex.end()) return nullptr;
    const GraphNodeDef &n = analysis.nodes[it->second];
    if (!n.origin || *n.origin >= analysis.origins.size()) return nullptr;
    return &analysis.origins[*n.origin];
  }
};

/// The analysis of one compile of a log (step 4 of the pipeline): what IndexCache keeps between builds. Its
/// output-code artifact's `traceFile` is the log's index in the build that analysed it; the merge sets it.
struct CompileAnalysis {
  Compile compile;
  Artifact code;
  GraphData post, pre;
  uint64_t hash = 0;
  std::vector<IndexDiagnostic> diagnostics;
};

/// What a compile whose payloads are another's up to the device (PayloadMatch::SameUpToDevice) has of its own
/// on top of that compile's analysis, which it shares: what its text names that the shared analysis would
/// give wrong. Positions, names and counts are the shared analysis's (the texts differ at the same lengths).
struct CopyPatch {
  uint64_t hash = 0;              ///< identityHash of its own output code (Artifact::contentHash).
  std::vector<std::string> paths; ///< Its output code's local copy (from its recorded file name), if any.
  std::string cacheKey;           ///< Its FX graph cache key (Compile::cacheKey): the key hashes the device.
  /// Its `# kernel path:` comments by line (KernelDefinition::kernelPathLine): its own kernel files.
  std::vector<std::pair<uint32_t, std::string>> kernelPaths;
};

/// A compile's analysis as a build uses it and IndexCache keeps it: shared with every compile whose payloads
/// are the same, byte for byte or up to the device (then with a patch of its own).
struct CompileResult {
  std::shared_ptr<const CompileAnalysis> analysis;
  std::shared_ptr<const CopyPatch> patch; ///< Null when the text is the analysed one, byte for byte.
};

/// A log kept for the next build, and its lineage: a number that changes when the log is read from scratch,
/// so that record indices of an older version of the file never match.
struct CachedLog {
  std::shared_ptr<const TraceLog> log;
  uint64_t lineage = 0;
};

/// Identity of the options that analysis results depend on (path resolution).
std::string optionsKey(const IndexOptions &o);
/// The cache key of a compile: its log and lineage, and the index and extent of every record it reads.
std::string compileKey(const PendingCompile &p, const TraceLog &log, uint64_t lineage);

/// Identity of what the analysis of a compile reads, from its records' metadata: per record (output code,
/// graphs, provenance, cache info) its has_payload digest and payload extent, plus the output code's kind,
/// file name and graph-kind hint. Empty when a record it reads has no digest (then it is never shared).
std::string payloadsKey(const PendingCompile &p, const TraceLog &log);
/// The bytes of the payloads the analysis of `p` reads.
uint64_t payloadBytes(const PendingCompile &p, const TraceLog &log);
/// Whether the payloads `a` reads are byte for byte those `b` reads (record by record; a file cut meanwhile
/// reads zeros through MappedFile's guard and compares unequal).
bool samePayloads(const PendingCompile &a, const TraceLog &logA, const PendingCompile &b,
                  const TraceLog &logB);

/// Identity of what the analysis of a compile reads up to the device, from its records' metadata: the output
/// code's kind and graph-kind hint, and per record it reads (but the FX graph cache info, whose key hashes
/// the device) whether it has one and the payload's length. Candidates for comparePayloads; empty when the
/// compile has no output code record.
std::string payloadsLengthsKey(const PendingCompile &p, const TraceLog &log);
/// Tells apart compiles of the same payloadsLengthsKey (a log's `# AOT ID: ['3_forward']` and
/// `['4_forward']`): a hash of the output code's first and last 4 KB that ignores device words
/// (isDeviceWord). Reads those bytes through the mapping; empty when the record is past the file's end.
std::string outputCodeEndsKey(const PendingCompile &p, const TraceLog &log);

/// How the payloads of two compiles compare (comparePayloads).
enum class PayloadMatch {
  Different,
  Same, ///< Byte for byte, and the same recorded output code file name.
  /// Different only in what names the device or a cache file, each at the same length: the device index of
  /// `cuda:N`, `index=N`, `get_raw_stream(N)`, `_DeviceGuard(N)`, `set_device(N)`, the stream `streamN`,
  /// the cache's `/xx/c<hash>` of kernel paths (their names hash the device); and the FX graph cache info
  /// and output code's file name. Every rank of a data-parallel job on a host of several GPUs writes
  /// this: one analysis serves all, positions and names included (the lengths are the same); what names
  /// files is each compile's own (CopyPatch).
  SameUpToDevice,
};
/// Compares the payloads `a` and `b` read (their records, as samePayloads; a file cut meanwhile compares
/// Different). Cost: one pass over both payloads, plus a look at the word around each differing byte.
PayloadMatch comparePayloads(const PendingCompile &a, const TraceLog &logA, const PendingCompile &b,
                             const TraceLog &logB);
/// Whether [begin, end) of `text` is a word (of [A-Za-z0-9_]) that comparePayloads lets differ: see
/// PayloadMatch::SameUpToDevice. `text` is what the word is read in (what precedes it is looked at).
bool isDeviceWord(std::string_view text, size_t begin, size_t end);

/// A graph dump's analysis with its node index.
GraphData analyzeGraphLines(const std::vector<std::string_view> &lines);
/// The `key` of an `fx_graph_cache_miss`/`_hit` artifact's JSON payload; empty when it has none.
std::string fxGraphCacheKey(std::string_view json);

/// Run logs: at most this many candidates found by name (any *.log, *.txt beside the traces) are opened, and
/// each only for its first kSniffBytes (looksLikePrinterLog) unless it holds the printer's output.
constexpr size_t kMaxRunLogCandidates = 256;
constexpr size_t kSniffBytes = 1 << 20;

/// The runtime inputs of a build (BuildRuntime.cpp): normalized paths, each once, in the order found;
/// explicit ones (named by the options) get diagnostics when they cannot be used.
/// The runtime inputs of a build (discoverRuntimeInputs in Discovery.h).
using RuntimeFiles = RuntimeInputs;

/// A profile's join, kept for the next build: reused while the file (stamp) and the compiles it was joined
/// to (signature) are the same.
struct CachedProfile {
  FileStamp stamp;
  uint64_t signature = 0;
  bool isProfile = false; ///< The file had a traceEvents array.
  std::string error;      ///< It could not be read.
  ProfileJoin join;
  /// The profile as parsed, kept so that a build whose compiles changed (a growing log) joins it again
  /// without reading the file again. Null when the file could not be read or is no profile.
  std::shared_ptr<const ChromeTrace> trace;
  size_t skippedEvents = 0, cutStrings = 0, cutWhitespace = 0;
  bool truncated = false;
  std::string problem;
};

/// The graph nodes made of a kept analysis's graph (IndexBuilder::addGraphArtifact), kept with it: placing
/// every node's origin again was a sixth of an incremental rebuild of a large trace. Holds the graph, so its
/// address (the key) is not reused while the entry lives. Made with the same resolver as the analysis's own
/// launch origins, so as stale as they may be, and cleared with them.
struct CachedGraphNodes {
  std::shared_ptr<const GraphData> graph;
  SharedVector<Artifact::GraphNode> nodes;
};

/// A file name for messages.
std::string runtimeBaseName(const std::string &path);

/// Parses one provenance payload into `prov`; on failure `error` says why and `prov` is unchanged. `read`:
/// as for parseKernelStackTraces (stack traces only, the one payload that runs to many MB).
void parseProvenanceInto(CompileProvenance &prov, ProvenanceSlot slot, std::string_view json,
                         std::string &error, const std::function<void(size_t)> &read = {});

} // namespace detail

struct IndexCache::State {
  std::string optionsKey; ///< optionsKey(): every option but the import roots.
  /// Whether a kept analysis depended on the import roots (PathResolver::usedImportRoots(), or a file read
  /// because it is under one); then they are `importRoots`, and other roots make the analyses stale.
  bool importRootsUsed = false;
  std::vector<std::string> importRoots;
  std::unordered_map<std::string, detail::CachedLog> logs;         ///< By path.
  std::unordered_map<std::string, detail::CompileResult> compiles; ///< By compileKey().
  std::unordered_map<std::string, std::shared_ptr<const detail::CachedProfile>> profiles; ///< By path.
  /// By graph: those of this build's compiles (kept analyses only).
  std::unordered_map<const detail::GraphData *, detail::CachedGraphNodes> graphNodes;
  uint64_t nextLineage = 1;
  bool stored = false;
  BuildStats last;
  /// What a build that deferred ranks found, for the next build alone (IndexOptions::reuseDiscovery): the
  /// inputs as discovered (before a run was selected), the Triton cache folders the walk saw, and the runs.
  struct Discovered {
    DiscoveredInputs inputs;
    TritonCacheCollector triton;
    bool readUnderImportRoots = false;
    std::vector<Run> runs;
    std::vector<Unattributed> unattributed;
  };
  std::shared_ptr<const Discovered> discovered;
};

using detail::CachedLog;
using detail::CompileAnalysis;
using detail::CompileProvenance;
using detail::CompileResult;
using detail::CopyPatch;
using detail::GraphData;

class IndexBuilder {
public:
  IndexBuilder(const IndexOptions &options, const ProgressCallback &progress,
               const std::atomic<bool> *cancelled, IndexCache *cache)
      : options_(options), progress_(progress), cancelled_(cancelled), cache_(cache),
        policy_(readRoots(options, /*withImportRoots=*/false)), frames_(options.libraryPaths) {
    auto resolver =
        std::make_shared<PathResolver>(options.pathMappings, rootsForResolver(options), options.pythonPaths);
    if (options.pythonPathsLater.valid())
      resolver->setImportRootsLater(options.pythonPathsLater, options.pythonPathsNeeded);
    resolver_ = std::move(resolver);
    index_ = std::make_shared<Index>();
    tables_ = std::make_shared<Index::Tables>();
  }

  std::shared_ptr<const Index> run();

private:
  /// Waits for IndexOptions::pythonPathsLater, when given, and puts them in options_.pythonPaths. Only where
  /// something needs them before the compiles are analysed; otherwise the resolver and mayRead() wait for
  /// them when a path first needs them, and a build that needs none does not wait.
  void awaitPythonPaths();
  /// The import roots: options_.pythonPaths, or pythonPathsLater waited for (pythonPathsNeeded first).
  std::vector<std::string> waitForPythonPaths() const {
    if (!options_.pythonPathsLater.valid()) return options_.pythonPaths;
    if (options_.pythonPathsNeeded) options_.pythonPathsNeeded();
    return options_.pythonPathsLater.get();
  }
  /// At the end of a build: the import roots in options_ where the interpreter has answered by now (without
  /// waiting), and whether the build depended on them.
  bool settlePythonPaths();
  static std::vector<std::string> rootsForResolver(const IndexOptions &o) {
    std::vector<std::string> roots = o.roots;
    for (const std::string &in : o.inputs)
      roots.push_back(in);
    return roots;
  }
  /// Whether a local file named by a trace (output code, kernel file) may be read; a refusal is counted and
  /// reported once per build (see run()). A file outside policy_ is judged against the import roots, waited
  /// for if they are still coming, and then the build depends on them.
  bool mayRead(const std::string &path) {
    if (policy_.allows(path)) return true;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!importPolicy_) importPolicy_.emplace(waitForPythonPaths());
    if (importPolicy_->allows(path)) {
      readUnderImportRoots_ = true;
      return true;
    }
    if (refusedReads_++ == 0) firstRefused_ = path;
    return false;
  }
  /// A file's text for analysis, or nullopt with a diagnostic (unreadable, over `maxBytes`).
  std::optional<std::string> readInput(const std::string &path, size_t maxBytes, std::string_view what);
  bool cancelled() const { return cancelled_ && cancelled_->load(std::memory_order_relaxed); }
  /// Progress of the whole build: the share of each step (see Index.h: ProgressCallback) is fixed, and
  /// `fraction` (0..1) is how far this step is. Serialised: workers report too, and the callback need not be
  /// thread-safe.
  enum class Step { Discovering, ReadingLogs, Analysing, ReadingFiles, Done };
  void report(Step step, double fraction, std::string_view message) {
    if (!progress_) return;
    // Where each step starts, in thousandths of the build: reading logs is most of the time of a large
    // trace, analysing the compiles most of the rest.
    static constexpr size_t kStart[] = {0, 20, 700, 950, 1000};
    size_t s = static_cast<size_t>(step);
    size_t end = s + 1 < std::size(kStart) ? kStart[s + 1] : kStart[s];
    size_t done = kStart[s] + static_cast<size_t>(std::clamp(fraction, 0.0, 1.0) * double(end - kStart[s]));
    std::lock_guard<std::mutex> lock(progressMutex_);
    if (done < lastDone_) return; // Workers race to report; never go back.
    lastDone_ = done;
    progress_(done, 1000, message);
  }
  void diag(std::string file, uint32_t line, std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    index_->diagnostics_.push_back({std::move(file), line, std::move(message)});
  }

  template <class F> void parallelFor(size_t n, F &&f) {
    unsigned jobs = options_.jobs;
    if (jobs <= 1 || n <= 1) {
      for (size_t i = 0; i < n && !cancelled(); ++i)
        f(i);
      return;
    }
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < std::min<size_t>(jobs, n); ++t)
      threads.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < n && !cancelled();)
          f(i);
      });
    for (auto &t : threads)
      t.join();
  }

  void openLogs(const std::vector<std::string> &paths);
  /// Analyses the compiles `pending` (segmentLog of every log) on the workers. `first` are other reads of the
  /// logs (compile health, one per log) run on the same workers before any analysis: on one large log they
  /// would otherwise run alone.
  void buildLogCompiles(std::vector<detail::PendingCompile> pending,
                        const std::vector<std::function<void()>> &first = {});
  void buildFileCompiles(const DiscoveredInputs &inputs);
  void linkKernelSources(const std::vector<std::string> &cacheSources);
  /// Finds the Triton cache entries (BuildTriton.cpp): those the walk saw, and inside the Inductor caches
  /// of the kernel files found and the configured tritonCacheDirs.
  void buildTritonCache(const TritonCacheCollector &walked, const DiscoveredInputs &inputs);
  /// Fills Tables::firstCopy and Tables::firstEquivalent (Index::firstCopy, Index::firstEquivalent).
  void linkCopies();
  /// What buildHealth() reads from the logs (it needs nothing else).
  struct HealthRead {
    GuardTrees trees;                                   ///< Holds the guard trees `recorded` points into.
    std::vector<std::vector<RecordedCompile>> recorded; ///< Per log.
  };
  /// One task per log filling `out.recorded` (sized here), for buildLogCompiles' workers.
  std::vector<std::function<void()>> healthReads(HealthRead &out); // BuildHealth.cpp
  void buildHealth(HealthRead &read);                              // BuildHealth.cpp
  void buildRuntime(const DiscoveredInputs &inputs);
  /// Groups the logs of `inputs` into runs (Runs.h), selects IndexOptions::run and keeps of `inputs` only
  /// that run's logs and debug directories (BuildRuns.cpp). Sets index_->runs_ and runIndex_.
  /// `grouped`: the runs an earlier build grouped the same inputs into (IndexOptions::reuseDiscovery).
  void selectRunOf(DiscoveredInputs &inputs, const IndexCache::State::Discovered *grouped = nullptr);
  /// IndexOptions::deferRanksOver: when the selected run has more ranks, keeps of `inputs` only its lowest
  /// rank's log and the debug directories of that log's process, and counts the others (BuildRuns.cpp).
  void deferRanksOf(DiscoveredInputs &inputs);
  bool ranksDeferred_ = false; ///< deferRanksOf left ranks out: no runtime inputs are read either.
  /// IndexOptions::firstDocuments, once the logs are read and when they hold deferCompilesFromBytes or more:
  /// keeps of `pending` (segmentLog of every log) only the compiles holding a record of a document wanted
  /// first, when there are such compiles and others, and counts the others (BuildRuns.cpp).
  void deferCompilesOf(std::vector<detail::PendingCompile> &pending);
  bool compilesDeferred_ = false; ///< deferCompilesOf left compiles out: no health, no runtime inputs either.
  /// Whether the build is restricted to one run of several, or to part of a run (deferRanksOf,
  /// deferCompilesOf): cache files then need a match (buildFileCompiles) and runtime inputs an attribution
  /// (buildRuntime).
  bool restrictedToRun() const {
    return ranksDeferred_ || compilesDeferred_ || (index_->runs_.size() > 1 && index_->runIndex_.has_value());
  }
  /// Whether a file unit of `path` is the selected run's own: under one of its debug directories.
  bool inSelectedRunDebugDir(const std::string &path) const;
  /// Runtime inputs attributed to no run, with why (for explicitly named ones, which are kept).
  std::vector<Unattributed> unattributed_;
  void buildProfiles(const detail::RuntimeFiles &files, const ReadPolicy &policy, RuntimeData &data);
  void buildRunLogs(const detail::RuntimeFiles &files, const ReadPolicy &policy, RuntimeData &data);
  void freeze();

  ArtifactId addArtifact(Artifact a) {
    ArtifactId id{static_cast<uint32_t>(index_->artifacts_.size())};
    index_->artifacts_.push_back(std::move(a));
    return id;
  }
  Origin makeOrigin(const std::string &file, uint32_t line, std::string code, std::string function) const;
  /// Fills `a.launches` from `a.code.launches` (moved out: left empty) with their FX nodes, ATen ops and
  /// origins from the provenance and the graphs.
  void resolveLaunches(Artifact &a, const CompileProvenance &prov, const GraphData &post,
                       const GraphData &pre);
  /// The stack of a recorded trace (its frames outside PyTorch, the standard library and synthetic files, as
  /// origins), shared with every launch of this build whose trace has the same such frames. Thread-safe.
  SharedVector<Origin> sharedStack(const std::vector<StackFrame> &trace);
  /// A launch's origins, shared with every launch of this build that has the same ones (a model line's
  /// kernels in every layer, forward and backward, every recompile). Thread-safe.
  SharedVector<Origin> sharedOrigins(std::vector<Origin> origins);
  /// A launch's FX node names or ATen ops, shared like its origins (recompiles name the same nodes).
  SharedVector<std::string> sharedStrings(std::vector<std::string> strings);
  /// The origin of a `# File:` comment when it names a model frame (ModelFrames.h), else null; one Origin
  /// shared by every node and launch of this build whose comment names the same place. Thread-safe.
  std::shared_ptr<const Origin> sharedModelOrigin(const SourceComment &c);
  /// The origin of a frame or `# File:` comment whatever its file (a PyTorch frame, for
  /// Launch::frameworkOrigins), shared with sharedModelOrigin's pool; null for synthetic files (`<...>`) and
  /// empty paths. Thread-safe.
  std::shared_ptr<const Origin> sharedFrameOrigin(const std::string &file, uint32_t line,
                                                  const std::string &code, const std::string &function);
  /// A graph artifact from `graph`. Nodes without a `# File:` comment of their own take the origin of the
  /// node of the same name in `fallback`, when given. `nodes`, when given, holds the nodes an earlier call
  /// made of the same `graph` (another rank's copy of one analysis), which this artifact then shares; when it
  /// is empty, the nodes made here are stored in it.
  ArtifactId addGraphArtifact(CompileRef compile, std::string title, std::string graphName,
                              Artifact::GraphRole role, std::shared_ptr<const GraphData> graph, uint32_t log,
                              uint32_t record, std::string path, const GraphData *fallback = nullptr,
                              SharedVector<Artifact::GraphNode> *nodes = nullptr);

  IndexOptions options_; ///< A copy: pythonPaths is filled in by awaitPythonPaths().
  const ProgressCallback &progress_;
  const std::atomic<bool> *cancelled_;
  IndexCache *cache_;
  /// What this build leaves in cache_ (stored only when the build was not cancelled).
  IndexCache::State next_;
  std::vector<uint64_t> lineages_; ///< Per log of tables_->logs.
  std::shared_ptr<const PathResolver> resolver_;
  ReadPolicy policy_;                      ///< Every root but the import roots.
  std::optional<ReadPolicy> importPolicy_; ///< The import roots, made on first need (under mutex_).
  bool readUnderImportRoots_ = false;      ///< A file was read because it is under them (under mutex_).
  size_t refusedReads_ = 0;  ///< Files named by traces that the policies refused (under mutex_).
  std::string firstRefused_; ///< The first of them, for the diagnostic.
  ModelFrameRule frames_;
  std::shared_ptr<Index> index_;
  std::shared_ptr<Index::Tables> tables_;
  std::mutex mutex_, progressMutex_;
  size_t lastDone_ = 0; ///< Under progressMutex_.
  /// Content hash -> output-code artifacts with that text (one per rank or compile that wrote it), to merge
  /// copies of the same text.
  std::unordered_map<uint64_t, std::vector<ArtifactId>> byContent_;
  /// Per output-code artifact of a log compile (by id): its CopyPatch, null when its text is its analysis's.
  /// Copies sharing an analysis and a patch (or none) have the same text (linkCopies).
  std::vector<std::shared_ptr<const CopyPatch>> patchOf_;
  /// (compile, file name, content hash) -> graph artifact from a file, to merge copies of a graph dump.
  std::map<std::tuple<uint32_t, std::string, uint64_t>, ArtifactId> fileGraphs_;
  /// Hash of a trace's kept frames -> the stacks made of traces with that hash (sharedStack); under
  /// stacksMutex_.
  std::unordered_multimap<uint64_t, SharedVector<Origin>> stacks_;
  /// Hash of a comment's place -> the origins made of comments with that hash (sharedModelOrigin), library
  /// frames included (returned as null); under stacksMutex_.
  std::unordered_multimap<uint64_t, std::shared_ptr<const Origin>> origins_;
  std::unordered_multimap<uint64_t, SharedVector<Origin>>
      originLists_; ///< sharedOrigins(); under stacksMutex_.
  std::unordered_multimap<uint64_t, SharedVector<std::string>> stringLists_; ///< sharedStrings(); the same.
  std::mutex stacksMutex_;
};

} // namespace inductor::index
