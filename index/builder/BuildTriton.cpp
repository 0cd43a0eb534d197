// index/builder/BuildTriton.cpp: the Triton cache of a build (index/files/TritonCache.h): the entry folders
// the discovery walk saw, and those inside the Inductor caches that hold the kernel files found (Inductor
// puts Triton's cache in `<inductor cache>/triton/<rank>/`) and under the configured tritonCacheDirs. Only
// the names the walk saw are kept here (Index::tritonCache() reads the entries on first use); IR is parsed on
// request.
#include "index/builder/IndexBuilder.h"

#include <map>
#include <set>

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
  // The directories the walk listed kernel files in, with the autotuner's files it saw there.
  std::map<std::string, std::vector<std::string>> walkedConfigs;
  auto dirOf = [](const std::string &p) { return p.substr(0, p.find_last_of('/')); };
  for (const std::string &p : inputs.cacheSources)
    walkedConfigs[dirOf(p)];
  for (const std::string &p : inputs.autotuneConfigs)
    walkedConfigs[dirOf(p)].push_back(p);
  TritonCacheSources &sources = tables_->tritonSources;
  sources.entryDirs = walked.entryDirs;
  sources.roots.assign(roots.begin(), roots.end());
  sources.walkedConfigs = std::move(walkedConfigs);
}

} // namespace inductor::index
