// index/analysis/GraphDump.h: FX graph dumps, as printed by torch/fx/graph.py
// (`Graph.python_code(verbose=True)`) through torch/fx/graph_module.py (`GraphModule.print_readable`). That
// format is used by the TORCH_COMPILE_DEBUG files `fx_graph_readable.py` and `fx_graph_transformed.py` and by
// the TORCH_TRACE payloads `dynamo_output_graph`, `before_pre_grad_graph`, `after_pre_grad_graph`,
// `aot_forward_graph`, `aot_backward_graph`, `aot_inference_graph`, `aot_joint_graph`,
// `before_post_grad_graph`, `after_post_grad_graph` and `inductor_post_grad_graph`:
//
//   class GraphModule(torch.nn.Module):
//       def forward(self, primals_1: "f32[256]", primals_3: "f32[64, 256]"):
//           # File: /tmp/work/mlp_train/model.py:15 in forward, code: h = self.norm(x)
//           var_mean = torch.ops.aten.var_mean.correction(primals_3, [1], correction = 0, keepdim = True)
//           getitem: "f32[64, 1]" = var_mean[0]
//
// Each FX node is one assignment; a `# File: PATH:LINE in FUNCTION, code: CODE` comment gives the user source
// of the nodes below it until the next such comment, a `# No stacktrace found for following nodes` comment,
// or the next `def`. Nested GraphModules (higher-order ops: cond, while_loop, invoke_subgraph...) are printed
// after the top-level forward as indented classes with their own `forward`.
//
// Positions are 0-based lines and 0-based UTF-8 byte columns, except SourceComment::line, which is the
// 1-based line printed in the comment. Results own their strings (GraphDumpAnalysis in its `names`). Pure,
// thread-safe, never throws; malformed input gives a partial analysis.
#pragma once

#include "index/support/TextLines.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// A `# File: /path/model.py:16 in forward, code: h = F.gelu(self.fc1(h))` comment. Older PyTorch prints it
/// with one more leading space; `# Annotation: {...} File: ...` forms are accepted too.
struct SourceComment {
  std::string file;
  uint32_t line = 0; ///< 1-based, as printed; 0 if it could not be read.
  std::string function;
  std::string code;
  uint32_t commentLine = 0; ///< 0-based line of the comment in the dump.
};

/// An FX node defined in a dump: `NAME: "f32[64, 1]" = torch.ops.aten.add.Tensor(...)`, `NAME = ...`, an
/// annotated declaration without value (`primals_1: "f32[256]"  # PlainAOTInput(idx=0)`, placeholders of
/// joint graphs), or a parameter of `def forward(self, a: "...", b)` (single-line or one parameter per line).
/// Tuple unpacking (`a, b, = fx_pytree.tree_flatten_spec(...)`) and `return` define no node.
struct GraphNodeDef {
  std::string_view name;         ///< A view of the analysis' GraphDumpAnalysis::names.
  uint32_t line = 0, column = 0; ///< Position of NAME.
  /// The callee when the value is a call: `torch.ops.aten.addmm.default`, `torch._C._nn.linear`; empty for
  /// other values (`var_mean[0]`, `l_x_ + h_2`, `self.fc1.weight`) and for parameters. A view of the
  /// analysis' GraphDumpAnalysis::names.
  std::string_view target;
  /// Index into GraphDumpAnalysis::origins of the `# File:` comment in effect; empty for parameters and for
  /// nodes without a stack trace.
  std::optional<uint32_t> origin;
  /// True inside the forward of a nested GraphModule (a class indented under the top-level one).
  bool nested = false;
};

struct GraphDumpAnalysis {
  /// In file order. Names may repeat across nested GraphModules.
  std::vector<GraphNodeDef> nodes;
  std::vector<SourceComment> origins;
  /// The text the nodes' names and targets view: each name once, each distinct target once (a large graph
  /// calls a few ops thousands of times). Its own allocation, so that moving the analysis keeps the views
  /// valid; the analysis is move-only (a copy's views would point into the original).
  std::unique_ptr<const std::string> names;

  /// The first node named `name` in a top-level forward, else the first in a nested one; nullptr if none.
  /// Linear search: build a map for repeated lookups. The pointer is valid while this analysis is alive and
  /// unmodified.
  const GraphNodeDef *findNode(std::string_view name) const;
  /// The SourceComment of `node` (nullptr when it has none).
  const SourceComment *originOf(const GraphNodeDef &node) const;
};

GraphDumpAnalysis analyzeGraphDump(const TextLines &lines);

/// A `# File: PATH:LINE in FUNCTION, code: CODE` comment found on one line of any text (graph dumps, and the
/// output code and kernels Inductor copies such comments into), with where `PATH:LINE` is on the line.
struct FileCommentAt {
  SourceComment comment;       ///< commentLine is 0: the caller knows the line.
  uint32_t begin = 0, end = 0; ///< Byte range of `PATH:LINE` (or `PATH` when no line is printed).
};
/// The comment on `lineText`, if it holds one with a path; nullopt otherwise. Pure.
std::optional<FileCommentAt> findFileComment(std::string_view lineText);

/// The identifier under a cursor.
struct IdentifierAt {
  std::string text;
  uint32_t line = 0;
  uint32_t startColumn = 0, endColumn = 0; ///< Half-open byte range on `line`.
};

/// The Python identifier at byte `column` of `lineText` (`line` is only copied into the result). A cursor
/// right after the identifier (column == its end) finds it too, as editors place the caret between
/// characters. With `dotted`, the whole dotted name is returned (`extern_kernels.addmm`,
/// `torch.ops.aten.mm.default`); without, only the component under the cursor. nullopt on whitespace,
/// punctuation, numbers and out-of-range columns.
std::optional<IdentifierAt> identifierAt(std::string_view lineText, uint32_t line, uint32_t column,
                                         bool dotted = false);

} // namespace inductor::index
