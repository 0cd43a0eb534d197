// index/model/TritonQueries.cpp: see TritonQueries.h.
#include "index/model/TritonQueries.h"

#include "index/model/IndexTables.h"
#include "index/support/PathNames.h"
#include "index/trace/MappedFile.h"

#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

namespace inductor::index {

namespace {

std::optional<int> rankOf(const Index &index, ArtifactId id) {
  const Compile *c = index.compileOf(id);
  return c ? c->rank : std::nullopt;
}

bool isTriton(KernelKind kind) {
  return kind != KernelKind::Extern && kind != KernelKind::Cpp && kind != KernelKind::Unknown;
}

/// Inductor's content-addressed kernel file name, `c<hash>.py` (torch/_inductor/codecache.py: "c" + a base32
/// code hash); other names (a user's Triton kernel in model.py) say nothing of the content.
bool isCodeHashName(std::string_view name) {
  return name.size() >= 40 && name.front() == 'c' && name.substr(name.size() - 3) == ".py";
}

TritonCache readTritonCache(const Index &index, const TritonCacheSources &sources) {
  if (sources.empty()) return {};
  // A recorded kernel file is `<cache>/<xy>/c<hash>.py`, content-addressed: when a kernel file of that name
  // is indexed, it is that file (read by the build, so inside the roots); resolving each entry's recorded
  // path again cost a realpath(3) or two per entry.
  std::map<std::string_view, const std::string *> kernelFiles;
  for (const Artifact &a : index.artifacts())
    if (a.kind == ArtifactKind::KernelSource && !a.paths.empty() && isCodeHashName(baseName(a.paths.front())))
      kernelFiles.emplace(baseName(a.paths.front()), &a.paths.front());
  auto resolve = [&index, &kernelFiles](std::string_view recorded) -> std::string {
    if (auto it = kernelFiles.find(baseName(recorded)); it != kernelFiles.end()) return *it->second;
    ResolvedPath local = index.resolvePath(recorded);
    return local.exists && index.readPolicy().allows(local.path) ? local.path : std::string();
  };
  return findTritonCache(sources.entryDirs, sources.roots, index.readPolicy(), resolve,
                         sources.walkedConfigs);
}

} // namespace

/// The parsed files of a Triton cache, by path: one slot per IR file or cubin, holding what was made of the
/// file's version `stamp`. `mutex` guards the slots and the use order; `parsing` lets one file be read and
/// parsed at a time, so that requests for the same file wait for its one parse, and requests for different
/// files never hold several files' texts and tables at once (up to 64 MiB each).
struct TritonFileCache {
  struct Slot {
    bool made = false;
    FileStamp stamp;
    std::shared_ptr<const IrLineMap> map; ///< The table, or null when `error` says why not.
    std::string error;
    CubinResources cubin;
    size_t bytes = 0;
    std::list<Slot *>::iterator used; ///< Its place in `order` (most recently used first).
  };
  std::mutex mutex, parsing;
  std::unordered_map<std::string, std::unique_ptr<Slot>> slots;
  std::list<Slot *> order;
  size_t bytes = 0;

