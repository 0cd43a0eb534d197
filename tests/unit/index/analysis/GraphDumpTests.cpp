#include "index/analysis/GraphDump.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

// Checks identifierAt on a line marked with `^` at the cursor; `expected` is the identifier or "" for none.
void checkIdentifier(std::string_view marked, std::string_view expected, bool dotted = false) {
  size_t caret = marked.find('^');
  REQUIRE(caret != std::string_view::npos);
  std::string line = std::string(marked.substr(0, caret)) + std::string(marked.substr(caret + 1));
  auto id = identifierAt(line, 7, static_cast<uint32_t>(caret), dotted);
  CAPTURE(marked);
  if (expected.empty()) {
    CHECK_FALSE(id);
    return;
  }
  REQUIRE(id);
  CHECK(id->text == expected);
  CHECK(id->line == 7);
  CHECK(line.substr(id->startColumn, id->endColumn - id->startColumn) == expected);
}

} // namespace

TEST_CASE("GraphDump: readable graph, inline") {
  std::string text = R"py(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[256]", primals_3: "f32[64, 256]", x):
        # File: /tmp/work/m.py:15 in forward, code: h = self.norm(x)
        var_mean = torch.ops.aten.var_mean.correction(primals_3, [1], correction = 0, keepdim = True)
        getitem: "f32[64, 1]" = var_mean[0]

        # No stacktrace found for following nodes
        fc1_weight: "f32[16, 10]" = self.fc1.weight

         # File: /data/aot#link-tree/scripts/aot.py:32 in forward, code: d = a * 3.14, b: 1
        mul: "f32[10, 20]" = torch.ops.aten.mul.Tensor(a, 3.14);  a = None
        a, b, = fx_pytree.tree_flatten_spec([], self._in_spec)
        return (mul, getitem)

    class true_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4]"):
            mul: "f32[4]" = torch.ops.aten.mul.Tensor(arg0_1, 2)
            return (mul,)
)py";
  TextLines lines = splitLines(text);
  GraphDumpAnalysis a = analyzeGraphDump(lines);
  REQUIRE(a.origins.size() == 2);
  CHECK(a.origins[0].file == "/tmp/work/m.py");
  CHECK(a.origins[0].line == 15);
  CHECK(a.origins[0].function == "forward");
  CHECK(a.origins[0].code == "h = self.norm(x)");
  CHECK(a.origins[0].commentLine == 2);
  // A path with '#' and code with ':' and ','.
  CHECK(a.origins[1].file == "/data/aot#link-tree/scripts/aot.py");
  CHECK(a.origins[1].line == 32);
  CHECK(a.origins[1].code == "d = a * 3.14, b: 1");

  std::vector<std::string> names;
  for (const GraphNodeDef &n : a.nodes)
    names.emplace_back(n.name);
  CHECK(names == std::vector<std::string>{"primals_1", "primals_3", "x", "var_mean", "getitem", "fc1_weight",
                                          "mul", "arg0_1", "mul"});
  const GraphNodeDef *p3 = a.findNode("primals_3");
  REQUIRE(p3);
  CHECK(p3->line == 1);
  CHECK(p3->column == 45);
  CHECK_FALSE(p3->origin);
  const GraphNodeDef *vm = a.findNode("var_mean");
  REQUIRE(vm);
  CHECK(vm->target == "torch.ops.aten.var_mean.correction");
  CHECK(vm->origin == 0u);
  CHECK(a.originOf(*vm) == &a.origins[0]);
  const GraphNodeDef *gi = a.findNode("getitem");
  REQUIRE(gi);
  CHECK(gi->target.empty());
  CHECK(gi->column == 8);
  CHECK(gi->origin == 0u);
  CHECK_FALSE(a.findNode("fc1_weight")->origin);
  const GraphNodeDef *mul = a.findNode("mul");
  REQUIRE(mul);
  CHECK(mul->line == 10);
  CHECK_FALSE(mul->nested);
  CHECK(mul->origin == 1u);
  CHECK(a.nodes.back().nested);
  CHECK_FALSE(a.nodes.back().origin);
  CHECK(a.findNode("arg0_1")->nested);
  CHECK(a.findNode("nope") == nullptr);
}

