// tests/e2e/TlparseTests.cpp: the test logs of the tlparse project (older PyTorch versions, 2025): provenance
// with debug handles (v2, JIT and AOTI), without them (v1: node mappings only), a messy multi-rank folder.
// The user source files are absent here, so origins are the recorded paths with an empty range at the line
// start.
#include "e2e/E2E.h"

#include <algorithm>
#include <regex>

namespace inductor::e2e {
namespace {

std::string tlparse(const std::string &name) {
  return fixturesDir() + "/tlparse-inputs/" + name;
}

/// Definition on every launch of every output code of `log` (opened as the only trace input) equals the
/// origins derived from the log's stack traces; returns (launches, launches with a user line).
std::pair<size_t, size_t> checkStackTraceLog(const std::string &log, size_t expectedLaunches) {
  TempDir workspace("ws");
  Session s(workspace.path(), json{{"traceDirs", {log}}});
  INFO(s.client.logTail());
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes({log}, &s.client);
  REQUIRE(codes.size() == 1);
  size_t launches = 0, withUser = 0;
  for (const ExpectedOutputCode &code : codes) {
    REQUIRE(code.uri.rfind("inductor-trace:", 0) == 0);
    CHECK(code.record.hasStackTraces);
    for (const LaunchSite &site : code.launches) {
      INFO(code.label() << " " << site.key());
      std::set<Loc> want = originLocs(code.originsOf(site));
      for (const Loc &l : want) { // The recorded files do not exist here.
        CHECK(l.startChar == 0);
        CHECK(l.endChar == 0);
      }
      json result =
          s.client.request("textDocument/definition", textDocumentPosition(code.uri, site.line, site.column));
      std::set<Loc> got = toLocSet(result);
      CHECK_MESSAGE(got == want, "got " << show(got) << "\nwant " << show(want));
      ++launches;
      if (!got.empty() && got == want) ++withUser;
      // Hover says where the text comes from.
      json hover =
          s.client.request("textDocument/hover", textDocumentPosition(code.uri, site.line, site.column));
      REQUIRE(hover.is_object());
      std::string md = hover["contents"]["value"].get<std::string>();
      if (!want.empty()) CHECK(md.find("not on this machine") != std::string::npos);
    }
  }
  CHECK(launches == expectedLaunches);
  s.client.shutdown();
  return {launches, withUser};
}

TEST_CASE("tlparse v2 (debug handles): inductor_provenance_jit_debug_handle_log.txt") {
  auto [launches, withUser] = checkStackTraceLog(tlparse("inductor_provenance_jit_debug_handle_log.txt"), 5);
  recordLaunches("tlparse jit v2 (debug handles)", launches, withUser);
}

TEST_CASE("tlparse AOTI new (debug handles): inductor_provenance_aot_debug_handle_log.txt") {
  auto [launches, withUser] = checkStackTraceLog(tlparse("inductor_provenance_aot_debug_handle_log.txt"), 5);
  recordLaunches("tlparse AOTI new (debug handles)", launches, withUser);
}

// ---------------------------------------------------------------------------------------------------------
// v1: no debug handles, no stack traces. The origins come from the node mappings and the graphs' `# File:`
// comments (fallback steps 2 and 3 of index/model/Index.h): a kernel's post-grad nodes (`cppCodeToPost`, or
// the `inductor_triton_kernel_to_post_grad_nodes` artifact), narrowed for one launch to the post-grad nodes
// of the pre-grad nodes its `Topologically Sorted Source Nodes: [...]` comment names; a launch whose kernel
// has no post-grad nodes uses those pre-grad nodes' `# File:` lines. Library frames are never origins.

struct NodeMappings {
  std::map<std::string, std::vector<std::string>> kernelToPost, preToPost;
  std::map<std::string, Frame> postOrigins, preOrigins;
};

NodeMappings readNodeMappings(const std::string &log) {
  NodeMappings m;
  auto strings = [](const json &j) {
    std::map<std::string, std::vector<std::string>> out;
    if (!j.is_object()) return out;
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.value().is_array())
        for (const json &v : it.value())
          if (v.is_string()) out[it.key()].push_back(v.get<std::string>());
    return out;
  };
  for (const TraceRecord &r : readTraceLog(log)) {
    if (r.malformed) continue;
    std::string name = r.envelope.contains("artifact") ? r.envelope["artifact"].value("name", "") : "";
    bool postGraph = r.envelope.contains("inductor_post_grad_graph") || name == "after_post_grad_graph" ||
                     name == "after_recompile_post_grad";
    bool preGraph = r.envelope.contains("inductor_pre_grad_graph") || name == "after_pre_grad_graph" ||
                    name == "after_recompile_pre_grad";
    if (postGraph)
      for (auto &[node, frame] : graphNodeOrigins(r.payload))
        m.postOrigins[node] = frame;
    if (preGraph)
      for (auto &[node, frame] : graphNodeOrigins(r.payload))
        m.preOrigins[node] = frame;
    if (name == "inductor_provenance_tracking_node_mappings") {
      json j = json::parse(r.payload, nullptr, false);
      if (j.is_object()) {
        for (auto &[k, v] : strings(j.value("cppCodeToPost", json())))
          m.kernelToPost[k] = v;
        m.preToPost = strings(j.value("preToPost", json()));
      }
    }
    if (name == "inductor_triton_kernel_to_post_grad_nodes") {
      for (auto &[k, v] : strings(json::parse(r.payload, nullptr, false)))
        if (!m.kernelToPost.count(k)) m.kernelToPost[k] = v;
    }
  }
  return m;
}

struct V1Launch {
  std::string kernel;
  uint32_t line = 0, column = 0;
  std::set<Frame> origins;
};

std::vector<V1Launch> v1Launches(const std::string &text, const NodeMappings &m) {
  static const std::regex call(R"((extern_kernels\.\w+|aoti_torch_\w+_out|\b[A-Za-z_]\w*)(\.run)?\()");
  static const std::regex comment(R"(Topologically Sorted Source Nodes: \[([^\]]*)\])");
  std::vector<std::string> lines = splitLines(text);
  std::vector<V1Launch> out;
  bool inBody = false;
  std::vector<std::string> pendingPre;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    const std::string &line = lines[i];
    if (line.rfind("def call(", 0) == 0 || line.find("::run_impl(") != std::string::npos) inBody = true;
    if (!inBody) continue;
    std::smatch c;
    if (line.find("Topologically Sorted Source Nodes") != std::string::npos &&
        std::regex_search(line, c, comment)) {
      pendingPre.clear();
      std::string list = c[1].str();
      for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        std::string node = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        node.erase(0, node.find_first_not_of(' '));
        node.erase(node.find_last_not_of(' ') + 1);
        if (!node.empty()) pendingPre.push_back(node);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      continue;
    }
    for (auto it = std::sregex_iterator(line.begin(), line.end(), call); it != std::sregex_iterator(); ++it) {
      std::string name = (*it)[1].str();
      bool aotiOut = name.rfind("aoti_torch_", 0) == 0 && name.size() > 4 &&
                     name.compare(name.size() - 4, 4, "_out") == 0; // Not aoti_torch_empty_strided.
      bool isKernel = m.kernelToPost.count(name) || name.rfind("extern_kernels.", 0) == 0 || aotiOut;
      if (!isKernel) continue;
      V1Launch l{name, i, static_cast<uint32_t>(it->position(1)), {}};
      auto addFrom = [&](const std::vector<std::string> &nodes, const std::map<std::string, Frame> &origins) {
        for (const std::string &n : nodes)
          if (auto f = origins.find(n); f != origins.end() && !isLibraryFrame(f->second.path))
            l.origins.insert(f->second);
      };
      std::vector<std::string> post;
      if (auto k = m.kernelToPost.find(name); k != m.kernelToPost.end()) post = k->second;
      if (!pendingPre.empty() && !post.empty()) {
        std::set<std::string> ofPre;
        for (const std::string &p : pendingPre)
          if (auto pp = m.preToPost.find(p); pp != m.preToPost.end())
            ofPre.insert(pp->second.begin(), pp->second.end());
        std::vector<std::string> narrowed;
        for (const std::string &n : post)
          if (ofPre.count(n)) narrowed.push_back(n);
        if (!narrowed.empty()) post = narrowed;
      }
      addFrom(post, m.postOrigins);
      if (l.origins.empty()) addFrom(pendingPre, m.preOrigins);
      out.push_back(std::move(l));
      pendingPre.clear();
      break; // One launch per line.
    }
  }
  return out;
}