  Slot &slot(const std::string &path) {
    auto [it, added] = slots.try_emplace(path);
    if (added) {
      it->second = std::make_unique<Slot>();
      order.push_front(it->second.get());
      it->second->used = order.begin();
    } else {
      order.splice(order.begin(), order, it->second->used);
    }
    return *it->second;
  }
  /// Keeps `bytes` more for `s`; drops the tables used least recently while over the budget (never `s`'s).
  void account(Slot &s, size_t added) {
    s.bytes += added;
    bytes += added;
    for (auto it = order.rbegin(); bytes > kTritonTableCacheBytes && it != order.rend(); ++it) {
      Slot *old = *it;
      if (old == &s || !old->made || !old->map) continue;
      bytes -= old->bytes;
      old->bytes = 0;
      old->map.reset();
      old->made = false;
    }
  }
};

TritonFileCache *Index::tritonFiles() const {
  if (!tables_) return nullptr;
  std::call_once(tables_->tritonFilesOnce,
                 [&] { tables_->tritonFiles = std::make_shared<TritonFileCache>(); });
  return tables_->tritonFiles.get();
}

const TritonCache &Index::tritonCache() const {
  static const TritonCache empty;
  if (!tables_) return empty;
  std::call_once(tables_->tritonOnce, [&] {
    tables_->triton = std::make_shared<const TritonCache>(readTritonCache(*this, tables_->tritonSources));
  });
  return *tables_->triton;
}

std::optional<TritonKernelRef> tritonKernelOf(const Index &index, const SymbolAt &symbol) {
  if (!symbol.artifact.valid()) return std::nullopt;
  const Artifact &a = index.artifact(symbol.artifact);
  if (a.kind == ArtifactKind::KernelSource) {
    if (!a.kernelSource || a.paths.empty()) return std::nullopt;
    return TritonKernelRef{a.kernelSource->name, a.paths.front(), std::nullopt, symbol.artifact, -1};
  }
  int definition = -1;
  if (symbol.kind == SymbolAt::Kind::Launch && symbol.index < a.launches.size())
    definition = a.launches[symbol.index].definition;
  else if (symbol.kind == SymbolAt::Kind::KernelDefinition)
    definition = static_cast<int>(symbol.index);
  if (definition < 0 || static_cast<size_t>(definition) >= a.code.kernels.size()) return std::nullopt;
  const KernelDefinition &d = a.code.kernels[static_cast<size_t>(definition)];
  if (!isTriton(d.kind)) return std::nullopt;
  return TritonKernelRef{d.name, d.kernelPath, rankOf(index, symbol.artifact), symbol.artifact, definition};
}

std::optional<std::pair<TritonKernelRef, uint32_t>> tritonKernelLineAt(const Index &index, ArtifactId id,
                                                                       uint32_t line) {
  if (!id.valid()) return std::nullopt;
  const Artifact &a = index.artifact(id);
  if (a.kind == ArtifactKind::KernelSource) {
    if (!a.kernelSource || a.paths.empty()) return std::nullopt;
    return std::pair{TritonKernelRef{a.kernelSource->name, a.paths.front(), std::nullopt, id, -1}, line + 1};
  }
  for (size_t d = 0; d < a.code.kernels.size(); ++d) {
    const KernelDefinition &k = a.code.kernels[d];
    if (!isTriton(k.kind) || k.sourceFirstLine == 0 || line < k.sourceFirstLine || line > k.sourceLastLine)
      continue;
    return std::pair{TritonKernelRef{k.name, k.kernelPath, rankOf(index, id), id, static_cast<int>(d)},
                     line - k.sourceFirstLine + 2};
  }
  return std::nullopt;
}

std::optional<uint32_t> artifactLineOfKernelLine(const Index &index, const TritonKernelRef &kernel,
                                                 uint32_t kernelLine) {
  if (!kernel.artifact.valid() || kernelLine == 0) return std::nullopt;
  const Artifact &a = index.artifact(kernel.artifact);
  if (kernel.definition < 0) return kernelLine - 1;
  const KernelDefinition &k = a.code.kernels[static_cast<size_t>(kernel.definition)];
  if (kernelLine < 2 || k.sourceFirstLine == 0) return std::nullopt;
  uint32_t line = k.sourceFirstLine + kernelLine - 2;
  if (line > k.sourceLastLine) return std::nullopt;
  return line;
}

TritonJoin joinTritonKernel(const Index &index, const TritonKernelRef &kernel) {
  return joinTritonKernel(index.tritonCache(), kernel.name, kernel.kernelFile, kernel.rank);
}

namespace {

/// What was made of one version of a file: its table or why not, or a cubin's resources.
struct Made {
  std::shared_ptr<const IrLineMap> map;
  std::string error;
  CubinResources cubin;
};

/// What was made of the file at `path` in its version `stamp`: the kept one, else what `make` makes now
/// (while requests for the same file wait for it). `make(Made &)` fills it and returns the bytes it keeps,
/// or nullopt to keep nothing (an error that may pass: a file unreadable now).
template <typename MakeFn>
Made madeOf(TritonFileCache &cache, const std::string &path, const FileStamp &stamp, MakeFn &&make) {
  auto kept = [&](const TritonFileCache::Slot &s) { return Made{s.map, s.error, s.cubin}; };
  TritonFileCache::Slot *s = nullptr;
  {
    std::lock_guard lock(cache.mutex);
    s = &cache.slot(path);
    if (s->made && s->stamp == stamp) return kept(*s);
  }
  std::lock_guard parsing(cache.parsing);
  {
    std::lock_guard lock(cache.mutex);
    if (s->made && s->stamp == stamp) return kept(*s); // Made while this request waited.
  }
  Made made;
  std::optional<size_t> bytes = make(made);
  if (!bytes) return made;
  std::lock_guard lock(cache.mutex);
  cache.bytes -= s->bytes;
  s->bytes = 0;
  s->map = made.map;
  s->error = made.error;
  s->cubin = made.cubin;
  s->stamp = stamp;
  s->made = true;
  cache.account(*s, *bytes);
  return made;
}

} // namespace

CubinResources cubinResources(const Index &index, const TritonCacheEntry &entry) {
  const std::string &path = entry.files[static_cast<size_t>(TritonStage::Cubin)];
  TritonFileCache *cache = index.tritonFiles();
  if (path.empty() || !cache) return {};
  auto stamp = MappedFile::stampOf(path);
  if (!stamp) return {};
  return madeOf(*cache, path, *stamp,
                [&](Made &m) -> std::optional<size_t> {
                  auto bytes = index.readPolicy().read(path, kTritonFileBytes);
                  if (!bytes) return std::nullopt;
                  m.cubin = readCubinResources(*bytes, entry.metadata.name);
                  return 0;
                })
      .cubin;
}

Expected<std::shared_ptr<const IrLineMap>> readTritonIr(const Index &index, const TritonCacheEntry &entry,
                                                        TritonStage stage) {
  const std::string &path = entry.files[static_cast<size_t>(stage)];
  TritonFileCache *cache = index.tritonFiles();
  if (path.empty() || stage == TritonStage::Cubin || !cache)
    return Error{"no " + std::string(tritonStageName(stage)) + " file in " + entry.dir};
  auto stamp = MappedFile::stampOf(path);
  if (!stamp) return stamp.error();
  Made m = madeOf(*cache, path, *stamp, [&](Made &made) -> std::optional<size_t> {
    auto text = index.readPolicy().read(path, kTritonFileBytes);
    if (!text) {
      made.error = text.error().message; // Not kept: the policy or the file may allow it later.
      return std::nullopt;
    }
    auto parsed = std::make_shared<IrLineMap>(parseTritonIr(stage, *text));
    if (!parsed->error.empty()) {
      // Kept, so that a hostile file costs one parse, not one per request.
      made.error = path + " not read: " + parsed->error;
      return made.error.size();
    }
    size_t bytes = parsed->keptBytes();
    made.map = std::move(parsed);
    return bytes;
  });
  if (!m.map) return Error{m.error};
  return m.map;
}

std::optional<std::pair<uint32_t, TritonStage>> tritonFileAt(const Index &index, std::string_view path) {
  // Every definition and symbol request asks this of its document: only a stage's file in a hash-named
  // directory may be one, and the cache is read only for such a file.
  std::string_view file = baseName(path);
  size_t dot = file.find_last_of('.');
  if (dot == std::string_view::npos || !tritonStageOfExtension(file.substr(dot + 1)) ||
      !isTritonHashName(baseName(dirName(path))))
    return std::nullopt;
  const TritonCache &cache = index.tritonCache();
  for (size_t i = 0; i < cache.entries.size(); ++i)
    for (size_t s = 0; s < kTritonStages; ++s)
      if (cache.entries[i].files[s] == path)
        return std::pair{static_cast<uint32_t>(i), static_cast<TritonStage>(s)};
  return std::nullopt;
}

} // namespace inductor::index