TEST_CASE("GraphDump: aot graphs with one parameter per line") {
  std::string text = R"py(class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[256][1]cuda:0"  # PlainAOTInput(idx=0)
        tangents_1: "f32[64, 10][10, 1]cuda:0"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        # File: /tmp/work/m.py:15 in forward, code: h = self.norm(x)
        add: "f32[64, 1][1, 1]cuda:0" = torch.ops.aten.add.Tensor(primals_1, 1e-05)
class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_1: "f32[256][1]cuda:0",  # PlainAOTInput(idx=0)
        primals_2: "f32[64, 256][256, 1]cuda:0",  # PlainAOTInput(idx=1)
    ):
        # Annotation: {'_torchdynamo_disable': True} No stacktrace found for following nodes
        conv: "f32[1]" = self.conv
)py";
  TextLines lines = splitLines(text);
  GraphDumpAnalysis a = analyzeGraphDump(lines);
  std::vector<std::string> names;
  for (const GraphNodeDef &n : a.nodes)
    names.push_back(std::string(n.name) + "@" + std::to_string(n.line) + ":" + std::to_string(n.column));
  CHECK(names == std::vector<std::string>{"primals@3:8", "tangents@4:8", "primals_1@6:8", "tangents_1@7:8",
                                          "add@10:8", "primals_1@14:8", "primals_2@15:8", "conv@18:8"});
  CHECK(a.nodes[4].origin == 0u);
  CHECK(a.nodes[4].target == "torch.ops.aten.add.Tensor");
  CHECK_FALSE(a.nodes.back().origin);
}

TEST_CASE("GraphDump: names and targets outlive the input and moves; a target called again is held once") {
  std::string text = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, primals_1: \"f32[8]\"):\n"
                     "        mm: \"f32[8]\" = torch.ops.aten.mm.default(primals_1, primals_1)\n"
                     "        mm_1: \"f32[8]\" = torch.ops.aten.mm.default(mm, mm)\n"
                     "        getitem = mm_1[0]\n";
  std::vector<GraphDumpAnalysis> kept;
  {
    std::string copy = text;
    TextLines lines = splitLines(copy);
    kept.push_back(analyzeGraphDump(lines));
    copy.assign(copy.size(), 'x'); // The input is gone: nothing may view it.
  }
  for (int i = 0; i < 8; ++i) // Reallocations move the analysis.
    kept.push_back(analyzeGraphDump({}));
  const GraphDumpAnalysis &a = kept.front();
  REQUIRE(a.nodes.size() == 4);
  CHECK(a.nodes[0].name == "primals_1");
  CHECK(a.nodes[0].target.empty());
  CHECK(a.nodes[1].name == "mm");
  CHECK(a.nodes[1].target == "torch.ops.aten.mm.default");
  CHECK(a.nodes[2].name == "mm_1");
  CHECK(a.nodes[2].target == "torch.ops.aten.mm.default");
  CHECK(a.nodes[2].target.data() == a.nodes[1].target.data());
  CHECK(a.nodes[3].name == "getitem");
  CHECK(a.nodes[3].target.empty());
  REQUIRE(a.names);
  CHECK(*a.names == "primals_1mmtorch.ops.aten.mm.defaultmm_1getitem");
}

