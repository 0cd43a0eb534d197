// In-process tests of server/features/Definition.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace inductor;
using inductor::test::MiniTrace;

namespace {

protocol::TextDocumentPositionParams at(const std::string &uri, protocol::Position p) {
  protocol::TextDocumentPositionParams params;
  params.textDocument.uri = uri;
  params.position = p;
  return params;
}

std::vector<protocol::Range> rangesIn(const std::vector<protocol::Location> &locations,
                                      const std::string &uri) {
  std::vector<protocol::Range> out;
  for (const protocol::Location &l : locations) {
    CHECK(l.uri == uri);
    out.push_back(l.range);
  }
  // In the order of the lines (the answer's order is the kernel's node mapping's).
  std::sort(out.begin(), out.end(),
            [](const protocol::Range &a, const protocol::Range &b) { return a.start.line < b.start.line; });
  return out;
}

} // namespace

TEST_CASE("definition: a launch and its kernel's definition lead to the model lines the kernel came from") {
  MiniTrace t(test::reluMulTexts());
  std::vector<protocol::Range> lines{t.model.range("relu"), t.model.range("mul")};
  auto fromLaunch =
      t.call(&server::definition, t.outputCodeUri(), at(t.outputCodeUri(), t.code.point("run")));
  CHECK(rangesIn(fromLaunch, t.modelUri()) == lines);
  auto fromName =
      t.call(&server::definition, t.outputCodeUri(), at(t.outputCodeUri(), t.code.range("def").start));
  CHECK(rangesIn(fromName, t.modelUri()) == lines);
}

TEST_CASE("definition: nothing from a model line, nor from a line of generated code that is no kernel's") {
  MiniTrace t(test::reluMulTexts());
  CHECK(t.call(&server::definition, t.modelUri(), at(t.modelUri(), t.model.range("relu").start)).empty());
  CHECK(t.call(&server::definition, t.outputCodeUri(), at(t.outputCodeUri(), {0, 0})).empty());
}

TEST_CASE("definition: a recorded line that moved is found where it is now; one that is gone gives none") {
  MiniTrace t(test::reluMulTexts());
  protocol::Position launch = t.code.point("run");
  // Two lines inserted above: the recorded lines are found two lines lower.
  std::string moved = "# a comment\n# another\n" + t.model.code();
  std::ofstream(t.modelPath(), std::ios::binary) << moved;
  auto found =
      rangesIn(t.call(&server::definition, t.outputCodeUri(), at(t.outputCodeUri(), launch)), t.modelUri());
  REQUIRE(found.size() == 2);
  CHECK(found[0].start.line == t.model.range("relu").start.line + 2);
  CHECK(found[1].start.line == t.model.range("mul").start.line + 2);
  // `y = x.relu()` rewritten: that line is not answered with another line's place.
  std::string edited = t.model.code();
  edited.replace(edited.find("y = x.relu()"), 12, "y = x.sigmoid()");
  std::ofstream(t.modelPath(), std::ios::binary) << edited;
  auto rest = t.call(&server::definition, t.outputCodeUri(), at(t.outputCodeUri(), launch));
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].range == t.model.range("mul"));
}
