// Tests for index/health/CompileHealth.h: the parsers of the record texts (graph-break reasons in every
// spelling, recompile reasons, guard trees, record stacks), one log read into RecordedCompiles, and the model
// an Index builds from the real traces (frames, compiles, attempts, statuses, events placed on model lines).
#include "index/health/CompileHealth.h"
#include "index/model/Index.h"
#include "index/trace/TraceLog.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <memory>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdlib.h>
#include <string>

using namespace inductor::index;
using inductor::test::peakRss;

namespace {

const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);
const std::string kTraces = normalizePath(INDUCTOR_TRACES_DIR);

// A dynamo_graph_break_reason payload as PyTorch 2.11 writes it (health_lib, frame 0).
const char *kBreakInLibrary =
    R"(Graph break in user code at /tmp/work/health_lib/site-packages/mylib/__init__.py:7
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str', 'Size'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str', 'Size']. Consider using an equivalent alternative function/method to `print`.
  Hint: Please report an issue to PyTorch.

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "/tmp/work/health_lib/model.py", line 120, in <module>
    main()
  File "/tmp/work/health_lib/model.py", line 19, in lib_break
    y = mylib.noisy_norm(y)  # break inside mylib
  File "/tmp/work/health_lib/site-packages/mylib/__init__.py", line 7, in noisy_norm
    print("mylib: norm", n.shape)  # graph break inside a third-party package

Traceback (most recent call last):
  File "/opt/torch/.venv/lib/python3.12/site-packages/torch/_dynamo/symbolic_convert.py", line 1001, in wrapper
    return inner_fn(self, inst)
torch._dynamo.exc.Unsupported: Failed to trace builtin operator
)";

const Origin *placeOf(const Index &index, const HealthEvent &e) {
  return e.at ? &index.place(*e.at) : nullptr;
}

std::string describe(const Index &index, const HealthEvent &e) {
  const Origin *o = placeOf(index, e);
  std::string where = o ? o->recordedPath + ":" + std::to_string(o->line) : "(nowhere)";
  return where + " [" + index.compileHealth().compiles[e.compile].id.str() + "] " + e.title;
}

} // namespace

