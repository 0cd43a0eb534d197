// A small real-shaped trace for the in-process feature tests: one compile of a model, written as a
// TORCH_TRACE log (the records PyTorch writes: torch/_dynamo/convert_frame.py's `dynamo_start`,
// torch/_inductor/compile_fx.py's `inductor_post_grad_graph` artifact, torch/_inductor/graph.py's
// `inductor_output_code`, each payload with its `has_payload` md5) in a temporary folder, with the model file
// and the output code file beside it, indexed by index::Index::build as the server indexes a folder, and
// served to the features as the server's binder serves them (makeFeatureContext).
//
// The texts are given by the test, `${DIR}` standing for the folder (recorded paths point into it), and may
// carry Annotations marks (tests/unit/server/Annotations.h), which are stripped before they are written.
#pragma once

#include "unit/TestFiles.h"
#include "unit/server/Annotations.h"

#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "index/trace/Md5.h"
#include "protocol/URI.h"
#include "server/features/FeatureContext.h"
#include "server/text/Documents.h"
#include "server/text/TextCache.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace inductor::test {

class MiniTrace {
public:
  /// Annotated texts (Annotations marks), `${DIR}` standing for the folder.
  struct Texts {
    std::string model;         ///< ${DIR}/model.py.
    std::string postGradGraph; ///< The post-grad FX graph dump (`# File:` comments name model lines).
    std::string outputCode;    ///< The output code, recorded and written at ${DIR}/cache/out.py.
    /// More records of the same compile, after the output code: each the envelope's kind member (as
    /// `"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}`) and its payload (${DIR}
    /// replaced; no marks).
    std::vector<std::pair<std::string, std::string>> records = {};
    /// A torch.profiler Chrome trace of the run (${DIR} replaced), written at ${DIR}/trace/profile.json where
    /// the server finds profiles beside the traces; empty: none. See chromeTrace().
    std::string profile = {};
    /// 0: one log, no rank. N: the same log written once per rank (`dedicated_log_torch_trace_rank_R_...`,
    /// as torch/_logging/_internal.py names it under torch.distributed), each compile on every rank.
    int ranks = 0;
    /// Records only some ranks log (after `records`): {rank, {kind member, payload}}.
    std::vector<std::pair<int, std::pair<std::string, std::string>>> rankRecords = {};
    /// More files: {path under ${DIR}, annotated text} (a kernel file, a Triton cache entry's IR), read back
    /// with file(path).
    std::vector<std::pair<std::string, std::string>> files = {};
  };

  explicit MiniTrace(const Texts &texts)
      : model(replaceDir(texts.model, dir_.path)), graph(replaceDir(texts.postGradGraph, dir_.path)),
        code(replaceDir(texts.outputCode, dir_.path)) {
    namespace fs = std::filesystem;
    fs::create_directories(dir_.path + "/trace");
    fs::create_directories(dir_.path + "/cache");
    std::ofstream(modelPath(), std::ios::binary) << model.code();
    std::ofstream(outputCodePath(), std::ios::binary) << code.code();
    std::string log;
    log += envelope("{\"str\": [\"" + modelPath() + "\", 0]}");
    log += envelope("{\"dynamo_start\": {\"stack\": []}, " + std::string(kCompile) + "}");
    log += record("\"artifact\": {\"name\": \"inductor_post_grad_graph\", \"encoding\": \"string\"}",
                  graph.code());
    log += record("\"inductor_output_code\": {\"filename\": \"" + outputCodePath() + "\"}", code.code());
    for (const auto &[head, payload] : texts.records)
      log += record(head, replaceDir(payload, dir_.path));
    if (texts.ranks == 0)
      std::ofstream(dir_.path + "/trace/dedicated_log_torch_trace_mini.log", std::ios::binary) << log;
    for (int rank = 0; rank < texts.ranks; ++rank) {
      std::string own = log;
      for (const auto &[on, r] : texts.rankRecords)
        if (on == rank) own += record(r.first, replaceDir(r.second, dir_.path));
      std::ofstream(dir_.path + "/trace/dedicated_log_torch_trace_rank_" + std::to_string(rank) + "_mini.log",
                    std::ios::binary)
          << own;
    }
    for (const auto &[path, text] : texts.files) {
      Annotations &written = files_.emplace(path, Annotations(replaceDir(text, dir_.path))).first->second;
      fs::create_directories(fs::path(dir_.path + "/" + path).parent_path());
      std::ofstream(dir_.path + "/" + path, std::ios::binary) << written.code();
    }
    if (!texts.profile.empty())
      std::ofstream(dir_.path + "/trace/profile.json", std::ios::binary)
          << replaceDir(texts.profile, dir_.path);

    index::IndexOptions o;
    o.inputs = {dir_.path + "/trace"};
    o.roots = {dir_.path};
    o.jobs = 1;
    index_ = index::Index::build(o);
    REQUIRE(index_->compiles().size() == size_t(std::max(1, texts.ranks)));
    CHECK(index_->stats().corruptedRecords == 0);
    documents_ = std::make_unique<server::StandaloneDocuments>(
        std::make_shared<const index::SourceReader>(index::ReadPolicy(index::readRoots(o))));
  }

