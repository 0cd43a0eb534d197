// Tests for index/builder/Origins.cpp on the project's own real traces: the end of the fallback chain
// (Index.h) for kernels whose stacks hold only PyTorch's frames, and which launches were recorded without
// provenance.
#include "index/analysis/ModelFrames.h"
#include "index/model/Index.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

const std::string kOwnTraces = normalizePath(INDUCTOR_TRACES_DIR);

std::shared_ptr<const Index> build(const std::string &caseName, unsigned jobs) {
  IndexOptions options;
  options.inputs = {kOwnTraces + "/" + caseName + "/trace"};
  options.jobs = jobs;
  return Index::build(options);
}

} // namespace

TEST_CASE("Origins: a compiled optimizer step's kernels keep their innermost PyTorch frame apart") {
  for (unsigned jobs : {1u, 2u}) {
    auto index = build("adam_autotune", jobs);
    size_t framework = 0, withOrigin = 0;
    for (const Artifact &a : index->artifacts())
      for (const Launch &l : a.launches) {
        CHECK(l.provenance); // Traced with INDUCTOR_PROVENANCE=1.
        if (!l.origins.empty()) {
          ++withOrigin;
          CHECK(l.frameworkOrigins.empty()); // Only when there is no origin.
          for (const Origin &o : l.origins)
            CHECK_FALSE(isFrameworkPath(o.recordedPath));
        }
        for (const Origin &o : l.frameworkOrigins) {
          ++framework;
          // torch/optim/adam.py and what it calls, as the log records it (the innermost frame).
          CHECK(o.recordedPath.find("/site-packages/torch/") != std::string::npos);
          CHECK(isFrameworkPath(o.recordedPath));
          CHECK(o.line > 0);
          CHECK_FALSE(o.code.empty());
          // Not counted as a user line of the torch file.
          CHECK(index->launchesForLine(o.path, o.line).empty());
          // Its recorded text is what a document of the missing file shows.
          bool recorded = false;
          for (const RecordedLine &r : index->recordedSource(o.path))
            recorded |= r.line == o.line && r.code == o.code;
          CHECK(recorded);
        }
      }
    CHECK(framework > 0);
    CHECK(index->stats().launchesWithOrigin == withOrigin);
    CHECK(index->stats().launchesWithFrameworkOrigin > 0);
    CHECK(index->stats().launchesWithoutProvenance == 0);
  }
}

TEST_CASE("Origins: a trace made without provenance counts its launches, and those with no origin") {
  auto index = build("no_provenance", 1);
  IndexStats s = index->stats();
  REQUIRE(s.launches > 0);
  CHECK(s.launchesWithoutProvenance == s.launches);
  CHECK(s.launchesWithoutProvenanceOrOrigin == s.launches - s.launchesWithOrigin);
  for (const Artifact &a : index->artifacts())
    for (const Launch &l : a.launches) {
      CHECK_FALSE(l.provenance);
      CHECK_FALSE(l.site.debugHandle);
    }
}