TEST_CASE("GraphDump: malformed input") {
  CHECK(analyzeGraphDump({}).nodes.empty());
  std::string text = "x = 1\n    # File: broken\n    def forward(self, a: \"f32[\n        y = 2\n";
  TextLines lines = splitLines(text);
  GraphDumpAnalysis a = analyzeGraphDump(lines);
  // Nothing outside a def. FIXME(analysis): an unterminated parameter list swallows the next lines, so the
  // body line `y = 2` is taken for a parameter; dumps are machine-written, so this only happens on truncated
  // input.
  REQUIRE(a.nodes.size() == 2);
  CHECK(a.nodes[0].name == "a");
  CHECK(a.nodes[1].name == "y");
  CHECK(a.origins.empty());
  std::string noLine = "    def forward(self):\n        # File: /m.py in f, code: x\n        x = f(1)\n";
  TextLines noLineLines = splitLines(noLine);
  GraphDumpAnalysis b = analyzeGraphDump(noLineLines);
  REQUIRE(b.origins.size() == 1);
  CHECK(b.origins[0].file == "/m.py");
  CHECK(b.origins[0].line == 0);
  CHECK(b.origins[0].function == "f");
}

TEST_CASE("GraphDump: identifierAt") {
  checkIdentifier("extern_kernels.ad^dmm(buf0)", "addmm");
  checkIdentifier("extern_kernels.ad^dmm(buf0)", "extern_kernels.addmm", true);
  checkIdentifier("extern_^kernels.addmm(buf0)", "extern_kernels.addmm", true);
  checkIdentifier("x = torch.ops.aten.mm.default^(a)", "torch.ops.aten.mm.default", true);
  checkIdentifier("x = torch.ops.aten.mm.default^(a)", "default");
  checkIdentifier("^triton_poi_fused_gelu_1.run(buf5)", "triton_poi_fused_gelu_1");
  checkIdentifier("call(buf5^)", "buf5");
  checkIdentifier("a ^ b", "");
  checkIdentifier("x = 1.^5", "", true);
  checkIdentifier("x = 1e-0^5", "");
  checkIdentifier("x.^", "", true);
  checkIdentifier("^", "");
  checkIdentifier("h\xc3\xa9llo^ = 1", "h\xc3\xa9llo");
  CHECK_FALSE(identifierAt("abc", 0, 10));
}

TEST_CASE("GraphDump: mlp_train forward graphs") {
  fs::path dir = findDir(fixturesDir() / "traces/mlp_train/torch_compile_debug", "model__0_forward_1.0");
  REQUIRE(!dir.empty());
  std::string text = readFile(dir / "fx_graph_readable.py");
  TextLines lines = splitLines(text);
  GraphDumpAnalysis a = analyzeGraphDump(lines);
  CHECK(a.origins.size() == 10); // grep -c File: fx_graph_readable.py
  // grep -n: line 16 `addmm: "f32[64, 1024]" = torch.ops.aten.addmm.default(...)` under the comment of
  // line 14.
  const GraphNodeDef *addmm = a.findNode("addmm");
  REQUIRE(addmm);
  CHECK(addmm->line == 15);
  CHECK(addmm->column == 8);
  CHECK(addmm->target == "torch.ops.aten.addmm.default");
  const SourceComment *c = a.originOf(*addmm);
  REQUIRE(c);
  CHECK(c->file == "/tmp/work/mlp_train/model.py");
  CHECK(c->line == 16);
  CHECK(c->code == "h = F.gelu(self.fc1(h))");
  CHECK(c->commentLine == 13);
  const GraphNodeDef *p15 = a.findNode("primals_15");
  REQUIRE(p15);
  CHECK(p15->line == 1);
  CHECK_FALSE(p15->origin);
  CHECK(a.findNode("primals_1")->column == 22);
}

TEST_CASE("GraphDump: every fixture graph") {
  size_t files = 0, nodes = 0, origins = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces")) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !(name == "fx_graph_readable.py" || name == "fx_graph_transformed.py"))
      continue;
    CAPTURE(e.path().string());
    std::string text = readFile(e.path());
    TextLines lines = splitLines(text);
    GraphDumpAnalysis a = analyzeGraphDump(lines);
    CHECK(!a.nodes.empty());
    for (const GraphNodeDef &n : a.nodes) {
      CHECK(lines[n.line].substr(n.column, n.name.size()) == n.name);
      if (n.origin) CHECK(*n.origin < a.origins.size());
    }
    for (const SourceComment &c : a.origins) {
      CHECK(c.line > 0);
      CHECK(!c.file.empty());
    }
    ++files;
    nodes += a.nodes.size();
    origins += a.origins.size();
  }
  CHECK(files >= 30);
  CHECK(nodes > 500);
  CHECK(origins > 50);
}