  const index::Index &index() const { return *index_; }
  const std::string &dir() const { return dir_.path; }
  /// A file of Texts::files as written (marks stripped, ${DIR} replaced).
  const Annotations &file(const std::string &path) const {
    auto it = files_.find(path);
    REQUIRE_MESSAGE(it != files_.end(), path);
    return it->second;
  }
  std::string modelPath() const { return dir_.path + "/model.py"; }
  std::string outputCodePath() const { return dir_.path + "/cache/out.py"; }
  std::string modelUri() const { return protocol::fileURI(modelPath()); }
  std::string outputCodeUri() const { return protocol::fileURI(outputCodePath()); }

  /// `feature(context, params)` for a request about `uri` (empty: a workspace request), the context built
  /// as the server's binder builds it, over fresh texts.
  template <class Result, class Params>
  Result call(Result (*feature)(const server::FeatureContext &, const Params &), const std::string &uri,
              const Params &params) {
    server::TextCache texts(documents_->snapshot(), *index_);
    protocol::ClientCapabilities client;
    client.hierarchicalDocumentSymbolSupport = true;
    return feature(server::makeFeatureContext(*index_, nullptr, texts, client, uri), params);
  }

private:
  TempDir dir_; ///< First: the texts name it.

public:
  // The texts as written (marks stripped, ${DIR} replaced): their points and ranges are where answers go.
  Annotations model, graph, code;

private:
  static constexpr const char *kCompile = "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0";

  /// The annotated text given, with ${DIR} replaced before the marks are read (the folder's path has no
  /// marks).
  static std::string replaceDir(std::string text, const std::string &dir) {
    for (size_t at; (at = text.find("${DIR}")) != std::string::npos;)
      text.replace(at, 6, dir);
    return text;
  }
  static std::string envelope(const std::string &json) {
    return "V1129 01:00:00.000000 100 torch/_logging/structured.py:28] " + json + "\n";
  }
  static std::string record(const std::string &head, std::string payload) {
    if (!payload.empty() && payload.back() == '\n') payload.pop_back();
    std::string out = envelope("{" + head + ", " + kCompile + ", \"has_payload\": \"" +
                               index::Md5::of(payload).hex() + "\"}");
    size_t start = 0;
    for (size_t nl; (nl = payload.find('\n', start)) != std::string::npos; start = nl + 1)
      out += "\t" + payload.substr(start, nl - start) + "\n";
    return out + "\t" + payload.substr(start) + "\n";
  }

  std::map<std::string, Annotations> files_;
  std::shared_ptr<const index::Index> index_;
  std::unique_ptr<server::StandaloneDocuments> documents_;
};

} // namespace inductor::test

namespace inductor::test {

/// A model of two lines compiled into one fused Triton kernel launched once: the texts most feature tests
/// start from. Marks: model `relu` and `mul` (the two lines' text), graph `relu` and `mul` (their FX nodes)
/// and `file` (the first `# File:` comment's link),
/// code `def` (the kernel's name where output code defines it: `NAME = async_compile.triton(...)`), `launch`
/// (its name at the launch) and the point `run` (inside that name).
inline MiniTrace::Texts reluMulTexts() {
  return {
      .model = R"py(import torch


class M(torch.nn.Module):
    def forward(self, x):
        $relu[[y = x.relu()]]
        $mul[[return y * 2]]
)py",
      .postGradGraph = R"py(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4][1]cuda:0"):
         # File: $file[[${DIR}/model.py:6]] in forward, code: y = x.relu()
        $relu[[relu]]: "f32[4][1]cuda:0" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None

         # File: ${DIR}/model.py:7 in forward, code: return y * 2
        $mul[[mul]]: "f32[4][1]cuda:0" = torch.ops.aten.mul.Tensor(relu, 2);  relu = None
        return (mul,)
)py",
      .outputCode = R"py(from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: ${DIR}/cache/kernel.py
