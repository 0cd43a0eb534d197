#include "index/Index.h"

#include "index/Discovery.h"
#include "index/GraphDump.h"
#include "index/MappedFile.h"
#include "index/Provenance.h"
#include "index/TextLines.h"
#include "index/TraceLog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace fs = std::filesystem;

namespace inductor::index {

// The frozen lookup tables of an Index (see Index.h). Built once by IndexBuilder::freeze.
struct Index::Tables {
  std::vector<std::shared_ptr<const TraceLog>> logs;
  std::unordered_map<std::string, ArtifactId> byPath;
  /// Paths shared by several artifacts: path -> all of them (the first is also in byPath).
  std::unordered_map<std::string, std::vector<ArtifactId>> sharedPaths;
  std::unordered_map<std::string, ArtifactId> byVirtual;
  /// Local user source path -> 1-based line -> launches, lines in order.
  std::unordered_map<std::string, std::map<uint32_t, std::vector<LaunchRef>>> byUserLine;
  std::vector<KernelSymbol> symbols;
  /// Distinct kernel names (the same kernel recurs in every compile and rank) and, per symbol, its name's
  /// index: a search scores each name once.
  std::vector<std::string_view> symbolNames;
  std::vector<uint32_t> symbolNameIds;
};

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Small helpers.

/// The file's bytes; nullopt when it cannot be opened.
std::optional<std::string> tryReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string readFile(const std::string &path) {
  return tryReadFile(path).value_or(std::string());
}

/// Identity of a text across its copies (log payload, cache file, debug-dir copy), hashed line by line so a
/// payload needs no joining. Combines per-line std::hash values (8 bytes at a time, where byte-wise FNV-1a
/// was a measurable share of a 1 GB build). Only compared within one process; both sides hash the same lines.
struct ContentHash {
  uint64_t h = 1469598103934665603ull;
  void update(std::string_view s) { h = (h ^ std::hash<std::string_view>{}(s)) * 1099511628211ull; }
};

/// Identity of generated code across its copies. The copies agree line for line but not at the end: the
/// cache's
/// `*.wrapper.cpp` appends `// Compile cmd` comments, TORCH_COMPILE_DEBUG's `output_code.cpp` a `// Triton
/// kernels are embedded ...` note, and log payloads end with blank lines. So trailing blank and comment-only
/// lines are not part of the identity; every position before them is the same in every copy.
uint64_t identityHash(const std::vector<std::string_view> &lines) {
  size_t end = lines.size();
  while (end > 0) {
    std::string_view t = trim(lines[end - 1]);
    if (!t.empty() && t.substr(0, 2) != "//" && t[0] != '#') break;
    --end;
  }
  ContentHash h;
  for (size_t i = 0; i < end; ++i) {
    if (i) h.update("\n");
    h.update(lines[i]);
  }
  return h.h;
}

std::string basename(std::string_view p) {
  size_t s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

std::string slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
        c == '-')
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out;
}

std::string_view graphKindName(GraphKind k) {
  switch (k) {
  case GraphKind::Forward:
    return "forward";
  case GraphKind::Backward:
    return "backward";
  case GraphKind::Inference:
    return "inference";
  case GraphKind::Unknown:
    break;
  }
  return "";
}

/// Priority of a graph artifact as the post-grad graph of a compile (higher wins), 0 if it is not one.
int postGradPriority(std::string_view name) {
  if (name == "inductor_post_grad_graph") return 4;
  if (name == "after_post_grad_graph") return 3;
  if (name == "after_recompile_post_grad") return 2;
  if (name == "before_post_grad_graph") return 1;
  return 0;
}

/// Priority of a graph artifact as the pre-grad graph (the graph whose node names provenance calls pre-grad).
int preGradPriority(std::string_view name) {
  if (name == "after_pre_grad_graph") return 5;
  if (name == "inductor_pre_grad_graph") return 4;
  if (name == "after_recompile_pre_grad") return 3;
  if (name == "before_pre_grad_graph") return 2;
  if (name == "dynamo_output_graph") return 1;
  return 0;
}

/// The record's graph name: the artifact name, or the top-level key for `*_graph` records.
std::string_view recordGraphName(const TraceRecord &r) {
  if (r.kind == TraceKind::Artifact) return r.name;
  return r.kindKey;
}

// ---------------------------------------------------------------------------------------------------------------
// Compiles cut out of a log.

struct PendingCompile {
  uint32_t log = 0;
  CompileId id;
  std::optional<int> rank;
  int output = -1; ///< Record index of the output code.
  bool cpp = false;
  int postGrad = -1, preGrad = -1;
  int nodeMappings = -1, stackTraces = -1, kernelToPost = -1, postToPre = -1;
};

enum class ProvenanceSlot { NodeMappings, StackTraces, KernelToPost, PostToPre };

int &slotOf(PendingCompile &c, ProvenanceSlot s) {
  switch (s) {
  case ProvenanceSlot::NodeMappings:
    return c.nodeMappings;
  case ProvenanceSlot::StackTraces:
    return c.stackTraces;
  case ProvenanceSlot::KernelToPost:
    return c.kernelToPost;
  case ProvenanceSlot::PostToPre:
    break;
  }
  return c.postToPre;
}

std::optional<ProvenanceSlot> provenanceSlot(std::string_view name) {
  if (name == "inductor_provenance_tracking_node_mappings") return ProvenanceSlot::NodeMappings;
  if (name == "inductor_provenance_tracking_kernel_stack_traces") return ProvenanceSlot::StackTraces;
  if (name == "inductor_triton_kernel_to_post_grad_nodes") return ProvenanceSlot::KernelToPost;
  if (name == "inductor_post_to_pre_grad_nodes") return ProvenanceSlot::PostToPre;
  return std::nullopt;
}