void checkNodeMappingLog(const std::string &name, const std::string &label, size_t expectedLaunches,
                         size_t expectedWithOrigin) {
  std::string log = tlparse(name);
  TempDir workspace("ws");
  Session s(workspace.path(), json{{"traceDirs", {log}}});
  INFO(s.client.logTail());
  std::vector<OutputCodeRecord> outputs = readOutputCodes(log);
  REQUIRE(outputs.size() == 1);
  CHECK_FALSE(outputs[0].hasStackTraces);
  std::string uri = findVirtualOutputCode(s.client, outputs[0].payload);
  REQUIRE(!uri.empty());
  NodeMappings m = readNodeMappings(log);
  REQUIRE(!m.kernelToPost.empty());
  REQUIRE(!m.postOrigins.empty());
  std::vector<V1Launch> launches = v1Launches(outputs[0].payload, m);
  size_t withOrigin = 0;
  for (const V1Launch &l : launches) {
    INFO(name << " " << l.kernel << " at line " << l.line);
    std::set<Loc> want = originLocs(l.origins);
    std::set<Loc> got =
        toLocSet(s.client.request("textDocument/definition", textDocumentPosition(uri, l.line, l.column)));
    // No model frame: nothing, or PyTorch's own frames (Launch::frameworkOrigins), said to be PyTorch's.
    bool pytorch = !got.empty();
    for (const Loc &g : got)
      pytorch = pytorch && g.uri.find("/torch/") != std::string::npos;
    if (!want.empty() || !pytorch) CHECK_MESSAGE(got == want, "got " << show(got) << "\nwant " << show(want));
    json hover = s.client.request("textDocument/hover", textDocumentPosition(uri, l.line, l.column));
    REQUIRE(hover.is_object());
    std::string md = hover["contents"]["value"].get<std::string>();
    INFO(md);
    CHECK(md.find(l.kernel) != std::string::npos);
    CHECK(md.find("debug handle") == std::string::npos); // v1 has none.
    if (want.empty())
      CHECK(md.find(pytorch ? "PyTorch's frame, not yours" : "No user source line recorded") !=
            std::string::npos);
    withOrigin += !want.empty() && got == want;
  }
  CHECK(launches.size() == expectedLaunches);
  CHECK(withOrigin == expectedWithOrigin);
  recordLaunches(label, launches.size(), withOrigin);
  s.client.shutdown();
}

