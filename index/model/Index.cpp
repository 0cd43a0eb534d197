// The queries of a built Index (see Index.h). Every function here is a pure function of the frozen index.
#include "index/model/IndexTables.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fs = std::filesystem;

namespace inductor::index {

using namespace detail;

namespace detail {

/// Identity of generated code across its copies. The copies agree line for line but not at the end: the
/// cache's `*.wrapper.cpp` appends `// Compile cmd` comments, TORCH_COMPILE_DEBUG's `output_code.cpp` a `//
/// Triton kernels are embedded ...` note, and log payloads end with blank lines. So trailing blank and
/// comment-only lines are not part of the identity; every position before them is the same in every copy.
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

} // namespace detail

const Compile *Index::compileOf(ArtifactId id) const {
  if (!id.valid() || id.value >= artifacts_.size()) return nullptr;
  CompileRef c = artifacts_[id.value].compile;
  return c.valid() && c.value < compiles_.size() ? &compiles_[c.value] : nullptr;
}

std::optional<ArtifactId> Index::findByPath(std::string_view path) const {
  std::string p = normalizePath(path);
  const Tables &t = *tables_;
  if (auto it = t.byPath.find(p); it != t.byPath.end()) return it->second;
  if (t.byPath.empty()) return std::nullopt; // Log-only traces: no file is an artifact.
  std::error_code ec;
  std::string canonical = fs::weakly_canonical(p, ec).string();
  if (ec || canonical == p) return std::nullopt;
  std::call_once(t.canonicalOnce, [&] {
    for (const auto &[k, v] : t.byPath) {
      std::error_code kec;
      std::string c = fs::weakly_canonical(k, kec).string();
      if (!kec) t.byCanonical.try_emplace(std::move(c), v);
    }
  });
  if (auto it = t.byCanonical.find(canonical); it != t.byCanonical.end()) return it->second;
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

Expected<std::string> Index::readText(ArtifactId id) const {
  if (!id.valid() || id.value >= artifacts_.size()) return Error{"no such artifact"};
  const Artifact &a = artifacts_[id.value];
  const auto tooLarge = [](uint64_t bytes) {
    return Error{"the text is " + std::to_string(bytes >> 20) + " MB, over the limit of " +
                 std::to_string(IndexLimits::kServedTextBytes >> 20) + " MB served per request"};
  };
  if (a.traceFile != UINT32_MAX && a.traceFile < tables_->logs.size()) {
    const TraceLog &log = *tables_->logs[a.traceFile];
    if (a.record < log.records().size()) {
      const TraceRecord &record = log.records()[a.record];
      if (record.payloadEnd - record.payloadBegin > IndexLimits::kServedTextBytes)
        return tooLarge(record.payloadEnd - record.payloadBegin);
      // A copy is returned; the payload's pages need not stay resident in this process.
      Expected<std::string> text = log.readPayload(record);
      log.releasePayloadPages(record);
      return text;
    }
  }
  std::optional<Error> last;
  for (const std::string &p : a.paths) {
    // Judged now, not at indexing: the file may have been replaced by a link out of the roots since.
    auto text = readPolicy_.read(p, IndexLimits::kServedTextBytes);
    if (text) return std::move(*text);
    last = text.error();
  }
  return last ? *last : Error{"the artifact has no text"};
}

uint64_t Index::nextSerial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::optional<TextLines> Index::textLinesInLog(ArtifactId id) const {
  if (!id.valid() || id.value >= artifacts_.size()) return std::nullopt;
  const Artifact &a = artifacts_[id.value];
  if (a.traceFile == UINT32_MAX || a.traceFile >= tables_->logs.size()) return std::nullopt;
  const TraceLog &log = *tables_->logs[a.traceFile];
  if (a.record >= log.records().size() || log.fileState() != FileState::Unchanged) return std::nullopt;
  const TraceRecord &record = log.records()[a.record];
  if (record.payloadEnd - record.payloadBegin > IndexLimits::kServedTextBytes) return std::nullopt;
  return log.payloadLines(record);
}

ArtifactId Index::firstCopy(ArtifactId id) const {
  if (!id.valid() || id.value >= tables_->firstCopy.size()) return id;
  return ArtifactId{tables_->firstCopy[id.value]};
}

ArtifactId Index::firstEquivalent(ArtifactId id) const {
  if (!id.valid() || id.value >= tables_->firstEquivalent.size()) return id;
  return ArtifactId{tables_->firstEquivalent[id.value]};
}

std::string Index::text(ArtifactId id) const {
  Expected<std::string> text = readText(id);
  return text ? std::move(*text) : std::string();
}

GeneratedCodeMatch Index::matchGeneratedCode(std::string_view text, bool cpp) const {
  GeneratedCodeMatch out;
  TextLines lines = splitLines(text);
  if (lines.empty()) return out;
  if (auto it = tables_->byContent.find(identityHash(lines)); it != tables_->byContent.end()) {
    out.artifacts = it->second;
    out.exact = true;
    return out;
  }
  OutputCodeAnalysis code = cpp ? analyzeCppWrapper(lines) : analyzePythonWrapper(lines);
  if (!code.launches.empty()) {
    // Launch keys and kernel names, as one set per side; the best Jaccard index wins, ties kept.
    std::unordered_set<std::string> keys;
    for (const KernelLaunch &l : code.launches)
      keys.insert(l.key());
    for (const KernelDefinition &k : code.kernels)
      keys.insert("def " + k.name);
    double best = 0.5;
    for (uint32_t i = 0; i < artifacts_.size(); ++i) {
      const Artifact &a = artifacts_[i];
      if (a.kind != ArtifactKind::OutputCode && a.kind != ArtifactKind::WrapperCode) continue;
      if ((a.language == Language::Cpp) != (code.language == OutputCodeAnalysis::Language::Cpp)) continue;
      std::unordered_set<std::string> theirs;
      for (const Launch &l : a.launches)
        theirs.insert(l.site.key());
      for (const KernelDefinition &k : a.code.kernels)
        theirs.insert("def " + k.name);
      size_t common = 0;
      for (const std::string &k : theirs)
        common += keys.count(k);
      double score = double(common) / double(keys.size() + theirs.size() - common);
      if (score > best + 1e-9) {
        best = score;
        out.artifacts = {ArtifactId{i}};
      } else if (score >= best - 1e-9 && !out.artifacts.empty()) {
        out.artifacts.push_back(ArtifactId{i});
      }
    }
    return out;
  }
  auto kernel = analyzeKernelSource(lines);
  if (!kernel) return out;
  // Kernel files of that name, those sharing the most lines first. A copy of a kernel file is mostly that
  // file: a user's module that defines its own @triton.jit kernel (which Inductor copies into a kernel file
  // of the same name) holds the kernel's lines among many others, and is user code, not a copy.
  std::unordered_set<std::string_view> mine;
  for (std::string_view l : lines)
    if (!trim(l).empty()) mine.insert(l);
  std::vector<std::pair<size_t, ArtifactId>> scored;
  for (uint32_t i = 0; i < artifacts_.size(); ++i) {
    const Artifact &a = artifacts_[i];
    if (a.kind != ArtifactKind::KernelSource || !a.kernelSource || a.kernelSource->name != kernel->name)
      continue;
    std::string theirs = this->text(ArtifactId{i});
    std::unordered_set<std::string_view> shared;
    for (std::string_view l : splitLines(theirs))
      if (mine.count(l)) shared.insert(l);
    if (2 * shared.size() < mine.size()) continue;
    scored.emplace_back(shared.size(), ArtifactId{i});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  for (const auto &[common, id] : scored)
    out.artifacts.push_back(id);
  return out;
}

ResolvedPath Index::resolvePath(std::string_view recordedPath) const {
  if (!tables_->resolver) return {std::string(recordedPath), false};
  return tables_->resolver->resolve(recordedPath);
}

namespace {

/// A kernel definition's symbol, its token the kernel's name at (line, column).
SymbolAt definitionSymbol(ArtifactId id, uint32_t index, uint32_t line, uint32_t column, size_t nameLength) {
  SymbolAt s;
  s.kind = SymbolAt::Kind::KernelDefinition;
  s.artifact = id;
  s.index = index;
  s.line = line;
  s.column = column;
  s.endColumn = column + static_cast<uint32_t>(nameLength);
  return s;
}

} // namespace

SymbolAt Index::kernelAround(ArtifactId id, uint32_t line) const {
  SymbolAt none;
  if (!id.valid() || id.value >= artifacts_.size()) return none;
  none.artifact = id;
  const Artifact &a = artifacts_[id.value];
  if (a.kind == ArtifactKind::KernelSource) {
    if (!a.kernelSource) return none;
    const KernelSourceFile &k = *a.kernelSource;
    return definitionSymbol(id, 0, k.line, k.column, k.name.size());
  }
  for (uint32_t i = 0; i < a.code.kernels.size(); ++i) {
    const KernelDefinition &d = a.code.kernels[i];
    if (d.sourceFirstLine == 0 || line < d.sourceFirstLine || line > d.sourceLastLine) continue;
    if (d.defLine && d.defColumn) return definitionSymbol(id, i, *d.defLine, *d.defColumn, d.name.size());
    return definitionSymbol(id, i, d.nameLine, d.nameColumn, d.name.size());
  }
  return none;
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
    if (atName) return definitionSymbol(id, i, d.nameLine, d.nameColumn, d.name.size());
    if (atDef) return definitionSymbol(id, i, *d.defLine, *d.defColumn, d.name.size());
  }
  if (a.kernelSource && within(a.kernelSource->line, a.kernelSource->column, a.kernelSource->name.size()))
    return definitionSymbol(id, 0, a.kernelSource->line, a.kernelSource->column, a.kernelSource->name.size());
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

std::vector<Origin> Index::frameworkOriginsOf(const SymbolAt &s) const {
  std::vector<Origin> out;
  if (!s.artifact.valid() || s.artifact.value >= artifacts_.size()) return out;
  auto add = [&](const Launch &l) {
    for (const Origin &o : l.frameworkOrigins)
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  };
  if (s.kind == SymbolAt::Kind::Launch)
    add(artifacts_[s.artifact.value].launches[s.index]);
  else if (s.kind == SymbolAt::Kind::KernelDefinition)
    for (LaunchRef r : launchesOfDefinition(s.artifact, s.index))
      add(launch(r));
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

std::vector<std::string> Index::userFiles() const {
  std::vector<std::string> out;
  out.reserve(tables_->byUserLine.size());
  for (const auto &[path, lines] : tables_->byUserLine)
    out.push_back(path);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<RecordedLine> &Index::recordedLines(std::string_view path) const {
  static const std::vector<RecordedLine> none;
  auto it = tables_->recordedLines.find(normalizePath(path));
  return it == tables_->recordedLines.end() ? none : it->second;
}

std::vector<RecordedLine> Index::recordedSource(std::string_view path) const {
  std::vector<RecordedLine> out = recordedLines(path);
  std::string key = normalizePath(path);
  for (const Origin &o : health_.places)
    if (o.line && !o.exists && normalizePath(o.path) == key) out.push_back({o.line, o.code, o.function});
  // Lines with text first, so that a line recorded both with and without text keeps its text.
  std::stable_sort(out.begin(), out.end(), [](const RecordedLine &a, const RecordedLine &b) {
    return a.line != b.line ? a.line < b.line : !a.code.empty() && b.code.empty();
  });
  return out;
}

std::vector<LaunchRef> Index::launchesForGraphNode(ArtifactId graph, uint32_t node) const {
  if (!graph.valid() || graph.value >= artifacts_.size() || node >= artifacts_[graph.value].graphNodes.size())
    return {};
  return launchesForGraphNodes(graph)[node];
}

std::vector<std::vector<LaunchRef>> Index::launchesForGraphNodes(ArtifactId graph) const {
  if (!graph.valid() || graph.value >= artifacts_.size()) return {};
  const Artifact &g = artifacts_[graph.value];
  std::vector<std::vector<LaunchRef>> out(g.graphNodes.size());
  if (!g.compile.valid() || g.compile.value >= compiles_.size()) return out;
  std::unordered_map<std::string_view, std::vector<uint32_t>> byName; // Names repeat in nested graphs.
  for (uint32_t i = 0; i < g.graphNodes.size(); ++i)
    byName[g.graphNodes[i].name].push_back(i);
  // A pre-grad graph is shared by the compiles of one compile id (forward and backward): search them all.
  for (uint32_t ci = 0; ci < compiles_.size(); ++ci) {
    const Compile &other = compiles_[ci];
    if (ci != g.compile.value &&
        std::find(other.graphs.begin(), other.graphs.end(), graph) == other.graphs.end())
      continue;
    if (!other.outputCode.valid()) continue;
    const Artifact &a = artifacts_[other.outputCode.value];
    for (uint32_t i = 0; i < a.launches.size(); ++i) {
      const Launch &l = a.launches[i];
      const std::vector<std::string> &nodes =
          g.graphRole == Artifact::GraphRole::PreGrad ? l.preGradNodes : l.postGradNodes;
      // Without mappings, the launch's own `Source Nodes` comment is the best list of what it computes; in a
      // backward graph those names are the post-grad graph's own.
      const std::vector<std::string> &fallback = l.postGradNodes.empty() ? l.site.sourceNodes : nodes;
      std::set<uint32_t> hit; // A name in both lists, or twice, counts once.
      for (const auto *list : {&nodes, &fallback})
        for (const std::string &name : *list)
          if (auto it = byName.find(name); it != byName.end())
            hit.insert(it->second.begin(), it->second.end());
      for (uint32_t n : hit)
        out[n].push_back({other.outputCode, i});
    }
  }
  return out;
}

namespace {

/// Fuzzy score of `name` for `query`: case-insensitive subsequence match; higher is better; -1 if no match.
/// Consecutive matches score quadratically in the run's length, so the sum is kept in 64 bits (a 60,000-byte
/// name reaches 3.6e9) and the normalised result is clamped to int: an exact match of any length still wins.
int fuzzyScore(std::string_view query, std::string_view name) {
  if (query.empty()) return 0;
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  int64_t score = 0;
  size_t qi = 0;
  int64_t run = 0;
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
  int64_t normalised =
      score / static_cast<int64_t>(name.size() + 10) * 100 +
      score % static_cast<int64_t>(name.size() + 10) * 100 / static_cast<int64_t>(name.size() + 10);
  return static_cast<int>(std::min<int64_t>(normalised, INT_MAX - 1));
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
    if (int sc = nameScore[t.symbolNameIds[i]];
        sc >= 0 && firstEquivalent(t.symbols[i].artifact) == t.symbols[i].artifact)
      scored.emplace_back(-sc, i);
  size_t n = std::min(limit, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end());
  std::vector<KernelSymbol> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back(t.symbols[scored[i].second]);
  return out;
}

const Run &Index::run() const {
  static const Run kNone;
  return runIndex_ && *runIndex_ < runs_.size() ? runs_[*runIndex_] : kNone;
}

std::string_view Compile::kindWord() const {
  // An AOTInductor compile's inference graph (or one of no known kind) reads "AOT".
  if (graphKind == GraphKind::Forward || graphKind == GraphKind::Backward) return graphKindName(graphKind);
  if (aoti) return "AOT";
  return graphKind == GraphKind::Inference ? graphKindName(graphKind) : "other";
}

std::string Compile::label(bool withRank) const {
  std::string s;
  if (!id.empty())
    s = "[" + id.traceStr() + "]";
  else if (aoti)
    s = "AOTInductor";
  std::string_view kind = graphKindName(graphKind);
  if (!kind.empty()) s += (s.empty() ? "" : " ") + std::string(kind);
  if (s.empty()) s = "compile";
  if (rank && withRank) s += " rank " + std::to_string(*rank);
  return s;
}

std::vector<std::string> readRoots(const IndexOptions &options, bool withImportRoots) {
  std::vector<std::string> roots = options.roots;
  roots.insert(roots.end(), options.inputs.begin(), options.inputs.end());
  roots.insert(roots.end(), options.profiles.begin(), options.profiles.end());
  roots.insert(roots.end(), options.runLogs.begin(), options.runLogs.end());
  roots.insert(roots.end(), options.tritonCacheDirs.begin(), options.tritonCacheDirs.end());
  for (const PathMapping &m : options.pathMappings)
    roots.push_back(m.to);
  if (withImportRoots) roots.insert(roots.end(), options.pythonPaths.begin(), options.pythonPaths.end());
  return roots;
}

} // namespace inductor::index
