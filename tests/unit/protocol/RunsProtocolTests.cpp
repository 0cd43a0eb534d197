// Tests for the runs part of protocol/InductorProtocol.h: inductor/runs' result, the `run` and `baseline`
// settings, the inductor.selectRun / inductor.selectBaseline commands and the status's run fields.
#include "protocol/InductorProtocol.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

namespace {

template <class T> T parse(const json &j) {
  T out;
  std::string error;
  const bool ok = fromJSON(j, out, error);
  REQUIRE_MESSAGE(ok, error);
  return out;
}

} // namespace

TEST_CASE("inductor/runs: written as read, unknown times null") {
  RunsResult r;
  RunEntry a;
  a.id = "2026-11-27 02:31:04";
  a.startTime = "2026-11-27T02:31:04.296625Z";
  a.endTime = "2026-11-27T02:31:25.786000Z";
  a.logs = {"/t/a.log"};
  a.baseline = true;
  RunEntry b;
  b.id = "unknown 1";
  b.ranks = {0, 1};
  b.logs = {"/t/r0.log", "/t/r1.log"};
  b.current = true;
  r.runs = {a, b};
  json written = r;
  CHECK(written["runs"][1]["startTime"].is_null());
  CHECK(written["runs"][0]["baseline"] == true);
  CHECK(written["runs"][1]["ranks"] == json::array({0, 1}));
  json again = parse<RunsResult>(written);
  CHECK(again == written);
}

TEST_CASE("initializationOptions: run and baseline are strings; others are skipped with a warning") {
  InitializationOptions o = parse<InitializationOptions>(json{{"run", "previous"}, {"baseline", 3}});
  CHECK(o.run == std::optional<std::string>("previous"));
  CHECK(!o.baseline);
  REQUIRE(o.warnings.size() == 1);
  CHECK(o.warnings[0].find("baseline") != std::string::npos);
  CHECK(o.hasIndexSettings());
  json back = o;
  CHECK(back["run"] == "previous");
  CHECK(!back.contains("baseline"));
}

TEST_CASE("workspace/executeCommand: inductor.selectRun and inductor.selectBaseline") {
  auto run = parse<InductorCommandParams>(json{{"command", "inductor.selectRun"}, {"arguments", {"latest"}}});
  CHECK(run.command == InductorCommandParams::Command::SelectRun);
  CHECK(run.run == std::optional<std::string>("latest"));
  auto base = parse<InductorCommandParams>(json{{"command", "inductor.selectBaseline"}});
  CHECK(base.command == InductorCommandParams::Command::SelectBaseline);
  CHECK(!base.run);
  // An argument that is not a run id reads as none ("latest").
  CHECK(!parse<InductorCommandParams>(json{{"command", "inductor.selectRun"}, {"arguments", {3}}}).run);
  CHECK(serverCommandNames() ==
        std::vector<std::string>{"inductor.reindex", "inductor.selectRun", "inductor.selectBaseline"});
  CHECK(std::string(commandName(InductorCommandParams::Command::SelectBaseline)) ==
        "inductor.selectBaseline");
  InductorCommandParams out;
  std::string error;
  CHECK_FALSE(fromJSON(json{{"command", "inductor.nope"}}, out, error));
}

TEST_CASE("inductor/status: the run, the other runs and the baseline") {
  StatusResult s;
  s.run = "2026-11-27 02:31:47";
  s.otherRuns = 1;
  json j = s;
  CHECK(j["run"] == "2026-11-27 02:31:47");
  CHECK(j["otherRuns"] == 1);
  CHECK(j["baseline"].is_null());
  StatusResult back = parse<StatusResult>(j);
  CHECK(back.run == s.run);
  CHECK(back.otherRuns == 1);
  CHECK(!back.baseline);
}
