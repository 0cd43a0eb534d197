// Unit tests of index/model/Ranks.h: the ranks of a run compared.
#include "index/files/PathResolver.h"
#include "index/model/Index.h"
#include "index/model/Ranks.h"
#include "index/trace/Md5.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdlib.h>
#include <string>
#include <vector>

using namespace inductor::index;

namespace {

const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);

std::shared_ptr<const Index> build(const std::string &caseName, const std::string &inputs = "") {
  IndexOptions options;
  options.roots = {kFixtures + "/traces/" + caseName};
  options.inputs = {inputs.empty() ? kFixtures + "/traces/" + caseName + "/trace" : inputs};
  return Index::build(options);
}

const RankDivergence *find(const RankReport &r, RankDivergenceKind kind) {
  for (const RankDivergence &d : r.divergences)
    if (d.kind == kind) return &d;
  return nullptr;
}

} // namespace

TEST_CASE("Ranks: rankSubsetText names a few ranks, or all of them once") {
  CHECK(rankSubsetText({2}, 4) == "rank 2 only (1 of 4)");
  CHECK(rankSubsetText({1, 3}, 4) == "ranks 1, 3 (2 of 4)");
  CHECK(rankSubsetText({0, 1, 2, 3}, 4) == "all 4 ranks");
  CHECK(rankSubsetText({0, 1, 2, 3, 4, 5, 6, 7, 8}, 16) == "ranks 0–8 (9 of 16)");
  CHECK(rankSubsetText({1, 2}, 16) == "ranks 1, 2 (2 of 16)"); // Two are no range.
  std::vector<int> most(1024);
  for (int r = 0; r < 1024; ++r)
    most[static_cast<size_t>(r)] = r;
  most.erase(most.begin() + 513);
  CHECK(rankSubsetText(most, 1024) == "ranks 0–512, 514–1023 (1023 of 1024)");
  std::vector<int> even;
  for (int r = 0; r < 40; r += 2)
    even.push_back(r);
  CHECK(rankSubsetText(even, 64) == "ranks 0, 2, 4, 6, 8, 10, 12, 14, … (20 of 64)");
  CHECK(rankRanges({7, 3, 5, 4, 3}, 4) == "3–5, 7"); // Sorted, each once.
  CHECK(rankDivergenceName(RankDivergenceKind::DifferentCode) == "different code");
  CHECK(rankDivergenceName(RankDivergenceKind::CollectiveSchedule) == "collective schedule");
}

TEST_CASE("Ranks: ranks_diverge's recompile, graph break and different code, each once and on its rank") {
  auto index = build("ranks_diverge");
  const RankReport &r = index->ranks();
  CHECK(r.ranks == std::vector<int>{0, 1, 2, 3});
  CHECK(&index->ranks() == &r); // Computed once.
  const RankDivergence *recompile = find(r, RankDivergenceKind::Recompile);
  const RankDivergence *graphBreak = find(r, RankDivergenceKind::GraphBreak);
  const RankDivergence *code = find(r, RankDivergenceKind::DifferentCode);
  REQUIRE(recompile);
  REQUIRE(graphBreak);
  REQUIRE(code);
  CHECK(recompile->ranks == std::vector<int>{2});
  CHECK(recompile->compileId == "0/1");
  CHECK(recompile->message.rfind("recompiled on rank 2 only (1 of 4): ", 0) == 0);
  CHECK(recompile->message.find("temp") != std::string::npos);
  CHECK(graphBreak->ranks == std::vector<int>{3});
  CHECK(code->ranks == std::vector<int>{1});
  CHECK(code->severity == HealthSeverity::Information);
  CHECK(!code->detail.empty());
  for (const RankDivergence *d : {recompile, graphBreak, code}) {
    REQUIRE(d->at);
    CHECK(d->at->path == kFixtures + "/traces/ranks_diverge/model.py");
    CHECK(d->of == 4);
  }
  // model.py: `h = h * scale / temp` (25: the recompile's guard, and rank 1's float64 `scale`), `if ...`
  // (26).
  CHECK(recompile->at->line == 25);
  CHECK(graphBreak->at->line == 26);
  CHECK(code->at->line == 25);
  // The compiles only rank 2 (its recompile) and rank 3 (after its graph break) made are explained by them.
  CHECK(find(r, RankDivergenceKind::MissingCompile) == nullptr);
  CHECK(find(r, RankDivergenceKind::CollectiveSchedule) == nullptr);
  // Every divergence is reported once.
  for (size_t i = 0; i < r.divergences.size(); ++i)
    for (size_t j = i + 1; j < r.divergences.size(); ++j)
      CHECK_FALSE((r.divergences[i].kind == r.divergences[j].kind &&
                   r.divergences[i].compileId == r.divergences[j].compileId &&
                   r.divergences[i].ranks == r.divergences[j].ranks));
  // The health diagnostic of the recompile says it once, with the ranks.
  bool said = false;
  for (const HealthDiagnostic &d : index->healthDiagnostics(kFixtures + "/traces/ranks_diverge/model.py"))
    if (d.kind == HealthEventKind::Recompile) {
      said = true;
      CHECK(d.severity == HealthSeverity::Warning);
      CHECK(d.message.rfind("recompiled on rank 2 only (1 of 4)", 0) == 0);
    }
  CHECK(said);
}

