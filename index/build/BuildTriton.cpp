// index/build/BuildTriton.cpp: the Triton cache of a build (index/files/TritonCache.h): the entry folders the
// discovery walk saw, and those inside the Inductor caches that hold the kernel files found (Inductor puts
// Triton's cache in `<inductor cache>/triton/<rank>/`) and under the configured tritonCacheDirs. Only names
// and metadata are read here; IR is parsed on request.
#include "index/build/IndexBuilder.h"

#include <map>
#include <set>

namespace {
std::string_view baseNameOf(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
/// Inductor's content-addressed kernel file name, `c<hash>.py` (torch/_inductor/codecache.py: "c" + a base32
/// code hash); other names (a user's Triton kernel in model.py) say nothing of the content.
bool isCodeHashName(std::string_view name) {
  return name.size() >= 40 && name.front() == 'c' && name.substr(name.size() - 3) == ".py";
}
} // namespace

namespace inductor::index {

void IndexBuilder::buildTritonCache(const TritonCacheCollector &walked, const DiscoveredInputs &inputs) {
  std::set<std::string> roots(walked.roots.begin(), walked.roots.end());
  for (const std::string &dir : options_.tritonCacheDirs)
    roots.insert(normalizePath(dir));
  // A kernel file `<cache>/<xy>/c<hash>.py`: its Inductor cache is two levels up.
  for (const Artifact &a : index_->artifacts_) {
    if (a.kind != ArtifactKind::KernelSource || a.paths.empty()) continue;
    const std::string &p = a.paths.front();
    size_t s1 = p.find_last_of('/');
    size_t s2 = s1 == std::string::npos || s1 == 0 ? std::string::npos : p.find_last_of('/', s1 - 1);
    if (s2 == std::string::npos || s2 == 0) continue;
    roots.insert(p.substr(0, s2) + "/triton");
  }
  // A recorded kernel file is `<cache>/<xy>/c<hash>.py`, content-addressed: when a kernel file of that name
  // is already indexed, it is that file (read before, so inside the roots); resolving the recorded path again
  // cost a realpath(3) or two per cache entry, which was most of what the cache added to the first answer.
  std::map<std::string_view, const std::string *> kernelFiles;
  for (const Artifact &a : index_->artifacts_)
    if (a.kind == ArtifactKind::KernelSource && !a.paths.empty() &&
        isCodeHashName(baseNameOf(a.paths.front())))
      kernelFiles.emplace(baseNameOf(a.paths.front()), &a.paths.front());
  auto resolve = [this, &kernelFiles](std::string_view recorded) -> std::string {
    if (auto it = kernelFiles.find(baseNameOf(recorded)); it != kernelFiles.end()) return *it->second;
    ResolvedPath local = resolver_->resolve(recorded);
    return local.exists && mayRead(local.path) ? local.path : std::string();
  };
  // The directories the walk listed kernel files in, with the autotuner's files it saw there.
  std::map<std::string, std::vector<std::string>> walkedConfigs;
  auto dirOf = [](const std::string &p) { return p.substr(0, p.find_last_of('/')); };
  for (const std::string &p : inputs.cacheSources)
    walkedConfigs[dirOf(p)];
  for (const std::string &p : inputs.autotuneConfigs)
    walkedConfigs[dirOf(p)].push_back(p);
  TritonCache cache = findTritonCache(walked.entryDirs, std::vector<std::string>(roots.begin(), roots.end()),
                                      policy_, resolve, walkedConfigs);
  for (const TritonCache::Note &n : cache.notes)
    diag(n.path, 0, n.message);
  index_->triton_ = std::make_shared<const TritonCache>(std::move(cache));
}

} // namespace inductor::index
