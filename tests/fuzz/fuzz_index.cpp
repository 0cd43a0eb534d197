// libFuzzer target: the whole index pipeline (index/model/Index.h) over one log: discovery, reading, cutting
// into compiles, provenance and origins, merging, freezing, then every query. This is where the
// use-after-free of linkKernelSources lived (finding 1 of issue 11). The input is written to a log file in a
// private directory under $TMPDIR (one per process), which is the index's only input and root.
#include "FuzzInput.h"
#include "index/model/Index.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace inductor;
using namespace inductor::index;

namespace {

const std::string &directory() {
  // Never destroyed: the atexit handler below runs after the destructors of statics constructed before it
  // was registered, this one included.
  static const std::string &dir = *[] {
    std::string base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    auto *name = new std::string(base + "/inductor-fuzz-index-XXXXXX");
    if (!::mkdtemp(name->data())) std::abort();
    std::atexit([] { std::filesystem::remove_all(directory()); });
    return name;
  }();
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string log = directory() + "/dedicated_log_torch_trace_fuzz.log";
  {
    std::ofstream out(log, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
  }
  IndexOptions options;
  options.roots = {directory()};
  options.jobs = size % 3 == 0 ? 2 : 1;
  auto index = Index::build(options);
  const IndexStats stats = index->stats();
  fuzz::require(stats.compiles == index->compiles().size(), "stats count the compiles");
  for (uint32_t i = 0; i < index->artifacts().size(); ++i) {
    ArtifactId id{i};
    const Artifact &a = index->artifact(id);
    (void)index->readText(id);
    (void)index->compileOf(id);
    for (uint32_t l = 0; l < a.launches.size(); ++l) {
      const Launch &launch = a.launches[l];
      SymbolAt s = index->symbolAt(id, launch.site.line, launch.site.column);
      for (const Origin &o : index->originsOf(s)) {
        bool found = false;
        for (LaunchRef r : index->launchesForLine(o.path, o.line))
          found = found || index->launch(r).origins.size() > 0;
        fuzz::require(found || s.kind != SymbolAt::Kind::Launch, "an origin leads back to launches");
        (void)index->userLines(o.path);
      }
    }
    for (uint32_t d = 0; d < a.code.kernels.size(); ++d)
      (void)index->launchesOfDefinition(id, d);
    for (uint32_t n = 0; n < a.graphNodes.size(); ++n)
      (void)index->launchesForGraphNode(id, n);
    (void)index->findByVirtualName(a.virtualName);
  }
  (void)index->searchKernels("triton");
  (void)index->searchKernels("");
  return 0;
}
