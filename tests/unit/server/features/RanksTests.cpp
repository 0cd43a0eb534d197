// In-process tests of server/features/Ranks.cpp (inductor/ranks) and WorkspaceSymbol.cpp over small annotated
// traces (MiniTrace.h), a rank's log each (`ranks`).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using protocol::json;
using test::MiniTrace;

namespace {

/// reluMulTexts on four ranks, rank 2 alone breaking the graph on the `relu` line.
MiniTrace::Texts breakOnRank2() {
  MiniTrace::Texts t = test::reluMulTexts();
  t.ranks = 4;
  MiniTrace::Texts withBreak = test::reluMulWithGraphBreak();
  t.rankRecords.push_back({2, withBreak.records.back()});
  return t;
}

} // namespace

TEST_CASE("ranks: a graph break on one rank of four is one divergence, on that rank and its model line") {
  MiniTrace t(breakOnRank2());
  protocol::RanksResult r = t.call(&server::ranks, "", protocol::RanksParams{});
  CHECK(r.count == 4);
  REQUIRE(r.divergences.size() == 1);
  const protocol::RankDivergenceEntry &d = r.divergences[0];
  CHECK(d.kind == protocol::RankDivergenceKind::GraphBreak);
  CHECK(json(d.kind) == "graph break");
  CHECK(d.ranks == std::vector<int64_t>{2});
  CHECK(d.of == 4);
  CHECK(d.compileId == "0/0");
  CHECK(d.file == t.modelPath());
  CHECK(d.line == t.model.range("relu").start.line + 1); // 1-based, as recorded.
  CHECK(d.message.find("rank 2 only (1 of 4)") != std::string::npos);
}

TEST_CASE("ranks: ranks that agree have nothing to say; one log is no distributed run") {
  MiniTrace::Texts same = test::reluMulTexts();
  same.ranks = 4;
  MiniTrace agree(same);
  protocol::RanksResult r = agree.call(&server::ranks, "", protocol::RanksParams{});
  CHECK(r.count == 4);
  CHECK(r.divergences.empty());
  MiniTrace one(test::reluMulWithGraphBreak());
  protocol::RanksResult single = one.call(&server::ranks, "", protocol::RanksParams{});
  CHECK(single.count <= 1);
  CHECK(single.divergences.empty());
}

TEST_CASE("workspace/symbol: the kernels whose names match, at their definitions; each kernel once a rank") {
  MiniTrace t(test::reluMulTexts());
  protocol::WorkspaceSymbolParams params;
  params.query = "mul_relu";
  std::vector<protocol::SymbolInformation> found = t.call(&server::workspaceSymbol, "", params);
  REQUIRE(found.size() == 1);
  CHECK(found[0].name == "triton_poi_fused_mul_relu_0");
  CHECK(found[0].location == protocol::Location{t.outputCodeUri(), t.code.range("def")});
  CHECK(found[0].containerName == "[0/0] · pointwise");
  params.query = "no_such_kernel";
  CHECK(t.call(&server::workspaceSymbol, "", params).empty());
  // Four ranks that wrote the same code: the kernel once, its container naming them.
  MiniTrace ranks(breakOnRank2());
  params.query = "mul_relu";
  found = ranks.call(&server::workspaceSymbol, "", params);
  REQUIRE(found.size() == 1);
  CHECK(found[0].location == protocol::Location{ranks.outputCodeUri(), ranks.code.range("def")});
  CHECK(found[0].containerName == "[0/0] ranks 0–3 · pointwise");
  CHECK(ranks.call(&server::workspaceSymbol, "", params).size() == 1);
}
