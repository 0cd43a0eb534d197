// In-process tests of server/features/Compiles.cpp (inductor/compiles) over small annotated traces
// (MiniTrace.h): the compiled frames overview, its statuses and events on the wire's terms.
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using protocol::json;
using test::MiniTrace;

namespace {

protocol::CompilesResult compilesOf(MiniTrace &t, std::optional<std::string> uri = std::nullopt) {
  protocol::CompilesParams params;
  params.uri = uri;
  return t.call(&server::compiles, uri.value_or(""), params);
}

} // namespace

TEST_CASE("compiles: one clean compile is one frame, status ok, with its output code and graph") {
  MiniTrace t(test::reluMulTexts());
  protocol::CompilesResult r = compilesOf(t);
  REQUIRE(r.frames.size() == 1);
  const protocol::FrameEntry &f = r.frames[0];
  CHECK(f.status == protocol::CompileStatus::Ok);
  REQUIRE(f.compiles.size() == 1);
  const protocol::CompileEntry &c = f.compiles[0];
  CHECK(c.compileId == "0/0");
  CHECK(c.status == protocol::CompileStatus::Ok);
  CHECK(c.events.empty());
  // The output code is there, named by a URI the server can open (the file on disk).
  bool outputCode = false;
  for (const protocol::ArtifactRef &a : c.artifacts)
    outputCode |= a.uri == t.outputCodeUri();
  CHECK(outputCode);
  REQUIRE(c.trace);
  CHECK(c.trace->line == 1); // The log's second line: dynamo_start, after the string table entry.
  REQUIRE(r.summary);
  CHECK(r.summary->compiles == 1);
  CHECK(r.summary->graphBreaks == 0);
}

TEST_CASE("compiles: a graph break makes the compile's status and its event, placed on the model line") {
  MiniTrace t(test::reluMulWithGraphBreak());
  protocol::CompilesResult r = compilesOf(t);
  REQUIRE(r.frames.size() == 1);
  REQUIRE(r.frames[0].compiles.size() == 1);
  const protocol::CompileEntry &c = r.frames[0].compiles[0];
  CHECK(c.status == protocol::CompileStatus::GraphBreak);
  CHECK(r.frames[0].status == protocol::CompileStatus::GraphBreak);
  REQUIRE(c.events.size() == 1);
  const protocol::CompileEvent &e = c.events[0];
  CHECK(e.kind == protocol::EventKind::GraphBreak);
  CHECK(json(e.kind) == "graph break");
  CHECK(e.severity == 2);
  CHECK(e.message == "Failed to trace builtin operator"); // The reason's title, as the record gives it.
  REQUIRE(e.location);
  CHECK(e.location->uri == t.modelUri());
  CHECK(e.location->range.start.line == t.model.range("relu").start.line);
  REQUIRE(r.summary);
  CHECK(r.summary->graphBreaks == 1);
}

TEST_CASE("compiles: a uri names a user file's frames; generated code is no user file") {
  MiniTrace t(test::reluMulWithGraphBreak());
  // The model: the frame with an event there, and its functions.
  protocol::CompilesResult mine = compilesOf(t, t.modelUri());
  CHECK(mine.frames.size() == 1);
  CHECK(mine.functions);
  // The output code: no frames, no functions, the summary `{}`.
  protocol::CompilesResult none = compilesOf(t, t.outputCodeUri());
  CHECK(none.frames.empty());
  CHECK(!none.functions);
  CHECK(json(none)["summary"] == json::object());
}
