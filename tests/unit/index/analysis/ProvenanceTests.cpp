#include "index/analysis/Provenance.h"

#include "index/analysis/ModelFrames.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

fs::path logOf(const fs::path &caseDir) {
  for (const auto &e : fs::directory_iterator(caseDir / "trace"))
    if (e.path().extension() == ".log") return e.path();
  return {};
}

template <typename T> bool contains(const std::vector<T> &v, const T &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

TEST_CASE("Provenance: KernelKey") {
  KernelKey a = KernelKey::parse("triton_poi_fused_gelu_1:3");
  CHECK(a.name == "triton_poi_fused_gelu_1");
  CHECK(a.debugHandle == 3);
  CHECK(a.str() == "triton_poi_fused_gelu_1:3");
  KernelKey b = KernelKey::parse("extern_kernels.addmm");
  CHECK(b.name == "extern_kernels.addmm");
  CHECK_FALSE(b.debugHandle);
  CHECK(b.str() == "extern_kernels.addmm");
  CHECK(KernelKey::parse("a:b").name == "a:b");
  CHECK_FALSE(KernelKey::parse("a:b").debugHandle);
  CHECK(KernelKey::parse("x:").name == "x:");
  CHECK(KernelKey::parse("x:-1").name == "x:-1");
  CHECK(KernelKey::parse("ns:x:12").name == "ns:x");
  CHECK(KernelKey::parse("ns:x:12").debugHandle == 12);
  CHECK(KernelKey::parse("k:99999999999999").name == "k:99999999999999");
  CHECK(KernelKey::parse("").name.empty());
}

TEST_CASE("Provenance: stack traces") {
  auto frames = parseStackTrace("  File \"/tmp/work/m.py\", line 29, in forward\n    x = blk(x)\n"
                                "  File \"/tmp/work/m.py\", line 15, in forward\n    h = self.norm(x)\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0] == StackFrame{"/tmp/work/m.py", 29, "forward", "x = blk(x)"});
  CHECK(frames[1] == StackFrame{"/tmp/work/m.py", 15, "forward", "h = self.norm(x)"});

  // AOTI's kernel_information.json drops the first frame's leading spaces; CRLF; a frame without code; the
  // trailing message of backward traces; Python 3.11 caret lines.
  frames = parseStackTrace("File \"/a.py\", line 3, in f\r\n    y = g()\r\n    ~~~^^\r\n"
                           "  File \"/b.py\", line 7, in g\r\n"
                           "  File \"/c.py\", line 9, in h\r\n"
                           "Gradient addition node due to multiple use of tensor around:");
  REQUIRE(frames.size() == 3);
  CHECK(frames[0] == StackFrame{"/a.py", 3, "f", "y = g()"});
  CHECK(frames[1] == StackFrame{"/b.py", 7, "g", ""});
  CHECK(frames[2] == StackFrame{"/c.py", 9, "h", ""});

  CHECK(parseStackTrace("").empty());
  CHECK(parseStackTrace("no frames here\n").empty());
  frames = parseStackTrace("  File \"/x.py\", line ?, in <module>\n  File \"/unterminated");
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].line == 0);
  CHECK(frames[0].function == "<module>");
}

TEST_CASE("Provenance: node mappings, inline") {
  auto v2 = parseNodeMappings(R"({"preToPost": {"h": ["add", "mul"]}, "postToPre": {"add": ["h"]},
    "cppCodeToPost": {"triton_poi_fused_add_0:1": ["add"], "bad": 3, "mixed": ["mul", 7]},
    "postToCppCode": {"add": ["triton_poi_fused_add_0:1"]}, "version": 2.0})");
  REQUIRE(v2);
  CHECK(v2->version == 2);
  CHECK(v2->preToPost.at("h") == std::vector<std::string>{"add", "mul"});
  CHECK(v2->kernelToPost.at("triton_poi_fused_add_0:1") == std::vector<std::string>{"add"});
  // Entries of the wrong type are skipped, not fatal.
  CHECK(v2->kernelToPost.at("bad").empty());
  CHECK(v2->kernelToPost.at("mixed") == std::vector<std::string>{"mul"});
  CHECK_FALSE(v2->empty());

  auto inferred = parseNodeMappings(R"({"cppCodeToPost": {"k:4": ["a"]}})");
  REQUIRE(inferred);
  CHECK(inferred->version == 2);
  auto v1 = parseNodeMappings(R"({"cppCodeToPost": {"extern_kernels.addmm": ["a"]}})");
  REQUIRE(v1);
  CHECK(v1->version == 1);
  auto onlyVersion = parseNodeMappings(R"({"version": 2.0})");
  REQUIRE(onlyVersion);
  CHECK(onlyVersion->empty());
  CHECK(onlyVersion->version == 2);

  CHECK_FALSE(parseNodeMappings(""));
  CHECK_FALSE(parseNodeMappings("{\"preToPost\": "));
  CHECK_FALSE(parseNodeMappings("[1, 2]"));
  CHECK(parseNodeMappings("{oops").error().message.find("invalid JSON") != std::string::npos);
}

