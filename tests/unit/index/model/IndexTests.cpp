// Tests for index/model/Index.h on the real fixture traces: compiles and their labels, launches and their
// origins, queries by user line, by position, by path and by virtual name, graph artifacts, kernel search,
// merging of copies, damaged and missing inputs, cancellation. Every case is built twice, sequentially (jobs
// = 1) and on worker threads (jobs = 2), and both builds must describe the same index.
#include "index/model/Index.h"
#include "index/support/TextLines.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

// The index answers with normalized paths; the configured directory may hold `..`.
const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);
const std::string kTraces = kFixtures + "/traces";
const std::string kTlparse = kFixtures + "/tlparse-inputs";

std::shared_ptr<const Index> build(std::vector<std::string> inputs, unsigned jobs) {
  IndexOptions options;
  options.inputs = std::move(inputs);
  options.jobs = jobs;
  return Index::build(options);
}

std::string describe(const Origin &o) {
  return o.path + ":" + std::to_string(o.line) + (o.exists ? "" : " (missing)");
}

/// Everything an index holds, as text: two builds of the same inputs must print the same.
std::string describe(const Index &index) {
  std::ostringstream out;
  for (const Compile &c : index.compiles()) {
    out << "compile " << c.label() << " out=" << c.outputCode.value << " post=" << c.postGradGraph.value
        << " pre=" << c.preGradGraph.value << " trace=" << c.traceFile << " graphs=";
    for (ArtifactId g : c.graphs)
      out << g.value << ",";
    out << "\n";
  }
  for (uint32_t i = 0; i < index.artifacts().size(); ++i) {
    const Artifact &a = index.artifacts()[i];
    out << "artifact " << i << " " << a.title << " kind=" << int(a.kind) << " compile=" << a.compile.value
        << " virtual=" << a.virtualName << " graph=" << a.graphName << "\n";
    for (const std::string &p : a.paths)
      out << "  path " << p << "\n";
    for (const Launch &l : a.launches) {
      out << "  launch " << l.site.key() << " @" << l.site.line << ":" << l.site.column
          << " src=" << int(l.originSource) << " def=" << l.definition;
      for (const Origin &o : l.origins)
        out << " " << describe(o);
      out << "\n";
    }
    out << "  nodes " << a.graphNodes.size() << " kernels " << a.code.kernels.size() << "\n";
  }
  // Diagnostics are collected from worker threads: compare them as a set.
  std::multiset<std::string> diags;
  for (const IndexDiagnostic &d : index.diagnostics())
    diags.insert(d.file + ":" + std::to_string(d.line) + ": " + d.message);
  for (const std::string &d : diags)
    out << "diag " << d << "\n";
  IndexStats s = index.stats();
  out << "stats " << s.traceFiles << " " << s.traceBytes << " " << s.compiles << " " << s.artifacts << " "
      << s.kernels << " " << s.launches << " " << s.launchesWithOrigin << " " << s.userLines << " "
      << s.corruptedRecords << " " << s.errors << "\n";
  return out.str();
}

/// Changes one byte of the first output code of a log's text (its first `def ` becomes `Def `), keeping the
/// length and the has_payload md5: a damaged copy, or a forged digest. Returns the offset changed; npos when
/// the log has no output code with a `def`.
size_t damageFirstOutputCode(std::string &log) {
  size_t record = log.find("{\"inductor_output_code\"");
  size_t payload = record == std::string::npos ? record : log.find("\n\t", record);
  size_t at = payload == std::string::npos ? payload : log.find("def ", payload);
  if (at != std::string::npos) log[at] = 'D';
  return at;
}

/// Builds `inputs` with jobs = 1 and jobs = 2, checks that both describe the same index, returns the
/// parallel one.
std::shared_ptr<const Index> buildBoth(const std::vector<std::string> &inputs) {
  auto serial = build(inputs, 1);
  auto parallel = build(inputs, 2);
  REQUIRE(serial);
  REQUIRE(parallel);
  CHECK(describe(*serial) == describe(*parallel));
  return parallel;
}

} // namespace

const std::string kMlp = kTraces + "/mlp_train";
const std::string kModel = kMlp + "/model.py";
const std::string kForward =
    kMlp + "/inductor_cache/ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.py";
const std::string kForwardDebugDir =
    kMlp + "/torch_compile_debug/run_2026_11_22_10_29_20_480419-pid_431/torchinductor/model__0_forward_1.0";
const std::string kForwardCacheDebug =
    kMlp + "/inductor_cache/ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.debug/output_code.py";
const std::string kGeluKernelFile =
    kMlp + "/inductor_cache/5x/c5xv5wqme3dzbmmdhlaaj3ixunonsuv7roftbpc5jx7ybmqfhejl.py";

namespace {

/// `file.py:LINE` of each origin, in order, with the file's base name.
std::vector<std::string> shortOrigins(const std::vector<Origin> &origins) {
  std::vector<std::string> out;
  out.reserve(origins.size());
  for (const Origin &o : origins)
    out.push_back(fs::path(o.path).filename().string() + ":" + std::to_string(o.line));
  return out;
}

const Compile *findCompile(const Index &index, std::string_view label) {
  for (const Compile &c : index.compiles())
    if (c.label() == label) return &c;
  return nullptr;
}

std::vector<std::string> labels(const Index &index) {
  std::vector<std::string> out;
  for (const Compile &c : index.compiles())
    out.push_back(c.label());
  return out;
}

/// The launches of `refs` as `label kernel:handle`, sorted.
std::vector<std::string> describe(const Index &index, const std::vector<LaunchRef> &refs) {
  std::vector<std::string> out;
  for (LaunchRef r : refs) {
    const Compile *c = index.compileOf(r.artifact);
    out.push_back((c ? c->label() : "?") + " " + index.launch(r).site.key());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The (line, column) of the first occurrence of `needle` in `text`; 0-based, byte column.
std::pair<uint32_t, uint32_t> positionOf(std::string_view text, std::string_view needle) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string_view::npos);
  uint32_t line = static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  size_t lineStart = text.rfind('\n', at);
  uint32_t column = static_cast<uint32_t>(lineStart == std::string_view::npos ? at : at - lineStart - 1);
  return {line, column};
}

uint32_t graphNode(const Artifact &graph, std::string_view name) {
  for (uint32_t i = 0; i < graph.graphNodes.size(); ++i)
    if (graph.graphNodes[i].name == name) return i;
  FAIL("no node " << name << " in " << graph.title);
  return 0;
}

} // namespace

TEST_CASE("mlp_train: two compiles, every launch with its user line") {
  auto index = buildBoth({kMlp});
  CHECK(index->diagnostics().empty());
  CHECK(index->traceFiles() ==
        std::vector<std::string>{kMlp + "/trace/dedicated_log_torch_trace_9bvvd8es.log"});
  REQUIRE(labels(*index) == std::vector<std::string>{"[0/0] forward", "[0/0] backward"});
  const Compile &forward = index->compiles()[0];
  const Compile &backward = index->compiles()[1];
  CHECK(forward.graphKind == GraphKind::Forward);
  CHECK(backward.graphKind == GraphKind::Backward);
  CHECK(forward.aotId == "0_forward");
  CHECK_FALSE(forward.aoti);
  CHECK_FALSE(forward.rank);
  CHECK(forward.traceFile == index->traceFiles()[0]);
  const Artifact &fw = index->artifact(forward.outputCode);
  const Artifact &bw = index->artifact(backward.outputCode);
  CHECK(fw.kind == ArtifactKind::OutputCode);
  CHECK(fw.title == "[0/0] forward output code");
  CHECK(fw.launches.size() == 11);
  CHECK(bw.launches.size() == 18);
  for (const Artifact *a : {&fw, &bw})
    for (const Launch &l : a->launches) {
      CAPTURE(l.site.key());
      CHECK(!l.origins.empty());
      CHECK(l.originSource == OriginSource::StackTrace);
      CHECK(l.site.debugHandle.has_value());
    }
  IndexStats s = index->stats();
  CHECK(s.traceFiles == 1);
  CHECK(s.compiles == 2);
  CHECK(s.launches == 29);
  CHECK(s.launchesWithOrigin == 29);
  CHECK(s.kernels == 11);
  CHECK(s.userLines == 6);
  CHECK(s.corruptedRecords == 0);
  CHECK(s.errors == 0);

  // A user line, across forward and backward; the path may be spelled any way.
  auto gelu = index->launchesForLine(kModel, 16);
  CHECK(gelu.size() == 10);
  CHECK(std::count_if(gelu.begin(), gelu.end(),
                      [&](LaunchRef r) { return r.artifact == forward.outputCode; }) == 4);
  CHECK(std::count_if(gelu.begin(), gelu.end(),
                      [&](LaunchRef r) { return r.artifact == backward.outputCode; }) == 6);
  CHECK(describe(*index, index->launchesForLine(kMlp + "//./model.py", 16)) == describe(*index, gelu));
  CHECK(index->launchesForLine(kModel, 1).empty());
  CHECK(index->launchesForLine(kModel, 0).empty());
  CHECK(
      index->launchesForLine("/tmp/work/mlp_train/model.py", 16).empty()); // The recorded path is not local.
  CHECK(index->launchesForLine(kMlp + "/other.py", 16).empty());

  std::vector<std::pair<uint32_t, size_t>> lines;
  for (const UserLine &u : index->userLines(kModel))
    lines.emplace_back(u.line, u.launches.size());
  CHECK(lines ==
        std::vector<std::pair<uint32_t, size_t>>{{15, 4}, {16, 10}, {17, 9}, {18, 4}, {30, 4}, {31, 2}});
  CHECK(index->userLines(kMlp + "/nothing.py").empty());
}

