// Tests for the sharing of analyses between ranks (index/model/Index.h: Index::firstCopy,
// Index::firstEquivalent): the ranks of a host of several GPUs write output code, graphs and provenance that
// differ only in the device they name and in the cache files their kernels were written to. One analysis
// serves them all; what names a file or hashes the device stays each rank's own. The reference is the real
// 2-GPU DDP trace of tests/traces/ddp_gpt2 (rank 1 on cuda:1), each rank's log also indexed alone: sharing
// must give exactly what analysing a rank on its own gives.
#include "index/model/Index.h"
#include "index/trace/Md5.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

const std::string kDdp = normalizePath(INDUCTOR_TRACES_DIR) + "/ddp_gpt2";

/// The ddp_gpt2 logs, rank 0 first.
std::vector<std::string> ddpLogs() {
  std::vector<std::string> logs;
  for (const auto &e : fs::directory_iterator(kDdp + "/trace"))
    logs.push_back(e.path().string());
  std::sort(logs.begin(), logs.end());
  REQUIRE(logs.size() == 2);
  REQUIRE(logs[0].find("_rank_0_") != std::string::npos);
  return logs;
}

std::shared_ptr<const Index> build(std::vector<std::string> inputs, unsigned jobs = 2,
                                   IndexCache *cache = nullptr) {
  IndexOptions options;
  options.inputs = std::move(inputs);
  options.jobs = jobs;
  auto index = Index::build(options, {}, nullptr, cache);
  REQUIRE(index);
  return index;
}

/// What queries see of a log compile's output code: its kernels (with their kernel files), its launches
/// (with their origins), its text's identity and local copies, and the compile's cache key. Log indexes
/// and record numbers aside, which differ between an index of one log and one of several.
std::string describe(const Index &index, const Compile &c) {
  std::ostringstream out;
  const Artifact &a = index.artifact(c.outputCode);
  out << c.label() << " hash=" << a.contentHash << " cacheKey=" << c.cacheKey << "\n";
  for (const std::string &p : a.paths)
    out << "  path " << p << "\n";
  for (const KernelDefinition &k : a.code.kernels)
    out << "  kernel " << k.name << " @" << k.nameLine << ":" << k.nameColumn << " [" << k.firstLine << ","
        << k.lastLine << "] path=" << k.kernelPath << "\n";
  for (const Launch &l : a.launches) {
    out << "  launch " << l.site.key() << " @" << l.site.line << ":" << l.site.column << "-"
        << l.site.endColumn << " def=" << l.definition << " kind=" << int(l.kind);
    for (const Origin &o : l.origins)
      out << " " << o.path << ":" << o.line;
    out << "\n";
  }
  return out.str();
}

/// The compiles of one rank, in index order.
std::vector<const Compile *> ofRank(const Index &index, int rank) {
  std::vector<const Compile *> out;
  for (const Compile &c : index.compiles())
    if (c.rank == rank) out.push_back(&c);
  return out;
}

/// Rank 0's `log` as rank 1's: `from` replaced by `to` inside the payloads of its records, each has_payload
/// digest made that of the new payload, and the records' `"rank": 0` made 1 (as rank 1 would have written
/// it).
std::string asRank1(const std::string &log, const std::string &from, const std::string &to) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::string out;
  for (size_t i = 0; i < lines.size();) {
    std::string header = lines[i++];
    if (size_t at = header.find("\"rank\": 0,"); at != std::string::npos) header[at + 8] = '1';
    std::vector<std::string> payload;
    while (i < lines.size() && !lines[i].empty() && lines[i][0] == '\t')
      payload.push_back(lines[i++].substr(1));
    std::string text;
    for (size_t k = 0; k < payload.size(); ++k) {
      for (size_t at = 0; (at = payload[k].find(from, at)) != std::string::npos; at += to.size())
        payload[k].replace(at, from.size(), to);
      text += (k ? "\n" : "") + payload[k];
    }
    const std::string key = "\"has_payload\": \"";
    if (size_t at = header.find(key); at != std::string::npos && !payload.empty())
      header.replace(at + key.size(), 32, Md5::of(text).hex());
    out += header + "\n";
    for (const std::string &p : payload)
      out += "\t" + p + "\n";
  }
  return out;
}

} // namespace