TEST_CASE("Provenance: legacy artifacts, inline") {
  auto k2p = parseKernelToPostGradNodes(
      R"({"cpp_fused_gelu_1": ["mul_3", "erf"], "extern_kernels.addmm": ["addmm"]})");
  REQUIRE(k2p);
  CHECK(k2p->at("cpp_fused_gelu_1") == std::vector<std::string>{"mul_3", "erf"});
  auto p2p = parsePostToPreGradNodes(
      R"({"permute": [{"name": "x", "target": "<built-in function linear>", "from_node": [{"name": "inner"}]},
                      {"name": "x", "target": "t"}],
          "erf": [{"name": "z"}], "odd": "x", "str": ["y"]})");
  REQUIRE(p2p);
  CHECK(p2p->at("permute") == std::vector<std::string>{"x"});
  CHECK(p2p->at("erf") == std::vector<std::string>{"z"});
  CHECK(p2p->at("odd").empty());
  CHECK(p2p->at("str") == std::vector<std::string>{"y"});
  NodeMappings m = legacyNodeMappings(*k2p, *p2p);
  CHECK(m.version == 1);
  CHECK(m.postToKernel.at("erf") == std::vector<std::string>{"cpp_fused_gelu_1"});
  CHECK(m.preToPost.at("z") == std::vector<std::string>{"erf"});
  CHECK_FALSE(parseKernelToPostGradNodes("nope"));
  CHECK_FALSE(parsePostToPreGradNodes(""));

  NodeMappings a, b;
  a.version = 1;
  a.kernelToPost["k"] = {"x"};
  b.version = 2;
  b.kernelToPost["k"] = {"x", "y"};
  a.merge(b);
  CHECK(a.version == 2);
  CHECK(a.kernelToPost.at("k") == std::vector<std::string>{"x", "y"});
}

TEST_CASE("Provenance: stack traces and kernel information, inline") {
  auto st =
      parseKernelStackTraces(R"({"k:1": ["  File \"/m.py\", line 3, in f\n    y = 1\n", 5], "k:2": "x"})");
  REQUIRE(st);
  REQUIRE(st->at("k:1").size() == 1);
  CHECK(st->at("k:1")[0].size() == 1);
  CHECK(st->at("k:2").empty());
  CHECK_FALSE(parseKernelStackTraces("{"));
  // One pass: the members before a cut are walked, then the document is refused as a whole, and `read` is
  // told, member by member, how far the walk got.
  std::string whole =
      R"({"k:1": ["  File \"/m.py\", line 3, in f\n"], "k:2": ["  File \"/m.py\", line 4, in f\n"]})";
  std::vector<size_t> reads;
  auto record = [&](size_t n) { reads.push_back(n); };
  REQUIRE(parseKernelStackTraces(whole, record));
  REQUIRE(reads.size() == 2);
  CHECK(reads[0] < reads[1]);
  CHECK(reads[1] == whole.size() - 1); // Up to the last member's value, before the closing brace.
  reads.clear();
  auto cut = parseKernelStackTraces(whole.substr(0, whole.size() - 3), record);
  REQUIRE_FALSE(cut);
  CHECK(cut.error().message.find("invalid JSON") != std::string::npos);
  CHECK(reads.size() == 1);

  auto info = parseKernelInformation(
      R"({"k:1": {"stack_traces": ["File \"/m.py\", line 3, in f\n    y = 1"], "post_grad_nodes": ["a"],
                  "pre_grad_nodes": ["b"]}, "junk": 1})");
  REQUIRE(info);
  CHECK(info->size() == 1);
  CHECK(info->at("k:1").stackTraces.at(0).at(0).line == 3);
  CHECK(info->at("k:1").postGradNodes == std::vector<std::string>{"a"});
  CHECK(info->at("k:1").preGradNodes == std::vector<std::string>{"b"});
  CHECK_FALSE(parseKernelInformation("null"));
}