/// Cuts a log into compiles. Per (compile id, rank) stream: an output code record starts a compile that owns
/// the best post-grad graph seen since the previous output code and the best pre-grad graph of the stream.
/// Provenance artifacts go to the latest compile whose slot is still empty; one that arrives before any
/// output code (some versions log provenance first) waits for the next output code.
std::vector<PendingCompile> segmentLog(uint32_t logIndex, const TraceLog &log) {
  struct Stream {
    int postGrad = -1, postGradPrio = 0;
    int preGrad = -1, preGradPrio = 0;
    int current = -1; ///< Index into `out`.
    std::map<ProvenanceSlot, int> pending;
  };
  std::vector<PendingCompile> out;
  std::map<std::pair<CompileId, std::optional<int>>, Stream> streams;
  const auto &records = log.records();
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord &r = records[i];
    Stream &s = streams[{r.compileId, r.rank}];
    bool isOutput = r.kind == TraceKind::InductorOutputCode ||
                    (r.kind == TraceKind::GraphDump && r.name == "inductor_aot_wrapper_code");
    if (isOutput) {
      PendingCompile c;
      c.log = logIndex;
      c.id = r.compileId;
      c.rank = r.rank ? r.rank : log.rank();
      c.output = static_cast<int>(i);
      c.cpp = r.kind == TraceKind::GraphDump;
      c.postGrad = s.postGrad;
      c.preGrad = s.preGrad;
      for (auto &[slot, rec] : s.pending)
        slotOf(c, slot) = rec;
      s.pending.clear();
      s.postGrad = -1;
      s.postGradPrio = 0;
      s.current = static_cast<int>(out.size());
      out.push_back(c);
      continue;
    }
    std::string_view graph = recordGraphName(r);
    if (int p = postGradPriority(graph); p && p >= s.postGradPrio) {
      s.postGrad = static_cast<int>(i);
      s.postGradPrio = p;
      continue;
    }
    if (int p = preGradPriority(graph); p && p >= s.preGradPrio) {
      s.preGrad = static_cast<int>(i);
      s.preGradPrio = p;
      continue;
    }
    if (r.kind != TraceKind::Artifact) continue;
    if (auto slot = provenanceSlot(r.name)) {
      if (s.current >= 0 && slotOf(out[s.current], *slot) < 0)
        slotOf(out[s.current], *slot) = static_cast<int>(i);
      else
        s.pending[*slot] = static_cast<int>(i);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Provenance of one compile, whatever its source (log payloads or files).

struct CompileProvenance {
  NodeMappings mappings;
  bool hasMappings = false;
  std::unordered_map<std::string, std::vector<std::vector<StackFrame>>> stackTraces;
  std::unordered_map<std::string, KernelInformation> kernelInformation;
};

struct GraphData {
  GraphDumpAnalysis analysis;
  bool present = false;
  /// Node name -> index into analysis.nodes (first occurrence).
  std::unordered_map<std::string, uint32_t> nodeIndex;
  void index() {
    for (uint32_t i = 0; i < analysis.nodes.size(); ++i)
      nodeIndex.emplace(analysis.nodes[i].name, i);
  }
  const SourceComment *originOf(const std::string &node) const {
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

/// A log kept for the next build, and its lineage: a number that changes when the log is read from scratch,
/// so that record indices of an older version of the file never match.
struct CachedLog {
  std::shared_ptr<const TraceLog> log;
  uint64_t lineage = 0;
};

/// Identity of the options that analysis results depend on (path resolution).
std::string optionsKey(const IndexOptions &o) {
  std::string key;
  auto add = [&](std::string_view part) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
  };
  for (const PathMapping &m : o.pathMappings) {
    add(m.from);
    add(m.to);
  }
  key += '|';
  for (const std::string &r : o.roots)
    add(r);
  key += '|';
  for (const std::string &i : o.inputs)
    add(i);
  return key;
}

/// The cache key of a compile: its log and lineage, and the index and extent of every record it reads.
std::string compileKey(const PendingCompile &p, const TraceLog &log, uint64_t lineage) {
  std::string key = log.path();
  key += '\0';
  key += std::to_string(lineage);
  key += p.cpp ? ":cpp" : ":py";
  key += p.rank ? ":r" + std::to_string(*p.rank) : ":-";
  for (int rec :
       {p.output, p.postGrad, p.preGrad, p.nodeMappings, p.stackTraces, p.kernelToPost, p.postToPre}) {
    key += '|';
    if (rec < 0) continue;
    const TraceRecord &r = log.records()[static_cast<size_t>(rec)];
    key += std::to_string(rec) + "@" + std::to_string(r.envelopeOffset) + "-" + std::to_string(r.payloadEnd);
  }
  return key;
}

} // namespace

struct IndexCache::State {
  std::string optionsKey;
  std::unordered_map<std::string, CachedLog> logs;                                  ///< By path.
  std::unordered_map<std::string, std::shared_ptr<const CompileAnalysis>> compiles; ///< By compileKey().
  uint64_t nextLineage = 1;
  bool stored = false;
  BuildStats last;
};

IndexCache::IndexCache() : state_(std::make_unique<State>()) {}
IndexCache::IndexCache(IndexCache &&) noexcept = default;
IndexCache &IndexCache::operator=(IndexCache &&) noexcept = default;
IndexCache::~IndexCache() = default;

void IndexCache::clear() {
  uint64_t lineage = state_->nextLineage;
  *state_ = State();
  state_->nextLineage = lineage;
}

bool IndexCache::empty() const {
  return !state_->stored;
}

IndexCache::BuildStats IndexCache::lastBuild() const {
  return state_->last;
}

// ---------------------------------------------------------------------------------------------------------------

class IndexBuilder {
public:
  IndexBuilder(const IndexOptions &options, const ProgressCallback &progress,
               const std::atomic<bool> *cancelled, IndexCache *cache)
      : options_(options), progress_(progress), cancelled_(cancelled), cache_(cache),
        resolver_(options.pathMappings, rootsForResolver(options)) {
    index_ = std::make_shared<Index>();
    tables_ = std::make_shared<Index::Tables>();
  }

  std::shared_ptr<const Index> run();

private:
  static std::vector<std::string> rootsForResolver(const IndexOptions &o) {
    std::vector<std::string> roots = o.roots;
    for (const std::string &in : o.inputs)
      roots.push_back(in);
    return roots;
  }
  bool cancelled() const { return cancelled_ && cancelled_->load(std::memory_order_relaxed); }
  /// Serialised: workers report too, and the callback need not be thread-safe.
  void report(size_t done, size_t total, std::string_view message) {
    if (!progress_) return;
    std::lock_guard<std::mutex> lock(progressMutex_);
    progress_(done, total, message);
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
  void buildLogCompiles();
  void buildFileCompiles(const DiscoveredInputs &inputs);
  void linkKernelSources(const std::vector<std::string> &cacheSources);
  void freeze();

  ArtifactId addArtifact(Artifact a) {
    ArtifactId id{static_cast<uint32_t>(index_->artifacts_.size())};
    index_->artifacts_.push_back(std::move(a));
    return id;
  }
  Origin makeOrigin(const std::string &file, uint32_t line, std::string code, std::string function) const {
    ResolvedPath r = resolver_.resolve(file);
    Origin o;
    o.path = r.path;
    o.recordedPath = file;
    o.line = line;
    o.code = std::move(code);
    o.function = std::move(function);
    o.exists = r.exists;
    return o;
  }
  void resolveLaunches(Artifact &a, const CompileProvenance &prov, const GraphData &post,
                       const GraphData &pre);
  ArtifactId addGraphArtifact(CompileRef compile, std::string title, std::string graphName,
                              Artifact::GraphRole role, const GraphData &graph, uint32_t log, uint32_t record,
                              std::string path);

  const IndexOptions &options_;
  const ProgressCallback &progress_;
  const std::atomic<bool> *cancelled_;
  IndexCache *cache_;
  /// What this build leaves in cache_ (stored only when the build was not cancelled).
  IndexCache::State next_;
  std::vector<uint64_t> lineages_; ///< Per log of tables_->logs.
  PathResolver resolver_;
  std::shared_ptr<Index> index_;
  std::shared_ptr<Index::Tables> tables_;
  std::mutex mutex_, progressMutex_;
  /// Content hash -> output-code artifact, to merge copies of the same text.
  std::unordered_map<uint64_t, ArtifactId> byContent_;
};

/// Logs up to this size have every payload's md5 checked when first read (see openLogs).
constexpr size_t kVerifyPayloadsUpTo = 64u << 20;

/// 0-based line number of the last line that is not a payload line (does not start with a tab).
uint32_t lastEnvelopeLine(std::string_view text) {
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end; // The final newline does not start a line.
  while (true) {
    size_t nl = end == 0 ? std::string_view::npos : text.rfind('\n', end - 1);
    size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    if (start == 0 || start >= text.size() || text[start] != '\t')
      return static_cast<uint32_t>(
          std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    end = nl;
  }
}

void IndexBuilder::openLogs(const std::vector<std::string> &paths) {
  // How each log was obtained, for the cache's statistics.
  enum class How { Failed, Opened, Resumed, Reused };
  std::vector<std::shared_ptr<const TraceLog>> logs(paths.size());
  std::vector<How> how(paths.size(), How::Failed);
  std::vector<uint64_t> lineage(paths.size(), 0);
  std::vector<uint64_t> bytesRead(paths.size(), 0);
  std::vector<uint64_t> mismatched(paths.size(), 0);
  std::atomic<size_t> done{0};
  parallelFor(paths.size(), [&](size_t i) {
    const CachedLog *previous = nullptr;
    if (cache_)
      if (auto it = cache_->state_->logs.find(paths[i]); it != cache_->state_->logs.end())
        previous = &it->second;
    if (previous && !previous->log->stale()) {
      logs[i] = previous->log;
      how[i] = How::Reused;
      lineage[i] = previous->lineage;
    } else {
      Expected<TraceLog> log = previous ? TraceLog::resume(*previous->log) : TraceLog::open(paths[i]);
      if (!log) {
        diag(paths[i], 0, log.error().message);
      } else {
        how[i] = log->resumed() ? How::Resumed : How::Opened;
        if (log->resumed()) lineage[i] = previous->lineage;
        bytesRead[i] = log->bytesRead();
        // A payload that lost a line still parses as lines; only its has_payload md5 tells. Verifying costs
        // a second pass at ~0.5 GB/s, so it is done for logs read whole and of moderate size only.
        if (!log->resumed() && log->text().size() <= kVerifyPayloadsUpTo) {
          // The last record may still be being written (a growing log, or one cut short by a crash): it is
          // incomplete, not corrupted, so it is not held against the log.
          uint32_t lastEnvelope = lastEnvelopeLine(log->text());
          PayloadVerification v = log->verifyAll();
          for (const TraceDiagnostic &d : v.diagnostics) {
            if (d.line == lastEnvelope) continue;
            ++mismatched[i];
            diag(paths[i], d.line, d.message);
          }
          // verifyAll keeps a bounded number of diagnostics; count the rest without them.
          if (v.mismatched > v.diagnostics.size()) mismatched[i] += v.mismatched - v.diagnostics.size();
        }
        logs[i] = std::make_shared<const TraceLog>(std::move(*log));
      }
    }
    if (logs[i])
      for (const TraceDiagnostic &d : logs[i]->diagnostics())
        diag(paths[i], d.line, d.message);
    size_t n = ++done;
    if (n == paths.size() || n % 8 == 0) report(n, paths.size(), "reading trace logs");
  });
  IndexCache::BuildStats &stats = next_.last;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!logs[i]) continue;
    if (lineage[i] == 0) lineage[i] = next_.nextLineage++;
    stats.logsReused += how[i] == How::Reused;
    stats.logsResumed += how[i] == How::Resumed;
    stats.logsOpened += how[i] == How::Opened;
    stats.bytesRead += bytesRead[i];
    next_.logs[paths[i]] = CachedLog{logs[i], lineage[i]};
    index_->traceFiles_.push_back(paths[i]);
    index_->stats_.traceBytes += logs[i]->text().size();
    index_->stats_.traceBytesRead += bytesRead[i];
    index_->stats_.corruptedRecords += logs[i]->stats().corruptedRecords + mismatched[i];
    tables_->logs.push_back(std::move(logs[i]));
    lineages_.push_back(lineage[i]);
  }
  index_->stats_.traceFiles = tables_->logs.size();
}

ArtifactId IndexBuilder::addGraphArtifact(CompileRef compile, std::string title, std::string graphName,
                                          Artifact::GraphRole role, const GraphData &graph, uint32_t log,
                                          uint32_t record, std::string path) {
  Artifact a;
  a.kind = ArtifactKind::Graph;
  a.graphRole = role;
  a.language = Language::Python;
  a.compile = compile;
  a.title = std::move(title);
  a.graphName = std::move(graphName);
  a.traceFile = log;
  a.record = record;
  if (!path.empty()) a.paths.push_back(std::move(path));
  for (const GraphNodeDef &n : graph.analysis.nodes) {
    Artifact::GraphNode g;
    g.name = n.name;
    g.line = n.line;
    g.column = n.column;
    g.target = n.target;
    if (n.origin && *n.origin < graph.analysis.origins.size()) {
      const SourceComment &c = graph.analysis.origins[*n.origin];
      if (!isLibraryPath(c.file)) g.origin = makeOrigin(c.file, c.line, c.code, c.function);
    }
    a.graphNodes.push_back(std::move(g));
  }
  ArtifactId id = addArtifact(std::move(a));
  if (compile.valid() && compile.value < index_->compiles_.size())
    index_->compiles_[compile.value].graphs.push_back(id);
  return id;
}

void IndexBuilder::resolveLaunches(Artifact &a, const CompileProvenance &prov, const GraphData &post,
                                   const GraphData &pre) {
  std::unordered_map<std::string, int> launchCount;
  for (const KernelLaunch &l : a.code.launches)
    ++launchCount[l.kernel];
  a.launches.clear();
  a.launches.reserve(a.code.launches.size());
  for (const KernelLaunch &site : a.code.launches) {
    Launch L;
    L.site = site;
    const KernelDefinition *def = a.code.findKernel(site.kernel);
    if (def) L.definition = static_cast<int>(def - a.code.kernels.data());
    L.kind = def ? def->kind : kindFromName(site.kernel);
    L.atenOps = site.atenOps.empty() && def ? def->atenOps : site.atenOps;
    std::string key = site.key();
    // Without a debug handle a kernel launched twice cannot be told apart in the maps: use only what the
    // launch itself says (its comment) rather than the union, which would name lines of the other launches.
    bool ambiguous = !site.debugHandle && launchCount[site.kernel] > 1;

    // FX nodes.
    const KernelInformation *info = nullptr;
    if (auto it = prov.kernelInformation.find(key); it != prov.kernelInformation.end()) info = &it->second;
    if (info) {
      L.postGradNodes = info->postGradNodes;
      L.preGradNodes = info->preGradNodes;
    }
    if (L.postGradNodes.empty() && !ambiguous) {
      auto it = prov.mappings.kernelToPost.find(key);
      if (it == prov.mappings.kernelToPost.end() && site.debugHandle)
        it = prov.mappings.kernelToPost.find(site.kernel);
      if (it != prov.mappings.kernelToPost.end())
        L.postGradNodes = it->second;
      else if (def && launchCount[site.kernel] == 1) // The definition's comment describes its first launch.
        for (const auto &[src, nodes] : def->sourceToAten)
          L.postGradNodes.insert(L.postGradNodes.end(), nodes.begin(), nodes.end());
    }
    if (L.preGradNodes.empty()) {
      std::set<std::string> pres;
      for (const std::string &n : L.postGradNodes)
        if (auto it = prov.mappings.postToPre.find(n); it != prov.mappings.postToPre.end())
          pres.insert(it->second.begin(), it->second.end());
      if (pres.empty())
        for (const std::string &n :
             site.sourceNodes.empty() && def && !ambiguous ? def->sourceNodes : site.sourceNodes)
          if (!n.empty()) pres.insert(n);
      L.preGradNodes.assign(pres.begin(), pres.end());
    }

    auto addOrigin = [&](Origin o) {
      if (std::find(L.origins.begin(), L.origins.end(), o) == L.origins.end())
        L.origins.push_back(std::move(o));
    };
    // 1. Stack traces recorded for this kernel:debug_handle.
    const std::vector<std::vector<StackFrame>> *traces = nullptr;
    if (info && !info->stackTraces.empty()) traces = &info->stackTraces;
    if (!traces) {
      auto it = prov.stackTraces.find(key);
      if (it == prov.stackTraces.end() && !ambiguous) it = prov.stackTraces.find(site.kernel);
      if (it != prov.stackTraces.end()) traces = &it->second;
    }
    if (traces) {
      for (const auto &trace : *traces) {
        if (const StackFrame *f = userFrame(trace))
          addOrigin(makeOrigin(f->file, f->line, f->code, f->function));
        std::vector<Origin> stack;
        for (const StackFrame &f : trace)
          if (!isLibraryPath(f.file)) stack.push_back(makeOrigin(f.file, f.line, f.code, f.function));
        if (!stack.empty()) L.stacks.push_back(std::move(stack));
      }
      if (!L.origins.empty()) L.originSource = OriginSource::StackTrace;
    }
    // 2. Post-grad FX nodes in the post-grad graph's `# File:` comments.
    if (L.origins.empty() && post.present) {
      for (const std::string &n : L.postGradNodes)
        if (const SourceComment *c = post.originOf(n); c && !isLibraryPath(c->file))
          addOrigin(makeOrigin(c->file, c->line, c->code, c->function));
      if (!L.origins.empty()) L.originSource = OriginSource::PostGradGraph;
    }
    // 3. Pre-grad FX nodes in the pre-grad graph's `# File:` comments.
    if (L.origins.empty() && pre.present) {
      for (const std::string &n : L.preGradNodes)
        if (const SourceComment *c = pre.originOf(n); c && !isLibraryPath(c->file))
          addOrigin(makeOrigin(c->file, c->line, c->code, c->function));
      if (!L.origins.empty()) L.originSource = OriginSource::PreGradGraph;
    }
    a.launches.push_back(std::move(L));
  }
}

namespace {

GraphData analyzeGraphLines(const std::vector<std::string_view> &lines) {
  GraphData g;
  g.analysis = analyzeGraphDump(lines);
  g.present = true;
  g.index();
  return g;
}

void parseProvenanceInto(CompileProvenance &prov, ProvenanceSlot slot, std::string_view json,
                         std::string &error) {
  switch (slot) {
  case ProvenanceSlot::NodeMappings: {
    auto m = parseNodeMappings(json);
    if (!m) {
      error = m.error().message;
      return;
    }
    // Merge: legacy artifacts may already have filled some maps.
    for (auto &[k, v] : m->kernelToPost)
      prov.mappings.kernelToPost[k] = v;
    for (auto &[k, v] : m->postToPre)
      prov.mappings.postToPre[k] = v;
    for (auto &[k, v] : m->preToPost)
      prov.mappings.preToPost[k] = v;
    for (auto &[k, v] : m->postToKernel)
      prov.mappings.postToKernel[k] = v;
    prov.mappings.version = m->version;
    prov.hasMappings = true;
    return;
  }
  case ProvenanceSlot::StackTraces: {
    auto st = parseKernelStackTraces(json);
    if (!st) {
      error = st.error().message;
      return;
    }
    prov.stackTraces = std::move(*st);
    return;
  }
  case ProvenanceSlot::KernelToPost: {
    auto m = parseKernelToPostGradNodes(json);
    if (!m) {
      error = m.error().message;
      return;
    }
    for (auto &[k, v] : *m)
      prov.mappings.kernelToPost.emplace(k, v);
    return;
  }
  case ProvenanceSlot::PostToPre: {
    auto m = parsePostToPreGradNodes(json);
    if (!m) {
      error = m.error().message;
      return;
    }
    for (auto &[k, v] : *m)
      prov.mappings.postToPre.emplace(k, v);
    return;
  }
  }
}

} // namespace

void IndexBuilder::buildLogCompiles() {
  std::vector<PendingCompile> pending;
  for (uint32_t i = 0; i < tables_->logs.size(); ++i) {
    auto segment = segmentLog(i, *tables_->logs[i]);
    pending.insert(pending.end(), segment.begin(), segment.end());
  }

  // Compiles whose records did not change since the previous build come from the cache; the others are
  // analysed on the workers, each writing only its own slot.
  std::vector<std::shared_ptr<const CompileAnalysis>> results(pending.size());
  std::vector<std::string> keys(pending.size());
  std::vector<size_t> misses;
  for (size_t i = 0; i < pending.size(); ++i) {
    keys[i] = compileKey(pending[i], *tables_->logs[pending[i].log], lineages_[pending[i].log]);
    if (cache_)
      if (auto it = cache_->state_->compiles.find(keys[i]); it != cache_->state_->compiles.end())
        results[i] = it->second;
    if (!results[i]) misses.push_back(i);
  }
  std::atomic<size_t> done{0};
  // Payloads are read through the mapping, and fault-around maps the pages around every payload: over a whole
  // log that is most of it. Returning a log's pages every few compiles keeps the peak resident set near the
  // heap; pages another worker still reads fault back in from the page cache.
  std::vector<std::atomic<uint32_t>> analysedPerLog(tables_->logs.size());
  constexpr uint32_t kReleaseEvery = 16;
  parallelFor(misses.size(), [&](size_t m) {
    size_t i = misses[m];
    const PendingCompile &p = pending[i];
    const TraceLog &log = *tables_->logs[p.log];
    const auto &records = log.records();
    const TraceRecord &out = records[p.output];
    auto analysis = std::make_shared<CompileAnalysis>();
    CompileAnalysis &r = *analysis;
    r.compile.id = p.id;
    r.compile.rank = p.rank;
    r.compile.traceFile = log.path();
    r.compile.aoti = p.cpp;

    auto lines = log.payloadLines(out);
    r.hash = identityHash(lines);
    Artifact &a = r.code;
    a.kind = p.cpp ? ArtifactKind::WrapperCode : ArtifactKind::OutputCode;
    a.language = p.cpp ? Language::Cpp : Language::Python;
    a.traceFile = p.log;
    a.record = static_cast<uint32_t>(p.output);
    a.code = p.cpp ? analyzeCppWrapper(lines) : analyzePythonWrapper(lines);
    r.compile.aotId = a.code.aotId;
    r.compile.graphKind = a.code.graphKind;
    if (!out.filename.empty()) {
      ResolvedPath local = resolver_.resolve(out.filename);
      if (local.exists) a.paths.push_back(local.path);
    }

    CompileProvenance prov;
    auto parse = [&](int rec, ProvenanceSlot slot) {
      if (rec < 0) return;
      std::string error;
      parseProvenanceInto(prov, slot, log.payloadText(records[rec]), error);
      if (!error.empty())
        r.diagnostics.push_back({log.path(), records[rec].line, "skipped provenance record: " + error});
    };
    parse(p.kernelToPost, ProvenanceSlot::KernelToPost);
    parse(p.postToPre, ProvenanceSlot::PostToPre);
    parse(p.nodeMappings, ProvenanceSlot::NodeMappings);
    parse(p.stackTraces, ProvenanceSlot::StackTraces);
    if (p.postGrad >= 0) r.post = analyzeGraphLines(log.payloadLines(records[p.postGrad]));
    if (p.preGrad >= 0) r.pre = analyzeGraphLines(log.payloadLines(records[p.preGrad]));
    resolveLaunches(a, prov, r.post, r.pre);
    results[i] = std::move(analysis);
    if (++analysedPerLog[p.log] % kReleaseEvery == 0) log.releasePages();
    size_t n = ++done;
    if (n == misses.size() || n % 16 == 0) report(n, misses.size(), "analysing output code");
  });
  if (cancelled()) return;
  index_->stats_.compilesAnalysed = misses.size();
  next_.last.compilesAnalysed = misses.size();
  next_.last.compilesReused = pending.size() - misses.size();
  for (size_t i = 0; i < pending.size(); ++i)
    next_.compiles.emplace(keys[i], results[i]);

  // Sequential merge: ids, graph artifacts (a pre-grad graph shared by forward and backward is one artifact).
  // Analyses may be shared with the cache: they are copied, never changed.
  std::map<std::pair<uint32_t, int>, ArtifactId> graphByRecord;
  for (size_t i = 0; i < results.size(); ++i) {
    if (cancelled()) break;
    const CompileAnalysis &r = *results[i];
    const PendingCompile &p = pending[i];
    const TraceLog &log = *tables_->logs[p.log];
    for (const IndexDiagnostic &d : r.diagnostics)
      index_->diagnostics_.push_back(d);
    CompileRef ref{static_cast<uint32_t>(index_->compiles_.size())};
    Compile c = r.compile;
    std::string label = c.label();
    std::string ext = p.cpp ? ".cpp" : ".py";
    Artifact code = r.code;
    code.traceFile = p.log;
    code.compile = ref;
    code.title = label + (p.cpp ? " wrapper code" : " output code");
    code.virtualName = basename(log.path()) + "/" + std::to_string(log.records()[p.output].line + 1) + "/" +
                       slug(label) + (p.cpp ? "-wrapper_code" : "-output_code") + ext;
    c.outputCode = addArtifact(std::move(code));
    byContent_.emplace(r.hash, c.outputCode);
    auto graphArtifact = [&](int rec, const GraphData &g, std::string_view what,
                             Artifact::GraphRole role) -> ArtifactId {
      if (rec < 0 || !g.present) return {};
      auto key = std::make_pair(p.log, rec);
      if (auto it = graphByRecord.find(key); it != graphByRecord.end()) {
        c.graphs.push_back(it->second);
        return it->second;
      }
      const TraceRecord &tr = log.records()[rec];
      std::string name(recordGraphName(tr));
      // The compile is pushed after this lambda runs, so attach the graph to it by hand.
      std::string title = label;
      title.append(" ").append(what).append(" (").append(name).append(")");
      ArtifactId id = addGraphArtifact(CompileRef{}, std::move(title), name, role, g, p.log,
                                       static_cast<uint32_t>(rec), "");
      index_->artifacts_[id.value].compile = ref;
      c.graphs.push_back(id);
      index_->artifacts_[id.value].virtualName =
          basename(log.path()) + "/" + std::to_string(tr.line + 1) + "/" + slug(label) + "-" + name + ".py";
      graphByRecord.emplace(key, id);
      return id;
    };
    c.postGradGraph = graphArtifact(p.postGrad, r.post, "post-grad graph", Artifact::GraphRole::PostGrad);
    c.preGradGraph = graphArtifact(p.preGrad, r.pre, "pre-grad graph", Artifact::GraphRole::PreGrad);
    index_->compiles_.push_back(std::move(c));
  }
}

void IndexBuilder::buildFileCompiles(const DiscoveredInputs &inputs) {
  // Output code found in files: a copy of a log's output code only adds its path; anything else is a compile
  // of its own, with the provenance and graphs of its directory.
  std::vector<CompileFiles> units = inputs.compiles;
  for (const std::string &src : inputs.cacheSources) {
    std::string text = readFile(src);
    TextLines lines = splitLines(text);
    if (!looksLikeWrapperCode(lines)) continue;
    CompileFiles f;
    f.outputCode = src;
    std::string debugDir = src.substr(0, src.size() - 3) + ".debug";
    std::error_code ec;
    if (fs::is_directory(debugDir, ec)) {
      for (const char *g : {"fx_graph_transformed.py", "fx_graph_readable.py"})
        if (fs::is_regular_file(debugDir + "/" + g, ec)) f.graphs.push_back(debugDir + "/" + g);
    }
    units.push_back(f);
  }
  std::unordered_set<std::string> known; // Paths already attached to an artifact (from log metadata).
  for (const Artifact &a : index_->artifacts_)
    known.insert(a.paths.begin(), a.paths.end());
  for (const CompileFiles &unit : units) {
    if (cancelled()) return;
    if (known.count(unit.outputCode)) continue;
    std::string text = readFile(unit.outputCode);
    if (text.empty()) {
      diag(unit.outputCode, 0, "cannot read output code");
      continue;
    }
    TextLines lines = splitLines(text);
    uint64_t h = identityHash(lines);
    if (auto it = byContent_.find(h); it != byContent_.end()) {
      auto &paths = index_->artifacts_[it->second.value].paths;
      if (std::find(paths.begin(), paths.end(), unit.outputCode) == paths.end())
        paths.push_back(unit.outputCode);
      // The directory's graph dumps still serve navigation in their own files.
      CompileRef ref = index_->artifacts_[it->second.value].compile;
      std::string label = ref.valid() ? index_->compiles_[ref.value].label() : "";
      for (const std::string &g : unit.graphs) {
        if (!known.insert(g).second) continue;
        addGraphArtifact(ref, label + " " + basename(g), basename(g), Artifact::GraphRole::PostGrad,
                         analyzeGraphLines(splitLines(readFile(g))), UINT32_MAX, UINT32_MAX, g);
      }
      continue;
    }
    bool cpp =
        unit.outputCode.size() > 4 && unit.outputCode.compare(unit.outputCode.size() - 4, 4, ".cpp") == 0;
    Artifact a;
    a.kind = cpp ? ArtifactKind::WrapperCode : ArtifactKind::OutputCode;
    a.language = cpp ? Language::Cpp : Language::Python;
    a.code = cpp ? analyzeCppWrapper(lines) : analyzePythonWrapper(lines);
    a.paths.push_back(unit.outputCode);
    Compile c;
    c.aoti = cpp;
    c.aotId = a.code.aotId;
    c.graphKind = a.code.graphKind;
    CompileProvenance prov;
    auto parseFile = [&](const std::string &path, ProvenanceSlot slot) {
      if (path.empty()) return;
      std::string error;
      parseProvenanceInto(prov, slot, readFile(path), error);
      if (!error.empty()) diag(path, 0, "skipped provenance file: " + error);
    };
    parseFile(unit.nodeMappings, ProvenanceSlot::NodeMappings);
    parseFile(unit.stackTraces, ProvenanceSlot::StackTraces);
    if (!unit.kernelInformation.empty()) {
      auto info = parseKernelInformation(readFile(unit.kernelInformation));
      if (info)
        prov.kernelInformation = std::move(*info);
      else
        diag(unit.kernelInformation, 0, "skipped kernel information: " + info.error().message);
    }
    // fx_graph_transformed.py is the post-grad graph and fx_graph_readable.py the graph Inductor was given:
    // both use post-grad node names (discovery lists the transformed one first). No pre-grad graph is dumped
    // there.
    GraphData post, pre;
    std::vector<GraphData> graphs;
    for (const std::string &g : unit.graphs)
      graphs.push_back(analyzeGraphLines(splitLines(readFile(g))));
    if (!graphs.empty()) post = graphs.front();
    resolveLaunches(a, prov, post, pre);
    CompileRef ref{static_cast<uint32_t>(index_->compiles_.size())};
    a.compile = ref;
    std::string label = c.label();
    a.title = label + (unit.graphName.empty() ? "" : " " + unit.graphName) +
              (cpp ? " wrapper code" : " output code");
    c.outputCode = addArtifact(std::move(a));
    byContent_.emplace(h, c.outputCode);
    index_->compiles_.push_back(std::move(c));
    for (size_t g = 0; g < unit.graphs.size(); ++g) {
      known.insert(unit.graphs[g]);
      ArtifactId id =
          addGraphArtifact(ref, label + " " + basename(unit.graphs[g]), basename(unit.graphs[g]),
                           Artifact::GraphRole::PostGrad, graphs[g], UINT32_MAX, UINT32_MAX, unit.graphs[g]);
      if (g == 0) index_->compiles_[ref.value].postGradGraph = id;
    }
  }
}

void IndexBuilder::linkKernelSources(const std::vector<std::string> &cacheSources) {
  // Kernel files named by `# kernel path:` comments, plus the cache's kernel files found by discovery.
  std::map<std::string, ArtifactId> byPath;
  auto kernelFile = [&](const std::string &path) -> ArtifactId {
    if (auto it = byPath.find(path); it != byPath.end()) return it->second;
    std::string text = readFile(path);
    auto src = analyzeKernelSource(splitLines(text));
    if (!src) {
      byPath.emplace(path, ArtifactId{});
      return {};
    }
    Artifact a;
    a.kind = ArtifactKind::KernelSource;
    a.language = Language::Python;
    a.title = src->name + " (kernel source)";
    a.paths.push_back(path);
    a.kernelSource = std::move(src);
    ArtifactId id = addArtifact(std::move(a));
    byPath.emplace(path, id);
    return id;
  };
  size_t n = index_->artifacts_.size();
  for (size_t i = 0; i < n; ++i) {
    Artifact &a = index_->artifacts_[i];
    if (a.kind != ArtifactKind::OutputCode) continue;
    for (size_t d = 0; d < a.code.kernels.size(); ++d) {
      const KernelDefinition &def = a.code.kernels[d];
      if (def.kernelPath.empty()) continue;
      ResolvedPath local = resolver_.resolve(def.kernelPath);
      if (!local.exists) continue;
      ArtifactId k = kernelFile(local.path);
      if (k.valid())
        index_->artifacts_[k.value].kernelDefinitions.emplace_back(ArtifactId{static_cast<uint32_t>(i)},
                                                                   static_cast<int>(d));
    }
  }
  for (const std::string &src : cacheSources)
    if (!byPath.count(src)) {
      std::string text = readFile(src);
      if (!looksLikeWrapperCode(splitLines(text))) kernelFile(src);
    }
}

void IndexBuilder::freeze() {
  Index &idx = *index_;
  Index::Tables &t = *tables_;
  for (uint32_t i = 0; i < idx.artifacts_.size(); ++i) {
    Artifact &a = idx.artifacts_[i];
    ArtifactId id{i};
    for (const std::string &p : a.paths) {
      std::string key = normalizePath(p);
      auto [it, inserted] = t.byPath.emplace(key, id);
      if (!inserted) {
        auto &all = t.sharedPaths[key];
        if (all.empty()) all.push_back(it->second);
        all.push_back(id);
      }
    }
    if (a.paths.empty() && !a.virtualName.empty()) {
      std::string name = a.virtualName;
      for (int k = 2; t.byVirtual.count(name); ++k)
        name = a.virtualName + "~" + std::to_string(k);
      a.virtualName = name;
      t.byVirtual.emplace(name, id);
    }
    if (a.kind == ArtifactKind::OutputCode || a.kind == ArtifactKind::WrapperCode) {
      idx.stats_.kernels += a.code.kernels.size();
      for (uint32_t l = 0; l < a.launches.size(); ++l) {
        const Launch &L = a.launches[l];
        ++idx.stats_.launches;
        if (!L.origins.empty()) ++idx.stats_.launchesWithOrigin;
        for (const Origin &o : L.origins)
          t.byUserLine[normalizePath(o.path)][o.line].push_back({id, l});
        if (L.definition < 0) t.symbols.push_back({L.site.kernel, id, L.site.line, L.site.column, L.kind});
      }
      for (const KernelDefinition &d : a.code.kernels)
        t.symbols.push_back({d.name, id, d.nameLine, d.nameColumn, d.kind});
    }
  }
  std::unordered_map<std::string_view, uint32_t> nameIds;
  t.symbolNameIds.reserve(t.symbols.size());
  for (const KernelSymbol &k : t.symbols) {
    auto [it, inserted] = nameIds.try_emplace(k.name, static_cast<uint32_t>(t.symbolNames.size()));
    if (inserted) t.symbolNames.push_back(k.name);
    t.symbolNameIds.push_back(it->second);
  }
  for (const auto &[path, lines] : t.byUserLine)
    idx.stats_.userLines += lines.size();
  idx.stats_.compiles = idx.compiles_.size();
  idx.stats_.artifacts = idx.artifacts_.size();
  idx.stats_.errors = idx.diagnostics_.size();
}

std::shared_ptr<const Index> IndexBuilder::run() {
  if (cache_) {
    next_.optionsKey = optionsKey(options_);
    next_.nextLineage = cache_->state_->nextLineage;
    // Analyses hold paths resolved with the previous options: with other options nothing can be reused.
    if (cache_->state_->optionsKey != next_.optionsKey) cache_->clear();
  }
  report(0, 1, "discovering traces");
  DiscoveredInputs inputs = discoverInputs(options_.inputs.empty() ? options_.roots : options_.inputs);
  for (const std::string &e : inputs.errors)
    diag(e, 0, "input not found");
  openLogs(inputs.traceLogs);
  if (!cancelled()) buildLogCompiles();
  if (!cancelled()) buildFileCompiles(inputs);
  if (!cancelled()) linkKernelSources(inputs.cacheSources);
  // The analyses own what they need; the payload pages they touched need not stay resident (a 1 GB trace
  // otherwise keeps ~40% of its bytes in RSS through fault-around).
  for (const auto &log : tables_->logs)
    log->releasePages();
  freeze();
  index_->tables_ = std::move(tables_);
  if (cache_ && !cancelled()) {
    next_.stored = true;
    *cache_->state_ = std::move(next_);
  }
  report(1, 1, "done");
  return index_;
}

// ---------------------------------------------------------------------------------------------------------------
// Index.

std::string_view Compile::kindWord() const {
  switch (graphKind) {
  case GraphKind::Forward:
    return "forward";
  case GraphKind::Backward:
    return "backward";
  case GraphKind::Inference:
    return aoti ? "AOT" : "inference";
  case GraphKind::Unknown:
    break;
  }
  return aoti ? "AOT" : "other";
}

std::string Compile::label() const {
  std::string s;
  if (!id.empty())
    s = "[" + id.traceStr() + "]";
  else if (aoti)
    s = "AOTInductor";
  std::string_view kind = graphKindName(graphKind);
  if (!kind.empty()) s += (s.empty() ? "" : " ") + std::string(kind);
  if (s.empty()) s = "compile";
  if (rank) s += " rank " + std::to_string(*rank);
  return s;
}

std::shared_ptr<const Index> Index::build(const IndexOptions &options, const ProgressCallback &progress,
                                          const std::atomic<bool> *cancelled, IndexCache *cache) {
  IndexBuilder builder(options, progress, cancelled, cache);
  return builder.run();
}

const Compile *Index::compileOf(ArtifactId id) const {
  if (!id.valid() || id.value >= artifacts_.size()) return nullptr;
  CompileRef c = artifacts_[id.value].compile;
  return c.valid() && c.value < compiles_.size() ? &compiles_[c.value] : nullptr;
}

std::optional<ArtifactId> Index::findByPath(std::string_view path) const {
  std::string p = normalizePath(path);
  if (auto it = tables_->byPath.find(p); it != tables_->byPath.end()) return it->second;
  std::error_code ec;
  std::string canonical = fs::weakly_canonical(p, ec).string();
  if (!ec && canonical != p)
    for (const auto &[k, v] : tables_->byPath)
      if (fs::weakly_canonical(k, ec).string() == canonical) return v;
  return std::nullopt;
}

std::vector<ArtifactId> Index::findAllByPath(std::string_view path) const {
  if (auto it = tables_->sharedPaths.find(normalizePath(path)); it != tables_->sharedPaths.end())
    return it->second;
  if (auto first = findByPath(path)) return {*first};
  return {};
}

std::optional<ArtifactId> Index::findByVirtualName(std::string_view name) const {
  if (auto it = tables_->byVirtual.find(std::string(name)); it != tables_->byVirtual.end()) return it->second;
  return std::nullopt;
}

std::string Index::text(ArtifactId id) const {
  if (!id.valid() || id.value >= artifacts_.size()) return {};
  const Artifact &a = artifacts_[id.value];
  if (a.traceFile != UINT32_MAX && a.traceFile < tables_->logs.size()) {
    const TraceLog &log = *tables_->logs[a.traceFile];
    if (a.record < log.records().size()) {
      // A copy is returned; the payload's pages need not stay resident in this process.
      const TraceRecord &record = log.records()[a.record];
      std::string text = log.payloadText(record);
      log.releasePayloadPages(record);
      return text;
    }
  }
  for (const std::string &p : a.paths)
    if (auto text = tryReadFile(p)) return std::move(*text);
  return {};
}

SymbolAt Index::symbolAt(ArtifactId id, uint32_t line, uint32_t column) const {
  SymbolAt s;
  if (!id.valid() || id.value >= artifacts_.size()) return s;
  const Artifact &a = artifacts_[id.value];
  s.artifact = id;
  auto within = [&](uint32_t l, uint32_t c, size_t len) {
    return l == line && column >= c && column <= c + len;
  };
  for (uint32_t i = 0; i < a.launches.size(); ++i) {
    const KernelLaunch &site = a.launches[i].site;
    if (site.line == line && column >= site.column && column <= std::max(site.endColumn, site.column)) {
      s.kind = SymbolAt::Kind::Launch;
      s.index = i;
      s.line = site.line;
      s.column = site.column;
      s.endColumn = site.endColumn;
      return s;
    }
  }
  for (uint32_t i = 0; i < a.code.kernels.size(); ++i) {
    const KernelDefinition &d = a.code.kernels[i];
    bool atName = within(d.nameLine, d.nameColumn, d.name.size());
    bool atDef = d.defLine && d.defColumn && within(*d.defLine, *d.defColumn, d.name.size());
    if (atName || atDef) {
      s.kind = SymbolAt::Kind::KernelDefinition;
      s.index = i;
      s.line = atName ? d.nameLine : *d.defLine;
      s.column = atName ? d.nameColumn : *d.defColumn;
      s.endColumn = s.column + static_cast<uint32_t>(d.name.size());
      return s;
    }
  }
  if (a.kernelSource && within(a.kernelSource->line, a.kernelSource->column, a.kernelSource->name.size())) {
    s.kind = SymbolAt::Kind::KernelDefinition;
    s.index = 0;
    s.line = a.kernelSource->line;
    s.column = a.kernelSource->column;
    s.endColumn = s.column + static_cast<uint32_t>(a.kernelSource->name.size());
    return s;
  }
  for (uint32_t i = 0; i < a.graphNodes.size(); ++i) {
    const Artifact::GraphNode &n = a.graphNodes[i];
    if (within(n.line, n.column, n.name.size())) {
      s.kind = SymbolAt::Kind::GraphNode;
      s.index = i;
      s.line = n.line;
      s.column = n.column;
      s.endColumn = n.column + static_cast<uint32_t>(n.name.size());
      return s;
    }
  }
  return s;
}

std::vector<LaunchRef> Index::launchesOfDefinition(ArtifactId id, uint32_t definition) const {
  std::vector<LaunchRef> out;
  if (!id.valid() || id.value >= artifacts_.size()) return out;
  const Artifact &a = artifacts_[id.value];
  if (a.kind == ArtifactKind::KernelSource) {
    for (const auto &[wrapper, def] : a.kernelDefinitions) {
      auto more = launchesOfDefinition(wrapper, static_cast<uint32_t>(def));
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }
  for (uint32_t i = 0; i < a.launches.size(); ++i)
    if (a.launches[i].definition == static_cast<int>(definition)) out.push_back({id, i});
  return out;
}

std::vector<Origin> Index::originsOf(const SymbolAt &s) const {
  std::vector<Origin> out;
  auto add = [&](const std::vector<Origin> &os) {
    for (const Origin &o : os)
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  };
  if (!s.artifact.valid() || s.artifact.value >= artifacts_.size()) return out;
  const Artifact &a = artifacts_[s.artifact.value];
  switch (s.kind) {
  case SymbolAt::Kind::Launch:
    add(a.launches[s.index].origins);
    break;
  case SymbolAt::Kind::KernelDefinition:
    for (LaunchRef r : launchesOfDefinition(s.artifact, s.index))
      add(launch(r).origins);
    break;
  case SymbolAt::Kind::GraphNode:
    if (a.graphNodes[s.index].origin) out.push_back(*a.graphNodes[s.index].origin);
    break;
  case SymbolAt::Kind::None:
    break;
  }
  return out;
}

std::vector<LaunchRef> Index::launchesForLine(std::string_view path, uint32_t line) const {
  auto it = tables_->byUserLine.find(normalizePath(path));
  if (it == tables_->byUserLine.end()) return {};
  auto l = it->second.find(line);
  return l == it->second.end() ? std::vector<LaunchRef>{} : l->second;
}

std::vector<UserLine> Index::userLines(std::string_view path) const {
  std::vector<UserLine> out;
  auto it = tables_->byUserLine.find(normalizePath(path));
  if (it == tables_->byUserLine.end()) return out;
  for (const auto &[line, launches] : it->second)
    out.push_back({line, launches});
  return out;
}

std::vector<LaunchRef> Index::launchesForGraphNode(ArtifactId graph, uint32_t node) const {
  std::vector<LaunchRef> out;
  if (!graph.valid() || graph.value >= artifacts_.size()) return out;
  const Artifact &g = artifacts_[graph.value];
  if (node >= g.graphNodes.size()) return out;
  const std::string &name = g.graphNodes[node].name;
  if (!g.compile.valid() || g.compile.value >= compiles_.size()) return out;
  // A pre-grad graph is shared by the compiles of one compile id (forward and backward): search them all.
  for (uint32_t ci = 0; ci < compiles_.size(); ++ci) {
    const Compile &other = compiles_[ci];
    if (ci != g.compile.value &&
        std::find(other.graphs.begin(), other.graphs.end(), graph) == other.graphs.end())
      continue;
    const Artifact &a = artifacts_[other.outputCode.value];
    for (uint32_t i = 0; i < a.launches.size(); ++i) {
      const Launch &l = a.launches[i];
      const auto &nodes = g.graphRole == Artifact::GraphRole::PreGrad ? l.preGradNodes : l.postGradNodes;
      // Without mappings, the launch's own `Source Nodes` comment is the best list of what it computes; in a
      // backward graph those names are the post-grad graph's own.
      const auto &fallback = l.postGradNodes.empty() ? l.site.sourceNodes : nodes;
      if (std::find(nodes.begin(), nodes.end(), name) != nodes.end() ||
          std::find(fallback.begin(), fallback.end(), name) != fallback.end())
        out.push_back({other.outputCode, i});
    }
  }
  return out;
}

namespace {

/// Fuzzy score of `name` for `query`: case-insensitive subsequence match; higher is better; -1 if no match.
int fuzzyScore(std::string_view query, std::string_view name) {
  if (query.empty()) return 0;
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  int score = 0;
  size_t qi = 0;
  int run = 0;
  for (size_t i = 0; i < name.size() && qi < query.size(); ++i) {
    if (lower(name[i]) == lower(query[qi])) {
      ++qi;
      ++run;
      score += 1 + run * 2 + (i == 0 || name[i - 1] == '_' || name[i - 1] == '.' ? 3 : 0);
    } else {
      run = 0;
    }
  }
  if (qi < query.size()) return -1;
  return score * 100 / static_cast<int>(name.size() + 10);
}

} // namespace

std::vector<KernelSymbol> Index::searchKernels(std::string_view query, size_t limit) const {
  const Tables &t = *tables_;
  std::vector<int> nameScore(t.symbolNames.size());
  for (size_t n = 0; n < t.symbolNames.size(); ++n)
    nameScore[n] = fuzzyScore(query, t.symbolNames[n]);
  // Best score first, index order among equals; only the first `limit` are ordered.
  std::vector<std::pair<int, uint32_t>> scored;
  for (uint32_t i = 0; i < t.symbols.size(); ++i)
    if (int sc = nameScore[t.symbolNameIds[i]]; sc >= 0) scored.emplace_back(-sc, i);
  size_t n = std::min(limit, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end());
  std::vector<KernelSymbol> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back(t.symbols[scored[i].second]);
  return out;
}

} // namespace inductor::index