TEST_CASE("titles: several output codes of one compile are numbered; every artifact's title is its own") {
  // cache_hit_miss.log: [1/0] logs its inference code three times (a miss, then hits); the graphs that
  // go with each are numbered alike.
  IndexOptions options;
  options.inputs = {kTlparse + "/cache_hit_miss.log"};
  auto index = Index::build(options);
  std::vector<std::string> titles;
  for (const Compile &c : index->compiles())
    if (c.id.traceStr() == "1/0") titles.push_back(index->artifact(c.outputCode).title);
  CHECK(titles == std::vector<std::string>{"[1/0] inference output code (1 of 3)",
                                           "[1/0] inference output code (2 of 3)",
                                           "[1/0] inference output code (3 of 3)"});
  // Over every fixture log: no two artifacts of one log share a title, and a lone one has no number.
  std::vector<std::string> logs = {kTlparse + "/cache_hit_miss.log"};
  for (const auto &e : std::filesystem::directory_iterator(kTraces))
    logs.push_back(e.path().string() + "/trace");
  for (const std::string &log : logs) {
    CAPTURE(log);
    IndexOptions o;
    o.inputs = {log};
    auto built = Index::build(o);
    std::map<std::pair<uint32_t, std::string>, int> seen;
    for (uint32_t a = 0; a < built->artifacts().size(); ++a) {
      const Artifact &art = built->artifact(ArtifactId{a});
      if (art.traceFile == UINT32_MAX) continue; // Files only: their titles may repeat across copies.
      int count = ++seen[std::make_pair(art.traceFile, art.title)];
      CHECK_MESSAGE(count == 1, art.title);
      if (art.title.find(" of ") != std::string::npos) CHECK(art.title.find("(1 of 1)") == std::string::npos);
    }
  }
}

TEST_CASE("mlp_train: symbolAt and originsOf on a launch, a kernel definition and a kernel file") {
  auto index = buildBoth({kMlp});
  REQUIRE(index->compiles().size() == 2);
  ArtifactId forward = index->compiles()[0].outputCode;
  std::string text = index->text(forward);
  REQUIRE(!text.empty());
  CHECK(text.rfind("# AOT ID: ['0_forward']", 0) == 0);
  // The first launch of triton_poi_fused_gelu_1, found in the text rather than from the index.
  auto [line, column] = positionOf(text, "triton_poi_fused_gelu_1.run(");
  CHECK(line == 423);
  for (uint32_t c : {column, column + 7, column + 23}) {
    CAPTURE(c);
    SymbolAt s = index->symbolAt(forward, line, c);
    REQUIRE(s.kind == SymbolAt::Kind::Launch);
    CHECK(s.artifact == forward);
    CHECK(s.line == line);
    CHECK(s.column == column);
    CHECK(s.endColumn == column + 23);
    const Launch &l = index->launch({forward, s.index});
    CHECK(l.site.kernel == "triton_poi_fused_gelu_1");
    CHECK(l.site.debugHandle == 3);
    CHECK(l.kind == KernelKind::Pointwise);
    std::vector<Origin> origins = index->originsOf(s);
    REQUIRE(origins.size() == 1);
    CHECK(origins[0].path == kModel);
    CHECK(origins[0].recordedPath == "/tmp/work/mlp_train/model.py");
    CHECK(origins[0].line == 16);
    CHECK(trim(origins[0].code) == "h = F.gelu(self.fc1(h))");
    CHECK(origins[0].function == "forward");
    CHECK(origins[0].exists);
    // The full user stack ends at the origin.
    REQUIRE(!l.stacks.empty());
    CHECK(l.stacks[0].back() == origins[0]);
  }
  // Around the token: nothing (the indentation, and past `.run(`).
  CHECK(index->symbolAt(forward, line, column - 1).kind == SymbolAt::Kind::None);
  CHECK(index->symbolAt(forward, line, column + 30).kind == SymbolAt::Kind::None);
  CHECK(index->symbolAt(forward, 100000, 0).kind == SymbolAt::Kind::None);
  CHECK(index->symbolAt(ArtifactId{}, line, column).kind == SymbolAt::Kind::None);
  CHECK(index->originsOf(SymbolAt{}).empty());

  // A definition's origins are the union of its launches' origins, in launch order: checked for every
  // kernel defined in both output codes.
  for (const Compile &c : index->compiles()) {
    const Artifact &a = index->artifact(c.outputCode);
    for (uint32_t d = 0; d < a.code.kernels.size(); ++d) {
      const KernelDefinition &def = a.code.kernels[d];
      CAPTURE(def.name);
      SymbolAt s = index->symbolAt(c.outputCode, def.nameLine, def.nameColumn);
      REQUIRE(s.kind == SymbolAt::Kind::KernelDefinition);
      CHECK(s.index == d);
      std::vector<LaunchRef> launches = index->launchesOfDefinition(c.outputCode, d);
      CHECK(!launches.empty());
      std::vector<Origin> expected;
      for (LaunchRef r : launches) {
        CHECK(index->launch(r).site.kernel == def.name);
        for (const Origin &o : index->launch(r).origins)
          if (std::find(expected.begin(), expected.end(), o) == expected.end()) expected.push_back(o);
      }
      CHECK(index->originsOf(s) == expected);
    }
  }
  auto [defLine, defColumn] = positionOf(text, "triton_poi_fused_gelu_1 = async_compile");
  SymbolAt def = index->symbolAt(forward, defLine, defColumn + 4);
  REQUIRE(def.kind == SymbolAt::Kind::KernelDefinition);
  CHECK(describe(*index, index->launchesOfDefinition(forward, def.index)) ==
        std::vector<std::string>{"[0/0] forward triton_poi_fused_gelu_1:3",
                                 "[0/0] forward triton_poi_fused_gelu_1:7"});
  // `def triton_poi_fused_gelu_1(` inside the kernel's source string is the same definition.
  auto [innerLine, innerColumn] = positionOf(text, "def triton_poi_fused_gelu_1(");
  SymbolAt inner = index->symbolAt(forward, innerLine, innerColumn + 4);
  CHECK(inner.kind == SymbolAt::Kind::KernelDefinition);
  CHECK(inner.index == def.index);

  // The kernel's own file in the cache: its definition is used by the forward output code's launches.
  auto kernelFile = index->findByPath(kGeluKernelFile);
  REQUIRE(kernelFile);
  const Artifact &k = index->artifact(*kernelFile);
  CHECK(k.kind == ArtifactKind::KernelSource);
  REQUIRE(k.kernelSource);
  CHECK(k.kernelSource->name == "triton_poi_fused_gelu_1");
  CHECK(index->compileOf(*kernelFile) == nullptr);
  SymbolAt inFile = index->symbolAt(*kernelFile, k.kernelSource->line, k.kernelSource->column);
  REQUIRE(inFile.kind == SymbolAt::Kind::KernelDefinition);
  CHECK(describe(*index, index->launchesOfDefinition(*kernelFile, 0)) ==
        std::vector<std::string>{"[0/0] forward triton_poi_fused_gelu_1:3",
                                 "[0/0] forward triton_poi_fused_gelu_1:7"});
  CHECK(shortOrigins(index->originsOf(inFile)) == std::vector<std::string>{"model.py:16"});

  // kernelAround: a line of the kernel's body (found in the text) is the kernel's; the line that opens its
  // source string and the launch line are not. In the kernel file, every line is its kernel's.
  std::string_view afterDef = std::string_view(text).substr(text.find("def triton_poi_fused_gelu_1("));
  uint32_t bodyLine = innerLine + positionOf(afterDef, "    xnumel = ").first;
  CHECK(bodyLine > innerLine);
  SymbolAt around = index->kernelAround(forward, bodyLine);
  REQUIRE(around.kind == SymbolAt::Kind::KernelDefinition);
  CHECK(around.index == def.index);
  CHECK(around.line == innerLine); // Its token: the name in `def NAME(`.
  CHECK(around.column == innerColumn + 4);
  CHECK(index->kernelAround(forward, defLine).kind == SymbolAt::Kind::None);
  CHECK(index->kernelAround(forward, line).kind == SymbolAt::Kind::None);
  CHECK(index->kernelAround(ArtifactId{}, bodyLine).kind == SymbolAt::Kind::None);
  SymbolAt aroundInFile = index->kernelAround(*kernelFile, 0);
  REQUIRE(aroundInFile.kind == SymbolAt::Kind::KernelDefinition);
  CHECK(shortOrigins(index->originsOf(aroundInFile)) == std::vector<std::string>{"model.py:16"});
}