TEST_CASE("Provenance: mlp_train trace") {
  fs::path log = logOf(fixturesDir() / "traces/mlp_train");
  REQUIRE(!log.empty());
  auto mappings = tracePayloads(log, "inductor_provenance_tracking_node_mappings");
  REQUIRE(mappings.size() == 2);
  auto fwd = parseNodeMappings(mappings[0]);
  REQUIRE(fwd);
  CHECK(fwd->version == 2);
  CHECK(fwd->kernelToPost.size() == 11);
  CHECK(fwd->kernelToPost.at("triton_poi_fused_gelu_1:3").size() == 5);
  CHECK(fwd->postToPre.at("addmm") == std::vector<std::string>{"linear"});
  CHECK(fwd->postToKernel.at("add_3") ==
        std::vector<std::string>{"triton_per_fused_add_native_layer_norm_2:5",
                                 "triton_poi_fused_add_addmm_3:9"});
  // The backward graph of this PyTorch carries only the version.
  auto bwd = parseNodeMappings(mappings[1]);
  REQUIRE(bwd);
  CHECK(bwd->empty());

  auto traces = tracePayloads(log, "inductor_provenance_tracking_kernel_stack_traces");
  REQUIRE(traces.size() == 2);
  auto fwdTraces = parseKernelStackTraces(traces[0]);
  REQUIRE(fwdTraces);
  const auto &gelu = fwdTraces->at("triton_poi_fused_gelu_1:3");
  REQUIRE(gelu.size() == 1);
  REQUIRE(gelu[0].size() == 2);
  CHECK(gelu[0][0] == StackFrame{"/tmp/work/mlp_train/model.py", 29, "forward", "x = blk(x)"});
  CHECK(gelu[0][1] == StackFrame{"/tmp/work/mlp_train/model.py", 16, "forward", "h = F.gelu(self.fc1(h))"});
  CHECK(ModelFrameRule().originFrame(gelu[0]) == &gelu[0][1]);

  auto bwdTraces = parseKernelStackTraces(traces[1]);
  REQUIRE(bwdTraces);
  const auto &ln = bwdTraces->at("triton_per_fused_add_native_layer_norm_native_layer_norm_backward_4:11");
  REQUIRE(!ln.empty());
  // This trace ends with "Gradient addition node due to multiple use of tensor around:".
  REQUIRE(ln[0].size() == 2);
  CHECK(ln[0][1].line == 15);
  CHECK(ln[0][1].code == "h = self.norm(x)");
}

TEST_CASE("Provenance: AOTI kernel_information.json") {
  fs::path p = findUnder(fixturesDir() / "traces/aoti_conv/inductor_cache", "kernel_information.json");
  REQUIRE(!p.empty());
  auto info = parseKernelInformation(readFile(p));
  REQUIRE(info);
  CHECK(info->size() == 10);
  const KernelInformation &conv = info->at("aoti_torch_cuda_convolution:3");
  CHECK(conv.postGradNodes == std::vector<std::string>{"convolution"});
  CHECK(conv.preGradNodes == std::vector<std::string>{"conv2d"});
  REQUIRE(conv.stackTraces.size() == 1);
  REQUIRE(conv.stackTraces[0].size() == 2);
  CHECK(conv.stackTraces[0][0] ==
        StackFrame{"/tmp/work/aoti_conv/model.py", 17, "forward", "x = torch.relu(self.bn1(self.conv1(x)))"});
  CHECK(conv.stackTraces[0][1].file ==
        "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/conv.py");
  CHECK(ModelFrameRule().originFrame(conv.stackTraces[0]) == &conv.stackTraces[0][0]);
}

