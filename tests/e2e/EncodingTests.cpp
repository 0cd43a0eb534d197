// tests/e2e/EncodingTests.cpp: position encodings on a small synthetic trace with non-ASCII text, both in the
// generated code (before the kernel name on the launch line) and in the user's source line.
//
// The trace is written in a temp dir in the TORCH_TRACE format (glog prefix, one-line JSON envelope, payload
// lines prefixed by a TAB; `has_payload` is left out, as the format allows). Columns differ by encoding:
//   launch line  `    ñé = 1; triton_poi_fused_x_0.run(...)`: the name starts at byte 14, UTF-16 unit 12;
//   user line    `    y = x * 2  # 数据 😀`: the trimmed line ends at byte 28, UTF-16 unit 22.
#include "e2e/E2E.h"

namespace inductor::e2e {
namespace {

const char *kModel = "import torch\n"
                     "\n"
                     "\n"
                     "def f(x):\n"
                     "    y = x * 2  # 数据 😀\n"
                     "    return y\n";

const char *kLaunchLine = "    ñé = 1; triton_poi_fused_x_0.run(arg0_1, buf0, 8, stream=stream0)";

std::string outputCode() {
  return std::string("# AOT ID: ['0_inference']\n"
                     "from torch._inductor.runtime.triton_heuristics import grid\n"
                     "async_compile = AsyncCompile()\n"
                     "\n"
                     "triton_poi_fused_x_0 = async_compile.triton('triton_poi_fused_x_0', '''\n"
                     "@triton.jit\n"
                     "def triton_poi_fused_x_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
                     "    pass\n"
                     "''', device_str='cuda')\n"
                     "\n"
                     "async_compile.wait(globals())\n"
                     "del async_compile\n"
                     "\n"
                     "def call(args):\n"
                     "    arg0_1, = args\n"
                     "    # Topologically Sorted Source Nodes: [y], Original ATen: [aten.mul]\n"
                     "    # [Provenance debug handles] triton_poi_fused_x_0:1\n") +
         kLaunchLine + "\n    return (buf0, )";
}

/// One record: the envelope with the record kind first, as torch writes it (json::dump would sort the keys).
std::string record(const std::string &kind, const json &value, const std::string &payload) {
  std::string out = "V1122 10:00:00.000000 4242 torch/_inductor/graph.py:2575] {\"" + kind +
                    "\": " + value.dump() + ", \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
  for (const std::string &line : splitLines(payload))
    out += "\t" + line + "\n";
  return out;
}

/// Writes model.py and trace/dedicated_log_torch_trace_test.log into `dir`.
void writeSyntheticCase(const TempDir &dir) {
  std::string model = dir.write("model.py", kModel);
  json stacks = {
      {"triton_poi_fused_x_0:1", {"  File \"" + model + "\", line 5, in f\n    y = x * 2  # 数据 😀\n"}}};
  dir.write(
      "trace/dedicated_log_torch_trace_test.log",
      record("inductor_output_code", {{"filename", "/tmp/nowhere/inductor_cache/zz/czz.py"}}, outputCode()) +
          record("artifact",
                 {{"name", "inductor_provenance_tracking_kernel_stack_traces"}, {"encoding", "json"}},
                 stacks.dump()));
}

void checkEncoding(bool utf8) {
  TempDir dir("encoding");
  writeSyntheticCase(dir);
  json caps = LSPClient::defaultCapabilities();
  if (utf8) caps["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
  Session s(dir.path(), nullptr, caps);
  INFO(s.client.logTail());
  REQUIRE(s.initializeResult["capabilities"]["positionEncoding"] == (utf8 ? "utf-8" : "utf-16"));

  std::vector<OutputCodeRecord> records =
      readOutputCodes(dir.path() + "/trace/dedicated_log_torch_trace_test.log");
  REQUIRE(records.size() == 1);
  REQUIRE(records[0].origins.size() == 1);
  std::string uri = findVirtualOutputCode(s.client, records[0].payload);
  REQUIRE(!uri.empty());
  std::vector<LaunchSite> launches = findLaunches(records[0].payload);
  REQUIRE(launches.size() == 1);
  const LaunchSite &site = launches[0];
  REQUIRE(site.column == 14); // Bytes: 4 spaces, "ñé" (4 bytes), " = 1; " (6).

  // The oracle's arithmetic, spelled out.
  uint32_t nameStart = utf8 ? 14 : 12, nameEnd = nameStart + 20;
  uint32_t userEnd = utf8 ? 28 : 22;
  CHECK(launchLoc(uri, records[0].payload, site, utf8) == Loc{uri, site.line, nameStart, site.line, nameEnd});
  std::string model = dir.path() + "/model.py";
  std::string modelURI = fileURI(model);
  Loc origin{modelURI, 4, 4, 4, userEnd};
  CHECK(originLoc(Frame{model, 5}, utf8) == origin);

  // Definition: at the first and the last character of the name, in this encoding's units.
  for (uint32_t character : {nameStart, nameEnd - 1}) {
    INFO("character " << character);
    json def = s.client.request("textDocument/definition", textDocumentPosition(uri, site.line, character));
    CHECK(toLocSet(def) == std::set<Loc>{origin});
  }
  // Just before the name (the ';' and the space) is not the kernel.
  CHECK(s.client.request("textDocument/definition", textDocumentPosition(uri, site.line, nameStart - 2)) ==
        json::array());
  // Hover range on the launch.
  json hover = s.client.request("textDocument/hover", textDocumentPosition(uri, site.line, nameStart + 3));
  REQUIRE(hover.is_object());
  CHECK(toLoc({{"uri", uri}, {"range", hover["range"]}}) ==
        Loc{uri, site.line, nameStart, site.line, nameEnd});
  CHECK(hover["contents"]["value"].get<std::string>().find("y = x * 2  # 数据 😀") != std::string::npos);
  // Lens above the launch.
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  bool launchLens = false;
  for (const json &l : lenses)
    if (l["range"]["start"]["line"] == site.line) {
      launchLens = true;
      CHECK(toLoc({{"uri", uri}, {"range", l["range"]}}) ==
            Loc{uri, site.line, nameStart, site.line, nameEnd});
      CHECK(l["command"]["title"] == "model.py:5  y = x * 2  # 数据 😀");
      CHECK(toLocSet(l["command"]["arguments"][2]) == std::set<Loc>{origin});
    }
  CHECK(launchLens);

  // From the user's side: the lens and hover of line 5 span the trimmed line; references give the launch.
  s.client.didOpen(modelURI, "python", kModel);
  json userLenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", modelURI}}}});
  REQUIRE(userLenses.size() == 1);
  CHECK(toLoc({{"uri", modelURI}, {"range", userLenses[0]["range"]}}) == origin);
  CHECK(userLenses[0]["command"]["title"] == "1 kernel · 1 inference");
  json userHover = s.client.request("textDocument/hover", textDocumentPosition(modelURI, 4, userEnd - 1));
  REQUIRE(userHover.is_object());
  CHECK(toLoc({{"uri", modelURI}, {"range", userHover["range"]}}) == origin);
  json refs = s.client.request("textDocument/references", {{"textDocument", {{"uri", modelURI}}},
                                                           {"position", position(4, userEnd - 1)},
                                                           {"context", {{"includeDeclaration", false}}}});
  CHECK(toLocSet(refs) == std::set<Loc>{Loc{uri, site.line, nameStart, site.line, nameEnd}});
  s.client.shutdown();
}

TEST_CASE("positionEncoding: utf-8 columns on non-ASCII launch and user lines") {
  checkEncoding(true);
}

TEST_CASE("positionEncoding: utf-16 columns on non-ASCII launch and user lines") {
  checkEncoding(false);
}

} // namespace
} // namespace inductor::e2e