TEST_CASE("parseGraphBreakReason: 2.11 artifact with a context line, hints, link and user traceback") {
  GraphBreakReason r = parseGraphBreakReason(kBreakInLibrary);
  CHECK(r.title == "Failed to trace builtin operator");
  CHECK(r.context == "Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y)");
  CHECK(r.explanation.starts_with("Dynamo does not know how to trace builtin operator `print`"));
  REQUIRE(r.hints.size() == 2);
  CHECK(r.hints[1] == "Please report an issue to PyTorch.");
  CHECK(r.developerContext.starts_with("builtin print"));
  CHECK(r.id == "gb0059");
  CHECK(r.url == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html");
  REQUIRE(r.at);
  CHECK(r.at->file == "/tmp/work/health_lib/site-packages/mylib/__init__.py");
  CHECK(r.at->line == 7);
  REQUIRE(r.userStack.size() == 3);
  CHECK(r.userStack[1].line == 19);
  CHECK(r.userStack[1].function == "lib_break");
  CHECK(r.userStack[1].code == "y = mylib.noisy_norm(y)  # break inside mylib");
  CHECK(r.text.starts_with("Graph Break Reason: Encountered graph break"));
  CHECK(r.text.find("User code traceback") == std::string::npos);
  CHECK(r.text.find("Traceback (most recent") == std::string::npos);
}

TEST_CASE("parseGraphBreakReason: the reason is its own title, a restart reason, an older 'Reason:'") {
  SUBCASE("Data-dependent branching: title on the reason line, no context") {
    GraphBreakReason r = parseGraphBreakReason(
        "Graph break in user code at /m.py:15\nGraph Break Reason: Data-dependent branching\n  Explanation: "
        "Detected data-dependent branching.\n  Hint: Use `torch.cond` to express dynamic control flow.\n\n"
        "User code traceback:\n  File \"/m.py\", line 15, in f\n    if s > 0:\n\nNoneType: None\n");
    CHECK(r.title == "Data-dependent branching");
    CHECK(r.context.empty());
    CHECK(r.hints == std::vector<std::string>{"Use `torch.cond` to express dynamic control flow."});
    REQUIRE(r.userStack.size() == 1);
    CHECK(r.userStack[0].line == 15);
    CHECK(r.id.empty());
  }
  SUBCASE("restart_reasons entry: no header, no traceback") {
    GraphBreakReason r = parseGraphBreakReason(
        "Dynamic shape operator\n  Explanation: Operator `aten.nonzero.default`'s output shape depends on "
        "input Tensor data.\n  Hint: Enable tracing of dynamic shape operators with "
        "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`\n\n For more details about this "
        "graph "
        "break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0036.html");
    CHECK(r.title == "Dynamic shape operator");
    CHECK(r.id == "gb0036");
    CHECK_FALSE(r.at);
    CHECK(r.hints.size() == 1);
  }
  SUBCASE("older PyTorch: 'Reason:' and no explanation") {
    GraphBreakReason r =
        parseGraphBreakReason("Graph break in user code at /m.py:9\nReason: Unsupported: call_function "
                              "BuiltinVariable(print) [] {}\n"
                              "User code traceback:\n  File \"/m.py\", line 9, in f\n    print(1)\n");
    CHECK(r.title == "Unsupported: call_function BuiltinVariable(print) [] {}");
    REQUIRE(r.at);
    CHECK(r.at->line == 9);
    CHECK(r.userStack.size() == 1);
  }
  SUBCASE("an exception message: its first line, never a later unindented line") {
    GraphBreakReason r = parseGraphBreakReason("Constraints violated (L['x'].size()[0])!\n  - You marked it "
                                               "dynamic\n\nUser stack:\n  File \"/m.py\", line 58, in f\n");
    CHECK(r.title == "Constraints violated (L['x'].size()[0])!");
    CHECK(r.explanation.empty());
  }
  SUBCASE("nothing") {
    GraphBreakReason r = parseGraphBreakReason("");
    CHECK(r.title.empty());
    CHECK(r.userStack.empty());
  }
}

TEST_CASE("splitRecompileReasons: a bare string, a JSON list, a JSON string") {
  CHECK(splitRecompileReasons("8/0: tensor 'x' size mismatch at index 0. expected 8, actual 16\n") ==
        std::vector<std::string>{"8/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"});
  CHECK(splitRecompileReasons(
            "[\n\"11/1: GLOBAL_STATE changed: grad_mode \",\n\"11/0: tensor 'x' requires_grad "
            "mismatch. expected requires_grad=0\"\n]") ==
        std::vector<std::string>{"11/1: GLOBAL_STATE changed: grad_mode",
                                 "11/0: tensor 'x' requires_grad mismatch. expected requires_grad=0"});
  CHECK(splitRecompileReasons("\"0/0: k == 1\"") == std::vector<std::string>{"0/0: k == 1"});
  CHECK(splitRecompileReasons("  \n").empty());
}

TEST_CASE("splitRecompileReasons: a hostile payload is scanned, the reasons kept bounded and counted") {
  // 16 MiB of `[[],[],...]`: a DOM of it took about 20 bytes per byte (issue 33: 200 MB -> 5.5 GB).
  std::string payload = "[";
  payload.reserve(16u << 20);
  while (payload.size() < (16u << 20))
    payload += "[],";
  payload += "\"0/0: k == 1\"]";
  size_t cut = 0;
  uint64_t before = peakRss(true);
  std::vector<std::string> reasons = splitRecompileReasons(payload, &cut);
  uint64_t grew = peakRss(false) - before;
  CHECK(reasons == std::vector<std::string>{"0/0: k == 1"});
  CHECK(cut == 0);
  CHECK(grew < (32u << 20));
  MESSAGE("peak RSS grew by ", grew >> 20, " MiB splitting ", payload.size() >> 20, " MiB of [[],...]");

  // More reasons than kept: the first kMaxRecompileReasons, the others counted.
  std::string many = "[";
  for (size_t i = 0; i < kMaxRecompileReasons + 10; ++i)
    many += (i ? ", \"" : "\"") + std::to_string(i) + "/0: k == 1\"";
  many += "]";
  cut = 0;
  reasons = splitRecompileReasons(many, &cut);
  CHECK(reasons.size() == kMaxRecompileReasons);
  CHECK(reasons.front() == "0/0: k == 1");
  CHECK(cut == 10);
  // One reason over the size bound, as JSON and as plain text: shortened, marked and counted.
  std::string huge(kMaxRecompileReasonBytes * 4, 'x');
  for (const std::string &text : {"[\"" + huge + "\"]", huge}) {
    cut = 0;
    reasons = splitRecompileReasons(text, &cut);
    REQUIRE(reasons.size() == 1);
    CHECK(reasons[0].size() < kMaxRecompileReasonBytes + 64);
    CHECK(reasons[0].find("[cut: over") != std::string::npos);
    CHECK(cut == 1);
  }
  // Malformed JSON is plain text, as before.
  CHECK(splitRecompileReasons("[\"a\", ") == std::vector<std::string>{"[\"a\","});
}

TEST_CASE("CompileHealth: a metadata value over the size bound is not parsed, counted, the rest read") {
  std::string big = "[" + std::string(kMaxMetadataValueBytes, ' ') + "]";
  std::string text = "V1122 10:29:20.476000 1 torch/_logging/structured.py:28] {\"compilation_metrics\": "
                     "{\"co_name\": \"f\", \"restart_reasons\": " +
                     big +
                     ", \"guard_count\": 3}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
  TraceLog log = TraceLog::fromText(text);
  std::vector<RecordedCompile> compiles = readCompileHealth(log);
  REQUIRE(compiles.size() == 1);
  CHECK(compiles[0].valuesCut == 1);
  CHECK(compiles[0].function == "f");
  CHECK(compiles[0].guardCount == 3);
  CHECK(compiles[0].restartReasons.empty());
  // An index says so, on the compile's line.
  char dir[] = "/tmp/inductor-metadata-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string logPath = std::string(dir) + "/dedicated_log_torch_trace_big.log";
  std::ofstream(logPath) << text;
  IndexOptions options;
  options.inputs = {dir};
  auto index = Index::build(options);
  std::filesystem::remove_all(dir);
  bool said = false;
  for (const IndexDiagnostic &d : index->diagnostics())
    said = said || d.message == "1 metadata values over 1 MiB not read (the reading limit)";
  CHECK(said);
}

TEST_CASE("parseGuardFailure: cached compile, reason, guard comment, user stack, source") {
  SUBCASE("a size mismatch") {
    GuardFailure g = parseGuardFailure("8/0: tensor 'x' size mismatch at index 0. expected 8, actual 16");
    CHECK(g.cachedCompile == "8/0");
    CHECK(g.reason == "tensor 'x' size mismatch at index 0. expected 8, actual 16");
    CHECK(g.source == "L['x']");
    CHECK(g.sizeIndex == 0);
    CHECK_FALSE(g.at);
  }
  SUBCASE("an int specialisation with its comment and user stack") {
    GuardFailure g = parseGuardFailure(
        "6/0: k == 2                                                   # return torch.tanh(x) * k  # "
        "recompiles "
        "when k changes  # mp/work/compile_health/model.py:26 in scaled\nUser stack trace:\n  File "
        "\"/tmp/work/compile_health/model.py\", line 26, in scaled\n    return torch.tanh(x) * k");
    CHECK(g.cachedCompile == "6/0");
    CHECK(g.reason == "k == 2");
    CHECK(g.source == "L['k']");
    CHECK(g.userCode == "return torch.tanh(x) * k  # recompiles when k changes");
    REQUIRE(g.at);
    CHECK(g.at->file == "mp/work/compile_health/model.py");
    CHECK(g.at->line == 26);
    CHECK(g.at->function == "scaled");
    REQUIRE(g.userStack.size() == 1);
    CHECK(g.userStack[0].file == "/tmp/work/compile_health/model.py");
    CHECK_FALSE(g.sizeIndex);
  }
  SUBCASE("a global and global state") {
    CHECK(parseGuardFailure("10/0: G['SCALE'] == 2.0  # x * SCALE  # m.py:40 in f").source == "G['SCALE']");
    GuardFailure state = parseGuardFailure("11/0: GLOBAL_STATE changed: grad_mode ");
    CHECK(state.reason == "GLOBAL_STATE changed: grad_mode");
    CHECK(state.source.empty());
  }
  SUBCASE("older PyTorch: no compile id, the full source quoted") {
    GuardFailure g = parseGuardFailure("tensor 'L['x']' size mismatch at index 1. expected 4, actual 8");
    CHECK(g.cachedCompile.empty());
    CHECK(g.source == "L['x']");
    CHECK(g.sizeIndex == 1);
  }
}

TEST_CASE("parseGuardTree: leaf guards with their manager's source and the user line of their comment") {
  // One line per guard, as the log has them (the long ones assembled here to keep the source narrow).
  const std::string tensorMatch =
      std::string("| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32, ") +
      "size=[16, 32])  # return x * 2  # mp/work/m.py:40 in f";
  const std::string typeMatch = std::string("| | | +- TYPE_MATCH: ___check_type_id(G['SCALE'], 1)  # ") +
                                "return x * SCALE  # mp/work/m.py:41 in f (HINT: type float)";
  const std::string shapeGuard =
      std::string("+- LAMBDA_GUARD: 5 <= L['x'].size()[0]  # if x.shape[0] > 4:  # ") +
      "mp/work/m.py:64 in g (_dynamo/variables/tensor.py:1951 in evaluate_expr)";
  const std::string inductorGuard = std::string("+- LAMBDA_GUARD: 32*L['x'].size()[0] <= 2147483647  # ") +
                                    "(_inductor/codegen/simd.py:1877 in can_use)";
  std::vector<std::string_view> lines = {
      "",
      "TREE_GUARD_MANAGER:",
      "+- RootGuardManager",
      "| +- GLOBAL_STATE: ___check_global_state() against {\"grad\": true}",
      "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0)",
      tensorMatch,
      "| +- GuardManager: source=G, accessed_by=GlobalsGuardAccessor",
      "| | +- GuardManager: source=G['SCALE'], accessed_by=DictGetItemGuardAccessor('SCALE')",
      typeMatch,
      shapeGuard,
      inductorGuard,
      "",
      "Guard latency = 75.81 us",
  };
  GuardTree guards = parseGuardTree(lines);
  REQUIRE(guards.size() == 5);
  CHECK(guards[0].kind == "GLOBAL_STATE");
  CHECK(guards[0].source.empty());
  CHECK_FALSE(guards[0].at);
  CHECK(guards[1].kind == "TENSOR_MATCH");
  CHECK(guards[1].source == "L['x']");
  CHECK(guards[1].expression == "check_tensor(L['x'], Tensor, torch.float32, size=[16, 32])");
  CHECK(guards[1].userCode == "return x * 2");
  REQUIRE(guards[1].at);
  CHECK(guards[1].at->line == 40);
  CHECK(guards[2].source == "G['SCALE']");
  REQUIRE(guards[2].at);
  CHECK(guards[2].at->line == 41);
  CHECK(guards[3].source.empty());
  REQUIRE(guards[3].at);
  CHECK(guards[3].at->file == "mp/work/m.py");
  CHECK(guards[3].at->line == 64);
  // A guard Inductor added has only torch's own frame.
  REQUIRE(guards[4].at);
  CHECK(guards[4].at->file == "_inductor/codegen/simd.py");
}

TEST_CASE("parseGuardTree: the guards' texts outlive the payload and the tree's first copy") {
  GuardTree copy;
  {
    auto owned = std::make_unique<std::vector<std::string>>(std::vector<std::string>{
        "+- RootGuardManager",
        "| +- GuardManager: source=L['self'].w, accessed_by=GetAttrGuardAccessor(w)",
        "| | +- TENSOR_MATCH: check_tensor(L['self'].w)  # y = x @ self.w  # note  # m/work/m.py:12 in fwd",
        "| | +- ID_MATCH: ___check_obj_id(L['self'].w, 1)  # y = x @ self.w  # m/work/m.py:12 in fwd",
        "| +- TYPE_MATCH: ___check_type_id(L['x'], 2)  #   # m/work/m.py:11 in fwd",
    });
    std::vector<std::string_view> lines(owned->begin(), owned->end());
    GuardTree tree = parseGuardTree(lines);
    owned.reset(); // The payload's text is gone: the tree holds its own.
    copy = tree;
    CHECK(copy.sharedWith(tree));
  }
  REQUIRE(copy.size() == 3);
  CHECK(copy[0].kind == "TENSOR_MATCH");
  CHECK(copy[0].source == "L['self'].w");
  CHECK(copy[0].expression == "check_tensor(L['self'].w)");
  CHECK(copy[0].userCode == "y = x @ self.w  # note"); // A quoted line's own "  # " is kept.
  REQUIRE(copy[0].at);
  CHECK(copy[0].at->file == "m/work/m.py");
  CHECK(copy[0].at->line == 12);
  CHECK(copy[0].at->function == "fwd");
  CHECK(copy[1].source == "L['self'].w");
  CHECK(copy[1].userCode == "y = x @ self.w");
  CHECK(copy[2].source.empty());
  CHECK(copy[2].userCode.empty());
  REQUIRE(copy[2].at);
  CHECK(copy[2].at->line == 11);
  // Repeated texts are held once: the two guards of one manager view the same source.
  CHECK(copy[0].source.data() == copy[1].source.data());
  CHECK(copy[0].at->file.data() == copy[2].at->file.data());
  CHECK(parseGuardTree({"no guards here"}).empty());
}

TEST_CASE("stackFromJsonText: interned and plain file names, object and array frames") {
  auto names = [](int id) { return id == 1 ? std::string("/w/model.py") : std::string(); };
  auto frames = stackFromJsonText(
      R"x([{"line": 56, "name": "<module>", "filename": 1, "loc": "main()"}, [1, 7, "f"], {"line": 3, "name": "g", "filename": "/x.py"}, 42])x",
      names);
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].file == "/w/model.py");
  CHECK(frames[0].code == "main()");
  CHECK(frames[1].line == 7);
  CHECK(frames[1].function == "f");
  CHECK(frames[2].file == "/x.py");
  CHECK(stackFromJsonText("not json", names).empty());
}