TEST_CASE("Provenance: legacy tlparse inputs") {
  fs::path dir = fixturesDir() / "tlparse-inputs";
  // PyTorch 2.8 JIT on CPU: no debug handles, legacy artifacts present.
  fs::path jit = dir / "inductor_provenance_jit_log.txt";
  auto mappings = tracePayloads(jit, "inductor_provenance_tracking_node_mappings");
  REQUIRE(mappings.size() == 1);
  auto m = parseNodeMappings(mappings[0]);
  REQUIRE(m);
  CHECK(m->version == 1);
  CHECK(m->kernelToPost.at("cpp_fused_mul_relu_sigmoid_0") ==
        std::vector<std::string>{"sigmoid", "relu", "mul"});
  CHECK(m->kernelToPost.count("extern_kernels.addmm") == 1);

  auto k2p = tracePayloads(jit, "inductor_triton_kernel_to_post_grad_nodes");
  auto p2p = tracePayloads(jit, "inductor_post_to_pre_grad_nodes");
  REQUIRE(k2p.size() == 1);
  REQUIRE(p2p.size() == 1);
  auto kernelToPost = parseKernelToPostGradNodes(k2p[0]);
  auto postToPre = parsePostToPreGradNodes(p2p[0]);
  REQUIRE(kernelToPost);
  REQUIRE(postToPre);
  CHECK(kernelToPost->at("cpp_fused_gelu_1").size() == 5);
  CHECK(postToPre->at("permute") == std::vector<std::string>{"x"});
  NodeMappings legacy = legacyNodeMappings(*kernelToPost, *postToPre);
  CHECK(legacy.version == 1);
  CHECK(contains(legacy.preToPost.at("x"), std::string("addmm")));

  // With debug handles (PyTorch 2.9).
  auto handles = tracePayloads(dir / "inductor_provenance_jit_debug_handle_log.txt",
                               "inductor_provenance_tracking_node_mappings");
  REQUIRE(handles.size() == 1);
  auto h = parseNodeMappings(handles[0]);
  REQUIRE(h);
  CHECK(h->version == 2);
}

TEST_CASE("Provenance: every fixture artifact parses") {
  size_t parsed = 0;
  std::vector<fs::path> logs;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir()))
    if (e.is_regular_file() && (e.path().extension() == ".log" || e.path().extension() == ".txt"))
      logs.push_back(e.path());
  for (const fs::path &log : logs) {
    CAPTURE(log.string());
    for (const std::string &p : tracePayloads(log, "inductor_provenance_tracking_node_mappings")) {
      CHECK(parseNodeMappings(p));
      ++parsed;
    }
    for (const std::string &p : tracePayloads(log, "inductor_provenance_tracking_kernel_stack_traces")) {
      auto st = parseKernelStackTraces(p);
      REQUIRE(st);
      for (const auto &[key, traces] : *st)
        for (const auto &frames : traces)
          CHECK(!frames.empty());
      ++parsed;
    }
    for (const std::string &p : tracePayloads(log, "inductor_triton_kernel_to_post_grad_nodes")) {
      CHECK(parseKernelToPostGradNodes(p));
      ++parsed;
    }
    for (const std::string &p : tracePayloads(log, "inductor_post_to_pre_grad_nodes")) {
      CHECK(parsePostToPreGradNodes(p));
      ++parsed;
    }
  }
  CHECK(parsed >= 30);
  // The debug directories' JSON files: some are empty (0 bytes) in these traces, which is an error, not a
  // crash.
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces")) {
    if (e.path().filename() != "inductor_provenance_tracking_node_mappings.json") continue;
    std::string text = readFile(e.path());
    auto m = parseNodeMappings(text);
    CHECK(bool(m) == !text.empty());
  }
}

TEST_CASE("Provenance: what one document may hold is bounded, and nothing is quadratic") {
  // Finding 5 of issue 11: a 64 MB provenance payload cost 1 GB through a DOM.
  std::string many = "{\"preToPost\": {";
  for (size_t i = 0; i <= kMaxProvenanceEntries / 2; ++i)
    many += (i ? ",\"n" : "\"n") + std::to_string(i) + "\": [\"p\"]";
  many += "}}";
  auto refused = parseNodeMappings(many);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("more than") != std::string::npos);

  // A key with 100,000 distinct values and duplicates: linear, deduplicated in order.
  std::string wide = "{\"x\": [";
  for (int i = 0; i < 100000; ++i)
    wide += (i ? ",{\"name\": \"n" : "{\"name\": \"n") + std::to_string(i % 50000) + "\"}";
  wide += "]}";
  auto p2p = parsePostToPreGradNodes(wide);
  REQUIRE(p2p);
  REQUIRE(p2p->at("x").size() == 50000);
  CHECK(p2p->at("x")[49999] == "n49999");
  NameMap kernelToPost{{"k", {}}}, postToPre;
  for (int i = 0; i < 100000; ++i)
    kernelToPost["k" + std::to_string(i)] = {"shared"};
  NodeMappings m = legacyNodeMappings(kernelToPost, postToPre);
  CHECK(m.postToKernel.at("shared").size() == 100000);

  // Deep nesting in a document is refused, not recursed into.
  CHECK_FALSE(
      parseNodeMappings("{\"preToPost\": " + std::string(100000, '[') + std::string(100000, ']') + "}"));
  // A float version out of int's range does not convert with undefined behaviour.
  auto version = parseNodeMappings(R"({"version": 1e300})");
  REQUIRE(version);
  CHECK(version->version == 1000);
}