TEST_CASE("mlp_train: copies of an artifact are one artifact, found by any spelling of any path") {
  auto index = buildBoth({kMlp});
  REQUIRE(index->compiles().size() == 2);
  ArtifactId forward = index->compiles()[0].outputCode;
  const Artifact &a = index->artifact(forward);
  // The copies merged by content, the one to show first: TORCH_COMPILE_DEBUG's, named after its graph,
  // then the cache `.debug/` directory's, then the hash-named cache file the log names.
  REQUIRE(a.paths.size() == 3);
  CHECK(a.paths ==
        std::vector<std::string>{kForwardDebugDir + "/output_code.py", kForwardCacheDebug, kForward});
  std::set<std::string> paths(a.paths.begin(), a.paths.end());
  CHECK(paths == std::set<std::string>{kForward, kForwardCacheDebug, kForwardDebugDir + "/output_code.py"});
  for (const std::string &p :
       {kForward, kForwardCacheDebug, kForwardDebugDir + "/output_code.py",
        kMlp + "//inductor_cache/./ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.py",
        kMlp + "/trace/../inductor_cache/ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.py",
        kForwardDebugDir + "/./output_code.py"}) {
    CAPTURE(p);
    auto found = index->findByPath(p);
    REQUIRE(found);
    CHECK(*found == forward);
  }
  CHECK(index->findByPath(kModel) == std::nullopt);
  CHECK(index->findByPath(kMlp + "/no/such/file.py") == std::nullopt);
  CHECK(index->findByPath("") == std::nullopt);
  // Through a link to the debug directory (its canonical path is an indexed one), twice (the canonical
  // paths are made once).
  TempDir links;
  fs::create_directory_symlink(kForwardDebugDir, links.path + "/debug");
  for (int i = 0; i < 2; ++i) {
    auto linked = index->findByPath(links.path + "/debug/output_code.py");
    REQUIRE(linked);
    CHECK(*linked == forward);
  }
  CHECK(index->findByPath(links.path + "/debug/no_such_file.py") == std::nullopt);
  // The debug directory's copy is the same text as the log's payload.
  CHECK(index->text(forward) == readFile(kForwardDebugDir + "/output_code.py"));

  // Log-only artifacts (the log's graph payloads) have unique virtual names that find them.
  std::set<std::string> names;
  size_t virtualCount = 0;
  for (uint32_t i = 0; i < index->artifacts().size(); ++i) {
    const Artifact &x = index->artifacts()[i];
    if (!x.paths.empty()) continue;
    ++virtualCount;
    CAPTURE(x.title);
    CHECK(!x.virtualName.empty());
    CHECK(names.insert(x.virtualName).second);
    auto found = index->findByVirtualName(x.virtualName);
    REQUIRE(found);
    CHECK(found->value == i);
    CHECK(!index->text({i}).empty());
  }
  CHECK(virtualCount == 3); // Forward and backward post-grad graphs, the shared pre-grad graph.
  CHECK(index->findByVirtualName("no/such/name.py") == std::nullopt);
  // Output code has a virtual name too (it is what a log-only copy would be called), but it is found by path.
  CHECK(index->artifact(forward).virtualName ==
        "dedicated_log_torch_trace_9bvvd8es.log/2850/0-0-forward-output_code.py");
}

TEST_CASE("mlp_train: graph artifacts and the launches that compute their nodes") {
  auto index = buildBoth({kMlp});
  REQUIRE(index->compiles().size() == 2);
  const Compile &forward = index->compiles()[0];
  const Compile &backward = index->compiles()[1];
  // Log payloads: the post-grad graph of each compile and one pre-grad graph shared by both.
  REQUIRE(forward.postGradGraph.valid());
  REQUIRE(forward.preGradGraph.valid());
  const Artifact &post = index->artifact(forward.postGradGraph);
  const Artifact &pre = index->artifact(forward.preGradGraph);
  CHECK(post.kind == ArtifactKind::Graph);
  CHECK(post.graphName == "inductor_post_grad_graph");
  CHECK(post.graphRole == Artifact::GraphRole::PostGrad);
  CHECK(pre.graphName == "after_pre_grad_graph");
  CHECK(pre.graphRole == Artifact::GraphRole::PreGrad);
  CHECK(backward.preGradGraph == forward.preGradGraph);
  CHECK(backward.postGradGraph != forward.postGradGraph);
  // Debug-directory dumps: fx_graph_transformed.py, fx_graph_readable.py and fx_graph_runnable.py, post-grad
  // names; the copies in the cache's `.debug/` directory and in TORCH_COMPILE_DEBUG are one artifact each.
  std::multiset<std::string> names;
  for (ArtifactId g : forward.graphs) {
    names.insert(index->artifact(g).graphName);
    CHECK(index->artifact(g).compile.value == 0);
    if (index->artifact(g).graphName.rfind("fx_graph_", 0) == 0) {
      CHECK(index->artifact(g).paths.size() == 2);
      CHECK(index->artifact(g).paths[0].find("/torch_compile_debug/") != std::string::npos);
    }
  }
  CHECK(names == std::multiset<std::string>{"inductor_post_grad_graph", "after_pre_grad_graph",
                                            "fx_graph_transformed.py", "fx_graph_readable.py",
                                            "fx_graph_runnable.py"});
  auto transformed = index->findByPath(kForwardDebugDir + "/fx_graph_transformed.py");
  auto readable = index->findByPath(kForwardDebugDir + "/fx_graph_readable.py");
  REQUIRE(transformed);
  REQUIRE(readable);
  CHECK(index->artifact(*transformed).graphRole == Artifact::GraphRole::PostGrad);
  CHECK(std::count(forward.graphs.begin(), forward.graphs.end(), *transformed) == 1);

  // `mul_4` is computed by the first GELU launch (handle 3), whichever dump it is looked up in.
  const std::vector<std::string> gelu3 = {"[0/0] forward triton_poi_fused_gelu_1:3"};
  CHECK(describe(*index, index->launchesForGraphNode(forward.postGradGraph, graphNode(post, "mul_4"))) ==
        gelu3);
  const Artifact &t = index->artifact(*transformed);
  CHECK(describe(*index, index->launchesForGraphNode(*transformed, graphNode(t, "mul_4"))) == gelu3);
  // A node's origin, through symbolAt on its name.
  const Artifact::GraphNode &mul4 = post.graphNodes[graphNode(post, "mul_4")];
  SymbolAt node = index->symbolAt(forward.postGradGraph, mul4.line, mul4.column + 1);
  REQUIRE(node.kind == SymbolAt::Kind::GraphNode);
  CHECK(shortOrigins(index->originsOf(node)) == std::vector<std::string>{"model.py:16"});
  // Placeholders have no origin.
  CHECK_FALSE(post.graphNodes[graphNode(post, "primals_1")].origin);

  // The shared pre-grad graph: `h_1` (the first GELU) is computed in the forward and its gradient in the
  // backward.
  CHECK(describe(*index, index->launchesForGraphNode(forward.preGradGraph, graphNode(pre, "h_1"))) ==
        std::vector<std::string>{"[0/0] backward triton_per_fused_gelu_gelu_backward_sum_3:13",
                                 "[0/0] forward triton_poi_fused_gelu_1:3"});
  CHECK(shortOrigins(index->originsOf({SymbolAt::Kind::GraphNode, forward.preGradGraph,
                                       graphNode(pre, "h_1")})) == std::vector<std::string>{"model.py:16"});
  CHECK(index->launchesForGraphNode(forward.postGradGraph, 100000).empty());
  CHECK(index->launchesForGraphNode(ArtifactId{}, 0).empty());
}