TEST_CASE("GraphDump: every graph payload of every log") {
  static constexpr std::string_view kGraphs[] = {
      "dynamo_output_graph",    "before_pre_grad_graph", "after_pre_grad_graph",    "inductor_pre_grad_graph",
      "aot_forward_graph",      "aot_backward_graph",    "aot_inference_graph",     "aot_joint_graph",
      "before_post_grad_graph", "after_post_grad_graph", "inductor_post_grad_graph"};
  size_t graphs = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir())) {
    if (!e.is_regular_file() || (e.path().extension() != ".log" && e.path().extension() != ".txt")) continue;
    for (std::string_view kind : kGraphs)
      for (const std::string &payload : tracePayloads(e.path(), kind)) {
        CAPTURE(e.path().string());
        CAPTURE(kind);
        TextLines lines = splitLines(payload);
        GraphDumpAnalysis a = analyzeGraphDump(lines);
        // A graph may be empty: a frame that graph-breaks on its first line compiles `def forward(self):
        // return ()` (runs_gpt). Whether it has nodes or origins is read off the text independently: a node
        // is an indented `NAME = ` or `NAME: "TYPE" = ` statement, an origin a `# File:` comment.
        bool hasNodeLine = false, hasFileComment = false;
        for (size_t i = 0; i < lines.size(); ++i) {
          std::string_view l = lines[i];
          size_t indent = l.find_first_not_of(' ');
          if (indent == std::string_view::npos || indent < 8) continue;
          std::string_view rest = l.substr(indent);
          if (rest.rfind("# File:", 0) == 0) hasFileComment = true;
          size_t name = 0;
          while (name < rest.size() &&
                 (std::isalnum(static_cast<unsigned char>(rest[name])) || rest[name] == '_'))
            ++name;
          if (name > 0 && name < rest.size() &&
              (rest.substr(name, 3) == " = " || rest.substr(name, 3) == ": \""))
            hasNodeLine = true;
        }
        CHECK(a.nodes.empty() == !hasNodeLine);
        CHECK(a.origins.empty() == !hasFileComment);
        for (const GraphNodeDef &n : a.nodes)
          CHECK(lines[n.line].substr(n.column, n.name.size()) == n.name);
        ++graphs;
      }
  }
  CHECK(graphs >= 100);
}

TEST_CASE("GraphDump: findFileComment on any line, with where PATH:LINE is") {
  std::string line =
      "        # File: /tmp/work/mlp_train/model.py:16 in forward, code: h = F.gelu(self.fc1(h))";
  auto at = findFileComment(line);
  REQUIRE(at);
  CHECK(at->comment.file == "/tmp/work/mlp_train/model.py");
  CHECK(at->comment.line == 16);
  CHECK(at->comment.function == "forward");
  CHECK(at->comment.code == "h = F.gelu(self.fc1(h))");
  CHECK(line.substr(at->begin, at->end - at->begin) == "/tmp/work/mlp_train/model.py:16");
  // Older PyTorch: one more space; paths holding ':' and '#'; no `code:` part.
  std::string older = "    #  File: /data/x#link-tree/a:b/model.py:79 in forward";
  at = findFileComment(older);
  REQUIRE(at);
  CHECK(at->comment.file == "/data/x#link-tree/a:b/model.py");
  CHECK(older.substr(at->begin, at->end - at->begin) == "/data/x#link-tree/a:b/model.py:79");
  // Not such comments.
  CHECK(!findFileComment("x = 1  # no file here"));
  CHECK(!findFileComment("ProfileFile: /x.py:3"));
  CHECK(!findFileComment("# File: "));
}