TEST_CASE("tlparse v1 (no debug handles): inductor_provenance_jit_log.txt, origins from node mappings") {
  checkNodeMappingLog("inductor_provenance_jit_log.txt", "tlparse jit v1 (node mappings)", 4, 4);
}

TEST_CASE("tlparse AOTI old (no debug handles): inductor_provenance_aot_log_old.txt") {
  // The first addmm's only origin is inside torch (nn/modules/linear.py): no user line, by design.
  checkNodeMappingLog("inductor_provenance_aot_log_old.txt", "tlparse AOTI old (node mappings)", 4, 3);
}

TEST_CASE("tlparse multi_rank_messy_input: both ranks, non-trace files ignored") {
  std::string dir = tlparse("multi_rank_messy_input");
  TempDir workspace("ws");
  Session s(workspace.path(), json{{"traceDirs", {dir}}});
  INFO(s.client.logTail());
  json status = s.client.waitForIndexed();
  REQUIRE(status.is_object());
  CHECK(status["traces"] == 2); // another.log and some_other_file.txt are empty, not traces.
  CHECK(status["counts"]["ranks"] == 2);
  std::vector<ExpectedOutputCode> codes =
      expectedOutputCodes(filesIn(dir, "dedicated_log_torch_trace_rank_"), &s.client);
  REQUIRE(codes.size() == 2);
  CHECK(codes[0].record.rank == 0);
  CHECK(codes[1].record.rank == 1);
  CHECK(codes[0].uri != codes[1].uri); // Each rank's output code is its own log-only document.
  // No debug handles here: every `.run(` of a kernel defined in the code is a launch.
  json list = s.client.request("inductor/listArtifacts", json::object());
  std::set<std::string> ranks;
  for (const json &a : list)
    if (a["kind"] == "outputCode") ranks.insert(a["rank"].dump());
  CHECK(ranks == std::set<std::string>{"0", "1"});
  // A user line's launches are in both ranks' copies; references list them once (below).
  size_t launchesWithOrigin = 0;
  std::set<std::string> recorded;
  for (const ExpectedOutputCode &code : codes) {
    for (const KernelDef &d : findKernelDefs(code.text)) {
      json def =
          s.client.request("textDocument/definition", textDocumentPosition(code.uri, d.line, d.column));
      for (const Loc &l : toLocs(def))
        recorded.insert(l.uri + "#" + std::to_string(l.line));
      launchesWithOrigin += !def.empty();
    }
  }
  CHECK(launchesWithOrigin == 4);
  recordLaunches("tlparse multi_rank_messy_input (definitions)", launchesWithOrigin, launchesWithOrigin);
  REQUIRE(!recorded.empty());
  std::string first = *recorded.begin();
  std::string userURI = first.substr(0, first.find('#'));
  uint32_t line = static_cast<uint32_t>(std::stoul(first.substr(first.find('#') + 1)));
  json refs = s.client.request("textDocument/references", {{"textDocument", {{"uri", userURI}}},
                                                           {"position", position(line, 0)},
                                                           {"context", {{"includeDeclaration", false}}}});
  std::set<std::string> uris;
  for (const Loc &l : toLocs(refs))
    uris.insert(l.uri);
  // Both ranks wrote the same output code (byte-identical payloads): references list the first rank's copy
  // only, and the line's lens opens the same sites.
  REQUIRE(codes[0].text == codes[1].text);
  CHECK(uris == std::set<std::string>{codes[0].uri});
  json lenses = s.client.request("textDocument/codeLens", {{"textDocument", {{"uri", userURI}}}});
  const json *lens = nullptr;
  for (const json &l : lenses)
    if (l["range"]["start"]["line"] == line && l["command"]["command"] == "inductor.showLaunchSites")
      lens = &l;
  REQUIRE(lens != nullptr);
  json sites = s.client.request("inductor/launchSites", {{"textDocument", {{"uri", userURI}}},
                                                         {"position", (*lens)["command"]["arguments"][1]}});
  std::vector<Loc> shown = toLocs(sites), all = toLocs(refs);
  REQUIRE(!shown.empty());
  std::sort(shown.begin(), shown.end());
  std::sort(all.begin(), all.end());
  CHECK(shown == all);
  s.client.shutdown();
}

} // namespace
} // namespace inductor::e2e
