// In-process tests of server/features/CodeLens.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

#include <set>

using namespace inductor;
using test::MiniTrace;

namespace {

nlohmann::json lensesOf(MiniTrace &t, const std::string &uri) {
  protocol::CodeLensParams params;
  params.textDocument.uri = uri;
  return test::parsed(t.call(&server::codeLens, uri, params));
}

} // namespace

TEST_CASE("codeLens: each model line that became kernels, over its text, opening its launch sites") {
  MiniTrace t(test::reluMulTexts());
  size_t lines = 0;
  for (const nlohmann::json &lens : lensesOf(t, t.modelUri())) {
    if (lens["command"]["command"] != "inductor.showLaunchSites") continue;
    ++lines;
    protocol::Range r = test::rangeOf(lens["range"]);
    CAPTURE(r);
    CHECK((r == t.model.range("relu") || r == t.model.range("mul")));
    CHECK(lens["command"]["title"].get<std::string>().starts_with("1 kernel"));
    // The command's arguments: the document and the line's position, which inductor/launchSites answers.
    CHECK(lens["command"]["arguments"][0] == t.modelUri());
    CHECK(lens["command"]["arguments"][1]["line"] == r.start.line);
  }
  CHECK(lines == 2);
}

TEST_CASE("codeLens: the kernel's definition and launch in output code list the model lines they came from") {
  MiniTrace t(test::reluMulTexts());
  std::set<uint32_t> lensLines;
  for (const nlohmann::json &lens : lensesOf(t, t.outputCodeUri())) {
    REQUIRE(lens["command"]["command"] == "inductor.showLocations");
    protocol::Range r = test::rangeOf(lens["range"]);
    lensLines.insert(r.start.line);
    std::set<uint32_t> to;
    for (const nlohmann::json &l : lens["command"]["arguments"][2]) {
      CHECK(l["uri"] == t.modelUri());
      protocol::Range target = test::rangeOf(l["range"]);
      CHECK((target == t.model.range("relu") || target == t.model.range("mul")));
      to.insert(target.start.line);
    }
    CHECK(to.size() == 2);
    // The first line's text is the title; the other is counted.
    CHECK(lens["command"]["title"].get<std::string>().ends_with("+1 more"));
  }
  CHECK(lensLines == std::set<uint32_t>{t.code.range("def").start.line, t.code.range("launch").start.line});
}