TEST_CASE("stackFromJsonText: escapes, an uninterned name, line numbers that are not lines, malformed text") {
  auto names = [](int id) { return id == 1 ? std::string("/w/model.py") : std::string(); };
  auto frames = stackFromJsonText(
      R"x([{"loc": "  s = \"a\\b\"\t ", "filename": 1, "uninterned_filename": "/w/\u00e9.py", "line": 9, "name": "f\n"},
          {"line": 0, "name": 3, "filename": 2}, {"line": -4}, {"line": 7.0}, {"line": 1e3}, {"line": 4294967296},
          {"line": 4294967295, "line": 5, "filename": "/a.py", "filename": "/b.py"}, [1, 2], ["/c.py", "8", null, 1]])x",
      names);
  REQUIRE(frames.size() == 8);
  CHECK(frames[0].file ==
        "/w/\xc3\xa9.py");                 // uninterned_filename wins over the interned one, wherever it is.
  CHECK(frames[0].code == "s = \"a\\b\""); // Decoded, then trimmed.
  CHECK(frames[0].function == "f\n");
  CHECK(frames[0].line == 9);
  CHECK(frames[1].line == 0); // Not a line: unknown.
  CHECK(frames[1].function.empty());
  CHECK(frames[1].file.empty()); // An id the str table does not have.
  for (size_t i = 2; i < 6; ++i)
    CHECK(frames[i].line == 0);
  CHECK(frames[6].line == 4294967295u); // The first of repeated keys.
  CHECK(frames[6].file == "/a.py");
  // An array frame needs [file, line, name]; a short one is skipped, a longer one read.
  CHECK(frames[7].file == "/c.py");
  CHECK(frames[7].line == 0);
  CHECK(frames[7].function.empty());
  // Not exactly one well-formed array: no frames at all, not the frames before the fault.
  CHECK(stackFromJsonText(R"([{"line": 3, "name": "g", "filename": "/x.py"}] trailing)", names).empty());
  CHECK(stackFromJsonText(R"([{"line": 3, "name": "g", "filename": "/x.py"}, {"line": )", names).empty());
  CHECK(stackFromJsonText(R"({"line": 3})", names).empty());
  CHECK(stackFromJsonText("", names).empty());
}

