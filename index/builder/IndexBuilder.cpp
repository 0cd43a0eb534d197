#include "index/builder/IndexBuilder.h"

#include "index/runtime/Runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_set>

namespace fs = std::filesystem;

namespace inductor::index {

namespace detail {

Expected<std::string> readFileBounded(const std::string &path, size_t maxBytes) {
  return readRegularFile(path, maxBytes);
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
  key += '|';
  for (const std::string &g : o.libraryPaths)
    add(g);
  return key;
}

/// The cache key of a compile: its log and lineage, and the index and extent of every record it reads.
std::string compileKey(const PendingCompile &p, const TraceLog &log, uint64_t lineage) {
  std::string key = log.path();
  key += '\0';
  key += std::to_string(lineage);
  key += p.cpp ? ":cpp" : ":py";
  key += p.rank ? ":r" + std::to_string(*p.rank) : ":-";
  for (int rec : {p.output, p.postGrad, p.preGrad, p.nodeMappings, p.stackTraces, p.kernelToPost, p.postToPre,
                  p.cacheInfo}) {
    key += '|';
    if (rec < 0) continue;
    const TraceRecord &r = log.records()[static_cast<size_t>(rec)];
    key += std::to_string(rec) + "@" + std::to_string(r.envelopeOffset) + "-" + std::to_string(r.payloadEnd);
  }
  return key;
}

namespace {

/// The records a compile's analysis reads, in a fixed order (-1: none).
std::array<int, 8> analysedRecords(const PendingCompile &p) {
  return {p.output,      p.postGrad,     p.preGrad,   p.nodeMappings,
          p.stackTraces, p.kernelToPost, p.postToPre, p.cacheInfo};
}

} // namespace

std::string payloadsKey(const PendingCompile &p, const TraceLog &log) {
  std::string key;
  key += p.cpp ? 'c' : 'p';
  key += static_cast<char>('0' + static_cast<int>(p.kindHint));
  for (int rec : analysedRecords(p)) {
    key += '|';
    if (rec < 0) continue;
    const TraceRecord &r = log.records()[static_cast<size_t>(rec)];
    if (!r.payloadHash) return {};
    key.append(reinterpret_cast<const char *>(r.payloadHash->bytes.data()), r.payloadHash->bytes.size());
    key += std::to_string(r.payloadEnd - r.payloadBegin);
  }
  // The output code's recorded file name decides which local copy it gets.
  const TraceRecord &out = log.records()[static_cast<size_t>(p.output)];
  key += '|';
  key += out.filename;
  return key;
}

uint64_t payloadBytes(const PendingCompile &p, const TraceLog &log) {
  uint64_t n = 0;
  for (int rec : analysedRecords(p))
    if (rec >= 0) {
      const TraceRecord &r = log.records()[static_cast<size_t>(rec)];
      n += r.payloadEnd - r.payloadBegin;
    }
  return n;
}

bool samePayloads(const PendingCompile &a, const TraceLog &logA, const PendingCompile &b,
                  const TraceLog &logB) {
  std::array<int, 8> ra = analysedRecords(a), rb = analysedRecords(b);
  for (size_t k = 0; k < ra.size(); ++k) {
    if ((ra[k] < 0) != (rb[k] < 0)) return false;
    if (ra[k] < 0) continue;
    const TraceRecord &x = logA.records()[static_cast<size_t>(ra[k])];
    const TraceRecord &y = logB.records()[static_cast<size_t>(rb[k])];
    uint64_t n = x.payloadEnd - x.payloadBegin;
    if (n != y.payloadEnd - y.payloadBegin) return false;
    if (x.payloadEnd > logA.text().size() || y.payloadEnd > logB.text().size()) return false;
    if (std::memcmp(logA.text().data() + x.payloadBegin, logB.text().data() + y.payloadBegin, n) != 0)
      return false;
  }
  return true;
}

namespace {

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isLowerAlnum(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A word no longer than this is looked at (a cache hash stem is 52 characters).
constexpr size_t kMaxDeviceWord = 96;

/// Compares `n` bytes of `a` and `b`, letting device words differ (isDeviceWord). `same` is cleared when a
/// byte differs.
bool equalUpToDevice(std::string_view a, std::string_view b, bool &same) {
  size_t n = a.size();
  size_t p = 0;
  while (p < n) {
    // Long equal runs are the rule: compared a block at a time, then the block that differs byte by byte.
    constexpr size_t kBlock = 64;
    while (p + kBlock <= n && std::memcmp(a.data() + p, b.data() + p, kBlock) == 0)
      p += kBlock;
    while (p < n && a[p] == b[p])
      ++p;
    if (p >= n) return true;
    same = false;
    if (!isWordChar(a[p]) || !isWordChar(b[p])) return false;
    // The word around p: the same start in both (the bytes before p are equal), and it must end at the same
    // place in both (same length). A longer word than any device word is not one.
    size_t begin = p;
    while (begin > 0 && isWordChar(a[begin - 1]))
      if (p - --begin > kMaxDeviceWord) return false;
    size_t endA = p, endB = p;
    while (endA < n && isWordChar(a[endA]))
      if (++endA - begin > kMaxDeviceWord) return false;
    while (endB < n && isWordChar(b[endB]))
      if (++endB - begin > kMaxDeviceWord) return false;
    if (endA != endB || !isDeviceWord(a, begin, endA) || !isDeviceWord(b, begin, endB)) return false;
    p = endA;
  }
  return true;
}

} // namespace

bool isDeviceWord(std::string_view text, size_t begin, size_t end) {
  if (end <= begin || end > text.size()) return false;
  std::string_view word = text.substr(begin, end - begin);
  std::string_view before = text.substr(0, begin);
  auto after = [&](std::string_view marker) {
    return before.size() >= marker.size() && before.substr(before.size() - marker.size()) == marker;
  };
  // A device index: `cuda:1` in types and devices, `device(type='cuda', index=1)`, the wrapper's
  // `get_raw_stream(1)`, `torch.cuda._DeviceGuard(1)`, `torch.cuda.set_device(1)`; and the address of the
  // process's graph object in a graph dump's `# graph id: 1398...` (torch/fx/graph_module.py).
  if (allDigits(word))
    for (std::string_view marker :
         {"cuda:", "index=", "get_raw_stream(", "_DeviceGuard(", "set_device(", "# graph id: "})
      if (after(marker)) return true;
  // The wrapper's stream variable: `stream1 = get_raw_stream(1)`, `stream=stream1`.
  if (word.size() > 6 && word.substr(0, 6) == "stream" && allDigits(word.substr(6))) return true;
  // A cache file: `/xx/c<hash>` (torch/_inductor/codecache.py: `xx` is the hash's first two characters),
  // whose hash covers the device.
  if (!after("/")) return false;
  if (word.size() == 2 && isLowerAlnum(word)) return text.substr(end, 4) == "/c" + std::string(word);
  return word.size() >= 20 && word[0] == 'c' && isLowerAlnum(word) &&
         after(std::string(word.substr(1, 2)) + "/");
}

namespace {

/// A hash of payload[from, to) that is the same for texts that differ only in device words (isDeviceWord):
/// those are hashed as their length. Words cut by the window's ends are left out (the window's ends are at
/// the same offsets in texts of the same length).
uint64_t deviceBlindHash(std::string_view payload, size_t from, size_t to) {
  to = std::min(to, payload.size());
  while (from > 0 && from < to && isWordChar(payload[from - 1]) && isWordChar(payload[from]))
    ++from;
  while (to < payload.size() && to > from && isWordChar(payload[to]) && isWordChar(payload[to - 1]))
    --to;
  ContentHash h;
  size_t run = from; // Start of the bytes not hashed yet.
  for (size_t i = from; i < to;) {
    if (!isWordChar(payload[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < to && isWordChar(payload[end]))
      ++end;
    if (isDeviceWord(payload, i, end)) {
      h.update(payload.substr(run, i - run));
      h.update(std::to_string(end - i));
      run = end;
    }
    i = end;
  }
  h.update(payload.substr(run, to - run));
  return h.h;
}

} // namespace

std::string payloadsLengthsKey(const PendingCompile &p, const TraceLog &log) {
  if (p.output < 0) return {};
  std::string key;
  key += p.cpp ? 'c' : 'p';
  key += static_cast<char>('0' + static_cast<int>(p.kindHint));
  std::array<int, 8> records = analysedRecords(p);
  records.back() = -1; // The FX graph cache info: its key hashes the device.
  for (int rec : records) {
    key += '|';
    if (rec < 0) continue;
    const TraceRecord &r = log.records()[static_cast<size_t>(rec)];
    key += std::to_string(r.payloadEnd - r.payloadBegin);
  }
  return key;
}

std::string outputCodeEndsKey(const PendingCompile &p, const TraceLog &log) {
  if (p.output < 0) return {};
  const TraceRecord &out = log.records()[static_cast<size_t>(p.output)];
  if (out.payloadEnd > log.text().size()) return {};
  constexpr size_t kWindow = 4096;
  std::string_view code = log.text().substr(out.payloadBegin, out.payloadEnd - out.payloadBegin);
  std::string key = std::to_string(deviceBlindHash(code, 0, kWindow));
  if (code.size() > kWindow)
    key += '|' + std::to_string(deviceBlindHash(code, code.size() - std::min(code.size() - kWindow, kWindow),
                                                code.size()));
  return key;
}

PayloadMatch comparePayloads(const PendingCompile &a, const TraceLog &logA, const PendingCompile &b,
                             const TraceLog &logB) {
  std::array<int, 8> ra = analysedRecords(a), rb = analysedRecords(b);
  bool same = true;
  for (size_t k = 0; k < ra.size(); ++k) {
    if ((ra[k] < 0) != (rb[k] < 0)) return PayloadMatch::Different;
    if (ra[k] < 0) continue;
    const TraceRecord &x = logA.records()[static_cast<size_t>(ra[k])];
    const TraceRecord &y = logB.records()[static_cast<size_t>(rb[k])];
    uint64_t n = x.payloadEnd - x.payloadBegin;
    bool cacheInfo = k + 1 == ra.size();
    if (n != y.payloadEnd - y.payloadBegin) {
      if (!cacheInfo) return PayloadMatch::Different;
      same = false;
      continue;
    }
    if (x.payloadEnd > logA.text().size() || y.payloadEnd > logB.text().size())
      return PayloadMatch::Different;
    std::string_view pa = logA.text().substr(x.payloadBegin, n), pb = logB.text().substr(y.payloadBegin, n);
    if (cacheInfo) {
      same = same && pa == pb;
      continue;
    }
    if (!equalUpToDevice(pa, pb, same)) return PayloadMatch::Different;
  }
  const TraceRecord &outA = logA.records()[static_cast<size_t>(a.output)];
  const TraceRecord &outB = logB.records()[static_cast<size_t>(b.output)];
  return same && outA.filename == outB.filename ? PayloadMatch::Same : PayloadMatch::SameUpToDevice;
}

} // namespace detail

using namespace detail;

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

namespace {

/// `c` + a base32 hash (torch/_inductor/codecache.py code_hash): the names of the cache's files.
bool isCacheHashStem(std::string_view stem) {
  if (stem.size() < 20 || stem[0] != 'c') return false;
  return std::all_of(stem.begin() + 1, stem.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

/// Which copy of an artifact to show (lower first, see Artifact::paths): a file TORCH_COMPILE_DEBUG named
/// after its graph, then one in a cache `c<hash>.debug/` directory, then the cache's `c<hash>.py`.
int copyRank(std::string_view path) {
  std::string name = basename(path);
  // `c<hash>.py`, and AOTInductor's `c<hash>.wrapper.cpp`.
  if (isCacheHashStem(std::string_view(name).substr(0, name.find('.')))) return 2;
  std::string_view dir = path.substr(0, path.size() - std::min(path.size(), name.size() + 1));
  std::string parent = basename(dir);
  if (parent.size() > 6 && parent.compare(parent.size() - 6, 6, ".debug") == 0 &&
      isCacheHashStem(std::string_view(parent).substr(0, parent.size() - 6)))
    return 1;
  return 0;
}

} // namespace

void IndexBuilder::linkCopies() {
  std::vector<uint32_t> &first = tables_->firstCopy;
  std::vector<uint32_t> &equivalent = tables_->firstEquivalent;
  first.clear();
  equivalent.clear();
  // Launches are shared only by the compiles of one analysis, which payloads that are the same byte for byte
  // or up to the device get (buildLogCompiles compares them); the kind, the log record and the payload
  // length are checked too. Of those, the ones with the same patch (none: the analysed text) have the same
  // text; and those of the same compile (its label without the rank: the ranks' copies of one compile) are
  // listed once. A recompile that generated the same code is still a compile of its own in a listing.
  std::unordered_map<const void *, uint32_t> byLaunches;
  std::map<std::pair<const void *, const void *>, uint32_t> byText;
  std::map<std::pair<const void *, std::string>, uint32_t> byCompile;
  auto compileLabel = [&](const Artifact &a) {
    return a.compile.valid() && a.compile.value < index_->compiles_.size()
               ? index_->compiles_[a.compile.value].label(/*withRank=*/false)
               : std::string();
  };
  auto set = [&](std::vector<uint32_t> &table, uint32_t i, uint32_t to) {
    if (table.empty()) {
      table.resize(index_->artifacts_.size());
      std::iota(table.begin(), table.end(), uint32_t{0}); // Each its own, until found a copy.
    }
    table[i] = to;
  };
  for (uint32_t i = 0; i < index_->artifacts_.size(); ++i) {
    const Artifact &a = index_->artifacts_[i];
    if (a.launches.empty() || a.traceFile >= tables_->logs.size()) continue;
    const TraceLog &log = *tables_->logs[a.traceFile];
    if (a.record >= log.records().size()) continue;
    auto [it, fresh] = byLaunches.try_emplace(a.launches.identity(), i);
    if (fresh) {
      byText.emplace(std::make_pair(a.launches.identity(), i < patchOf_.size() ? patchOf_[i].get() : nullptr),
                     i);
      byCompile.emplace(std::make_pair(a.launches.identity(), compileLabel(a)), i);
      continue;
    }
    const Artifact &f = index_->artifacts_[it->second];
    const TraceRecord &r = log.records()[a.record];
    const TraceRecord &fr = tables_->logs[f.traceFile]->records()[f.record];
    if (f.kind != a.kind || r.payloadEnd - r.payloadBegin != fr.payloadEnd - fr.payloadBegin) continue;
    auto [same, freshCompile] =
        byCompile.try_emplace(std::make_pair(a.launches.identity(), compileLabel(a)), i);
    if (!freshCompile) set(equivalent, i, same->second);
    auto [text, freshText] = byText.try_emplace(
        std::make_pair(a.launches.identity(), i < patchOf_.size() ? patchOf_[i].get() : nullptr), i);
    if (!freshText) set(first, i, text->second);
  }
}

void IndexBuilder::freeze() {
  Index &idx = *index_;
  Index::Tables &t = *tables_;
  // Distinct recorded lines per file; views into the artifacts, which do not move after this point.
  std::unordered_map<std::string, std::set<std::tuple<uint32_t, std::string_view, std::string_view>>>
      recorded;
  // Origins name few distinct files, each many times (every launch of every compile and rank): normalized
  // once per distinct path. Views into the artifacts, which do not move after this point.
  std::unordered_map<std::string_view, std::string> normalized;
  auto normal = [&](const std::string &path) -> const std::string & {
    auto it = normalized.find(path);
    if (it == normalized.end()) it = normalized.emplace(path, normalizePath(path)).first;
    return it->second;
  };
  auto record = [&](const Origin &o) {
    if (o.line) recorded[normal(o.path)].emplace(o.line, o.code, o.function);
  };
  // Launch lists and stacks are shared by the artifacts and launches of one recorded code (ranks,
  // recompiles, a node's kernels): their recorded lines are taken once per shared vector.
  std::unordered_set<const void *> seen;
  t.resolver = resolver_;
  linkCopies();
  for (uint32_t i = 0; i < idx.artifacts_.size(); ++i) {
    Artifact &a = idx.artifacts_[i];
    ArtifactId id{i};
    std::stable_sort(a.paths.begin(), a.paths.end(),
                     [](const std::string &x, const std::string &y) { return copyRank(x) < copyRank(y); });
    for (const std::string &p : a.paths) {
      std::string key = normalizePath(p);
      auto [it, inserted] = t.byPath.emplace(key, id);
      if (!inserted) {
        auto &all = t.sharedPaths[key];
        if (all.empty()) all.push_back(it->second);
        all.push_back(id);
      }
    }
    if (a.contentHash) t.byContent[a.contentHash].push_back(id);
    if (a.paths.empty() && !a.virtualName.empty()) {
      std::string name = a.virtualName;
      for (int k = 2; t.byVirtual.count(name); ++k)
        name = a.virtualName + "~" + std::to_string(k);
      a.virtualName = name;
      t.byVirtual.emplace(name, id);
    }
    if (a.kind == ArtifactKind::OutputCode || a.kind == ArtifactKind::WrapperCode) {
      idx.stats_.kernels += a.code.kernels.size();
      bool recordLines = !a.launches.empty() && seen.insert(a.launches.identity()).second;
      for (uint32_t l = 0; l < a.launches.size(); ++l) {
        const Launch &L = a.launches[l];
        ++idx.stats_.launches;
        if (!L.origins.empty()) ++idx.stats_.launchesWithOrigin;
        if (!L.origins.empty() &&
            std::none_of(L.origins.begin(), L.origins.end(), [](const Origin &o) { return o.exists; })) {
          ++idx.stats_.launchesWithMissingSource;
          if (idx.stats_.firstMissingSource.empty())
            idx.stats_.firstMissingSource = L.origins[0].recordedPath;
        }
        if (!L.provenance) {
          ++idx.stats_.launchesWithoutProvenance;
          if (L.origins.empty()) ++idx.stats_.launchesWithoutProvenanceOrOrigin;
        }
        for (const Origin &o : L.origins) {
          t.byUserLine[normal(o.path)][o.line].push_back({id, l});
          if (recordLines) record(o);
        }
        // PyTorch's frames are no user line (Index.h), but their recorded text is what answers show of them.
        if (!L.frameworkOrigins.empty()) ++idx.stats_.launchesWithFrameworkOrigin;
        if (recordLines)
          for (const Origin &o : L.frameworkOrigins)
            record(o);
        if (recordLines)
          for (const auto &stack : L.stacks)
            if (seen.insert(stack.identity()).second)
              for (const Origin &o : stack)
                record(o);
        if (L.definition < 0) t.symbols.push_back({L.site.kernel, id, L.site.line, L.site.column, L.kind});
      }
      for (const KernelDefinition &d : a.code.kernels)
        t.symbols.push_back({d.name, id, d.nameLine, d.nameColumn, d.kind});
    }
    for (const Artifact::GraphNode &n : a.graphNodes)
      if (n.origin) record(*n.origin);
  }
  for (auto &[path, lines] : recorded) {
    std::vector<RecordedLine> &out = t.recordedLines[path];
    out.reserve(lines.size());
    for (const auto &[line, code, function] : lines)
      out.push_back({line, code, function});
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

void IndexBuilder::awaitPythonPaths() {
  if (!options_.pythonPathsLater.valid()) return;
  report(Step::ReadingLogs, 1, "waiting for the Python environment");
  options_.pythonPaths = waitForPythonPaths();
  options_.pythonPathsLater = {}; // The resolver keeps its own copy, ready now.
}

bool IndexBuilder::settlePythonPaths() {
  bool used = resolver_->usedImportRoots();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    used = used || readUnderImportRoots_;
  }
  if (options_.pythonPathsLater.valid() &&
      options_.pythonPathsLater.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    options_.pythonPaths = options_.pythonPathsLater.get();
    options_.pythonPathsLater = {};
  }
  return used;
}

std::shared_ptr<const Index> IndexBuilder::run() {
  // Analyses hold paths resolved with the previous options: with other options nothing can be reused. The
  // import roots count only where a kept analysis depended on them; only then are they waited for here
  // (otherwise when a path first needs them, if one does).
  bool keptUsedImportRoots = false;
  if (cache_) {
    const IndexCache::State &kept = *cache_->state_;
    if (kept.stored && kept.importRootsUsed) awaitPythonPaths();
    next_.optionsKey = optionsKey(options_);
    next_.nextLineage = kept.nextLineage;
    if (kept.optionsKey != next_.optionsKey ||
        (kept.importRootsUsed && kept.importRoots != options_.pythonPaths))
      cache_->clear();
    keptUsedImportRoots = cache_->state_->importRootsUsed;
  }
  report(Step::Discovering, 0, "discovering traces");
  const std::vector<std::string> &searched = options_.inputs.empty() ? options_.roots : options_.inputs;
  TritonCacheCollector triton; // Triton cache folders seen by the walk (BuildTriton.cpp).
  DirectoryListed listed = [&](const std::string &dir, bool recursive) {
    triton(dir);
    if (options_.directoryListed) options_.directoryListed(dir, recursive);
  };
  // The discovery of the build before, which deferred ranks (IndexOptions::reuseDiscovery); taken once.
  std::shared_ptr<const IndexCache::State::Discovered> handed;
  if (cache_ && options_.reuseDiscovery) handed = cache_->state_->discovered;
  DiscoveredInputs inputs;
  if (handed) {
    next_.last.discoveryReused = true;
    inputs = handed->inputs;
    triton = handed->triton;
    std::lock_guard<std::mutex> lock(mutex_);
    readUnderImportRoots_ = readUnderImportRoots_ || handed->readUnderImportRoots;
  } else {
    inputs = discoverInputs(searched, kMaxDiscoveredFiles, &policy_, listed);
  }
  // A link refused without the import roots may lead into them: discovered again with them (rare: links in
  // trace directories).
  if (!handed && !inputs.notes.empty()) {
    awaitPythonPaths();
    if (!options_.pythonPaths.empty()) {
      ReadPolicy withImportRoots(readRoots(options_));
      DiscoveredInputs again = discoverInputs(searched, kMaxDiscoveredFiles, &withImportRoots, listed);
      std::set<std::string> known(inputs.traceLogs.begin(), inputs.traceLogs.end());
      bool added = std::any_of(again.traceLogs.begin(), again.traceLogs.end(),
                               [&](const std::string &log) { return !known.count(log); });
      if (added || again.notes.size() < inputs.notes.size()) {
        std::lock_guard<std::mutex> lock(mutex_);
        readUnderImportRoots_ = true; // What was found depends on them.
      }
      inputs = std::move(again);
    }
  }
  // One run's logs and debug directories only (Runs.h).
  // Kept for the next build when this one defers ranks (IndexOptions::reuseDiscovery).
  std::optional<DiscoveredInputs> discovered;
  if ((options_.deferRanksOver || options_.firstDocuments) && cache_) discovered = inputs;
  selectRunOf(inputs, handed.get());
  deferRanksOf(inputs);
  if (!cancelled()) openLogs(inputs.traceLogs);
  // The logs cut into compiles, of which only the open documents' may be analysed first.
  std::vector<PendingCompile> pending;
  for (uint32_t i = 0; i < tables_->logs.size() && !cancelled(); ++i) {
    std::vector<PendingCompile> segment = segmentLog(i, *tables_->logs[i]);
    pending.insert(pending.end(), segment.begin(), segment.end());
  }
  deferCompilesOf(pending);
  if ((ranksDeferred_ || compilesDeferred_) && discovered) {
    bool underImportRoots;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      underImportRoots = readUnderImportRoots_;
    }
    next_.discovered = std::make_shared<const IndexCache::State::Discovered>(IndexCache::State::Discovered{
        std::move(*discovered), triton, underImportRoots, index_->runs_, unattributed_});
  }

  for (const std::string &e : inputs.errors) {
    // "<path>: <reason>": a path that exists but is no regular file or directory (a FIFO) is not "missing".
    const std::string_view kNotRegular = ": not read: ";
    size_t at = e.find(kNotRegular);
    if (at == std::string::npos)
      diag(e, 0, "input not found");
    else
      diag(e.substr(0, at), 0, "input " + e.substr(at + 2));
  }
  for (const DiscoveredInputs::Note &n : inputs.notes)
    diag(n.path, 0, n.message);
  // Compile health is read on the analysis workers before any analysis, while little else is resident:
  // reading it faults in pages of most of a log (metadata and guard payloads are spread through it), which
  // on top of every analysis was a large log's peak. On one large log the other worker starts the analyses
  // meanwhile (alone, the read was a fifth of the build).
  HealthRead health;
  if (!cancelled())
    buildLogCompiles(std::move(pending),
                     compilesDeferred_ ? std::vector<std::function<void()>>{} : healthReads(health));
  if (!cancelled()) {
    report(Step::ReadingFiles, 0, "reading debug directories and cache files");
    buildFileCompiles(inputs);
  }
  // Of several runs, only kernel files the run's output code names (cache files are shared by runs).
  if (!cancelled()) linkKernelSources(restrictedToRun() ? std::vector<std::string>{} : inputs.cacheSources);
  if (!cancelled()) buildTritonCache(triton, inputs);
  if (!cancelled() && !compilesDeferred_) buildHealth(health);
  // Runtime inputs are every rank's (a profile per rank, a run log of all): none before every rank is read.
  if (!cancelled() && !ranksDeferred_ && !compilesDeferred_) buildRuntime(inputs);
  if (!index_->runtime_) index_->runtime_ = std::make_shared<RuntimeData>();
  bool usedImportRoots = settlePythonPaths() || keptUsedImportRoots;
  index_->readPolicy_ = ReadPolicy(readRoots(options_));
  // The analyses own what they need; the payload pages they touched need not stay resident (a 1 GB trace
  // otherwise keeps ~40% of its bytes in RSS through fault-around).
  for (const auto &log : tables_->logs)
    log->releasePages();
  if (refusedReads_ > 0)
    diag(firstRefused_, 0,
         std::to_string(refusedReads_) +
             " file(s) named by the traces were not read, the first being this one: "
             "they are outside the workspace folders, trace inputs, pathMappings targets and Python "
             "environment (add "
             "their directory to traceDirs to use them)");
  if (resolver_->indexedFiles() >= kMaxDiscoveredFiles)
    diag("", 0,
         "the search for recorded paths under the workspace folders stopped after " +
             std::to_string(kMaxDiscoveredFiles) +
             " files: some sources may not be found (name the "
             "trace directories in traceDirs, or map paths with pathMappings)");
  freeze();
  index_->tables_ = std::move(tables_);
  if (cache_ && !cancelled()) {
    next_.stored = true;
    next_.importRootsUsed = usedImportRoots;
    if (usedImportRoots) next_.importRoots = options_.pythonPaths;
    *cache_->state_ = std::move(next_);
  }
  report(Step::Done, 1, "done");
  return index_;
}

// ---------------------------------------------------------------------------------------------------------------
// Index::build, the model's one entry into this stage (declared with the model so that callers depend on
// model/ alone).

std::shared_ptr<const Index> Index::build(const IndexOptions &options, const ProgressCallback &progress,
                                          const std::atomic<bool> *cancelled, IndexCache *cache) {
  IndexBuilder builder(options, progress, cancelled, cache);
  return builder.run();
}

} // namespace inductor::index
