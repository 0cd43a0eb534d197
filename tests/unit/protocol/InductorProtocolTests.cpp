// Tests for protocol/InductorProtocol.h: the custom requests' params and results, and initializationOptions.
#include "protocol/InductorProtocol.h"
#include "protocol/JsonWriter.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

namespace {

template <class T> std::string parseError(const json &j) {
  T out;
  std::string error;
  CHECK_FALSE(fromJSON(j, out, error));
  return error;
}

template <class T> T parse(const json &j) {
  T out;
  std::string error;
  const bool ok = fromJSON(j, out, error);
  REQUIRE_MESSAGE(ok, error);
  return out;
}

/// Written, read back and written again: the same JSON (every member read as it is written).
template <class T> void checkRoundTrip(const json &written) {
  json again = parse<T>(written);
  CHECK_MESSAGE(again == written, json::diff(written, again).dump());
}

Location location(const std::string &uri, uint32_t line) {
  return {uri, {{line, 4}, {line, 20}}};
}

} // namespace

TEST_CASE("initializationOptions: settings read as sent, malformed entries skipped with a warning") {
  InitializationOptions o = parse<InitializationOptions>(json::parse(R"({
    "traceDirs": ["/t", 5, "file:///u"], "libraryPaths": "*/site-packages/*", "pythonPath": 3,
    "profiles": ["/p.json", {"x": 1}], "runLogs": "/run.log", "trusted": "yes",
    "pathMappings": [{"from": "/a", "to": "/b"}, {"from": "/c"}, 7]})"));
  REQUIRE(o.traceDirs);
  CHECK(*o.traceDirs == std::vector<std::string>{"/t", "file:///u"});
  CHECK(*o.libraryPaths == std::vector<std::string>{"*/site-packages/*"});
  CHECK(o.pythonPath == std::optional<std::string>(""));
  CHECK(*o.profiles == std::vector<std::string>{"/p.json"});
  CHECK(*o.runLogs == std::vector<std::string>{"/run.log"});
  CHECK(o.trusted == std::optional<bool>(false));
  CHECK(*o.pathMappings == std::vector<PathMapping>{{"/a", "/b"}});
  // pythonPath, a profiles entry, two pathMappings entries, trusted.
  CHECK(o.warnings.size() == 5);
  CHECK(o.hasIndexSettings());

  InitializationOptions none = parse<InitializationOptions>(json::parse(R"({"trusted": true})"));
  CHECK_FALSE(none.hasIndexSettings());
  CHECK(none.trusted == std::optional<bool>(true));
  CHECK(none.warnings.empty());
  CHECK_FALSE(parse<InitializationOptions>(json(nullptr)).hasIndexSettings());
  CHECK_FALSE(parse<InitializationOptions>(json("x")).hasIndexSettings());
  // A key present with nothing usable is still present: it clears the setting.
  CHECK(parse<InitializationOptions>(json::parse(R"({"pathMappings": null})")).pathMappings->empty());

  // tritonCacheDirs: a list or one string, malformed entries skipped and said; an index setting.
  InitializationOptions t =
      parse<InitializationOptions>(json::parse(R"({"tritonCacheDirs": ["/c/triton", 3, "file:///d"]})"));
  REQUIRE(t.tritonCacheDirs);
  CHECK(*t.tritonCacheDirs == std::vector<std::string>{"/c/triton", "file:///d"});
  CHECK(t.warnings.size() == 1);
  CHECK(t.hasIndexSettings());
  CHECK(*parse<InitializationOptions>(json::parse(R"({"tritonCacheDirs": "/x"})")).tritonCacheDirs ==
        std::vector<std::string>{"/x"});
  InitializationOptions bad = parse<InitializationOptions>(json::parse(R"({"tritonCacheDirs": 4})"));
  CHECK(bad.tritonCacheDirs->empty());
  CHECK(bad.warnings.size() == 1);
  CHECK(json(t)["tritonCacheDirs"] == json::array({"/c/triton", "file:///d"}));
}

TEST_CASE("custom params: what cannot be read is refused with the JSON path, tolerant ones are not") {
  CHECK(parseError<ArtifactContentParams>(json::object()).find("uri") != std::string::npos);
  CHECK(parseError<ArtifactContentParams>(json{{"uri", 4}}).find("/uri") != std::string::npos);
  CHECK(parse<ArtifactContentParams>(json{{"uri", "inductor-trace:/x"}}).uri == "inductor-trace:/x");

  CHECK(parseError<CompilesParams>(json{{"uri", 4}}).find("/uri") != std::string::npos);
  CHECK_FALSE(parse<CompilesParams>(json::object()).uri);
  CHECK(parse<CompilesParams>(json{{"uri", "file:///m.py"}}).uri ==
        std::optional<std::string>("file:///m.py"));

  HotLinesParams hot = parse<HotLinesParams>(json{{"limit", -3}, {"uri", 5}});
  CHECK(hot.limit == 200);
  CHECK_FALSE(hot.uri);
  CHECK(parse<HotLinesParams>(json{{"limit", 1u << 30}}).limit == 100000);
  CHECK(parse<HotLinesParams>(json{{"limit", 7u}, {"uri", "file:///m.py"}}).limit == 7);

  CHECK(parseError<InductorCommandParams>(json{{"command", "inductor.noSuchCommand"}})
            .find("unknown command: inductor.noSuchCommand") != std::string::npos);
  CHECK(parse<InductorCommandParams>(json{{"command", "inductor.reindex"}}).command ==
        InductorCommandParams::Command::Reindex);
  parse<NoParams>(json::object());
  parse<NoParams>(json::array({1, 2}));
}

TEST_CASE("custom results: members documented null are written as null, and read back") {
  ArtifactEntry kernel;
  kernel.uri = "file:///c/k.py";
  kernel.title = "k.py";
  kernel.label = "k.py";
  kernel.kind = ArtifactKind::Kernel;
  kernel.languageId = "python";
  json k = kernel;
  for (const char *key :
       {"compileId", "compile", "compileIndex", "rank", "graphKind", "graphName", "trace"}) {
    CAPTURE(key);
    REQUIRE(k.contains(key));
    CHECK(k[key].is_null());
  }
  checkRoundTrip<ArtifactEntry>(k);

  CompileEntry compile;
  compile.compileId = "0/1";
  compile.label = "[0/1]";
  compile.status = CompileStatus::GraphBreak;
  compile.attempts = {{0, "restart"}, {1, ""}};
  compile.seconds = 1.5;
  compile.guardCount = 10;
  compile.fxGraphCache = CacheOutcome::Miss;
  compile.recompileReasons = {"size mismatch"};
  compile.events = {{EventKind::GraphBreak, 2, "Graph break", "GB0001", location("file:///m.py", 3)},
                    {EventKind::Recompile, 3, "guard failed", "", std::nullopt}};
  compile.artifacts = {{"inductor-trace:/a/1/output_code.py", "output code"}};
  compile.trace = TraceRef{"file:///t.log", 12};
  FrameEntry frame;
  frame.function = "torch_dynamo_resume_in_f_at_9";
  frame.name = "f";
  frame.resumes = ResumeOf{"f", 9};
  frame.frameId = 0;
  frame.location = location("file:///m.py", 8);
  frame.status = CompileStatus::GraphBreak;
  frame.summary = "1 compile";
  frame.compiles = {compile};
  CompilesResult result;
  result.frames = {frame};
  result.functions = std::vector<FunctionEntry>{
      {"m.py", "/w/m.py", "f", location("file:///m.py", 8), CompileStatus::GraphBreak, "1 compile", {0}}};
  result.summary = Counts{1, 1, 1, 1, 2, 3, 3, 1, 1, 0, 0, 1};
  json written = result;
  const json &c = written["frames"][0]["compiles"][0];
  CHECK(c["cache"] == json{{"fxGraph", "miss"}, {"aotAutograd", nullptr}});
  CHECK(c["events"][0]["severity"] == 2);
  // One spelling of a graph break on the wire: the event's kind and the compile's status.
  CHECK(c["events"][0]["kind"] == "graph break");
  CHECK(c["status"] == "graph break");
  CHECK(c["events"][1]["kind"] == "recompile");
  CHECK(c["events"][1]["location"].is_null());
  CHECK(c["failType"].is_null());
  CHECK(c["runtimeSeconds"].is_null());
  CHECK(written["frames"][0]["resumeOf"].is_null());
  checkRoundTrip<CompilesResult>(written);

  // A `uri` that names no user file: no frames, no functions, an empty summary.
  CHECK(json(CompilesResult{}) == json{{"frames", json::array()}, {"summary", json::object()}});

  HotLinesResult hot;
  hot.basis = TimeBasis::PerStep;
  hot.basisText = "per step";
  hot.steps = {"ProfilerStep#1", "ProfilerStep#2"};
  hot.stepNs = {10, 20};
  hot.totalNs = 30;
  hot.profiles = {"/p.json"};
  hot.lines = {{location("file:///m.py", 4),
                "/w/m.py",
                5,
                "y = f(x)",
                30,
                15,
                {10, 20},
                100.0,
                "15 ns/step",
                2,
                {{"forward", 30}}},
               {std::nullopt, "/w/gone.py", 7, "", 0, 0, {}, 0.0, "0 ns", 1, {}}};
  HotKernel hk;
  hk.location = location("file:///c/out.py", 40);
  hk.kernel = "triton_poi_0:3";
  hk.compile = "[0/0] forward";
  hk.ns = 30;
  hk.perStepNs = 15;
  hk.stepNs = {10, 20};
  hk.percent = 100.0;
  hk.label = "15 ns/step";
  hot.kernels = {hk};
  // The roofline members: null where unknown, set on a second kernel; the ranking by time left.
  HotKernel perf = hot.kernels.front();
  perf.numGb = 0.134217728;
  perf.flop = 0;
  perf.achievedGbPerS = 2589.1;
  perf.peakPercent = 77.3;
  perf.bound = Bound::Memory;
  perf.timeLeftNs = 35000;
  perf.roofline = "2.59 TB/s · 77% of HBM peak";
  hot.kernels.push_back(perf);
  hot.kernelsByTimeLeft = {perf};
  hot.peak = "H100 SXM: 3.35 TB/s HBM";
  json h = hot;
  CHECK(h["lines"][1]["location"].is_null());
  CHECK(h["kernels"][0]["numGb"].is_null());
  CHECK(h["kernels"][0]["bound"].is_null());
  CHECK(h["kernels"][0]["roofline"] == "");
  CHECK(h["kernels"][1]["achievedTflopPerS"].is_null());
  CHECK(h["kernels"][1]["timeLeftNs"] == 35000);
  CHECK(h["kernelsByTimeLeft"].size() == 1);
  CHECK(h["peak"] == "H100 SXM: 3.35 TB/s HBM");
  checkRoundTrip<HotLinesResult>(h);
  CHECK(parse<HotLinesResult>(h).kernelsByTimeLeft.front() == perf);

  StatusResult status;
  status.indexing = true;
  status.progress = BuildProgress{40, "reading logs"};
  status.notices = {{NoticeKind::NoTrace, 2, "No trace found."}};
  json before = status;
  CHECK_FALSE(before.contains("counts")); // Before the first index.
  CHECK(before["progress"]["percentage"] == 40);
  checkRoundTrip<StatusResult>(before);
  status.indexing = false;
  status.progress.reset();
  status.ready = true;
  status.served.emplace().counts.compiles = 4;
  json after = status;
  CHECK(after["progress"].is_null());
  CHECK(after["firstMissingSource"].is_null());
  CHECK(after["counts"]["compiles"] == 4);
  checkRoundTrip<StatusResult>(after);
}

TEST_CASE("client commands: each command's arguments go out as the positional array its client reads") {
  ShowCompilesArguments compiles{"file:///m.py", Position{3, 0},
                                 CompilesSelection{"forward", 4, {"0/0", "1/0"}}};
  Command c = clientCommand("2 compiles", compiles);
  CHECK(c.command == "inductor.showCompiles");
  CHECK(c.title == "2 compiles");
  CHECK(c.arguments == json::parse(R"(["file:///m.py",{"line":3,"character":0},
                                       {"function":"forward","line":4,"compileIds":["0/0","1/0"]}])"));
  CHECK(c.arguments[2].get<CompilesSelection>().compileIds == std::vector<std::string>{"0/0", "1/0"});

  PrinterEnv env{"Print", {{"B", "x,y"}, {"A", "3"}}, "A=3 B='x,y'", "why"};
  c = clientCommand("Print", ShowPrinterEnvArguments{env});
  CHECK(c.command == "inductor.showPrinterEnv");
  CHECK(c.arguments == json::parse(R"([{"title":"Print","env":{"A":"3","B":"x,y"},"shell":"A=3 B='x,y'",
                                        "explanation":"why"}])"));

  c = clientCommand("", ShowLaunchSitesArguments{"file:///m.py", Position{1, 2}});
  CHECK(c.arguments == json::parse(R"(["file:///m.py",{"line":1,"character":2}])"));

  JsonWriter w;
  Range r{{1, 0}, {1, 4}};
  writeLens(w, r, "t", ShowLocationsArguments{"file:///o.py", r.start, R"([{"uri":"file:///m.py"}])"});
  CHECK(json::parse(w.take()) == json::parse(R"({"range":{"start":{"line":1,"character":0},
                                                           "end":{"line":1,"character":4}},
                                                  "command":{"title":"t","command":"inductor.showLocations",
                                                             "arguments":["file:///o.py",
                                                                          {"line":1,"character":0},
                                                                          [{"uri":"file:///m.py"}]]}})"));
}

TEST_CASE("wire enums: one spelling per value; a value the table lacks reads as the first") {
  CHECK(json(EventKind::GraphBreak) == "graph break");
  CHECK(json(CompileStatus::NotCompiled) == "not compiled");
  CHECK(json(RankDivergenceKind::CollectiveSchedule) == "collective schedule");
  CHECK(json(Change::Gone) == "gone");
  CHECK(json("specialization").get<EventKind>() == EventKind::Specialization);
  CHECK(json("graph break").get<EventKind>() == EventKind::GraphBreak);
  CHECK(json("cache").get<RankDivergenceKind>() == RankDivergenceKind::Cache);
  CHECK(wireName(Change::Same) == "same");
}