TEST_CASE("mlp_train: a kernel launched twice with debug handles gets each launch's own FX nodes") {
  auto index = buildBoth({kMlp});
  REQUIRE(index->compiles().size() == 2);
  const Compile &backward = index->compiles()[1];
  const Artifact &post = index->artifact(backward.postGradGraph);
  // The backward's node-mappings record is empty (`{"version": 2.0}`), so nodes come from comments. Launch
  // :8's comment names mul_12 ... sum_5, launch :13's names mul_26 ... sum_11; the kernel definition's
  // `Source node to ATen node mapping` comment describes only the first.
  std::vector<std::string> mul12 =
      describe(*index, index->launchesForGraphNode(backward.postGradGraph, graphNode(post, "mul_12")));
  CHECK(mul12 == std::vector<std::string>{"[0/0] backward triton_per_fused_gelu_gelu_backward_sum_3:8"});
  std::vector<std::string> mul26 =
      describe(*index, index->launchesForGraphNode(backward.postGradGraph, graphNode(post, "mul_26")));
  CHECK(mul26 == std::vector<std::string>{"[0/0] backward triton_per_fused_gelu_gelu_backward_sum_3:13"});
  // Origins are not affected: they come from each launch's own stack trace.
  const Artifact &code = index->artifact(backward.outputCode);
  for (const Launch &l : code.launches)
    if (l.site.kernel == "triton_per_fused_gelu_gelu_backward_sum_3")
      CHECK(shortOrigins(l.origins) == std::vector<std::string>{"model.py:16"});
}

TEST_CASE("mlp_train: searchKernels") {
  auto index = buildBoth({kMlp});
  auto gelu = index->searchKernels("gelu");
  REQUIRE(!gelu.empty());
  std::multiset<std::string> names;
  for (const KernelSymbol &k : gelu) {
    names.insert(k.name);
    CHECK(index->compileOf(k.artifact) != nullptr);
  }
  CHECK(names.count("triton_poi_fused_gelu_1") == 1);
  CHECK(names.count("triton_per_fused_gelu_gelu_backward_sum_3") == 1);
  CHECK(names.count("extern_kernels.addmm") == 0); // No subsequence g-e-l-u.
  // Every answer matches as a case-insensitive subsequence, and the query's case does not matter.
  for (const std::string &n : names) {
    size_t at = 0;
    for (char q : std::string("gelu"))
      at = n.find(q, at) + 1;
    CHECK(at != 0);
  }
  CHECK(index->searchKernels("GELU").size() == gelu.size());
  // Where: the definition's name in the output code.
  for (const KernelSymbol &k : gelu)
    if (k.name == "triton_poi_fused_gelu_1") {
      CHECK(k.line == 132);
      CHECK(k.column == 0);
      CHECK(k.kind == KernelKind::Pointwise);
    }
  // An empty query lists every kernel: 11 definitions and the 15 extern launches.
  CHECK(index->searchKernels("", 1000).size() == 26);
  CHECK(index->searchKernels("", 3).size() == 3);
  CHECK(index->searchKernels("zzzq").empty());
}

TEST_CASE("graph_break_dynamic: six compiles with attempts and recompiles") {
  auto index = buildBoth({kTraces + "/graph_break_dynamic"});
  CHECK(index->diagnostics().empty());
  CHECK(labels(*index) == std::vector<std::string>{"[0/0_1] inference", "[1/0] inference", "[2/0] inference",
                                                   "[0/1_1] inference", "[1/1] inference",
                                                   "[2/1] inference"});
  const Compile *first = findCompile(*index, "[0/0_1] inference");
  REQUIRE(first);
  CHECK(first->id.frameId == 0);
  CHECK(first->id.frameCompileId == 0);
  CHECK(first->id.attempt == 1);
  CHECK(first->id.str() == "0/0");
  CHECK(index->stats().launches == 6);
  CHECK(index->stats().launchesWithOrigin == 6);
  const std::string model = kTraces + "/graph_break_dynamic/model.py";
  // `y = torch.sin(x) * w` before the graph break, compiled twice (the recompile for dynamic shapes).
  CHECK(describe(*index, index->launchesForLine(model, 7)) ==
        std::vector<std::string>{"[0/0_1] inference triton_poi_fused_mul_sin_0:1",
                                 "[0/1_1] inference triton_poi_fused_mul_sin_0:1"});
  CHECK(describe(*index, index->launchesForLine(model, 9)) ==
        std::vector<std::string>{"[1/0] inference triton_per_fused_add_cos_relu_sum_0:1",
                                 "[1/1] inference triton_per_fused_add_cos_relu_sum_0:1"});
  // One fused kernel from three lines of reduce_rows.
  for (uint32_t line : {14u, 15u, 16u}) {
    CAPTURE(line);
    CHECK(index->launchesForLine(model, line).size() == 2);
  }
  CHECK(index->stats().userLines == 5);
  // Each compile has its own output code and its own graphs.
  std::set<uint32_t> outputs;
  for (const Compile &c : index->compiles()) {
    outputs.insert(c.outputCode.value);
    CHECK(c.postGradGraph.valid());
    CHECK(c.preGradGraph.valid());
    CHECK(index->artifact(c.outputCode).paths.size() == 3);
  }
  CHECK(outputs.size() == 6);
}

TEST_CASE("multirank: one compile per rank") {
  auto index = buildBoth({kTraces + "/multirank"});
  CHECK(index->traceFiles().size() == 2);
  CHECK(labels(*index) == std::vector<std::string>{"[0/0] inference rank 0", "[0/0] inference rank 1"});
  CHECK(index->compiles()[0].rank == 0);
  CHECK(index->compiles()[1].rank == 1);
  CHECK(describe(*index, index->launchesForLine(kTraces + "/multirank/model.py", 9)) ==
        std::vector<std::string>{"[0/0] inference rank 0 cpp_fused_add_mul_tanh_0:2",
                                 "[0/0] inference rank 0 extern_kernels.mm:1",
                                 "[0/0] inference rank 1 cpp_fused_add_mul_tanh_0:2",
                                 "[0/0] inference rank 1 extern_kernels.mm:1"});
}

TEST_CASE("aoti_conv: one AOTInductor compile, its copies merged although their trailing comments differ") {
  auto index = buildBoth({kTraces + "/aoti_conv"});
  REQUIRE(labels(*index) == std::vector<std::string>{"AOTInductor"});
  const Compile &c = index->compiles()[0];
  CHECK(c.aoti);
  CHECK(c.id.empty());
  const Artifact &a = index->artifact(c.outputCode);
  CHECK(a.kind == ArtifactKind::WrapperCode);
  CHECK(a.language == Language::Cpp);
  const std::string wrapper =
      kTraces + "/aoti_conv/inductor_cache/c2bzv6oivjinsfxmfxlrqoa2ekultm3abbpz45cm2zonrxxrmhpz/"
                "cezivekmmdb43rjvanjcd26zvga4mf5md324glnrruqq6p3yumjd.wrapper.cpp";
  const std::string debug = kTraces +
                            "/aoti_conv/torch_compile_debug/run_2026_11_22_10_33_22_026028-pid_1586/"
                            "torchinductor/model___0.0/output_code.cpp";
  // The premise: the two files are not byte-identical.
  REQUIRE(readFile(wrapper) != readFile(debug));
  CHECK(std::set<std::string>(a.paths.begin(), a.paths.end()) == std::set<std::string>{wrapper, debug});
  CHECK(index->findByPath(wrapper) == c.outputCode);
  CHECK(index->findByPath(debug) == c.outputCode);
  CHECK(a.launches.size() == 10);
  std::vector<std::pair<int, std::vector<std::string>>> convolutions;
  for (const Launch &l : a.launches) {
    CHECK(!l.origins.empty());
    if (l.site.kernel == "aoti_torch_cuda_convolution")
      convolutions.emplace_back(l.site.debugHandle.value_or(-1), shortOrigins(l.origins));
  }
  CHECK(convolutions == std::vector<std::pair<int, std::vector<std::string>>>{
                            {3, {"model.py:17"}}, {6, {"model.py:18", "model.py:17"}}});
  for (const Launch &l : a.launches)
    if (l.site.kernel == "aoti_torch_cuda_convolution") {
      CHECK(l.kind == KernelKind::Extern);
      CHECK(l.definition == -1);
    }
  CHECK(index->launchesForLine(kTraces + "/aoti_conv/model.py", 17).size() == 8);
}