TEST_CASE("Ranks: ranks_agree differs only in the cache, and one rank alone is no run to compare") {
  auto index = build("ranks_agree");
  const RankReport &r = index->ranks();
  CHECK(r.ranks.size() == 4);
  for (const RankDivergence &d : r.divergences)
    CHECK(d.kind == RankDivergenceKind::Cache);
  CHECK(find(r, RankDivergenceKind::Cache) != nullptr);
  // Every compile id was compiled by all four ranks, alike.
  for (const RankCompile &c : r.compiles) {
    CHECK(c.ranks.size() == 4);
    CHECK(c.outcomes.size() == 1);
    CHECK(c.code.size() == 1);
    // Logged by the rank that missed the FX graph cache only; the others' hits skipped the scheduler.
    CHECK(c.collectives == std::vector<std::string>{"torch.ops._c10d_functional.all_reduce_.default",
                                                    "torch.ops._c10d_functional.wait_tensor.default"});
  }
  const RankDivergence *cache = find(r, RankDivergenceKind::Cache);
  if (cache) {
    CHECK(cache->ranks == std::vector<int>{1}); // Rank 1 missed where the others hit.
    CHECK(cache->message.find("FX graph miss") != std::string::npos);
  }
  std::string one;
  for (const auto &entry : std::filesystem::directory_iterator(kFixtures + "/traces/ranks_agree/trace"))
    if (entry.path().filename().string().find("_rank_0_") != std::string::npos) one = entry.path().string();
  REQUIRE(!one.empty());
  auto single = build("ranks_agree", one);
  CHECK(single->ranks().ranks.size() == 1);
  CHECK(single->ranks().divergences.empty());
}

namespace {

/// A TORCH_TRACE record: the glog prefix, the envelope `meta` (JSON text without braces) and, when given,
/// the payload lines (each written after a tab) with their md5 as has_payload.
std::string traceRecord(const std::string &meta, const std::vector<std::string> &payload = {}) {
  std::string out = "V1127 14:35:10.000000 100 torch/_inductor/debug.py:734] {" + meta;
  if (!payload.empty()) {
    std::string text;
    for (size_t i = 0; i < payload.size(); ++i)
      text += (i ? "\n" : "") + payload[i];
    out += ", \"has_payload\": \"" + Md5::of(text).hex() + "\"";
  }
  out += "}\n";
  for (const std::string &l : payload)
    out += "\t" + l + "\n";
  return out;
}

} // namespace

TEST_CASE("Ranks: 40 ranks whose collective schedules of 4,096 ops all differ: each detail bounded") {
  // Issue 43: every divergence's detail held both whole schedules (the majority's read again for each), so
  // the details grew with ranks x schedule length: 202 ranks (25 MiB of logs) made a 918 MB inductor/ranks
  // answer. Rank r issues a broadcast as its collective r + 1; the others are all_reduce.
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "inductor-ranks-schedules-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  const int ranks = 40;
  const size_t ops = 4096;
  for (int r = 0; r < ranks; ++r) {
    std::string ids =
        ", \"rank\": " + std::to_string(r) + R"(, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)";
    std::vector<std::string> schedule{"["};
    for (size_t i = 0; i < ops; ++i)
      schedule.push_back(std::string("\"torch.ops._c10d_functional.") +
                         (i == static_cast<size_t>(r) ? "broadcast_" : "all_reduce_") + ".default\"" +
                         (i + 1 < ops ? "," : ""));
    schedule.push_back("]");
    std::ofstream(dir + "/dedicated_log_torch_trace_rank_" + std::to_string(r) + "_x.log")
        << traceRecord(R"("dynamo_start": {"stack": [{"line": 5, "name": "f", "filename": 0, "loc": "x"}]})" +
                       ids)
        << traceRecord(R"("artifact": {"name": "inductor_collective_schedule", "encoding": "json"})" + ids,
                       schedule)
        << traceRecord(
               R"("compilation_metrics": {"co_name": "f", "co_filename": "/m.py", "co_firstlineno": 1})" +
               ids);
  }
  IndexOptions options;
  options.inputs = {dir};
  auto index = Index::build(options);
  const RankReport &r = index->ranks();
  REQUIRE(r.ranks.size() == static_cast<size_t>(ranks));
  size_t schedules = 0, bytes = 0;
  for (const RankDivergence &d : r.divergences) {
    if (d.kind != RankDivergenceKind::CollectiveSchedule) continue;
    ++schedules;
    bytes += d.detail.size();
    CHECK(d.detail.size() < 2048);
    // The first difference is where one side's broadcast is: collective 1 for rank 0 against the others.
    CHECK(d.detail.find("broadcast_") != std::string::npos);
    CHECK(d.detail.find("more\n") != std::string::npos); // The rest counted, not listed.
  }
  CHECK(schedules == static_cast<size_t>(ranks - 1)); // Every rank but the majority's (rank 0's) differs.
  CHECK(bytes < 80 * 1024);
  REQUIRE(r.compiles.size() == 1);
  CHECK(r.compiles[0].collectives.size() == ops);
}
