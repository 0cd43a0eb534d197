// Steps 3-5 of the build pipeline (see IndexBuilder.h): compiles cut out of logs and found in files, their
// analyses (output code, graphs, provenance), copies merged by content, kernel files linked to their
// wrappers.
#include "index/IndexBuilder.h"

#include <algorithm>
#include <filesystem>
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

} // namespace detail

using namespace detail;

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
    if (p.cacheInfo >= 0) r.compile.cacheKey = fxGraphCacheKey(log.payloadText(records[p.cacheInfo]));
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
      ResolvedPath local = resolver_.resolve(path);
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

} // namespace inductor::index
