// In-process tests of server/features/CodeAction.cpp over small annotated traces (MiniTrace.h): the quick
// fixes PyTorch's graph break hints state mechanically, as edits the user applies.
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::MiniTrace;

namespace {

/// A graph break on model.py:`line` as Dynamo logs it (torch/_dynamo/symbolic_convert.py's
/// `dynamo_graph_break_reason` artifact), with one `Hint:` line.
std::pair<std::string, std::string> graphBreakAt(int line, const std::string &code, const std::string &hint) {
  return {R"("artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"})",
          "Graph break in user code at ${DIR}/model.py:" + std::to_string(line) +
              "\nGraph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
              "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
              "config.capture_scalar_outputs=False.\n"
              "  Hint: " +
              hint +
              "\n\n For more details about this graph break, please visit: "
              "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html\n\n"
              "User code traceback:\n  File \"${DIR}/model.py\", line " +
              std::to_string(line) + ", in forward\n    " + code + "\n"};
}

std::vector<protocol::CodeAction> actionsOn(MiniTrace &t, const protocol::Range &range,
                                            std::vector<protocol::Diagnostic> diagnostics = {},
                                            std::vector<std::string> only = {}) {
  protocol::CodeActionParams params;
  params.textDocument.uri = t.modelUri();
  params.range = range;
  params.context.diagnostics = std::move(diagnostics);
  params.context.only = std::move(only);
  return t.call(&server::codeAction, t.modelUri(), params);
}

const protocol::CodeAction *titled(const std::vector<protocol::CodeAction> &actions,
                                   const std::string &title) {
  for (const protocol::CodeAction &a : actions)
    if (a.title == title) return &a;
  return nullptr;
}

} // namespace

TEST_CASE("codeAction: a hint that sets a config flag inserts the assignment after the file's imports") {
  MiniTrace::Texts texts = test::reluMulTexts();
  texts.records.push_back(graphBreakAt(
      6, "y = x.relu()",
      "Enable tracing of data-dependent output operators with `torch._dynamo.config.capture_scalar_outputs = "
      "True`"));
  MiniTrace t(texts);
  protocol::Diagnostic mine;
  mine.range = t.model.range("relu");
  mine.source = "torch.compile";
  mine.message = "graph break";
  protocol::Diagnostic other = mine;
  other.source = "pyright";
  std::vector<protocol::CodeAction> actions = actionsOn(t, t.model.range("relu"), {mine, other});
  const protocol::CodeAction *set =
      titled(actions, "Set `torch._dynamo.config.capture_scalar_outputs = True`");
  REQUIRE(set);
  CHECK(set->kind == "quickfix");
  // The diagnostic it fixes is the server's own on that line, not another source's.
  REQUIRE(set->diagnostics.size() == 1);
  CHECK(set->diagnostics[0].source == "torch.compile");
  REQUIRE(set->edit);
  const auto &edits = set->edit->changes.at(t.modelUri());
  REQUIRE(edits.size() == 1);
  // After `import torch` (line 0): an insertion at the start of line 1.
  CHECK(edits[0].range == protocol::Range{{1, 0}, {1, 0}});
  CHECK(edits[0].newText == "torch._dynamo.config.capture_scalar_outputs = True\n");
  // A client that asks for other kinds gets no quick fix; a line without the event, none either.
  std::vector<protocol::CodeAction> refactors = actionsOn(t, t.model.range("relu"), {}, {"refactor"});
  CHECK(!titled(refactors, "Set `torch._dynamo.config.capture_scalar_outputs = True`"));
  CHECK(actionsOn(t, t.model.range("mul")).empty());
}

TEST_CASE("codeAction: the assignment goes after an import that spans lines, not inside it") {
  MiniTrace::Texts texts = test::reluMulTexts();
  texts.model.replace(texts.model.find("import torch\n") + 13, 0, "from typing import (\n    Any,\n)\n");
  texts.records.push_back(graphBreakAt(
      9, "y = x.relu()",
      "Enable tracing of data-dependent output operators with `torch._dynamo.config.capture_scalar_outputs = "
      "True`"));
  MiniTrace t(texts);
  std::vector<protocol::CodeAction> actions = actionsOn(t, t.model.range("relu"));
  const protocol::CodeAction *set =
      titled(actions, "Set `torch._dynamo.config.capture_scalar_outputs = True`");
  REQUIRE(set);
  REQUIRE(set->edit);
  CHECK(set->edit->changes.at(t.modelUri())[0].range == protocol::Range{{4, 0}, {4, 0}});
}

TEST_CASE("codeAction: the assignment already in the file is not offered again") {
  MiniTrace::Texts texts = test::reluMulTexts();
  texts.model.replace(texts.model.find("import torch\n") + 13, 0,
                      "torch._dynamo.config.capture_scalar_outputs = True\n");
  texts.records.push_back(graphBreakAt(
      7, "y = x.relu()",
      "Enable tracing of data-dependent output operators with `torch._dynamo.config.capture_scalar_outputs = "
      "True`"));
  MiniTrace t(texts);
  CHECK(actionsOn(t, t.model.range("relu")).empty());
}

TEST_CASE("codeAction: `Remove the torch._dynamo.graph_break() call` deletes the line of the call") {
  MiniTrace::Texts texts = test::reluMulTexts();
  texts.model += "\n    def other(self):\n        $gb[[torch._dynamo.graph_break()]]\n";
  texts.records.push_back(
      graphBreakAt(10, "torch._dynamo.graph_break()", "Remove the `torch._dynamo.graph_break()` call."));
  MiniTrace t(texts);
  std::vector<protocol::CodeAction> actions = actionsOn(t, t.model.range("gb"));
  const protocol::CodeAction *remove = titled(actions, "Remove the `torch._dynamo.graph_break()` call");
  REQUIRE(remove);
  REQUIRE(remove->edit);
  const auto &edits = remove->edit->changes.at(t.modelUri());
  REQUIRE(edits.size() == 1);
  CHECK(edits[0].range == protocol::Range{{9, 0}, {10, 0}});
  CHECK(edits[0].newText.empty());
}