# Topologically Sorted Source Nodes: [y, mul], Original ATen: [aten.relu, aten.mul]
# Source node to ATen node mapping:
#   mul => mul
#   y => relu
$def[[triton_poi_fused_mul_relu_0]] = async_compile.triton('triton_poi_fused_mul_relu_0', '''
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_mul_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4
    xoffset = tl.program_id(0) * XBLOCK
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    args.clear()
    buf0 = empty_strided_cuda((4, ), (1, ), torch.float32)
    $launch[[triton_poi_$run^fused_mul_relu_0]].run(arg0_1, buf0, 4, stream=stream0)
    return (buf0, )
)py",
  };
}

} // namespace inductor::test

namespace inductor::test {

/// The params of a request at `p` in `uri`.
template <class Params = protocol::TextDocumentPositionParams>
Params atPosition(const std::string &uri, protocol::Position p) {
  Params params;
  params.textDocument.uri = uri;
  params.position = p;
  return params;
}

/// The JSON a Written result holds (REQUIREd to parse).
template <class T> nlohmann::json parsed(const protocol::Written<T> &written) {
  nlohmann::json j = nlohmann::json::parse(written.text, nullptr, false);
  REQUIRE_MESSAGE(!j.is_discarded(), written.text);
  return j;
}

/// A JSON range (a Location's, a lens's) as a Range.
inline protocol::Range rangeOf(const nlohmann::json &range) {
  protocol::Range r;
  protocol::from_json(range, r);
  return r;
}

/// One kernel launch in a profile: the kernel's name and its device time.
struct ProfiledLaunch {
  std::string kernel;
  double us = 0; ///< Device time of one launch, microseconds (the Chrome trace's unit).
};

/// A torch.profiler Chrome trace (torch/profiler/profiler.py's export_chrome_trace) of `calls` calls of the
/// compiled graph whose FX graph cache key is `cacheKey`: each call the `## Call CompiledFxGraph KEY ##`
/// range torch/_inductor/output_code.py records, holding per launch the CPU op CachingAutotuner.run records
/// (named after the kernel), its cudaLaunchKernel and the kernel on the GPU, joined by their `correlation`.
inline std::string chromeTrace(const std::string &cacheKey, const std::vector<ProfiledLaunch> &launches,
                               int calls = 1) {
  std::string events;
  auto add = [&](const std::string &event) { events += (events.empty() ? "\n  " : ",\n  ") + event; };
  auto x = [](const std::string &cat, const std::string &name, int pid, int tid, double ts, double dur,
              const std::string &args) {
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
           "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
           ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + ", \"args\": {" + args +
           "}}";
  };
  int external = 1, correlation = 1;
  double ts = 1000;
  for (int call = 0; call < calls; ++call) {
    double length = 20.0 * double(launches.size()) + 10;
    add(x("user_annotation", "## Call CompiledFxGraph " + cacheKey + " ##", 1, 1, ts, length,
          "\"External id\": " + std::to_string(external++)));
    double at = ts + 5;
    for (const ProfiledLaunch &l : launches) {
      std::string ext = "\"External id\": " + std::to_string(external++);
      std::string corr = ", \"correlation\": " + std::to_string(correlation++);
      add(x("cpu_op", l.kernel, 1, 1, at, 15, ext));
      add(x("cuda_runtime", "cudaLaunchKernel", 1, 1, at + 2, 5, ext + corr));
      add(x("kernel", l.kernel, 0, 7, at + 10, l.us, ext + corr + ", \"device\": 0, \"stream\": 7"));
      at += 20;
    }
    ts += length + 100;
  }
  return "{\"schemaVersion\": 1, \"traceEvents\": [" + events + "\n]}\n";
}

/// `texts` with the FX graph cache key Inductor logs after the output code (torch/_inductor/compile_fx.py's
/// `fx_graph_cache_miss` artifact) and a profile of `calls` calls of that graph.
inline MiniTrace::Texts withProfile(MiniTrace::Texts texts, const std::vector<ProfiledLaunch> &launches,
                                    int calls = 1) {
  const std::string key = "fminitracekey";
  texts.records.push_back({R"("artifact": {"name": "fx_graph_cache_miss", "encoding": "json"})",
                           R"({"cache_status_detailed": "full_miss", "key": ")" + key + R"("})"});
  texts.profile = chromeTrace(key, launches, calls);
  return texts;
}

/// The model of reluMulTexts, with a graph break on its `relu` line as Dynamo logs it
/// (torch/_dynamo/symbolic_convert.py's `dynamo_graph_break_reason` artifact).
inline MiniTrace::Texts reluMulWithGraphBreak() {
  MiniTrace::Texts t = reluMulTexts();
  t.records.push_back({R"("artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"})",
                       R"(Graph break in user code at ${DIR}/model.py:6
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str'].

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "${DIR}/model.py", line 6, in forward
    y = x.relu()
)"});
  return t;
}

} // namespace inductor::test
