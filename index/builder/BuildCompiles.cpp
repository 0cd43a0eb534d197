// Steps 3-5 of the build pipeline (see IndexBuilder.h): compiles cut out of logs and found in files, their
// analyses (output code, graphs, provenance), copies merged by content, kernel files linked to their
// wrappers.
#include "index/builder/IndexBuilder.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <mutex>
#include <set>
#include <unordered_set>

namespace fs = std::filesystem;

namespace inductor::index {

namespace detail {

namespace {

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

} // namespace

std::vector<PendingCompile> segmentLog(uint32_t logIndex, const TraceLog &log) {
  struct Stream {
    int postGrad = -1, postGradPrio = 0;
    int preGrad = -1, preGradPrio = 0;
    int current = -1; ///< Index into `out`.
    std::map<ProvenanceSlot, int> pending;
    bool inference = false, training = false;
    int outputs = 0;
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
      if (s.inference)
        c.kindHint = GraphKind::Inference;
      else if (s.training)
        c.kindHint = s.outputs == 0 ? GraphKind::Forward : GraphKind::Backward;
      ++s.outputs;
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
    if (graph == "aot_inference_graph") s.inference = true;
    if (graph == "aot_forward_graph" || graph == "aot_joint_graph") s.training = true;
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
    // The FX graph cache key is logged right after the output code it names (compile_fx.py); the profiler's
    // `## Call CompiledFxGraph <key> ##` ranges use it (see Profile.h).
    if (r.name == "fx_graph_cache_miss" || r.name == "fx_graph_cache_hit") {
      if (s.current >= 0 && out[s.current].cacheInfo < 0) out[s.current].cacheInfo = static_cast<int>(i);
      continue;
    }
    if (auto slot = provenanceSlot(r.name)) {
      if (s.current >= 0 && slotOf(out[s.current], *slot) < 0)
        slotOf(out[s.current], *slot) = static_cast<int>(i);
      else
        s.pending[*slot] = static_cast<int>(i);
    }
  }
  return out;
}

GraphData analyzeGraphLines(const std::vector<std::string_view> &lines) {
  GraphData g;
  g.analysis = analyzeGraphDump(lines);
  g.present = true;
  g.index();
  return g;
}

void parseProvenanceInto(CompileProvenance &prov, ProvenanceSlot slot, std::string_view json,
                         std::string &error, const std::function<void(size_t)> &read) {
  switch (slot) {
  case ProvenanceSlot::NodeMappings: {
    auto m = parseNodeMappings(json);
    if (!m) {
      error = m.error().message;
      return;
    }
    // Merge: legacy artifacts may already have filled some maps. Moved, not copied (maps can be large).
    auto merge = [](NameMap &into, NameMap &from) {
      if (into.empty()) {
        into = std::move(from);
        return;
      }
      for (auto &[k, v] : from)
        into[k] = std::move(v);
    };
    merge(prov.mappings.kernelToPost, m->kernelToPost);
    merge(prov.mappings.postToPre, m->postToPre);
    merge(prov.mappings.preToPost, m->preToPost);
    merge(prov.mappings.postToKernel, m->postToKernel);
    prov.mappings.version = m->version;
    prov.hasMappings = true;
    return;
  }
  case ProvenanceSlot::StackTraces: {
    auto st = parseKernelStackTraces(json, read);
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

std::string virtualName(std::string_view logPath, uint32_t line, std::string_view title) {
  std::string name = basename(logPath);
  name.append("/").append(std::to_string(uint64_t(line) + 1)).append("/").append(title);
  return name;
}

std::optional<VirtualNameRecord> virtualNameRecord(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
  const std::string_view rest = name.substr(slash + 1);
  const size_t end = rest.find('/');
  uint64_t line = 0;
  if (end == std::string_view::npos) return std::nullopt;
  const auto [at, ec] = std::from_chars(rest.data(), rest.data() + end, line);
  if (ec != std::errc() || at != rest.data() + end || line == 0 || line > uint64_t(UINT32_MAX) + 1)
    return std::nullopt;
  return VirtualNameRecord{name.substr(0, slash), uint32_t(line - 1)};
}

} // namespace detail

using namespace detail;

ArtifactId IndexBuilder::addGraphArtifact(CompileRef compile, std::string title, std::string graphName,
                                          Artifact::GraphRole role, std::shared_ptr<const GraphData> owner,
                                          uint32_t log, uint32_t record, std::string path,
                                          const GraphData *fallback,
                                          SharedVector<Artifact::GraphNode> *nodes) {
  const GraphData &graph = *owner;
  Artifact a;
  a.graphText = std::move(owner); // The nodes' names and targets are views of it.
  a.kind = ArtifactKind::Graph;
  a.graphRole = role;
  a.language = Language::Python;
  a.compile = compile;
  a.title = std::move(title);
  a.graphName = std::move(graphName);
  a.traceFile = log;
  a.record = record;
  if (!path.empty()) a.paths.push_back(std::move(path));
  if (nodes && !nodes->empty())
    a.graphNodes = *nodes;
  else
    for (const GraphNodeDef &n : graph.analysis.nodes) {
      Artifact::GraphNode g;
      g.name = n.name;
      g.line = n.line;
      g.column = n.column;
      g.target = n.target;
      if (n.origin && *n.origin < graph.analysis.origins.size()) {
        const SourceComment &c = graph.analysis.origins[*n.origin];
        g.origin = sharedModelOrigin(c);
      } else if (const SourceComment *c = fallback ? fallback->originOf(n.name) : nullptr; c) {
        g.origin = sharedModelOrigin(*c);
      }
      a.graphNodes.edit().push_back(std::move(g));
    }
  if (nodes && nodes->empty()) *nodes = a.graphNodes;
  ArtifactId id = addArtifact(std::move(a));
  if (compile.valid() && compile.value < index_->compiles_.size())
    index_->compiles_[compile.value].graphs.push_back(id);
  return id;
}

void IndexBuilder::buildLogCompiles(std::vector<PendingCompile> pending,
                                    const std::vector<std::function<void()>> &first) {
  // Compiles whose records did not change since the previous build come from the cache; the others are
  // analysed on the workers, each writing only its own slot.
  std::vector<CompileResult> results(pending.size());
  std::vector<std::string> keys(pending.size());
  std::vector<size_t> misses;
  // A compile whose payloads are another's shares its analysis, analysed once, on the first of them: byte for
  // byte (every rank of a job with one GPU per host; a recompile that generated the same code: a Copy), or
  // up to the device (the ranks on a host's other GPUs: a Variant, with a CopyPatch of its own). copyOf[i]
  // is that first compile (i itself when analysed here). Candidates are found by the payloads' has_payload
  // digests and lengths (payloadsKey), else by their lengths and the device-blind ends of the output code
  // (payloadsLengthsKey, outputCodeEndsKey), and confirmed on the
  // workers by comparing their bytes, so different text never shares an analysis even when a digest is wrong
  // or forged: a compile that does not compare as its candidate is analysed itself.
  enum class Role : uint8_t { Analysed, Copy, Variant };
  std::vector<size_t> copyOf(pending.size());
  std::vector<Role> role(pending.size(), Role::Analysed);
  std::vector<std::shared_ptr<const CopyPatch>> patches(pending.size());
  std::unordered_map<std::string, size_t> byDigests, byShape;
  // Candidates up to the device: by their payloads' lengths, then by the ends of their output code, read
  // only when the lengths of two compiles are the same (ranks on a host's other GPUs), not for every
  // compile. Per lengths: the first compile of them while its ends are not read yet.
  std::unordered_map<std::string, std::optional<size_t>> byLengths;
  // The ends are read through the mapping, and a fault maps the page-cache folio around what it reads (up to
  // 2 MB). Nothing else reads the logs yet, so they are returned: those of the compile being looked at with
  // its log's, once the loop has left that log (the compiles come log by log: one madvise per log, not two
  // per compile, each a TLB shootdown on every core: 6,000 over 1,024 ranks); those of an earlier compile
  // read again for its group right away, that far around each end.
  std::optional<uint32_t> endsRead; // The log whose compiles' ends were read and not yet returned.
  auto shapeKey = [&](size_t j, const std::string &lengths, bool current) {
    const TraceLog &log = *tables_->logs[pending[j].log];
    std::string key = lengths + '|' + outputCodeEndsKey(pending[j], log);
    if (current) {
      endsRead = pending[j].log;
      return key;
    }
    const TraceRecord &out = log.records()[static_cast<size_t>(pending[j].output)];
    constexpr uint64_t kAround = uint64_t{2} << 20;
    for (uint64_t end : {out.payloadBegin, out.payloadEnd})
      log.releasePages(end > kAround ? end - kAround : 0, 2 * kAround);
    return key;
  };
  auto returnEnds = [&] {
    if (endsRead) tables_->logs[*endsRead]->releasePages();
    endsRead.reset();
  };
  for (size_t i = 0; i < pending.size(); ++i) {
    copyOf[i] = i;
    if (endsRead && *endsRead != pending[i].log) returnEnds();
    const TraceLog &log = *tables_->logs[pending[i].log];
    keys[i] = compileKey(pending[i], log, lineages_[pending[i].log]);
    if (cache_)
      if (auto it = cache_->state_->compiles.find(keys[i]); it != cache_->state_->compiles.end())
        results[i] = it->second;
    // A compile from the cache is a candidate all the same: one new to this build with its payloads (a rank
    // read after the first, IndexOptions::deferRanksOver; a recompile appended that generated the same code)
    // shares its analysis, as it would in one build, and is listed once with it (linkCopies).
    const bool reused = results[i].analysis != nullptr;
    if (!reused) misses.push_back(i);
    if (std::string digests = payloadsKey(pending[i], log); !digests.empty()) {
      auto [it, fresh] = byDigests.try_emplace(std::move(digests), i);
      if (!fresh) {
        if (!reused) {
          copyOf[i] = it->second;
          role[i] = Role::Copy;
        }
        continue;
      }
    }
    std::string lengths = payloadsLengthsKey(pending[i], log);
    if (lengths.empty()) continue;
    auto [group, fresh] = byLengths.try_emplace(lengths, i);
    // A compile from the cache is a candidate up to the device only as the first of its lengths (its ends are
    // read only if a new compile has them too): a build that reuses every rank reads no ends.
    if (fresh || reused) continue;
    if (std::optional<size_t> &unread = group->second) {
      byShape.try_emplace(shapeKey(*unread, lengths, pending[*unread].log == pending[i].log), *unread);
      unread.reset();
    }
    auto [it, freshShape] = byShape.try_emplace(shapeKey(i, lengths, true), i);
    if (!freshShape) {
      copyOf[i] = it->second;
      role[i] = Role::Variant;
    }
  }
  returnEnds();
  // A forward and its backward read the same pre-grad graph record: the first compile of the log reading a
  // record keeps its analysis (merged first, it makes the graph's artifact); the others drop theirs once
  // their launches are resolved.
  std::vector<bool> preGradAnalysedEarlier(pending.size(), false);
  {
    std::set<std::pair<uint32_t, int>> seen;
    for (size_t i = 0; i < pending.size(); ++i)
      if (pending[i].preGrad >= 0 && !seen.emplace(pending[i].log, pending[i].preGrad).second)
        preGradAnalysedEarlier[i] = true;
  }
  std::atomic<size_t> done{0};
  // Payloads are read through the mapping, and fault-around maps the pages around every payload: over a whole
  // log that is most of it. Returning a log's pages every few compiles keeps the peak resident set near the
  // heap; pages another worker still reads fault back in from the page cache.
  // Every 16 compiles, or every 2 MB of payloads analysed (one large log of a few big compiles): a fault
  // maps the whole page-cache folio around the byte read (up to 2 MB), so even a compile of small payloads
  // maps a few MB of the log; 16 MB steps were half of a 115 MB log's peak resident set.
  std::vector<std::atomic<uint32_t>> analysedPerLog(tables_->logs.size());
  std::vector<std::atomic<uint64_t>> bytesPerLog(tables_->logs.size());
  constexpr uint32_t kReleaseEvery = 16;
  constexpr uint64_t kReleaseBytes = uint64_t{2} << 20;
  constexpr uint64_t kReleaseLarge = uint64_t{1} << 20;
  constexpr uint64_t kReleaseBehind = uint64_t{1} << 20;
  // Logs of first copies held resident between the comparisons that use them, in all (holdReference).
  constexpr uint64_t kHeldReferenceBytes = uint64_t{16} << 20;
  // And at most this many (the lookup among them is linear; a job compares with a few).
  constexpr size_t kHeldReferences = 8;
  std::atomic<size_t> analysedCount{0};
  auto analyse = [&](size_t i) {
    ++analysedCount;
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

    // Payloads past their limit (IndexLimits) are not analysed; the compile keeps what the rest gives.
    auto withinLimit = [&](const TraceRecord &rec, size_t limit, std::string_view what) {
      uint64_t bytes = rec.payloadEnd - rec.payloadBegin;
      if (bytes <= limit) return true;
      r.diagnostics.push_back({log.path(), rec.line,
                               std::string(what) + " of " + std::to_string(bytes >> 20) +
                                   " MB exceeds the limit of " + std::to_string(limit >> 20) +
                                   " MB: not analysed"});
      return false;
    };
    // A large payload (a stack-trace map of a big model: several MB) is returned as soon as it is read: two
    // workers each holding a few of them mapped were most of a large log's peak resident set.
    auto releaseLarge = [&](const TraceRecord &rec) {
      if (rec.payloadEnd - rec.payloadBegin >= kReleaseLarge) log.releasePayloadPages(rec);
    };
    Artifact &a = r.code;
    a.kind = p.cpp ? ArtifactKind::WrapperCode : ArtifactKind::OutputCode;
    a.language = p.cpp ? Language::Cpp : Language::Python;
    a.traceFile = p.log;
    a.record = static_cast<uint32_t>(p.output);
    if (withinLimit(out, IndexLimits::kCodeBytes, p.cpp ? "wrapper code" : "output code")) {
      auto lines = log.payloadLines(out);
      r.hash = identityHash(lines);
      a.code = p.cpp ? analyzeCppWrapper(lines) : analyzePythonWrapper(lines);
      releaseLarge(out);
    } else {
      r.hash = std::hash<std::string>{}(log.path()) ^ out.envelopeOffset; // Merged with nothing.
    }
    r.compile.aotId = a.code.aotId;
    r.compile.graphKind = a.code.graphKind;
    // JIT output code without `# AOT ID:` (cpp_wrapper); AOTInductor's wrappers are labelled as such.
    if (r.compile.graphKind == GraphKind::Unknown && !p.cpp) r.compile.graphKind = p.kindHint;
    if (!out.filename.empty()) {
      ResolvedPath local = resolver_->resolve(out.filename);
      if (local.exists && mayRead(local.path)) a.paths.push_back(local.path);
    }

    CompileProvenance prov;
    auto parse = [&](int rec, ProvenanceSlot slot) {
      if (rec < 0 || !withinLimit(records[rec], IndexLimits::kProvenanceBytes, "provenance payload")) return;
      // JSON payloads are one line (json.dumps): read in place, not copied.
      std::vector<std::string_view> lines = log.payloadLines(records[rec]);
      std::string joined;
      std::string_view json =
          lines.size() == 1 ? lines[0] : std::string_view(joined = log.payloadText(records[rec]));
      std::string error;
      // Read in place: the pages behind the parse are returned every few MB (release-behind, as the scan
      // does), or two workers each parsing a stack-trace map of several MB hold them all.
      std::function<void(size_t)> read;
      uint64_t released = 0;
      const std::string_view mapped = log.text();
      std::less<const char *> before; // The joined text of a multi-line payload is not in the mapping.
      if (!before(json.data(), mapped.data()) && before(json.data(), mapped.data() + mapped.size()))
        read = [&](size_t n) {
          if (n - released < kReleaseBehind) return;
          log.releasePages(uint64_t(json.data() - mapped.data()) + released, n - released);
          released = n;
        };
      parseProvenanceInto(prov, slot, json, error, read);
      if (!error.empty())
        r.diagnostics.push_back({log.path(), records[rec].line, "skipped provenance record: " + error});
      releaseLarge(records[rec]);
    };
    parse(p.kernelToPost, ProvenanceSlot::KernelToPost);
    parse(p.postToPre, ProvenanceSlot::PostToPre);
    parse(p.nodeMappings, ProvenanceSlot::NodeMappings);
    parse(p.stackTraces, ProvenanceSlot::StackTraces);
    if (p.cacheInfo >= 0) r.compile.cacheKey = fxGraphCacheKey(log.payloadText(records[p.cacheInfo]));
    if (p.postGrad >= 0 && withinLimit(records[p.postGrad], IndexLimits::kGraphBytes, "graph")) {
      r.post = analyzeGraphLines(log.payloadLines(records[p.postGrad]));
      releaseLarge(records[p.postGrad]);
    }
    if (p.preGrad >= 0 && withinLimit(records[p.preGrad], IndexLimits::kGraphBytes, "graph")) {
      r.pre = analyzeGraphLines(log.payloadLines(records[p.preGrad]));
      releaseLarge(records[p.preGrad]);
    }
    resolveLaunches(a, prov, r.post, r.pre);
    // The node indexes served resolveLaunches only (graph artifacts use the nodes themselves).
    r.post.nodeIndex = {};
    r.pre.nodeIndex = {};
    if (r.pre.present && preGradAnalysedEarlier[i]) {
      r.pre.analysis = {};
      r.pre.analysedEarlier = true;
    }
    results[i].analysis = std::move(analysis);
    uint64_t bytes = payloadBytes(p, log);
    uint64_t before = bytesPerLog[p.log].fetch_add(bytes);
    bool crossed = before / kReleaseBytes != (before + bytes) / kReleaseBytes;
    if (++analysedPerLog[p.log] % kReleaseEvery == 0 || crossed) log.releasePages();
  };
  // What a Variant names of its own (CopyPatch): read from its text, at the lines the shared analysis took.
  auto patchOf = [&](size_t i) {
    const PendingCompile &p = pending[i];
    const TraceLog &log = *tables_->logs[p.log];
    const TraceRecord &out = log.records()[p.output];
    auto patch = std::make_shared<CopyPatch>();
    if (out.payloadEnd - out.payloadBegin <= IndexLimits::kCodeBytes) {
      auto lines = log.payloadLines(out);
      patch->hash = identityHash(lines);
      for (uint32_t l = 0; l < lines.size(); ++l)
        if (auto path = kernelPathOfLine(lines[l])) patch->kernelPaths.emplace_back(l, std::string(*path));
    } else {
      patch->hash = std::hash<std::string>{}(log.path()) ^ out.envelopeOffset; // As its analysis would.
    }
    if (!out.filename.empty()) {
      ResolvedPath local = resolver_->resolve(out.filename);
      if (local.exists && mayRead(local.path)) patch->paths.push_back(local.path);
    }
    if (p.cacheInfo >= 0) patch->cacheKey = fxGraphCacheKey(log.payloadText(log.records()[p.cacheInfo]));
    return patch;
  };
  // The logs of first copies held resident between the comparisons that use them, oldest first, at most
  // kHeldReferences of them and kHeldReferenceBytes in all (a larger log is returned after each comparison,
  // as the copy's is): the ranks of a job compare with a few logs (ranks_diverge's four kinds of rank), again
  // and again.
  std::mutex heldMutex;
  std::vector<uint32_t> held;
  uint64_t heldBytes = 0;
  auto holdReference = [&](uint32_t logIndex) {
    const TraceLog &reference = *tables_->logs[logIndex];
    uint64_t bytes = reference.stats().bytes;
    if (bytes > kHeldReferenceBytes) return reference.releasePages();
    std::lock_guard<std::mutex> lock(heldMutex);
    if (std::find(held.begin(), held.end(), logIndex) != held.end()) return;
    while (!held.empty() && (heldBytes + bytes > kHeldReferenceBytes || held.size() >= kHeldReferences)) {
      const TraceLog &oldest = *tables_->logs[held.front()];
      heldBytes -= oldest.stats().bytes;
      oldest.releasePages();
      held.erase(held.begin());
    }
    held.push_back(logIndex);
    heldBytes += bytes;
  };
  parallelFor(first.size() + misses.size(), [&](size_t task) {
    if (task < first.size()) return first[task]();
    size_t i = misses[task - first.size()];
    const PendingCompile &p = pending[i];
    const TraceLog &log = *tables_->logs[p.log];
    if (role[i] == Role::Analysed) {
      analyse(i);
    } else {
      const PendingCompile &c = pending[copyOf[i]];
      const TraceLog &clog = *tables_->logs[c.log];
      PayloadMatch m = role[i] == Role::Copy
                           ? (samePayloads(p, log, c, clog) ? PayloadMatch::Same : PayloadMatch::Different)
                           : comparePayloads(c, clog, p, log);
      if (m == PayloadMatch::Same) {
        role[i] = Role::Copy;
      } else if (m == PayloadMatch::SameUpToDevice) {
        patches[i] = patchOf(i);
      } else {
        role[i] = Role::Analysed;
        copyOf[i] = i;
        analyse(i);
      }
      // Both logs' pages, read whole by the comparison, are returned after it: one madvise per log and
      // compile compared, and the compared payloads are not read again (a 100 MB mix of small logs held 5 MB
      // more at its peak when they were returned with the analyses', every 2 MB read). But the first
      // copy's log, when small, is held while the comparisons use it: the next rank's copy is compared with
      // it again (1,023 times over 1,024 ranks of a 1.4 MB log: each madvise a TLB shootdown on every core,
      // and the payloads faulted in again; a quarter of the first answer). See holdReference.
      log.releasePages();
      holdReference(c.log);
    }
    size_t n = ++done;
    if (n == misses.size() || n % 4 == 0)
      report(Step::Analysing, double(n) / double(misses.size()),
             "analysing output code: " + std::to_string(n) + " of " + std::to_string(misses.size()) +
                 (misses.size() == 1 ? " compile" : " compiles"));
  });
  if (cancelled()) return;
  // In order: a compile's candidate comes before it, and is resolved first.
  for (size_t i : misses)
    if (role[i] == Role::Copy)
      results[i] = results[copyOf[i]];
    else if (role[i] == Role::Variant)
      results[i] = {results[copyOf[i]].analysis, patches[i]};
  // A log cut while its payloads were analysed read zeros past the cut (MappedFile's guard): its compiles are
  // left out, and neither it nor their analyses are kept for the next build, which reads it again.
  std::vector<bool> cut(tables_->logs.size(), false);
  for (size_t l = 0; l < tables_->logs.size(); ++l) {
    if (tables_->logs[l]->fileState() != FileState::Truncated) continue;
    cut[l] = true;
    const std::string &path = tables_->logs[l]->path();
    next_.logs.erase(path);
    diag(path, 0,
         "the file was truncated while it was indexed: its compiles are left out until it is read again");
  }
  index_->stats_.compilesAnalysed = analysedCount;
  next_.last.compilesAnalysed = analysedCount;
  next_.last.compilesReused = pending.size() - misses.size();
  for (size_t i = 0; i < pending.size(); ++i)
    if (!cut[pending[i].log]) next_.compiles.emplace(keys[i], results[i]);

  // Sequential merge: ids, graph artifacts (a pre-grad graph shared by forward and backward is one artifact).
  // Analyses may be shared with the cache: they are copied, never changed.
  std::map<std::pair<uint32_t, int>, ArtifactId> graphByRecord;
  // The graph nodes made of each analysed graph, shared by the artifacts of every compile that shares the
  // analysis (keyed by address: the analyses in `results` live until this function returns).
  std::unordered_map<const GraphData *, SharedVector<Artifact::GraphNode>> nodesOf;
  // Several output codes of one compile, graph kind and log (DDPOptimizer compiles each bucket's submodule
  // under the frame's compile id; an FX graph cache hit logs the code again): numbered in log order, so
  // that their titles differ. Key: log, compile id, graph kind, wrapper language.
  auto sameTitleKey = [&](size_t i) {
    const PendingCompile &p = pending[i];
    return std::make_tuple(p.log, p.id.traceStr(),
                           results[i].analysis ? results[i].analysis->compile.graphKind : GraphKind::Unknown,
                           p.cpp);
  };
  std::map<decltype(sameTitleKey(0)), std::pair<uint32_t, uint32_t>> sameTitle; // Key -> (total, seen).
  for (size_t i = 0; i < results.size(); ++i)
    if (!cut[pending[i].log]) ++sameTitle[sameTitleKey(i)].first;
  for (size_t i = 0; i < results.size(); ++i) {
    if (cancelled()) break;
    const PendingCompile &p = pending[i];
    if (cut[p.log]) continue;
    const CompileAnalysis &r = *results[i].analysis;
    const CopyPatch *patch = results[i].patch.get();
    const TraceLog &log = *tables_->logs[p.log];
    // A shared analysis (a copy's, or one kept by the cache) names the compile it was made for: what is this
    // compile's own comes from its records. Its diagnostics are about the text, reported once, for the first.
    if (copyOf[i] == i)
      for (const IndexDiagnostic &d : r.diagnostics)
        index_->diagnostics_.push_back(d);
    CompileRef ref{static_cast<uint32_t>(index_->compiles_.size())};
    Compile c = r.compile;
    c.id = p.id;
    c.rank = p.rank;
    c.traceFile = log.path();
    std::string label = c.label();
    std::string ext = p.cpp ? ".cpp" : ".py";
    auto &[total, seen] = sameTitle[sameTitleKey(i)];
    std::string nth = total > 1 ? " (" + std::to_string(++seen) + " of " + std::to_string(total) + ")" : "";
    Artifact code = r.code;
    code.contentHash = r.hash;
    if (patch) {
      code.contentHash = patch->hash;
      code.paths = patch->paths;
      c.cacheKey = patch->cacheKey;
      // Its own kernel files, at the lines the shared analysis took them from (the texts have the same
      // lines).
      for (KernelDefinition &k : code.code.kernels) {
        if (k.kernelPath.empty()) continue;
        auto it = std::lower_bound(patch->kernelPaths.begin(), patch->kernelPaths.end(),
                                   std::pair<uint32_t, std::string>(k.kernelPathLine, ""));
        k.kernelPath = it != patch->kernelPaths.end() && it->first == k.kernelPathLine ? it->second : "";
      }
    }
    code.traceFile = p.log;
    code.record = static_cast<uint32_t>(p.output);
    code.compile = ref;
    code.title = label;
    code.title.append(p.cpp ? " wrapper code" : " output code").append(nth);
    code.virtualName = virtualName(log.path(), log.records()[p.output].line,
                                   slug(label) + (p.cpp ? "-wrapper_code" : "-output_code") + ext);
    uint64_t contentHash = code.contentHash;
    c.outputCode = addArtifact(std::move(code));
    byContent_[contentHash].push_back(c.outputCode);
    if (patchOf_.size() <= c.outputCode.value) patchOf_.resize(c.outputCode.value + 1);
    patchOf_[c.outputCode.value] = results[i].patch;
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
      title.append(" ").append(what).append(" (").append(name).append(")").append(nth);
      std::shared_ptr<const GraphData> owner(results[i].analysis, &g); // Kept alive by the analysis.
      if (g.analysedEarlier) {
        // The compile that kept the analysis is not in this build (an analysis shared across logs, or kept
        // by the cache from a log read differently): analysed again, here.
        auto again = std::make_shared<GraphData>(analyzeGraphLines(log.payloadLines(tr)));
        again->nodeIndex = {};
        owner = std::move(again);
      }
      SharedVector<Artifact::GraphNode> &nodes = nodesOf[owner.get()];
      if (nodes.empty() && cache_ && !g.analysedEarlier)
        if (auto it = cache_->state_->graphNodes.find(&g); it != cache_->state_->graphNodes.end())
          nodes = it->second.nodes;
      ArtifactId id = addGraphArtifact(CompileRef{}, std::move(title), name, role, owner, p.log,
                                       static_cast<uint32_t>(rec), "", nullptr, &nodes);
      if (cache_ && !g.analysedEarlier) next_.graphNodes.try_emplace(&g, CachedGraphNodes{owner, nodes});
      index_->artifacts_[id.value].compile = ref;
      c.graphs.push_back(id);
      index_->artifacts_[id.value].virtualName =
          virtualName(log.path(), tr.line, slug(label) + "-" + name + ".py");
      graphByRecord.emplace(key, id);
      return id;
    };
    c.postGradGraph = graphArtifact(p.postGrad, r.post, "post-grad graph", Artifact::GraphRole::PostGrad);
    c.preGradGraph = graphArtifact(p.preGrad, r.pre, "pre-grad graph", Artifact::GraphRole::PreGrad);
    index_->compiles_.push_back(std::move(c));
  }
}

namespace {

/// For a graph dump of a debug directory without `# File:` comments (fx_graph_runnable.py prints the graph
/// of fx_graph_readable.py as a repro): the directory's readable graph, whose nodes have the same names and
/// carry the comments; else another graph of the directory that has comments; nullptr when none does.
const GraphData *commentedGraph(const std::vector<std::string> &paths, const std::vector<GraphData> &graphs,
                                size_t self) {
  if (!graphs[self].analysis.origins.empty()) return nullptr;
  const GraphData *any = nullptr;
  for (size_t i = 0; i < graphs.size(); ++i) {
    if (i == self || graphs[i].analysis.origins.empty()) continue;
    if (basename(paths[i]) == "fx_graph_readable.py") return &graphs[i];
    if (!any) any = &graphs[i];
  }
  return any;
}

} // namespace

void IndexBuilder::buildFileCompiles(const DiscoveredInputs &inputs) {
  // Output code found in files: a copy of a log's output code only adds its path; anything else is a compile
  // of its own, with the provenance and graphs of its directory.
  std::vector<CompileFiles> units = inputs.compiles;
  for (const std::string &src : inputs.cacheSources) {
    auto text = readInput(src, IndexLimits::kCodeBytes, "cache source");
    if (!text || !looksLikeWrapperCode(splitLines(*text))) continue;
    CompileFiles f;
    f.outputCode = src;
    std::string debugDir = src.substr(0, src.size() - 3) + ".debug";
    std::error_code ec;
    if (fs::is_directory(debugDir, ec)) {
      for (const char *g : {"fx_graph_transformed.py", "fx_graph_readable.py", "fx_graph_runnable.py"})
        if (std::string graph = debugDir + "/" + g; fs::is_regular_file(graph, ec) && mayRead(graph))
          f.graphs.push_back(graph);
    }
    units.push_back(f);
  }
  // A graph file's analysis, or an empty one when it cannot be read.
  auto graphFile = [&](const std::string &path, uint64_t &hash) {
    auto read = readInput(path, IndexLimits::kGraphBytes, "graph");
    std::string text = read ? std::move(*read) : std::string();
    TextLines lines = splitLines(text);
    hash = identityHash(lines);
    return analyzeGraphLines(lines);
  };
  std::unordered_set<std::string> known; // Paths already attached to an artifact (from log metadata).
  for (const Artifact &a : index_->artifacts_)
    known.insert(a.paths.begin(), a.paths.end());
  for (const CompileFiles &unit : units) {
    if (cancelled()) return;
    if (known.count(unit.outputCode)) continue;
    auto read = readInput(unit.outputCode, IndexLimits::kCodeBytes, "output code");
    if (!read) continue;
    if (read->empty()) {
      diag(unit.outputCode, 0, "cannot read output code");
      continue;
    }
    const std::string &text = *read;
    TextLines lines = splitLines(text);
    uint64_t h = identityHash(lines);
    // Of several runs, a cache file (shared by runs) is the run's only as a copy of its output code.
    if (restrictedToRun() && !byContent_.count(h) && !inSelectedRunDebugDir(unit.outputCode)) continue;
    if (auto it = byContent_.find(h); it != byContent_.end()) {
      // Every compile with this text (ranks writing the same cache file) gets the copy, so that all of them
      // point to the same preferred file.
      for (ArtifactId same : it->second) {
        auto &paths = index_->artifacts_[same.value].paths;
        if (std::find(paths.begin(), paths.end(), unit.outputCode) == paths.end())
          paths.push_back(unit.outputCode);
      }
      // The directory's graph dumps still serve navigation in their own files.
      CompileRef ref = index_->artifacts_[it->second.front().value].compile;
      std::string label = ref.valid() ? index_->compiles_[ref.value].label() : "";
      // Shared: the artifacts' nodes view them.
      auto graphs = std::make_shared<std::vector<GraphData>>();
      std::vector<uint64_t> hashes;
      for (const std::string &g : unit.graphs) {
        hashes.emplace_back();
        graphs->push_back(graphFile(g, hashes.back()));
      }
      for (size_t g = 0; g < unit.graphs.size(); ++g) {
        if (!known.insert(unit.graphs[g]).second) continue;
        // The cache's `c<hash>.debug/` and TORCH_COMPILE_DEBUG hold the same dumps: one artifact, two paths.
        auto key = std::make_tuple(ref.value, basename(unit.graphs[g]), hashes[g]);
        if (auto same = fileGraphs_.find(key); ref.valid() && same != fileGraphs_.end()) {
          index_->artifacts_[same->second.value].paths.push_back(unit.graphs[g]);
          continue;
        }
        ArtifactId id = addGraphArtifact(ref, label + " " + basename(unit.graphs[g]),
                                         basename(unit.graphs[g]), Artifact::GraphRole::PostGrad,
                                         std::shared_ptr<const GraphData>(graphs, &(*graphs)[g]), UINT32_MAX,
                                         UINT32_MAX, unit.graphs[g], commentedGraph(unit.graphs, *graphs, g));
        fileGraphs_.emplace(key, id);
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
    a.contentHash = h;
    Compile c;
    c.aoti = cpp;
    c.aotId = a.code.aotId;
    c.graphKind = a.code.graphKind;
    // Output code without `# AOT ID:` (cpp_wrapper): the debug directory's name says
    // (`model__0_inference_0.0`).
    if (c.graphKind == GraphKind::Unknown)
      for (auto [word, kind] :
           {std::pair{"_inference_", GraphKind::Inference}, std::pair{"_forward_", GraphKind::Forward},
            std::pair{"_backward_", GraphKind::Backward}})
        if (unit.graphName.find(word) != std::string::npos) c.graphKind = kind;
    CompileProvenance prov;
    auto parseFile = [&](const std::string &path, ProvenanceSlot slot) {
      if (path.empty()) return;
      auto json = readInput(path, IndexLimits::kProvenanceBytes, "provenance");
      if (!json) return;
      std::string error;
      parseProvenanceInto(prov, slot, *json, error);
      if (!error.empty()) diag(path, 0, "skipped provenance file: " + error);
    };
    parseFile(unit.nodeMappings, ProvenanceSlot::NodeMappings);
    parseFile(unit.stackTraces, ProvenanceSlot::StackTraces);
    if (!unit.kernelInformation.empty()) {
      if (auto json =
              readInput(unit.kernelInformation, IndexLimits::kProvenanceBytes, "kernel information")) {
        auto info = parseKernelInformation(*json);
        if (info)
          prov.kernelInformation = std::move(*info);
        else
          diag(unit.kernelInformation, 0, "skipped kernel information: " + info.error().message);
      }
    }
    // fx_graph_transformed.py is the post-grad graph and fx_graph_readable.py the graph Inductor was given:
    // both use post-grad node names (discovery lists the transformed one first). No pre-grad graph is dumped
    // there.
    GraphData none;
    auto graphs = std::make_shared<std::vector<GraphData>>(); // Shared: the artifacts' nodes view them.
    std::vector<uint64_t> hashes;
    for (const std::string &g : unit.graphs) {
      hashes.emplace_back();
      graphs->push_back(graphFile(g, hashes.back()));
    }
    resolveLaunches(a, prov, graphs->empty() ? none : graphs->front(), none);
    CompileRef ref{static_cast<uint32_t>(index_->compiles_.size())};
    a.compile = ref;
    std::string label = c.label();
    a.title = label + (unit.graphName.empty() ? "" : " " + unit.graphName) +
              (cpp ? " wrapper code" : " output code");
    c.outputCode = addArtifact(std::move(a));
    byContent_[h].push_back(c.outputCode);
    index_->compiles_.push_back(std::move(c));
    for (size_t g = 0; g < unit.graphs.size(); ++g) {
      known.insert(unit.graphs[g]);
      ArtifactId id = addGraphArtifact(ref, label + " " + basename(unit.graphs[g]), basename(unit.graphs[g]),
                                       Artifact::GraphRole::PostGrad,
                                       std::shared_ptr<const GraphData>(graphs, &(*graphs)[g]), UINT32_MAX,
                                       UINT32_MAX, unit.graphs[g], commentedGraph(unit.graphs, *graphs, g));
      fileGraphs_.emplace(std::make_tuple(ref.value, basename(unit.graphs[g]), hashes[g]), id);
      if (g == 0) index_->compiles_[ref.value].postGradGraph = id;
    }
  }
}

void IndexBuilder::linkKernelSources(const std::vector<std::string> &cacheSources) {
  // Kernel files named by `# kernel path:` comments, plus the cache's kernel files found by discovery.
  std::map<std::string, ArtifactId> byPath;
  auto kernelFile = [&](const std::string &path) -> ArtifactId {
    if (auto it = byPath.find(path); it != byPath.end()) return it->second;
    auto text = readInput(path, IndexLimits::kCodeBytes, "kernel source");
    TextLines lines;
    std::optional<KernelSourceFile> src;
    if (text) {
      lines = splitLines(*text);
      src = analyzeKernelSource(lines);
    }
    if (!src) {
      byPath.emplace(path, ArtifactId{});
      return {};
    }
    Artifact a;
    a.kind = ArtifactKind::KernelSource;
    a.language = Language::Python;
    a.title = src->name + " (kernel source)";
    a.paths.push_back(path);
    a.contentHash = identityHash(lines);
    a.kernelSource = std::move(src);
    ArtifactId id = addArtifact(std::move(a));
    byPath.emplace(path, id);
    return id;
  };
  // kernelFile() appends to artifacts_: no reference into it may be held across the call, so the kernel paths
  // of each wrapper are read first and the links made after.
  size_t n = index_->artifacts_.size();
  for (size_t i = 0; i < n; ++i) {
    if (index_->artifacts_[i].kind != ArtifactKind::OutputCode) continue;
    std::vector<std::pair<size_t, std::string>> paths; // (definition, kernel path)
    for (size_t d = 0; d < index_->artifacts_[i].code.kernels.size(); ++d)
      if (const std::string &p = index_->artifacts_[i].code.kernels[d].kernelPath; !p.empty())
        paths.emplace_back(d, p);
    for (const auto &[d, path] : paths) {
      ResolvedPath local = resolver_->resolve(path);
      if (!local.exists || !mayRead(local.path)) continue;
      ArtifactId k = kernelFile(local.path);
      if (k.valid())
        index_->artifacts_[k.value].kernelDefinitions.emplace_back(ArtifactId{static_cast<uint32_t>(i)},
                                                                   static_cast<int>(d));
    }
  }
  for (const std::string &src : cacheSources)
    if (!byPath.count(src)) {
      auto text = readInput(src, IndexLimits::kCodeBytes, "cache source");
      if (text && !looksLikeWrapperCode(splitLines(*text))) kernelFile(src);
    }
}

std::optional<std::string> IndexBuilder::readInput(const std::string &path, size_t maxBytes,
                                                   std::string_view what) {
  auto text = readFileBounded(path, maxBytes);
  if (text) return std::move(*text);
  diag(path, 0, std::string(what) + ": " + text.error().message);
  return std::nullopt;
}

} // namespace inductor::index