namespace {

struct TlparseCase {
  const char *file;
  size_t compiles, launches, withOrigin;
};

/// Builds one tlparse input; checks its counts. Their user files are absent here: origins are kept as
/// recorded and flagged missing.
void check(const TlparseCase &e) {
  CAPTURE(e.file);
  auto index = buildBoth({kTlparse + "/" + e.file});
  IndexStats s = index->stats();
  CHECK(s.traceFiles == 1);
  CHECK(s.compiles == e.compiles);
  CHECK(s.launches == e.launches);
  CHECK(s.launchesWithOrigin == e.withOrigin);
  for (const Artifact &a : index->artifacts())
    for (const Launch &l : a.launches)
      for (const Origin &o : l.origins) {
        CHECK_FALSE(o.exists);
        CHECK(o.path == o.recordedPath);
      }
}

} // namespace

TEST_CASE("tlparse inputs: older PyTorch versions, with and without debug handles, JIT and AOTI") {
  // Today's answers; launches without an origin are extern kernels whose maps name no user frame.
  check({"simple.log", 1, 2, 2});
  check({"cache_hit_miss.log", 3, 3, 0});
  check({"comp_failure.log", 0, 0, 0});
  check({"export.log", 0, 0, 0});
  check({"inductor_provenance_aot_cuda_log.txt", 1, 5, 3});
  check({"inductor_provenance_aot_debug_handle_log.txt", 1, 5, 5});
  check({"inductor_provenance_aot_log.txt", 1, 4, 3});
  check({"inductor_provenance_aot_log_old.txt", 1, 4, 3});
  check({"inductor_provenance_extended_log.txt", 1, 5, 3});
  check({"inductor_provenance_jit_cuda_log.txt", 1, 5, 4});
  check({"inductor_provenance_jit_debug_handle_log.txt", 1, 5, 5});
  check({"inductor_provenance_jit_log.txt", 1, 4, 4});
}

TEST_CASE("v1 provenance without debug handles: a kernel launched twice does not get both launches' lines") {
  auto index = buildBoth({kTlparse + "/inductor_provenance_jit_log.txt"});
  REQUIRE(index->compiles().size() == 1);
  const Artifact &a = index->artifact(index->compiles()[0].outputCode);
  CHECK(a.paths.empty()); // Log-only: served under its virtual name.
  CHECK(index->findByVirtualName(a.virtualName) == index->compiles()[0].outputCode);
  std::vector<std::vector<std::string>> addmm;
  for (const Launch &l : a.launches) {
    CHECK_FALSE(l.site.debugHandle);
    if (l.site.kernel == "extern_kernels.addmm") {
      addmm.push_back(shortOrigins(l.origins));
      // Each from its own `Topologically Sorted Source Nodes` comment, through the pre-grad graph.
      CHECK(l.originSource == OriginSource::PreGradGraph);
    }
  }
  // [x] -> `x = self.fc1(x)`; [d, y] -> `d = a * 3.14`, `y = torch.addmm(c, d, b)`.
  CHECK(addmm == std::vector<std::vector<std::string>>{{"aot.py:29"}, {"aot.py:32", "aot.py:33"}});
}

TEST_CASE("v2 provenance with debug handles: every launch from its stack trace") {
  auto index = buildBoth({kTlparse + "/inductor_provenance_jit_debug_handle_log.txt"});
  REQUIRE(index->compiles().size() == 1);
  const Artifact &a = index->artifact(index->compiles()[0].outputCode);
  std::vector<std::string> got;
  for (const Launch &l : a.launches) {
    CHECK(l.site.debugHandle.has_value());
    CHECK(l.originSource == OriginSource::StackTrace);
    got.push_back(l.site.key() + " " + shortOrigins(l.origins).front());
  }
  CHECK(got == std::vector<std::string>{
                   "extern_kernels.mm:4 test_provenance_tracing.py:79",
                   "triton_poi_fused_addmm_relu_sigmoid_threshold_backward_0:1 test_provenance_tracing.py:81",
                   "triton_poi_fused_mul_1:2 test_provenance_tracing.py:82",
                   "extern_kernels.mm:5 test_provenance_tracing.py:83",
                   "triton_poi_fused_addmm_gelu_2:3 test_provenance_tracing.py:84"});
}

TEST_CASE("ranks with the same payloads share one analysis; different bytes under the same digest do not") {
  // The ranks of a data-parallel job write the same output code, graphs and provenance: each compile keeps
  // its own id, rank, log and record, but the analysis is made once.
  TempDir dir;
  std::string text = readFile(kTlparse + "/simple.log");
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_0_aaaa.log", std::ios::binary) << text;
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_1_bbbb.log", std::ios::binary) << text;
  auto index = buildBoth({dir.path});
  REQUIRE(index->compiles().size() == 2);
  CHECK(index->stats().compilesAnalysed == 1);
  CHECK(index->stats().corruptedRecords == 0);
  std::set<std::optional<int>> ranks;
  std::set<std::string> logs;
  for (const Compile &c : index->compiles()) {
    ranks.insert(c.rank);
    logs.insert(c.traceFile);
    const Artifact &a = index->artifact(c.outputCode);
    CHECK(index->traceFiles()[a.traceFile] == c.traceFile);
    CHECK(!a.launches.empty());
    CHECK(index->text(c.outputCode) == index->text(index->compiles()[0].outputCode));
  }
  CHECK(ranks == std::set<std::optional<int>>{0, 1});
  CHECK(logs.size() == 2);
  // What the analysis made is one copy in memory: the launches, the graph nodes and the guards.
  const Compile &c0 = index->compiles()[0], &c1 = index->compiles()[1];
  CHECK(index->artifact(c0.outputCode).launches.sharedWith(index->artifact(c1.outputCode).launches));
  REQUIRE(c0.postGradGraph.valid());
  REQUIRE(c1.postGradGraph.valid());
  CHECK(c0.postGradGraph != c1.postGradGraph);
  CHECK(
      index->artifact(c0.postGradGraph).graphNodes.sharedWith(index->artifact(c1.postGradGraph).graphNodes));
  const CompileHealth &health = index->compileHealth();
  REQUIRE(health.compiles.size() == 2);
  REQUIRE(!health.compiles[0].guards.empty());
  CHECK(health.compiles[0].guards.sharedWith(health.compiles[1].guards));
  // The second rank's output code is a copy of the first's (answers read the first's lines for both); the
  // first, and artifacts without launches, are their own.
  CHECK(index->firstCopy(c1.outputCode) == c0.outputCode);
  CHECK(index->firstCopy(c0.outputCode) == c0.outputCode);
  CHECK(index->firstCopy(c1.postGradGraph) == c1.postGradGraph);
  CHECK(*index->textLinesInLog(c1.outputCode) == *index->textLinesInLog(c0.outputCode));

  // A third rank whose output code differs in one byte but keeps the length and the has_payload md5 (a
  // damaged copy, or a forged digest): analysed on its own, never given another rank's analysis.
  std::string forged = text;
  REQUIRE(damageFirstOutputCode(forged) != std::string::npos);
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_2_cccc.log", std::ios::binary) << forged;
  auto three = buildBoth({dir.path});
  REQUIRE(three->compiles().size() == 3);
  CHECK(three->stats().compilesAnalysed == 2);
  CHECK(three->stats().corruptedRecords == 1); // Its md5 does not verify, though the other ranks' did.
  size_t differing = 0, shared = 0;
  const Artifact &first = three->artifact(three->compiles()[0].outputCode);
  for (const Compile &c : three->compiles()) {
    differing += three->text(c.outputCode) != three->text(three->compiles()[0].outputCode);
    shared += three->artifact(c.outputCode).launches.sharedWith(first.launches);
  }
  CHECK(differing == 1);
  CHECK(shared ==
        2); // The first rank with itself and the intact copy; the damaged one has launches of its own.
  size_t copies = 0;
  for (const Compile &c : three->compiles())
    copies += three->firstCopy(c.outputCode) == three->compiles()[0].outputCode;
  CHECK(copies == 2); // The damaged one is not a copy: its lines are its own.
}

