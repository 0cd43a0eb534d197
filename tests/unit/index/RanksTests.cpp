// Unit tests of index/model/Ranks.h: the ranks of a run compared.
#include "index/files/PathResolver.h"
#include "index/model/Index.h"
#include "index/model/Ranks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

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
  CHECK(rankSubsetText({0, 1, 2, 3, 4, 5, 6, 7, 8}, 16) == "ranks 0, 1, 2, 3, 4, 5, 6, 7, … (9 of 16)");
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
