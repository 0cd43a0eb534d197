// In-process tests of server/features/References.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::atPosition;
using test::MiniTrace;

TEST_CASE("references: a model line's launch sites; a kernel's launches, with its definition if asked") {
  MiniTrace t(test::reluMulTexts());
  for (const char *line : {"relu", "mul"}) {
    CAPTURE(line);
    auto refs =
        test::parsed(t.call(&server::references, t.modelUri(),
                            atPosition<protocol::ReferenceParams>(t.modelUri(), t.model.range(line).start)));
    REQUIRE(refs.size() == 1);
    CHECK(refs[0]["uri"] == t.outputCodeUri());
    CHECK(test::rangeOf(refs[0]["range"]) == t.code.range("launch"));
  }
  auto params = atPosition<protocol::ReferenceParams>(t.outputCodeUri(), t.code.range("def").start);
  auto launches = test::parsed(t.call(&server::references, t.outputCodeUri(), params));
  REQUIRE(launches.size() == 1);
  CHECK(test::rangeOf(launches[0]["range"]) == t.code.range("launch"));
  params.context.includeDeclaration = true;
  auto withDefinition = test::parsed(t.call(&server::references, t.outputCodeUri(), params));
  REQUIRE(withDefinition.size() == 2);
  CHECK(test::rangeOf(withDefinition[0]["range"]) == t.code.range("def"));
  CHECK(test::rangeOf(withDefinition[1]["range"]) == t.code.range("launch"));
}

TEST_CASE("references: none on a line that became no kernel") {
  MiniTrace t(test::reluMulTexts());
  CHECK(t.call(&server::references, t.modelUri(), atPosition<protocol::ReferenceParams>(t.modelUri(), {0, 0}))
            .text == "[]");
}