TEST_CASE("readCompileHealth: a small log, attempts, restarts and a reset Dynamo") {
  auto record = [](const std::string &metadata, const std::vector<std::string> &payload = {}) {
    std::string s = "V1123 06:16:26.403000 485 torch/_dynamo/convert_frame.py:276] {" + metadata + "}\n";
    for (const std::string &p : payload)
      s += "\t" + p + "\n";
    return s;
  };
  std::string text =
      record(R"("str": ["/w/model.py", 1])") +
      record(
          R"("dynamo_start": {"stack": [{"line": 9, "name": "main", "filename": 1}, {"line": 3, "name": "f", "filename": 1}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(
          R"("artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
          {"Graph break in user code at /w/model.py:4", "Graph Break Reason: Data-dependent branching",
           "  Explanation: e", "", "User code traceback:", "  File \"/w/model.py\", line 4, in f",
           "    if x.sum() > 0:"}) +
      record(R"("dynamo_cpp_guards_str": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 1)",
             {"TREE_GUARD_MANAGER:", "+- RootGuardManager", "| +- GuardManager: source=L['x'], accessed_by=A",
              "| | +- TENSOR_MATCH: check_tensor(L['x'])  # x.sum()  # w/model.py:4 in f"}) +
      record(
          R"("compilation_metrics": {"co_name": "f", "co_filename": "/w/model.py", "co_firstlineno": 3, "fail_type": null, "restart_reasons": ["Data-dependent branching\n  Explanation: e"], "entire_frame_compile_time_s": 1.5, "guard_count": 7}, "frame_id": 0, "frame_compile_id": 0, "attempt": 1)") +
      record(
          R"("artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 1)",
          {"{}"}) +
      // Dynamo reset: the same id again.
      record(
          R"("dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 1}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(
          R"("compilation_metrics": {"co_name": "f", "co_filename": "/w/model.py", "co_firstlineno": 3, "fail_type": "BackendCompilerFailed", "fail_reason": "backend='b' raised:\nRuntimeError: no"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)");
  TraceLog log = TraceLog::fromText(text);
  std::vector<RecordedCompile> compiles = readCompileHealth(log);
  REQUIRE(compiles.size() == 2);
  const RecordedCompile &a = compiles[0];
  CHECK(a.id.str() == "0/0");
  CHECK(a.attempts == std::vector<int>{0, 1});
  CHECK(a.started);
  CHECK(a.hasMetrics);
  CHECK(a.function == "f");
  CHECK(a.file == "/w/model.py");
  CHECK(a.firstLineNo == 3);
  REQUIRE(a.startStack.size() == 2);
  CHECK(a.startStack[0].file == "/w/model.py");
  REQUIRE(a.graphBreaks.size() == 1);
  CHECK(a.graphBreaks[0].attempt == 0);
  CHECK(a.graphBreaks[0].reason.title == "Data-dependent branching");
  REQUIRE(a.guards.size() == 1);
  CHECK(a.guards[0].source == "L['x']");
  CHECK(a.compileSeconds == 1.5);
  CHECK(a.guardCount == 7);
  CHECK(a.fxGraphCache == CacheOutcome::Hit);
  CHECK(a.restartReasons.size() == 1);
  const RecordedCompile &b = compiles[1];
  CHECK(b.failType == "BackendCompilerFailed");
  CHECK(b.failReason == "backend='b' raised:\nRuntimeError: no");
  CHECK(b.guards.empty());
}

