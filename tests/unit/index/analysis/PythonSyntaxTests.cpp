#include "index/analysis/PythonSyntax.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

using Range = PythonSyntax::LineRange;
using Kind = PythonSyntax::Definition::Kind;

constexpr std::string_view kSource = R"py(import torch  # line 0

x = async_compile.triton('x', '''
@triton.jit
def x(in_ptr0):

    pass
''', device_str='cuda')

@torch.compile
def f(
    a,
    b,
):
    # a comment
    y = g(a,
          b)

    if y:
        return y
    else:
        return None

class Runner:
    z: int = 1
    def call(self, args):
        buf0 = args
        def inner():
            pass
        return buf0
a, b = 1, 2
)py";

} // namespace

TEST_CASE("PythonSyntax: statement ranges") {
  auto syntax = PythonSyntax::parse(kSource);
  REQUIRE(syntax);
  CHECK(syntax->statementRange(0) == Range{0, 0});
  CHECK_FALSE(syntax->statementRange(1)); // Blank.
  // Every line of the embedded kernel source, blank ones included, is part of one statement.
  for (uint32_t line = 2; line <= 7; ++line) {
    CAPTURE(line);
    CHECK(syntax->statementRange(line) == Range{2, 7});
  }
  CHECK(syntax->statementRange(9) == Range{9, 9}); // A decorator.
  for (uint32_t line = 10; line <= 13; ++line)
    CHECK(syntax->statementRange(line) == Range{10, 13}); // Multi-line def header.
  CHECK_FALSE(syntax->statementRange(14));                // Comment-only line.
  CHECK(syntax->statementRange(15) == Range{15, 16});
  CHECK(syntax->statementRange(16) == Range{15, 16});
  CHECK_FALSE(syntax->statementRange(17));
  CHECK(syntax->statementRange(18) == Range{18, 18});
  CHECK(syntax->statementRange(19) == Range{19, 19});
  CHECK(syntax->statementRange(20) == Range{20, 20}); // `else:`
  CHECK(syntax->statementRange(23) == Range{23, 23});
  CHECK(syntax->statementRange(24) == Range{24, 24});
  CHECK_FALSE(syntax->statementRange(1000));
}

TEST_CASE("PythonSyntax: definitions") {
  auto syntax = PythonSyntax::parse(kSource);
  REQUIRE(syntax);
  auto defs = syntax->definitions();
  REQUIRE(defs.size() == 5);
  CHECK(defs[0].name == "x");
  CHECK(defs[0].kind == Kind::Variable);
  CHECK(defs[0].line == 2);
  CHECK(defs[0].endLine == 7);
  CHECK(defs[1].name == "f");
  CHECK(defs[1].kind == Kind::Function);
  CHECK(defs[1].line == 10);
  CHECK(defs[1].column == 4);
  CHECK(defs[1].startLine == 9);
  CHECK(defs[1].endLine == 21);
  CHECK(defs[1].children.empty()); // Locals are not symbols.
  CHECK(defs[2].name == "Runner");
  CHECK(defs[2].kind == Kind::Class);
  REQUIRE(defs[2].children.size() == 2);
  CHECK(defs[2].children[0].name == "z");
  CHECK(defs[2].children[0].kind == Kind::Variable);
  CHECK(defs[2].children[1].name == "call");
  REQUIRE(defs[2].children[1].children.size() == 1);
  CHECK(defs[2].children[1].children[0].name == "inner");
  CHECK(defs[3].name == "a");
  CHECK(defs[4].name == "b");
  CHECK(defs[4].column == 3);
}

TEST_CASE("PythonSyntax: identifierAt") {
  auto syntax = PythonSyntax::parse(kSource);
  REQUIRE(syntax);
  auto id = syntax->identifierAt(15, 8);
  REQUIRE(id);
  CHECK(id->text == "g");
  CHECK(id->startColumn == 8);
  CHECK(id->endColumn == 9);
  // A caret right after `g`, on the `(`.
  CHECK(syntax->identifierAt(15, 9)->text == "g");
  CHECK(syntax->identifierAt(15, 10)->text == "a");
  CHECK_FALSE(syntax->identifierAt(15, 7));  // `= `
  CHECK_FALSE(syntax->identifierAt(10, 1));  // `def`
  CHECK_FALSE(syntax->identifierAt(21, 16)); // `None`
  // Inside the kernel source string and inside comments the word comes from the text.
  auto inString = syntax->identifierAt(4, 6);
  REQUIRE(inString);
  CHECK(inString->text == "in_ptr0");
  auto inComment = syntax->identifierAt(14, 8);
  REQUIRE(inComment);
  CHECK(inComment->text == "comment");
  CHECK_FALSE(syntax->identifierAt(500, 0));
  CHECK_FALSE(syntax->identifierAt(0, 500));
}

