// In-process tests of server/features/Hover.cpp over small annotated traces (MiniTrace.h).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::atPosition;
using test::MiniTrace;

TEST_CASE("hover: a model line lists the kernels it became, linked to their launches, over its text") {
  MiniTrace t(test::reluMulTexts());
  for (const char *line : {"relu", "mul"}) {
    CAPTURE(line);
    // Anywhere on the line, the hover is the line's.
    protocol::Position start = t.model.range(line).start, inside{start.line, start.character + 3};
    for (protocol::Position p : {start, inside}) {
      auto h = t.call(&server::hover, t.modelUri(), atPosition(t.modelUri(), p));
      REQUIRE(h);
      CHECK(h->range == t.model.range(line));
      const std::string &md = h->contents.value;
      CHECK(md.find("### 1 kernel from line " + std::to_string(start.line + 1)) == 0);
      // Linked to the launch's line (1-based in the link).
      std::string launchLink = "[`triton_poi_fused_mul_relu_0`](" + t.outputCodeUri() + "#L" +
                               std::to_string(t.code.range("launch").start.line + 1) + ")";
      CHECK(md.find(launchLink) != std::string::npos);
    }
  }
}

TEST_CASE("hover: a launch tells the kernel's story: its kind, compile, and the model lines it came from") {
  MiniTrace t(test::reluMulTexts());
  auto h = t.call(&server::hover, t.outputCodeUri(), atPosition(t.outputCodeUri(), t.code.point("run")));
  REQUIRE(h);
  CHECK(h->range == t.code.range("launch"));
  const std::string &md = h->contents.value;
  CHECK(md.find("pointwise kernel · [0/0]") != std::string::npos);
  for (const char *line : {"relu", "mul"}) {
    uint32_t n = t.model.range(line).start.line + 1;
    CHECK(md.find("[model.py:" + std::to_string(n) + "](" + t.modelUri() + "#L" + std::to_string(n) + ")") !=
          std::string::npos);
  }
  // Where the origin came from, as the index found it: the post-grad graph's `# File:` comments.
  CHECK(md.find("post-grad graph's `# File:` comments") != std::string::npos);
  CHECK(md.find("**Post-grad FX nodes:** [`mul`]") != std::string::npos);
}

TEST_CASE("hover: nothing on a line that became no kernel, nor in the blank of generated code") {
  MiniTrace t(test::reluMulTexts());
  CHECK_FALSE(t.call(&server::hover, t.modelUri(), atPosition(t.modelUri(), {0, 0})));
  CHECK_FALSE(t.call(&server::hover, t.modelUri(), atPosition(t.modelUri(), {1, 0})));
  CHECK_FALSE(t.call(&server::hover, t.outputCodeUri(), atPosition(t.outputCodeUri(), {2, 0})));
}

TEST_CASE("hover: a model line edited since the trace has no kernels; the line that moved keeps its own") {
  MiniTrace t(test::reluMulTexts());
  std::string edited = t.model.code();
  edited.replace(edited.find("y = x.relu()"), 12, "y = x.sigmoid()");
  std::ofstream(t.modelPath(), std::ios::binary) << edited;
  CHECK_FALSE(t.call(&server::hover, t.modelUri(), atPosition(t.modelUri(), t.model.range("relu").start)));
  auto mul = t.call(&server::hover, t.modelUri(), atPosition(t.modelUri(), t.model.range("mul").start));
  REQUIRE(mul);
  CHECK(mul->contents.value.find("from line " + std::to_string(t.model.range("mul").start.line + 1)) !=
        std::string::npos);
}