TEST_CASE(
    "ranks on a host's other GPUs share one analysis; each keeps its text, kernel files and cache key") {
  std::vector<std::string> logs = ddpLogs();
  auto both = build({kDdp + "/trace"});
  auto alone = build({logs[1]});
  std::vector<const Compile *> r0 = ofRank(*both, 0), r1 = ofRank(*both, 1), own = ofRank(*alone, 1);
  REQUIRE(!r0.empty());
  REQUIRE(r1.size() == r0.size());
  REQUIRE(own.size() == r1.size());
  // Rank 1's code is rank 0's on cuda:1: every one of its compiles shares rank 0's analysis.
  CHECK(both->stats().compilesAnalysed == r0.size());
  CHECK(alone->stats().compilesAnalysed == own.size());
  size_t kernelFiles = 0;
  for (size_t i = 0; i < r1.size(); ++i) {
    const Compile &c0 = *r0[i], &c1 = *r1[i];
    CAPTURE(c1.label());
    // Sharing gives what analysing rank 1 alone gives: its own kernel files, text identity and cache key.
    CHECK(describe(*both, c1) == describe(*alone, *own[i]));
    CHECK(both->text(c1.outputCode) == alone->text(own[i]->outputCode));
    // The same code up to the device: listed once (rank 0's), but its text is its own.
    const Artifact &a0 = both->artifact(c0.outputCode), &a1 = both->artifact(c1.outputCode);
    CHECK(a1.launches.sharedWith(a0.launches));
    CHECK(both->firstEquivalent(c1.outputCode) == c0.outputCode);
    CHECK(both->firstEquivalent(c0.outputCode) == c0.outputCode);
    CHECK(both->firstCopy(c1.outputCode) == c1.outputCode);
    std::string text0 = both->text(c0.outputCode), text1 = both->text(c1.outputCode);
    CHECK(text1.find("cuda:1") != std::string::npos);
    CHECK(text1.find("cuda:0") == std::string::npos);
    CHECK(text0.size() == text1.size());
    CHECK(a1.contentHash != a0.contentHash);
    CHECK(c1.cacheKey != c0.cacheKey);
    REQUIRE(a1.code.kernels.size() == a0.code.kernels.size());
    for (size_t k = 0; k < a1.code.kernels.size(); ++k) {
      const std::string &p0 = a0.code.kernels[k].kernelPath, &p1 = a1.code.kernels[k].kernelPath;
      if (p1.empty()) continue;
      ++kernelFiles;
      CHECK(p1 != p0);
      CHECK(text1.find("# kernel path: " + p1) != std::string::npos);
      CHECK(text0.find(p1) == std::string::npos);
    }
    // Its post-grad graph's nodes are rank 0's analysis; the graph's text is its own.
    if (c0.postGradGraph.valid() && c1.postGradGraph.valid()) {
      CHECK(both->artifact(c1.postGradGraph)
                .graphNodes.sharedWith(both->artifact(c0.postGradGraph).graphNodes));
      CHECK(both->text(c1.postGradGraph).find("cuda:1") != std::string::npos);
    }
  }
  CHECK(kernelFiles > 0);
  // A model line's launches: every rank's, rank 1's the same sites as rank 0's.
  CHECK(both->stats().launches == 2 * alone->stats().launches);
}

TEST_CASE("the same code up to the device: what else differs is never shared") {
  // Rank 1 made from rank 0's log by rewriting its payloads (digests recomputed): the device alone is
  // shared; a kernel renamed at the same length, or a device index of another length, is not.
  std::vector<std::string> logs = ddpLogs();
  std::string rank0 = readFile(logs[0]);
  REQUIRE(rank0.find("triton_poi_fused_cat_split_transpose_view_1") != std::string::npos);
  struct Case {
    std::string what, from, to;
    bool shared;
  };
  for (const Case &k : {Case{"the device", "cuda:0", "cuda:1", true},
                        Case{"a kernel's name", "triton_poi_fused_cat_split_transpose_view_1",
                             "triton_poi_fused_cat_split_transpose_view_7", false},
                        Case{"a debug handle", "extern_kernels.mm:9", "extern_kernels.mm:8", false},
                        Case{"a device index of two digits", "cuda:0", "cuda:10", false}}) {
    CAPTURE(k.what);
    TempDir dir;
    std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_0_aaaa.log", std::ios::binary) << rank0;
    std::string rewritten = asRank1(rank0, k.from, k.to);
    std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_1_bbbb.log", std::ios::binary) << rewritten;
    auto index = build({dir.path});
    CHECK(index->stats().corruptedRecords == 0);
    std::vector<const Compile *> r0 = ofRank(*index, 0), r1 = ofRank(*index, 1);
    REQUIRE(r0.size() == r1.size());
    size_t shared = 0;
    // Launches named (kernel, or kernel:handle) `name` in a rank's output code.
    auto count = [&](int rank, const std::string &name) {
      size_t n = 0;
      for (const Compile *c : ofRank(*index, rank))
        for (const Launch &l : index->artifact(c->outputCode).launches)
          n += l.site.kernel == name || l.site.key() == name;
      return n;
    };
    for (size_t i = 0; i < r1.size(); ++i) {
      const Artifact &a0 = index->artifact(r0[i]->outputCode), &a1 = index->artifact(r1[i]->outputCode);
      bool changed = index->text(r1[i]->outputCode) != index->text(r0[i]->outputCode);
      bool isShared = a1.launches.sharedWith(a0.launches);
      shared += isShared;
      // What is shared is only ever what compares equal up to the device; a changed text shares only then.
      if (changed && isShared) CHECK(k.shared);
      CHECK((index->firstEquivalent(r1[i]->outputCode) == r0[i]->outputCode) == isShared);
    }
    if (k.shared) {
      CHECK(shared == r1.size());
      CHECK(index->stats().compilesAnalysed == r0.size());
    } else {
      CHECK(shared < r1.size());
      CHECK(index->stats().compilesAnalysed > r0.size());
    }
    // Rank 1's launches are named as its own text names them.
    CHECK(count(1, k.to) == count(0, k.to) + count(0, k.from));
    CHECK(count(1, k.from) == 0);
  }
}

TEST_CASE("an incremental build keeps each rank's own kernel files") {
  // From the cache, a rank that shared another's analysis keeps its patch: the second build analyses
  // nothing and describes the same.
  std::vector<std::string> logs = ddpLogs();
  IndexCache cache;
  auto first = build({kDdp + "/trace"}, 2, &cache);
  auto second = build({kDdp + "/trace"}, 2, &cache);
  CHECK(second->stats().compilesAnalysed == 0);
  std::vector<const Compile *> a = ofRank(*first, 1), b = ofRank(*second, 1);
  REQUIRE(a.size() == b.size());
  REQUIRE(!a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(describe(*first, *a[i]) == describe(*second, *b[i]));
    CHECK(second->firstEquivalent(b[i]->outputCode) == ofRank(*second, 0)[i]->outputCode);
    CHECK(second->firstCopy(b[i]->outputCode) == b[i]->outputCode);
  }
}