TEST_CASE("payload digests: all checked while the logs read whole are small together, else each log's last") {
  // Three ranks, the third with a damaged output code in the middle of its log (one byte changed, the
  // length and the digest kept): found by its md5 only when every payload is checked.
  TempDir dir;
  std::string text = readFile(kTlparse + "/simple.log");
  std::string forged = text;
  size_t at = damageFirstOutputCode(forged);
  REQUIRE(at != std::string::npos);
  REQUIRE(at + 100000 < forged.size()); // Not in the last record.
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_0_aaaa.log", std::ios::binary) << text;
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_1_bbbb.log", std::ios::binary) << text;
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_2_cccc.log", std::ios::binary) << forged;
  const uint64_t total = 2 * text.size() + forged.size();
  auto corrupted = [&](uint64_t upTo, unsigned jobs) {
    IndexOptions options;
    options.inputs = {dir.path};
    options.jobs = jobs;
    options.verifyPayloadsUpTo = upTo;
    auto index = Index::build(options);
    REQUIRE(index);
    REQUIRE(index->compiles().size() == 3);
    return index->stats().corruptedRecords;
  };
  for (unsigned jobs : {1u, 2u}) {
    CAPTURE(jobs);
    CHECK(corrupted(IndexOptions().verifyPayloadsUpTo, jobs) == 1);
    CHECK(corrupted(total, jobs) == 1);
    CHECK(corrupted(total - 1, jobs) == 0); // Only each log's last record: intact.
  }
  // A log cut short is still found past the limit: its last record does not verify.
  std::ofstream(dir.path + "/dedicated_log_torch_trace_rank_2_cccc.log", std::ios::binary | std::ios::trunc)
      << text.substr(0, text.size() - 200);
  CHECK(corrupted(0, 2) == 1);
}

TEST_CASE("damaged logs: served as far as they go, the damage counted") {
  // simple_corrupted_json.log lost a line of a chromium_event payload, a kind the index never reads: its
  // compile is served exactly like simple.log's, and the damaged record is found by its has_payload md5.
  auto damaged = buildBoth({kTlparse + "/simple_corrupted_json.log"});
  auto intact = build({kTlparse + "/simple.log"}, 1);
  REQUIRE(damaged->compiles().size() == 1);
  REQUIRE(intact->compiles().size() == 1);
  auto launchesOf = [](const Index &index) {
    std::vector<std::string> out;
    for (const Launch &l : index.artifact(index.compiles()[0].outputCode).launches) {
      std::string s = l.site.key();
      for (const std::string &o : shortOrigins(l.origins))
        s += " " + o;
      out.push_back(s);
    }
    return out;
  };
  CHECK(launchesOf(*damaged) == launchesOf(*intact));
  CHECK(damaged->stats().corruptedRecords == 1);
  REQUIRE(damaged->diagnostics().size() == 1);
  CHECK(damaged->diagnostics()[0].message.find("md5") != std::string::npos);
  CHECK(intact->stats().corruptedRecords == 0);

  // A garbage envelope and a record cut short at the end: counted and reported, the compile still served.
  TempDir dir;
  std::string text = readFile(kTlparse + "/simple.log");
  // simple.log ends without a newline.
  std::string broken =
      "V1206 15:18:15.000000 1500233 torch/x.py:1] {\"inductor_output_code\": {\"filename\"\n" + text +
      "\nV1206 15:18:17.000000 1500233 torch/x.py:1] {not json at all}\n";
  std::ofstream(dir.path + "/dedicated_log_torch_trace_broken.log", std::ios::binary) << broken;
  auto index = buildBoth({dir.path});
  CHECK(index->stats().corruptedRecords == 2);
  std::vector<uint32_t> lines;
  for (const IndexDiagnostic &d : index->diagnostics()) {
    CHECK(d.file == dir.path + "/dedicated_log_torch_trace_broken.log");
    lines.push_back(d.line);
  }
  std::sort(lines.begin(), lines.end());
  const uint32_t last = static_cast<uint32_t>(std::count(broken.begin(), broken.end(), '\n')) - 1;
  CHECK(lines == std::vector<uint32_t>{0, last}); // 0-based lines of the two bad envelopes.
  CHECK(index->stats().errors == 2);
  REQUIRE(index->compiles().size() == 1);
  CHECK(launchesOf(*index) == launchesOf(*intact));
}

TEST_CASE("missing and empty inputs, cancellation: a valid index, never a crash") {
  const std::string missing = kFixtures + "/does-not-exist";
  auto none = buildBoth({missing});
  CHECK(none->compiles().empty());
  CHECK(none->artifacts().empty());
  REQUIRE(none->diagnostics().size() == 1);
  CHECK(none->diagnostics()[0].file.find(missing) == 0);
  CHECK(none->diagnostics()[0].message == "input not found");
  CHECK(none->stats().errors == 1);
  CHECK(none->launchesForLine(kModel, 16).empty());
  CHECK(none->findByPath(kForward) == std::nullopt);
  CHECK(none->searchKernels("").empty());
  CHECK(none->userLines(kModel).empty());

  TempDir empty;
  auto nothing = buildBoth({empty.path});
  CHECK(nothing->compiles().empty());
  CHECK(nothing->diagnostics().empty());
  CHECK(nothing->stats().traceFiles == 0);

  // No inputs and no roots.
  auto bare = Index::build(IndexOptions{});
  CHECK(bare->artifacts().empty());

  // A build cancelled before it starts returns what it has: a valid, empty index.
  std::atomic<bool> cancelled{true};
  IndexOptions options;
  options.inputs = {kMlp, kTraces + "/multirank"};
  options.jobs = 2;
  auto index = Index::build(options, {}, &cancelled);
  REQUIRE(index);
  CHECK(index->compiles().size() == index->stats().compiles);
  CHECK(index->stats().launches == 0);
  CHECK(index->launchesForLine(kModel, 16).empty());
  CHECK(index->searchKernels("gelu").empty());
  // Cancelling between files (from the progress callback) also returns a consistent index.
  std::atomic<bool> later{false};
  auto partial = Index::build(
      options,
      [&](size_t, size_t, std::string_view message) {
        if (message != "discovering traces") later = true;
      },
      &later);
  REQUIRE(partial);
  for (const Compile &c : partial->compiles())
    CHECK(c.outputCode.value < partial->artifacts().size());
  CHECK(partial->stats().compiles == partial->compiles().size());
}