TEST_CASE("PythonSyntax: broken text and moves") {
  auto syntax = PythonSyntax::parse("def f(:\n  x = (\n");
  REQUIRE(syntax);
  (void)syntax->statementRange(0);
  (void)syntax->definitions();
  auto empty = PythonSyntax::parse("");
  REQUIRE(empty);
  CHECK(empty->definitions().empty());
  CHECK_FALSE(empty->statementRange(0));
  PythonSyntax moved = std::move(*syntax);
  CHECK(moved.identifierAt(1, 2)->text == "x");
}

TEST_CASE("PythonSyntax: mlp_train forward output code") {
  fs::path dir = findDir(fixturesDir() / "traces/mlp_train/torch_compile_debug", "model__0_forward_1.0");
  REQUIRE(!dir.empty());
  fs::path p = dir / "output_code.py";
  auto syntax = PythonSyntax::parse(readFile(p));
  REQUIRE(syntax);
  // grep -n: the gelu kernel is defined on lines 133-166 (1-based), launched on line 424.
  CHECK(syntax->statementRange(140) == Range{132, 165});
  CHECK(syntax->statementRange(423) == Range{423, 423});
  CHECK(syntax->statementRange(384) == Range{384, 384}); // def call(self, args):
  auto defs = syntax->definitions();
  bool foundKernel = false, foundCall = false;
  for (const auto &d : defs) {
    if (d.name == "triton_poi_fused_gelu_1") {
      foundKernel = true;
      CHECK(d.line == 132);
      CHECK(d.endLine == 165);
    }
    if (d.name == "Runner")
      for (const auto &c : d.children)
        foundCall |= c.name == "call" && c.line == 384;
  }
  CHECK(foundKernel);
  CHECK(foundCall);
  auto id = syntax->identifierAt(423, 20);
  REQUIRE(id);
  CHECK(id->text == "triton_poi_fused_gelu_1");
}

TEST_CASE("PythonSyntax: every fixture Python file parses") {
  size_t files = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces")) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    CAPTURE(e.path().string());
    auto syntax = PythonSyntax::parse(readFile(e.path()));
    REQUIRE(syntax);
    CHECK(!syntax->definitions().empty());
    ++files;
  }
  CHECK(files > 50);
}

TEST_CASE("PythonSyntax: parameterNames of a def line or its decorator's; splats and markers left out") {
  auto syntax = PythonSyntax::parse(R"py(@torch.compile(mode="max-autotune")
def f(
    a,
    b: int = 2,
    *args,
    c=(1, 2),
    d: "x, y",
    **kwargs,
):
    pass

class M:
    def forward(self, x, /, y, *, scale=1.0):
        return g(x,
                 self.w, key=y)
)py");
  REQUIRE(syntax);
  using Names = std::vector<std::string>;
  // The decorator's line is the code object's first line; the def line works too.
  CHECK(syntax->parameterNames(0) == Names{"a", "b", "c", "d"});
  CHECK(syntax->parameterNames(1) == Names{"a", "b", "c", "d"});
  CHECK(syntax->parameterNames(12) == Names{"self", "x", "y", "scale"});
  CHECK(!syntax->parameterNames(2));  // Inside a signature: no def starts there.
  CHECK(!syntax->parameterNames(11)); // A class.
  CHECK(!syntax->parameterNames(99));
}

TEST_CASE("PythonSyntax: callsOn lists the argument lists opening on a line, nested calls too") {
  auto syntax = PythonSyntax::parse(R"py(y = model(x, self.w, "a,b", key=(1, 2))
z = f(g(a), [b, c],
      d)
s = "call(not, a, call)"  # h(i)
)py");
  REQUIRE(syntax);
  auto calls = syntax->callsOn(0);
  REQUIRE(calls.size() == 1);
  REQUIRE(calls[0].size() == 4);
  CHECK(calls[0][0].text == "x");
  CHECK(calls[0][0].plainName);
  CHECK(calls[0][1].text == "self.w");
  CHECK(calls[0][1].plainName);
  CHECK(calls[0][2].text == "\"a,b\"");
  CHECK(!calls[0][2].plainName);
  CHECK(calls[0][3].keyword);
  CHECK(calls[0][3].text == "key=(1, 2)");
  // f(...) running on to the next line, and g(a) inside it, in document order.
  calls = syntax->callsOn(1);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].size() == 3);
  CHECK(calls[0][2].text == "d");
  CHECK(!calls[0][0].plainName);
  REQUIRE(calls[1].size() == 1);
  CHECK(calls[1][0].text == "a");
  // Strings and comments hold no calls.
  CHECK(syntax->callsOn(3).empty());
  CHECK(syntax->callsOn(2).empty());
}

TEST_CASE("PythonSyntax: lineAfterImports follows an import over all its lines, up to the first definition") {
  auto syntax = PythonSyntax::parse(R"py("""Docstring."""
import torch
from torch.nn import (
    Linear,
    ReLU,
)
x = 1
def f():
    import os
import late
)py");
  REQUIRE(syntax);
  CHECK(syntax->lineAfterImports() == 6);
  CHECK(PythonSyntax::parse("x = 1\n")->lineAfterImports() == 0);
  CHECK(PythonSyntax::parse("from __future__ import annotations\nimport torch\n")->lineAfterImports() == 2);
}
