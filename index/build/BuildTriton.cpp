// index/build/BuildTriton.cpp: the Triton cache of a build (index/files/TritonCache.h): the entry folders the
// discovery walk saw, and those inside the Inductor caches that hold the kernel files found (Inductor puts
// Triton's cache in `<inductor cache>/triton/<rank>/`) and under the configured tritonCacheDirs. Only names
// and metadata are read here; IR is parsed on request.
#include "index/build/IndexBuilder.h"

#include <set>

namespace inductor::index {

void IndexBuilder::buildTritonCache(const TritonCacheCollector &walked) {
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
  auto resolve = [this](std::string_view recorded) -> std::string {
    ResolvedPath local = resolver_->resolve(recorded);
    return local.exists && mayRead(local.path) ? local.path : std::string();
  };
  TritonCache cache = findTritonCache(walked.entryDirs, std::vector<std::string>(roots.begin(), roots.end()),
                                      policy_, resolve);
  for (const TritonCache::Note &n : cache.notes)
    diag(n.path, 0, n.message);
  index_->triton_ = std::make_shared<const TritonCache>(std::move(cache));
}

} // namespace inductor::index