TEST_CASE("progress calls are serialised, from the building thread or its workers") {
  for (unsigned jobs : {0u, 1u, 2u}) {
    CAPTURE(jobs);
    IndexOptions options;
    options.inputs = {kTraces + "/multirank"}; // One run of two ranks (two folders would be two runs).
    options.jobs = jobs;
    std::atomic<int> inFlight{0};
    int maxInFlight = 0;
    std::set<std::thread::id> threads;
    std::vector<std::string> messages;
    std::vector<std::pair<size_t, size_t>> done;
    // No lock here on purpose: ProgressCallback promises calls never overlap.
    auto index = Index::build(options, [&](size_t d, size_t total, std::string_view message) {
      int now = ++inFlight;
      maxInFlight = std::max(maxInFlight, now);
      threads.insert(std::this_thread::get_id());
      messages.emplace_back(message);
      done.emplace_back(d, total);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      --inFlight;
    });
    CHECK(index->compiles().size() == 2); // One compile on each rank.
    REQUIRE(!messages.empty());
    CHECK(messages.front() == "discovering traces");
    CHECK(messages.back() == "done");
    CHECK(maxInFlight == 1);
    // A percentage of the whole build that never goes back and ends at 100%.
    for (size_t i = 1; i < done.size(); ++i) {
      CHECK(done[i].first >= done[i - 1].first);
      CHECK(done[i].second == done[0].second);
    }
    CHECK(done.back().first == done.back().second);
    // What is being done, with its own counts: log bytes, then compiles.
    auto has = [&](std::string_view prefix, std::string_view suffix) {
      return std::any_of(messages.begin(), messages.end(), [&](const std::string &m) {
        return m.rfind(prefix, 0) == 0 && m.size() >= suffix.size() &&
               m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0;
      });
    };
    CHECK(has("reading trace logs: ", " MB"));
    CHECK(has("analysing output code: ", " compiles"));
    // 0 and 1 run everything on the calling thread (IndexOptions::jobs).
    if (jobs <= 1) CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST_CASE(
    "every fixture: each kernel file named by a `# kernel path:` comment is linked to its definitions") {
  // Regression (issue: hardening, finding 1): the links were made through a reference into the artifact
  // vector held across an append, so some kernel files lost their wrappers (and ASan reported a
  // use-after-free). Expected links are counted from the wrappers' own `# kernel path:` comments.
  for (const auto &entry : fs::directory_iterator(kTraces)) {
    CAPTURE(entry.path().string());
    auto index = build({entry.path().string()}, 1);
    std::map<std::string, size_t> expected; // kernel file -> definitions naming it
    for (const Artifact &a : index->artifacts())
      if (a.kind == ArtifactKind::OutputCode)
        for (const KernelDefinition &d : a.code.kernels)
          if (!d.kernelPath.empty()) {
            std::string rel = d.kernelPath.substr(d.kernelPath.find("/inductor_cache/") + 1);
            std::string local = entry.path().string() + "/" + rel;
            if (fs::exists(local) && fs::file_size(local) > 0) ++expected[normalizePath(local)];
          }
    size_t linkedFiles = 0;
    for (const auto &entry : expected) {
      // Named copies: clang 14 cannot capture structured bindings (CAPTURE makes a lambda).
      const std::string &path = entry.first;
      const size_t count = entry.second;
      CAPTURE(path);
      auto ids = index->findAllByPath(path);
      REQUIRE(!ids.empty());
      const Artifact &k = index->artifact(ids.front());
      if (k.kind != ArtifactKind::KernelSource) continue; // A wrapper that names itself (never seen so far).
      CHECK(k.kernelDefinitions.size() == count);
      for (const auto &[wrapper, def] : k.kernelDefinitions) {
        const Artifact &w = index->artifact(wrapper);
        REQUIRE(def >= 0);
        REQUIRE(static_cast<size_t>(def) < w.code.kernels.size());
        CHECK(w.code.kernels[def].name == k.kernelSource->name);
      }
      ++linkedFiles;
    }
    if (entry.path().filename() == "mlp_train") CHECK(linkedFiles >= 10);
  }
}

namespace {

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

const std::string kMlpLog = kMlp + "/trace/dedicated_log_torch_trace_9bvvd8es.log";

} // namespace

TEST_CASE("ReadPolicy: files a trace names outside the roots are not read, linked or served") {
  // Finding 4 of issue 11: output code and kernel paths recorded in a trace decided which files were read.
  TempDir root, outside;
  fs::copy(kMlp + "/inductor_cache", outside.path + "/cache", fs::copy_options::recursive);
  // The log names its output code and kernel files in a directory outside the roots.
  std::string log =
      replaceAll(readFile(kMlpLog), "/tmp/work/mlp_train/inductor_cache", outside.path + "/cache");
  std::ofstream(root.path + "/dedicated_log_torch_trace_x.log", std::ios::binary) << log;
  IndexOptions options;
  options.roots = {root.path};
  options.jobs = 1;
  auto index = Index::build(options);
  REQUIRE(index->compiles().size() == 2);
  CHECK(index->readPolicy().allows(root.path + "/dedicated_log_torch_trace_x.log"));
  CHECK_FALSE(index->readPolicy().allows(outside.path + "/cache"));
  for (const Artifact &a : index->artifacts()) {
    for (const std::string &p : a.paths)
      CHECK_MESSAGE(p.find(outside.path) != 0, p);
    CHECK(a.kind != ArtifactKind::KernelSource);
  }
  bool reported = false;
  for (const IndexDiagnostic &d : index->diagnostics())
    reported =
        reported || (d.message.find("were not read") != std::string::npos && d.file.find(outside.path) == 0);
  CHECK(reported);
  // The output code is still served, from the log.
  auto text = index->readText(index->compiles()[0].outputCode);
  REQUIRE(text);
  CHECK(text->find("def call(") != std::string::npos);

  // The same log with the outside directory as a path mapping target: mapped files are read.
  IndexOptions mapped = options;
  mapped.pathMappings = {{outside.path + "/cache", outside.path + "/cache"}};
  auto withMapping = Index::build(mapped);
  size_t kernelFiles = 0;
  for (const Artifact &a : withMapping->artifacts())
    kernelFiles += a.kind == ArtifactKind::KernelSource;
  CHECK(kernelFiles > 0);
}

TEST_CASE("ReadPolicy: a file replaced by a link out of the roots after indexing is not served") {
  TempDir root, outside;
  fs::copy(kMlp + "/torch_compile_debug", root.path + "/torch_compile_debug", fs::copy_options::recursive);
  std::ofstream(outside.path + "/secret.py", std::ios::binary) << "SECRET = 'do not show'\n";
  IndexOptions options;
  options.roots = {root.path};
  auto index = Index::build(options);
  std::optional<ArtifactId> code;
  std::string path;
  for (uint32_t i = 0; i < index->artifacts().size(); ++i)
    if (const Artifact &a = index->artifacts()[i]; a.kind == ArtifactKind::OutputCode && !a.paths.empty()) {
      code = ArtifactId{i};
      path = a.paths.front();
      break;
    }
  REQUIRE(code);
  REQUIRE(index->readText(*code));
  fs::remove(path);
  fs::create_symlink(outside.path + "/secret.py", path);
  auto text = index->readText(*code);
  REQUIRE_FALSE(text);
  CHECK(text.error().message.find("not read") != std::string::npos);
  CHECK(index->text(*code).empty());
}

TEST_CASE("a log truncated or deleted after indexing is not served, and never faults") {
  // Findings 3 and 7 of issue 11.
  TempDir root;
  const std::string log = root.path + "/dedicated_log_torch_trace_x.log";
  fs::copy_file(kMlpLog, log);
  auto index = build({root.path}, 1);
  REQUIRE(index->compiles().size() == 2);
  ArtifactId code = index->compiles()[1].outputCode;
  REQUIRE(index->readText(code));
  SUBCASE("truncated to half") {
    fs::resize_file(log, fs::file_size(log) / 2);
    auto text = index->readText(code);
    REQUIRE_FALSE(text);
    CHECK(text.error().message.find("truncated") != std::string::npos);
    // The analyses stay: a query that needs no log bytes still answers.
    CHECK(!index->artifact(code).launches.empty());
  }
  SUBCASE("deleted") {
    fs::remove(log);
    auto text = index->readText(code);
    REQUIRE_FALSE(text);
    CHECK(text.error().message.find("deleted") != std::string::npos);
  }
}

TEST_CASE("a log cut in the middle of an output code reports the cut record like a corrupted one") {
  // Finding 7 of issue 11: 18 of 29 launches were lost without a word.
  TempDir root;
  std::string text = readFile(kMlpLog);
  size_t lastCode = text.rfind("{\"inductor_output_code\"");
  REQUIRE(lastCode != std::string::npos);
  size_t cut = lastCode + (text.size() - lastCode) / 3;
  std::ofstream(root.path + "/dedicated_log_torch_trace_cut.log", std::ios::binary) << text.substr(0, cut);
  auto index = buildBoth({root.path});
  CHECK(index->stats().corruptedRecords >= 1);
  bool reported = false;
  for (const IndexDiagnostic &d : index->diagnostics())
    reported = reported || d.message.find("cut short") != std::string::npos;
  CHECK(reported);
}

TEST_CASE("searchKernels: an exact match of a 60,000-character kernel name comes first") {
  // Finding 7 of issue 11: the fuzzy score overflowed an int, and the exact match was not returned.
  TempDir root;
  const std::string longName = "triton_poi_fused_" + std::string(60000, 'g');
  std::string text = replaceAll(readFile(kMlpLog), "triton_poi_fused_gelu_1", longName);
  std::ofstream(root.path + "/dedicated_log_torch_trace_long.log", std::ios::binary) << text;
  auto index = build({root.path}, 1);
  auto found = index->searchKernels(longName, 5);
  REQUIRE(!found.empty());
  CHECK(found.front().name == longName);
  CHECK(index->searchKernels("gggg").front().name == longName);
}

TEST_CASE(
    "mlp_train: fx_graph_runnable.py is a graph artifact whose nodes have the readable graph's origins") {
  auto index = buildBoth({kMlp});
  auto runnable = index->findByPath(kForwardDebugDir + "/fx_graph_runnable.py");
  REQUIRE(runnable);
  const Artifact &r = index->artifact(*runnable);
  CHECK(r.kind == ArtifactKind::Graph);
  CHECK(r.graphName == "fx_graph_runnable.py");
  CHECK(r.compile.value == 0);
  // `mul_4 = torch.ops.aten.mul.Tensor(mul_2, add_2)` has no `# File:` comment in the repro script; the same
  // node of fx_graph_readable.py has one.
  const Artifact::GraphNode &mul4 = r.graphNodes[graphNode(r, "mul_4")];
  REQUIRE(mul4.origin);
  CHECK(shortOrigins({*mul4.origin}) == std::vector<std::string>{"model.py:16"});
  CHECK(mul4.target == "torch.ops.aten.mul.Tensor");
  // The configuration lines at the top of the script are not nodes.
  for (const Artifact::GraphNode &n : r.graphNodes)
    CHECK(n.name.find('.') == std::string::npos);
  // Its nodes are computed by the same launches as the readable graph's.
  std::vector<std::vector<LaunchRef>> all = index->launchesForGraphNodes(*runnable);
  REQUIRE(all.size() == r.graphNodes.size());
  CHECK(describe(*index, all[graphNode(r, "mul_4")]) ==
        std::vector<std::string>{"[0/0] forward triton_poi_fused_gelu_1:3"});
  for (uint32_t n = 0; n < r.graphNodes.size(); ++n)
    CHECK(all[n] == index->launchesForGraphNode(*runnable, n));
}

TEST_CASE("mlp_train: an extern kernel's ATen ops are those of its own FX nodes") {
  auto index = buildBoth({kMlp});
  const Artifact &forward = index->artifact(index->compiles()[0].outputCode);
  const Launch *mm = nullptr, *gelu = nullptr;
  for (const Launch &l : forward.launches) {
    if (l.site.key() == "extern_kernels.mm:8") mm = &l;
    if (l.site.key() == "triton_poi_fused_gelu_1:3") gelu = &l;
  }
  REQUIRE(mm);
  REQUIRE(gelu);
  // `# Topologically Sorted Source Nodes: [h_5, ], Original ATen: [aten.t, aten.addmm]` is the comment of
  // the addmm that Inductor split into this mm and a fused Triton epilogue; the mm computes `mm_default`.
  CHECK(mm->postGradNodes.get() == std::vector<std::string>{"mm_default"});
  CHECK(mm->atenOps.get() == std::vector<std::string>{"aten.mm"});
  // Triton kernels keep their comment's list.
  CHECK(gelu->atenOps.get() == std::vector<std::string>{"aten.gelu"});
}

TEST_CASE("launches whose source files are not here are counted, and the first such path kept") {
  // Only the log: /tmp/work/mlp_train/model.py resolves nowhere.
  auto alone = build({kMlp + "/trace"}, 1);
  CHECK(alone->stats().launches == 29);
  CHECK(alone->stats().launchesWithMissingSource == 29);
  CHECK(alone->stats().firstMissingSource == "/tmp/work/mlp_train/model.py");
  // The whole case: model.py is found by suffix.
  auto whole = build({kMlp}, 1);
  CHECK(whole->stats().launchesWithMissingSource == 0);
  CHECK(whole->stats().firstMissingSource.empty());
  // resolvePath answers as the build resolved origins.
  ResolvedPath p = whole->resolvePath("/tmp/work/mlp_train/model.py");
  CHECK(p.exists);
  CHECK(p.path == kModel);
  CHECK(!alone->resolvePath("/tmp/work/mlp_train/model.py").exists);
}

TEST_CASE("SharedVector: copies share one vector until one of them is edited") {
  SharedVector<int> empty;
  CHECK(empty.empty());
  CHECK(empty.begin() == empty.end());
  CHECK_FALSE(empty.sharedWith(SharedVector<int>()));
  SharedVector<int> a(std::vector<int>{1, 2, 3});
  SharedVector<int> b = a;
  CHECK(a.sharedWith(b));
  CHECK(&a.get() == &b.get());
  b.edit().push_back(4); // Copied first: `a` is unchanged.
  CHECK_FALSE(a.sharedWith(b));
  CHECK(a.get() == std::vector<int>{1, 2, 3});
  CHECK(b.get() == std::vector<int>{1, 2, 3, 4});
  std::vector<int> *own = &b.edit(); // Not shared any more: edited in place.
  CHECK(own == &b.get());
}

TEST_CASE("import roots given late (asked beside the log scan) make the same index as given at once") {
  // hf_bert's model code is in transformers, recorded under another machine's site-packages: only the import
  // roots find it here (the fixture's site-packages/ stands in for the user's environment).
  const std::string trace = kTraces + "/hf_bert/trace";
  const std::string site = kTraces + "/hf_bert/site-packages";
  auto existing = [](const Index &index) {
    size_t n = 0;
    for (const Compile &c : index.compiles())
      for (const Launch &l : index.artifact(c.outputCode).launches)
        n += std::any_of(l.origins.begin(), l.origins.end(), [](const Origin &o) { return o.exists; });
    return n;
  };
  IndexOptions none;
  none.inputs = {trace};
  IndexOptions atOnce = none;
  atOnce.pythonPaths = {site};
  IndexOptions late = none;
  std::promise<std::vector<std::string>> roots;
  late.pythonPathsLater = roots.get_future().share();
  // Answered when the build first needs the roots (pythonPathsNeeded comes before any wait for them), from
  // another thread: after the scan has started, by the order of events rather than a sleep.
  std::atomic<bool> asked{false};
  std::thread asker;
  late.pythonPathsNeeded = [&] {
    if (!asked.exchange(true)) asker = std::thread([&] { roots.set_value({site}); });
  };
  auto withLate = Index::build(late);
  CHECK(asked); // This trace's frames are in the package: the build needed the roots.
  if (!asked.exchange(true)) roots.set_value({site});
  if (asker.joinable()) asker.join();
  auto withRoots = Index::build(atOnce);
  auto without = Index::build(none);
  CHECK(existing(*withRoots) > existing(*without)); // The roots matter for this trace.
  CHECK(existing(*withLate) == existing(*withRoots));
  CHECK(describe(*withLate) == describe(*withRoots)); // Every launch, origin, node and diagnostic.
  CHECK(withLate->readPolicy().allows(site + "/transformers/models/bert/modeling_bert.py"));
}

TEST_CASE(
    "launches with the same recorded stack share it, and those with the same origins, node names or ops "
    "share them; nodes with the same `# File:` place share their origin") {
  // hf_bert: forward and backward kernels of one model line, in a model whose layers repeat the same code.
  auto index = build({kTraces + "/hf_bert/trace"}, 2);
  REQUIRE(index);
  using Place = std::tuple<std::string, uint32_t, std::string, std::string>;
  auto place = [](const Origin &o) { return Place{o.recordedPath, o.line, o.code, o.function}; };
  std::map<std::vector<Place>, const void *> stacks;
  std::map<Place, const Origin *> nodeOrigins;
  std::map<std::vector<Place>, const void *> originLists;
  std::map<std::vector<std::string>, const void *> nameLists;
  size_t stackCount = 0, nodeOriginCount = 0, originListCount = 0, nameListCount = 0;
  for (const Artifact &a : index->artifacts()) {
    for (const Launch &l : a.launches) {
      if (!l.origins.empty()) {
        std::vector<Place> key;
        for (const Origin &o : l.origins)
          key.push_back(place(o));
        ++originListCount;
        auto [it, fresh] = originLists.try_emplace(key, l.origins.identity());
        CHECK(it->second == l.origins.identity()); // Equal origins are one vector.
      }
      for (const SharedVector<std::string> *names : {&l.postGradNodes, &l.preGradNodes, &l.atenOps}) {
        if (names->empty()) continue;
        ++nameListCount;
        auto [it, fresh] = nameLists.try_emplace(names->get(), names->identity());
        CHECK(it->second == names->identity()); // Equal node names or ops are one vector.
      }
      for (const SharedVector<Origin> &stack : l.stacks) {
        std::vector<Place> key;
        for (const Origin &o : stack)
          key.push_back(place(o));
        ++stackCount;
        auto [it, fresh] = stacks.try_emplace(key, stack.identity());
        CHECK(it->second == stack.identity()); // Equal stacks are one vector.
      }
    }
    for (const Artifact::GraphNode &n : a.graphNodes) {
      if (!n.origin) continue;
      ++nodeOriginCount;
      auto [it, fresh] = nodeOrigins.try_emplace(place(*n.origin), n.origin.get());
      CHECK(it->second == n.origin.get());
      CHECK_FALSE(n.origin->library);
    }
  }
  MESSAGE(stackCount << " stacks, " << stacks.size() << " distinct; " << nodeOriginCount << " node origins, "
                     << nodeOrigins.size() << " distinct");
  MESSAGE(originListCount << " launches with origins, " << originLists.size() << " distinct origin lists");
  CHECK(stacks.size() * 2 < stackCount);
  CHECK(originLists.size() * 2 < originListCount);
  CHECK(nameLists.size() * 2 < nameListCount);
  CHECK(nodeOrigins.size() * 2 < nodeOriginCount);
}
