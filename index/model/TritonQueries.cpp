// index/model/TritonQueries.cpp: see TritonQueries.h.
#include "index/model/TritonQueries.h"

#include "index/model/IndexTables.h"
#include "index/support/PathNames.h"

#include <map>

namespace inductor::index {

namespace {

constexpr size_t kIrBytes = size_t{256} << 20; // The largest PTX seen is ~1 MB.

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

CubinResources cubinResources(const Index &index, const TritonCacheEntry &entry) {
  const std::string &path = entry.files[static_cast<size_t>(TritonStage::Cubin)];
  if (path.empty()) return {};
  auto bytes = index.readPolicy().read(path, kIrBytes);
  if (!bytes) return {};
  return readCubinResources(*bytes, entry.metadata.name);
}

Expected<IrLineMap> readTritonIr(const Index &index, const TritonCacheEntry &entry, TritonStage stage) {
  const std::string &path = entry.files[static_cast<size_t>(stage)];
  if (path.empty() || stage == TritonStage::Cubin)
    return Error{"no " + std::string(tritonStageName(stage)) + " file in " + entry.dir};
  auto text = index.readPolicy().read(path, kIrBytes);
  if (!text) return Error{text.error().message};
  return parseTritonIr(stage, *text);
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