TEST_CASE("CompileHealth: metrics are read up to their last wanted member, the first of repeated keys") {
  auto record = [](const std::string &metadata) {
    return "V1122 10:29:20.476000 1 torch/_logging/structured.py:28] {" + metadata + "}\n";
  };
  // CompilationMetrics ends with `inductor_provenance`, megabytes on a large model: once every wanted member
  // was seen it is not walked. A repeated key after that point is not taken (nor, before it, the second).
  std::string provenance = R"("inductor_provenance": [")" + std::string(1 << 16, 'p') + R"("])";
  std::string text =
      record(R"("dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(R"("bwd_compilation_metrics": {"inductor_compile_time_s": 2.5, "fail_type": null, )"
             R"("inductor_compile_time_s": 7, "fail_reason": null, "duration_us": 4, )" +
             provenance + R"(, "duration_us": 9}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(R"("bwd_compilation_metrics": {"elapsed_time": 1.25, "fail_type": "E", "fail_reason": "r", )" +
             provenance + R"(}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)");
  TraceLog log = TraceLog::fromText(text);
  std::vector<RecordedCompile> compiles = readCompileHealth(log);
  REQUIRE(compiles.size() == 1);
  // 2.5 from the first record (not 7, the repeated key; not 4e-6 + ...): then 1.25 from the second, which
  // lacks inductor_compile_time_s and duration_us and so is walked whole.
  CHECK(compiles[0].backwardSeconds == 2.5 + 1.25);
  CHECK(compiles[0].backwardFailType == "E");
  CHECK(compiles[0].backwardFailReason == "r");
}

TEST_CASE("Index compile health: health_lib, every kind of event on its model line") {
  IndexOptions options;
  options.inputs = {kTraces + "/health_lib/trace"};
  options.jobs = 2;
  auto index = Index::build(options);
  const CompileHealth &h = index->compileHealth();
  REQUIRE(h.compiles.size() == 21);
  CHECK(index->stats().frameCompiles == 21);
  CHECK(index->stats().graphBreaks == 5);
  CHECK(index->stats().compileFailures == 3);

  std::vector<std::string> events;
  for (const HealthEvent &e : h.events)
    events.push_back(describe(*index, e));
  const std::string m = "/tmp/work/health_lib/model.py";
  auto has = [&](const std::string &s) {
    INFO(s);
    CHECK(std::find(events.begin(), events.end(), s) != events.end());
  };
  // A break inside a third-party package is on that package's line: its code is model code (issue 8).
  const std::string mylib = "/tmp/work/health_lib/site-packages/mylib/__init__.py";
  has(mylib + ":7 [0/0] Failed to trace builtin operator");
  has(mylib + ":7 [1/0] Failed to trace builtin operator");
  has(m + ":24 [4/0] Dynamic shape operator");
  has(m + ":30 [6/0] Call to `torch._dynamo.graph_break()`");
  has(m + ":35 [8/0] Tensor.tolist() with non-integer tensor");
  // Recompiles: the guard's own line, else the function's def line.
  has(m + ":40 [10/1] G['SCALE'] == 2.0");
  has(m + ":43 [11/1] GLOBAL_STATE changed: grad_mode");
  has(m + ":43 [11/2] GLOBAL_STATE changed: grad_mode");
  has(m + ":44 [11/2] tensor 'x' requires_grad mismatch. expected requires_grad=0");
  has(m + ":48 [12/1] k == 0");
  // Failures.
  has(m + ":53 [13/0] Unsupported: Failed to trace builtin operator");
  has(m +
      ":58 [14/0] ConstraintViolationError: Constraints violated (L['x'].size()[0])! For more information, "
      "run with TORCH_LOGS=\"+dynamic\".");
  has(m + ":73 [16/0] BackendCompilerFailed: backend='bad_backend' raised: RuntimeError: bad_backend: this "
          "backend cannot compile graphs with 4 nodes");
  has(m + ":58 [14/0] L['x'].size()[0] specialized to 8 (range_refined_to_singleton)");
  CHECK(events.size() == 14);

  // Statuses and attempts.
  auto compile = [&](const std::string &id) -> const FrameCompile & {
    for (const FrameCompile &c : h.compiles)
      if (c.id.str() == id) return c;
    FAIL("no compile " << id);
    return h.compiles.front();
  };
  CHECK(compile("0/0").status == CompileStatus::GraphBreak);
  CHECK(compile("0/0").attempts.size() == 2);
  CHECK(compile("0/0").attempts[0].restartReason == "Failed to trace builtin operator");
  CHECK(compile("0/0").outputs.size() == 1);
  CHECK(compile("10/1").status == CompileStatus::Recompiled);
  CHECK(compile("13/0").status == CompileStatus::Failed);
  CHECK(compile("13/0").outputs.empty());
  CHECK(compile("11/1").fxGraphCache == CacheOutcome::Hit);
  // The backend's own raise is related to its failure.
  for (const HealthEvent &e : h.events)
    if (e.kind == HealthEventKind::Failure && e.failType == "BackendCompilerFailed") {
      REQUIRE(e.related.size() == 1);
      CHECK(index->place(e.related[0]).line == 70);
    }

  // Def lines: resumed frames are folded into the function that broke.
  auto functions = index->compiledFunctions(m);
  auto lib =
      std::find_if(functions.begin(), functions.end(), [](auto &f) { return f.function == "lib_break"; });
  REQUIRE(lib != functions.end());
  CHECK(lib->line == 17);
  CHECK(lib->frames.size() == 2); // lib_break and torch_dynamo_resume_in_lib_break_at_19.
  // Guards installed for a line.
  HealthAtLine at40 = index->healthAt(m, 40);
  CHECK_FALSE(at40.guards.empty());
  CHECK(at40.events.size() == 1);
  // Diagnostics: one per (line, kind), merged over compiles.
  std::string libPath; // Where the index placed mylib's recorded file.
  for (const Origin &o : h.places)
    if (o.recordedPath == mylib) libPath = o.path;
  REQUIRE(!libPath.empty());
  auto diags = index->healthDiagnostics(libPath);
  auto line19 = std::find_if(diags.begin(), diags.end(), [](auto &d) { return d.line == 7; });
  REQUIRE(line19 != diags.end());
  CHECK(line19->compiles.size() == 2);
  CHECK(line19->code == "gb0059");
  CHECK(line19->severity == HealthSeverity::Warning);
  CHECK(line19->message.find("in 2 compiles: [0/0], [1/0]") != std::string::npos);
}

TEST_CASE("Index compile health: a break in a file not on this machine is shown on the call that led there") {
  // mylib is where the trace ran only (its mapping leads nowhere); model.py is here. The break inside mylib
  // is shown on model.py:19, `y = mylib.noisy_norm(y)`, the innermost frame that is on this machine.
  const std::string root = kTraces + "/health_lib";
  IndexOptions options;
  options.inputs = {root + "/trace"};
  options.pathMappings = {{"/tmp/work/health_lib/site-packages/", "/nonexistent-inductor/site-packages/"},
                          {"/tmp/work/health_lib/", root + "/"}};
  auto index = Index::build(options);
  const CompileHealth &h = index->compileHealth();
  const std::string model = root + "/model.py";
  size_t shownOnCall = 0;
  for (const HealthEvent &e : h.events) {
    REQUIRE(e.at);
    REQUIRE(e.shownAt);
    if (index->place(*e.at).exists) {
      CHECK(*e.shownAt == *e.at); // Everywhere else: where it happened.
      continue;
    }
    CHECK(index->place(*e.at).recordedPath == "/tmp/work/health_lib/site-packages/mylib/__init__.py");
    CHECK(index->place(*e.shownAt).path == model);
    CHECK(index->place(*e.shownAt).line == 19);
    ++shownOnCall;
  }
  CHECK(shownOnCall == 2); // [0/0] and [1/0].
  auto diags = index->healthDiagnostics(model);
  auto at19 = std::find_if(diags.begin(), diags.end(), [](auto &d) { return d.line == 19; });
  REQUIRE(at19 != diags.end());
  CHECK(at19->kind == HealthEventKind::GraphBreak);
  CHECK(at19->message.rfind("in this call, at __init__.py:7 (a file not on this machine): ", 0) == 0);
  CHECK(at19->message.find("in 2 compiles: [0/0], [1/0]") != std::string::npos);
  // Its traceback still leads to where it happened, and the file is one with diagnostics.
  CHECK(std::any_of(at19->related.begin(), at19->related.end(),
                    [&](auto &r) { return index->place(r.first).line == 7; }));
  auto paths = index->healthPaths();
  CHECK(std::find(paths.begin(), paths.end(), model) != paths.end());
  CHECK(index->healthAt(model, 19).events.size() == 2);
}

TEST_CASE("Index compile health: ranks that recompiled alike are counted once, with their number of ranks") {
  // compile_health's log as two ranks of one job (the records' `rank`, as torch.distributed writes it).
  const std::string log = kFixtures + "/traces/compile_health/trace/dedicated_log_torch_trace_lebe4wpv.log";
  std::ifstream in(log, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(text.find("\"rank\"") == std::string::npos);
  std::string dir = (std::filesystem::temp_directory_path() / "inductor-ranks-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  for (int rank : {0, 1}) {
    std::string ranked = text;
    const std::string key = ", \"frame_id\":", with = ", \"rank\": " + std::to_string(rank) + key;
    for (size_t at = ranked.find(key); at != std::string::npos; at = ranked.find(key, at + with.size()))
      ranked.replace(at, key.size(), with);
    std::ofstream(dir + "/dedicated_log_torch_trace_rank_" + std::to_string(rank) + "_x.log",
                  std::ios::binary)
        << ranked;
  }
  auto diagnostics = [](const std::string &input) {
    IndexOptions options;
    options.inputs = {input};
    auto index = Index::build(options);
    std::map<std::pair<std::string, uint32_t>, std::string> out; // (path, line) -> recompile message
    for (const std::string &path : index->healthPaths())
      for (const HealthDiagnostic &d : index->healthDiagnostics(path))
        if (d.kind == HealthEventKind::Recompile) out[{path, d.line}] = d.message;
    return out;
  };
  auto one = diagnostics(log), two = diagnostics(dir);
  std::filesystem::remove_all(dir);
  REQUIRE(!one.empty());
  REQUIRE(one.size() == two.size());
  for (const auto &entry : one) { // Not a structured binding: INFO captures it (clang 14).
    const auto &where = entry.first;
    const std::string &message = entry.second;
    INFO(where.first << ":" << where.second);
    REQUIRE(two.count(where));
    // The same text ("recompiled 2× — ..."), and the ranks said once at the end.
    std::string first = message.substr(0, message.rfind('\n'));
    CHECK(two[where].rfind(first, 0) == 0);
    CHECK(two[where].find(" · all 2 ranks)") != std::string::npos); // Ranks that agree: said once, as all.
  }
}

TEST_CASE("Index compile health: comp_failure.log has its failed compile though it produced no output code") {
  IndexOptions options;
  options.inputs = {kFixtures + "/tlparse-inputs/comp_failure.log"};
  auto index = Index::build(options);
  CHECK(index->compiles().empty());
  const CompileHealth &h = index->compileHealth();
  REQUIRE(h.compiles.size() == 1);
  CHECK(h.compiles[0].status == CompileStatus::Failed);
  CHECK(h.compiles[0].failType == "BackendCompilerFailed");
  REQUIRE(h.events.size() == 1);
  CHECK(describe(*index, h.events[0]) == "/data/users/xmfan/a/pytorch/test/dynamo/test_misc.py:10755 [0/0] "
                                         "BackendCompilerFailed: backend='broken_backend' raised: "
                                         "RuntimeError: broken backend");
  // The failing backend raised in the test file, which is model code.
  REQUIRE(h.events[0].related.size() == 1);
  CHECK(index->place(h.events[0].related[0]).line == 10759);
}

TEST_CASE("Index compile health: traces without events have compiles and no event") {
  for (const char *c : {"mlp_train", "multirank", "cpu_inductor", "jit_printer"}) {
    CAPTURE(c);
    IndexOptions options;
    options.inputs = {kFixtures + "/traces/" + c + "/trace"};
    auto index = Index::build(options);
    CHECK_FALSE(index->compileHealth().compiles.empty());
    CHECK(index->compileHealth().events.empty());
    for (const FrameCompile &fc : index->compileHealth().compiles)
      CHECK(fc.status == CompileStatus::Ok);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Placement rules of issue 32: the recompile limit, skipped frames, failures from user code, one guard
// failing against several cached compiles.

namespace {

// health_zoo's [1/0] graph-break artifact: a print in a for loop makes Dynamo skip the frame (gb7000).
const char *kBreakInLoop = R"(Graph break in user code at /tmp/work/health_zoo/model.py:15
Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to eager. Graph break encountered:

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str', 'int'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str', 'int']. Consider using an equivalent alternative function/method to `print`.
  Hint: Please report an issue to PyTorch.

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

*** While handling this graph break, another graph break occurred: ***

graph break in loop
  Explanation: torch.compile detected a graph break in a for/while loop. Skipping the frame and falling back to eager, as graph breaks in loops are not supported.
  Hint: This graph break may have been caused by an earlier graph break. Resolving the earlier graph break may resolve this one.

  Developer debug context: frame skipped: loop_break (/tmp/work/health_zoo/model.py line 12)

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb7000.html

User code traceback:
  File "/tmp/work/health_zoo/model.py", line 52, in main
    run("loop_break", lambda: torch.compile(loop_break)(x))
  File "/tmp/work/health_zoo/model.py", line 15, in loop_break
    print("step", i)  # graph break inside a loop
)";

const HealthEvent *findEvent(const Index &index, const std::string &compile, HealthEventKind kind) {
  for (const HealthEvent &e : index.compileHealth().events)
    if (e.kind == kind && index.compileHealth().compiles[e.compile].id.str() == compile) return &e;
  return nullptr;
}

size_t countEvents(const Index &index, const std::string &compile, HealthEventKind kind) {
  size_t n = 0;
  for (const HealthEvent &e : index.compileHealth().events)
    n += e.kind == kind && index.compileHealth().compiles[e.compile].id.str() == compile;
  return n;
}

} // namespace

TEST_CASE(
    "parseGraphBreakReason: a graph break and the one that occurred while handling it, a skipped frame") {
  GraphBreakReason r = parseGraphBreakReason(kBreakInLoop);
  // The first graph break's title, explanation, hints and link: the code and the link name the same one.
  CHECK(r.title == "Failed to trace builtin operator");
  CHECK(r.explanation.rfind("Dynamo does not know how to trace builtin operator `print`", 0) == 0);
  CHECK(r.hints.size() == 2);
  CHECK(r.id == "gb0059");
  CHECK(r.url == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html");
  REQUIRE(r.followUps.size() == 1);
  CHECK(r.followUps[0].title == "graph break in loop");
  CHECK(r.followUps[0].id == "gb7000");
  CHECK(r.followUps[0].hints.size() == 1);
  CHECK(r.followUps[0].developerContext.rfind("frame skipped: loop_break", 0) == 0);
  CHECK(r.skipsFrame);
  REQUIRE(r.at);
  CHECK(r.at->line == 15);
  CHECK(r.userStack.size() == 2);
  CHECK(r.text.find("graph break in loop") != std::string::npos); // PyTorch's text, all of it.

  // The same, as compilation_metrics' fail_reason (no header, no traceback).
  std::string reason = kBreakInLoop;
  reason = reason.substr(reason.find("Failed to trace builtin operator\n"));
  reason = reason.substr(0, reason.find("\nUser code traceback:"));
  GraphBreakReason f = parseGraphBreakReason(reason);
  CHECK(f.title == "Failed to trace builtin operator");
  CHECK(f.id == "gb0059");
  CHECK(f.skipsFrame);
  REQUIRE(f.followUps.size() == 1);
  CHECK(f.followUps[0].id == "gb7000");

  // Breaks that compiled up to the previous resumable state did not skip the frame; older texts that did.
  CHECK_FALSE(parseGraphBreakReason(kBreakInLibrary).skipsFrame);
  CHECK_FALSE(parseGraphBreakReason("Graph Break Reason: Encountered graph break that we cannot resume from. "
                                    "Compiling up to the previous resumable state, then skipping the rest of "
                                    "the function. Graph break encountered:\n\nData-dependent branching\n"
                                    "  Explanation: e\n")
                  .skipsFrame);
  CHECK(parseGraphBreakReason("Skipping frame because there is a graph break in a for/while loop\n")
            .skipsFrame);
  // The suppress_errors hint ("fall back to eager") says nothing about what happened.
  CHECK_FALSE(
      parseGraphBreakReason("backend='x' raised:\nRuntimeError: no\n\nYou can suppress this exception "
                            "and fall back to eager by setting:\n")
          .skipsFrame);

  // A hostile text of many separators: one pass, the follow-ups kept bounded.
  std::string many = "Graph Break Reason: a\nt\n  Explanation: e\n";
  for (int i = 0; i < 10000; ++i)
    many += "*** While handling this graph break, another graph break occurred: ***\nx\n  Explanation: y\n";
  GraphBreakReason m = parseGraphBreakReason(many);
  CHECK(m.title == "t");
  CHECK(m.followUps.size() == 8);
}

TEST_CASE("parseRecompileLimit: the limit's name and value as each PyTorch writes them") {
  RecompileLimit l = parseRecompileLimit(
      "Dynamo recompile limit exceeded\n  Explanation: Dynamo attempted to recompile the code object too "
      "many "
      "times, exceeding the recompile_limit cache size limit (currently set to 3). Excessive ...\n\n  "
      "Developer debug context: Limit type: recompile_limit\n");
  CHECK(l.name == "recompile_limit");
  CHECK(l.value == 3);
  l = parseRecompileLimit(
      "exceeding the accumulated_recompile_limit (currently set to 256)\n  Developer debug "
      "context: Limit type: accumulated_recompile_limit");
  CHECK(l.name == "accumulated_recompile_limit");
  CHECK(l.value == 256);
  l = parseRecompileLimit("cache_size_limit reached");
  CHECK(l.name == "cache_size_limit");
  CHECK_FALSE(l.value.has_value());
  l = parseRecompileLimit("torch._dynamo hit config.recompile_limit (8)");
  CHECK(l.name == "recompile_limit");
  CHECK(l.value == 8);
  CHECK(parseRecompileLimit("Failed to trace builtin operator").name.empty());
  CHECK(parseRecompileLimit("").name.empty());
}

TEST_CASE("userCodeFrames: the 'from user code:' section of an exception Dynamo augmented") {
  std::string error = "Traceback (most recent call last):\n"
                      "  File \"/opt/torch/_dynamo/convert_frame.py\", line 1827, in _compile\n"
                      "    x()\n"
                      "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call\n\n"
                      "from user code:\n"
                      "   File \"/w/model.py\", line 66, in forward\n"
                      "    x = blk(x)\n"
                      "  File \"/w/model.py\", line 48, in forward\n"
                      "    print(h.item())\n\n"
                      "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n";
  std::vector<StackFrame> frames = userCodeFrames(error);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].line == 66);
  CHECK(frames[1].line == 48);
  CHECK(frames[1].file == "/w/model.py");
  CHECK(frames[1].code == "print(h.item())");
  CHECK(userCodeFrames("Traceback (most recent call last):\n  File \"/w/m.py\", line 3, in f\n").empty());
  CHECK(userCodeFrames("").empty());
  CHECK(userCodeFrames("from user code:\n").empty());
}

TEST_CASE(
    "Index compile health: health_zoo, the recompile limit, a skipped frame, a guard against 3 compiles") {
  IndexOptions options;
  options.inputs = {kTraces + "/health_zoo/trace"};
  options.jobs = 2;
  auto index = Index::build(options);
  const CompileHealth &h = index->compileHealth();
  const std::string m = "/tmp/work/health_zoo/model.py";

  // [0/3] hit the recompile limit; its metrics name no function, its frame id does (shapes, def line 8).
  const FrameCompile *limited = nullptr;
  for (const FrameCompile &c : h.compiles)
    if (c.id.str() == "0/3") limited = &c;
  REQUIRE(limited);
  CHECK(h.frames[limited->frame].function == "shapes");
  CHECK(h.frames[limited->frame].compiles.size() == 4);
  for (const CompiledFrame &f : h.frames)
    CHECK_FALSE(f.function.empty());
  CHECK(limited->status == CompileStatus::NotCompiled);
  const HealthEvent *limit = nullptr;
  for (const HealthEvent &e : h.events)
    if (e.compile == uint32_t(limited - h.compiles.data()) && e.ranEagerly) limit = &e;
  REQUIRE(limit);
  CHECK(limit->kind == HealthEventKind::Recompile);
  CHECK(limit->severity == HealthSeverity::Warning);
  CHECK(limit->title == "recompile limit (3) reached: this function runs eagerly from now on");
  CHECK(limit->id == "gb0039");
  CHECK(describe(*index, *limit) == m + ":8 [0/3] " + limit->title);
  CHECK(countEvents(*index, "0/3", HealthEventKind::Failure) == 0);
  // Its guard failures, on the guarded line, each against its own cached compile (different texts).
  CHECK(countEvents(*index, "0/3", HealthEventKind::Recompile) == 4);

  // [1/0]: a print in a loop made Dynamo skip loop_break: one graph break, a Warning, named by its first
  // graph break's code and link; no failure.
  CHECK(countEvents(*index, "1/0", HealthEventKind::Failure) == 0);
  REQUIRE(countEvents(*index, "1/0", HealthEventKind::GraphBreak) == 1);
  const HealthEvent *skip = findEvent(*index, "1/0", HealthEventKind::GraphBreak);
  CHECK(skip->ranEagerly);
  CHECK(skip->severity == HealthSeverity::Warning);
  CHECK(skip->id == "gb0059");
  CHECK(skip->url.ends_with("/gb0059.html"));
  CHECK(
      describe(*index, *skip) ==
      m + ":15 [1/0] Failed to trace builtin operator (graph break in loop: Dynamo skipped the frame, which "
          "runs eagerly)");
  for (const FrameCompile &c : h.compiles)
    if (c.id.str() == "1/0") {
      CHECK(c.status == CompileStatus::NotCompiled);
    }

  // [3/0]: raised inside PyTorch from line 29.
  const HealthEvent *matmul = findEvent(*index, "3/0", HealthEventKind::Failure);
  REQUIRE(matmul);
  CHECK(matmul->severity == HealthSeverity::Error);
  CHECK(index->place(*matmul->at).line == 29);

  // [4/3]: grad mode failed against 3 cached compiles: one event.
  REQUIRE(countEvents(*index, "4/3", HealthEventKind::Recompile) == 1);
  const HealthEvent *grad = findEvent(*index, "4/3", HealthEventKind::Recompile);
  CHECK(grad->title == "GLOBAL_STATE changed: grad_mode (against 3 earlier compiles)");
  CHECK(grad->cachedCompiles == std::vector<std::string>{"4/2", "4/1", "4/0"});
  CHECK(grad->text.find("[4/2], [4/1], [4/0]") != std::string::npos);

  // Diagnostics: the limit is its own Warning on the def line, apart from the guard failures.
  std::string path = index->place(*limit->at).path;
  auto diags = index->healthDiagnostics(path);
  auto at = [&](uint32_t line, const std::string &code) -> const HealthDiagnostic * {
    for (const HealthDiagnostic &d : diags)
      if (d.line == line && d.code == code) return &d;
    return nullptr;
  };
  const HealthDiagnostic *def = at(8, "recompile-limit");
  REQUIRE(def);
  CHECK(def->severity == HealthSeverity::Warning);
  CHECK(def->href == limit->url);
  CHECK(def->message.rfind("recompile limit (3) reached: this function runs eagerly from now on\n", 0) == 0);
  CHECK(def->message.find("[0/3]") != std::string::npos);
  const HealthDiagnostic *loop = at(15, "gb0059");
  REQUIRE(loop);
  CHECK(loop->severity == HealthSeverity::Warning);
  CHECK(loop->href.ends_with("/gb0059.html"));
  for (const HealthDiagnostic &d : diags)
    CHECK_MESSAGE((d.line != 15 || &d == loop), d.code);
  const HealthDiagnostic *grads = at(32, "recompile");
  REQUIRE(grads);
  CHECK(grads->message.find("GLOBAL_STATE changed: grad_mode (against 3 earlier compiles)") !=
        std::string::npos);
}

TEST_CASE("Index compile health: a failure without fail_user_frame is on the line Dynamo was tracing") {
  // health_zoo's bad_matmul failure with fail_user_frame_* null (as PyTorch logs some failures): the
  // dynamo_error's "from user code:" names line 29, where it was raised from; not the def line (27).
  const std::string source = kTraces + "/health_zoo/trace";
  std::string logPath;
  for (const auto &e : std::filesystem::directory_iterator(source))
    logPath = e.path().string();
  std::ifstream in(logPath, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string recorded =
      R"("fail_user_frame_filename": "/tmp/work/health_zoo/model.py", "fail_user_frame_lineno": 29)";
  size_t at = text.find(recorded);
  REQUIRE(at != std::string::npos);
  text.replace(at, recorded.size(), R"("fail_user_frame_filename": null, "fail_user_frame_lineno": null)");
  std::string dir = (std::filesystem::temp_directory_path() / "inductor-placement-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  std::ofstream(dir + "/dedicated_log_torch_trace_x.log", std::ios::binary) << text;
  IndexOptions options;
  options.inputs = {dir};
  auto index = Index::build(options);
  std::filesystem::remove_all(dir);
  const HealthEvent *matmul = findEvent(*index, "3/0", HealthEventKind::Failure);
  REQUIRE(matmul);
  REQUIRE(matmul->at);
  CHECK(index->place(*matmul->at).line == 29);
  REQUIRE(matmul->stack.size() == 1);
  CHECK(index->place(matmul->stack[0]).line == 29);
  // The traceback proper has no model frame: nothing else was "raised here".
  CHECK(matmul->related.empty());
}
