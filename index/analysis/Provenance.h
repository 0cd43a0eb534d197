// index/analysis/Provenance.h: provenance written by Inductor, which links a kernel launch in output code to
// the FX nodes it computes and to the user's source lines.
//
// Formats (all JSON, read from TORCH_TRACE artifacts or files next to the output code):
//  - `inductor_provenance_tracking_node_mappings` (torch/_inductor/debug.py, dump_inductor_provenance_info
//  and
//    create_mapping_pre_post_grad_nodes / create_node_mapping_kernel_to_post_grad):
//    {"preToPost": {pre: [post...]}, "postToPre": {...}, "cppCodeToPost": {kernel: [post...]},
//     "postToCppCode": {...}, "version": 2.0}. Version 2 (PyTorch 2.9+) keys kernels as `NAME:HANDLE`, the
//     debug
//    handle printed above the launch in output code (`# [Provenance debug handles] NAME:HANDLE`); version 1
//    (no "version" field) keys them by name alone.
//  - Legacy artifacts of PyTorch 2.7/2.8: `inductor_triton_kernel_to_post_grad_nodes` ({kernel: [post...]})
//  and
//    `inductor_post_to_pre_grad_nodes` ({post: [{"name": pre, "target": ..., "from_node": [...]}...]}).
//  - `inductor_provenance_tracking_kernel_stack_traces` ({key: ["  File \"m.py\", line 29, in forward\n
//  ..."]}).
//  - AOTInductor's `kernel_information.json` ({key: {"stack_traces": [...], "post_grad_nodes": [...],
//    "pre_grad_nodes": [...]}}), written next to the `*.wrapper.cpp`.
//
// Names: a pre-grad FX node is a node of the graph Dynamo captured (before AOTAutograd), a post-grad FX node
// a node of the graph Inductor lowered; both are plain node names (`h_1`, `addmm`).
//
// Lines in StackFrame are 1-based, as Python prints them. Results own their strings. All functions are pure,
// thread-safe and never throw: JSON is walked without building a DOM (index/trace/JsonScan.h), and what one
// document may add is bounded (kMaxProvenanceEntries). Text that is not JSON, or whose top level
// is not an object, is an Error; inside a valid document, entries of the wrong type are skipped (a partly
// unknown artifact still gives what it can).
#pragma once

#include "index/support/Expected.h"
#include "index/support/SharedVector.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace inductor::index {

/// A kernel key of the provenance maps: `triton_poi_fused_gelu_1:3` (name and debug handle) or
/// `extern_kernels.addmm` (name alone, version 1).
struct KernelKey {
  std::string name;
  std::optional<int> debugHandle;

  /// Only a trailing `:<digits>` is a handle: `a:b` and `x:` are names. Handles that do not fit an int are
  /// kept in the name.
  static KernelKey parse(std::string_view key);
  /// `name:handle`, or `name` without a handle; parse(str()) gives back the same key.
  std::string str() const;
  bool operator==(const KernelKey &) const = default;
};

/// One frame of a Python traceback.
struct StackFrame {
  std::string file;
  uint32_t line = 0; ///< 1-based; 0 when the traceback did not say.
  std::string function;
  std::string code; ///< The source line as printed (stripped); empty when the traceback has none.
  bool operator==(const StackFrame &) const = default;
};

/// Parses Python traceback text (`traceback.format_list` style, outermost frame first):
///   `  File "/tmp/work/m.py", line 29, in forward\n    x = blk(x)\n  File ...`.
/// Tolerates a first `File` line without its leading spaces (AOTI's kernel_information.json), frames without
/// a code line, `\r\n`, and lines that belong to no frame such as the trailing `Gradient addition node due to
/// multiple use of tensor around:` (an unindented line after a frame's header is not its code). Returns the
/// frames outermost first; text without any `File "` line gives none.
std::vector<StackFrame> parseStackTrace(std::string_view text);

// Which frames are model code: see ModelFrames.h.

/// Most names and stack frames one provenance document may hold (keys, values and frames together); a
/// document with more is refused with an Error, after a walk that keeps nothing more (a 64 MB map of short
/// names would otherwise cost 700 MB). Real documents hold thousands: the largest seen (an 8-layer Llama's
/// stack traces, 7 MB) has 6,534 traces.
constexpr size_t kMaxProvenanceEntries = 1'000'000;

/// Node name -> node names (or kernel key -> node names), in the artifact's order.
using NameMap = std::unordered_map<std::string, std::vector<std::string>>;

/// The node and kernel maps of one compiled graph. Kernel keys are as the artifact spells them (`NAME:HANDLE`
/// in version 2, `NAME` in version 1); split them with KernelKey::parse.
struct NodeMappings {
  /// 1 = kernel keys without debug handles, 2 = `name:handle` keys. From the "version" field, or inferred
  /// from the keys when absent (1 when no key has a handle). 0 when nothing was parsed.
  int version = 0;
  NameMap preToPost, postToPre;
  /// "cppCodeToPost" in the JSON (it holds Triton kernels too): kernel key -> post-grad FX nodes.
  NameMap kernelToPost;
  /// "postToCppCode": post-grad FX node -> kernel keys.
  NameMap postToKernel;

  /// True when all four maps are empty (the backward graph of a training run may carry only
  /// {"version": 2.0}).
  bool empty() const;
  /// Adds the entries of `other` (values are appended, duplicates dropped); the version becomes the larger
  /// one. Used to combine the two legacy artifacts into one mapping.
  void merge(const NodeMappings &other);
};

/// Parses an `inductor_provenance_tracking_node_mappings` payload.
Expected<NodeMappings> parseNodeMappings(std::string_view json);

/// Parses a legacy `inductor_triton_kernel_to_post_grad_nodes` payload: kernel name -> post-grad FX nodes
/// (the `kernelToPost` of NodeMappings, version 1).
Expected<NameMap> parseKernelToPostGradNodes(std::string_view json);
/// Parses a legacy `inductor_post_to_pre_grad_nodes` payload: post-grad FX node -> the top-level "name" of
/// each entry, i.e. the pre-grad FX nodes (the nested "from_node" history is ignored; duplicates are
/// dropped).
Expected<NameMap> parsePostToPreGradNodes(std::string_view json);

/// NodeMappings (version 1) from the two legacy artifacts; the inverse maps are derived.
NodeMappings legacyNodeMappings(const NameMap &kernelToPost, const NameMap &postToPre);

/// Parses an `inductor_provenance_tracking_kernel_stack_traces` payload: kernel key -> one parsed traceback
/// per string (outermost frame first).
/// Equal traceback strings within one payload (a node's kernels, a layer's repeats: 24,407 strings but 768
/// distinct in one Llama compile) are parsed once and share one vector. `read`, when given, is told after
/// each kernel how many bytes of `json` are behind (a caller reading a mapping returns their pages: one
/// payload can be several MB). Tracebacks are copied out: nothing returned points into `json`.
Expected<std::unordered_map<std::string, std::vector<SharedVector<StackFrame>>>>
parseKernelStackTraces(std::string_view json, const std::function<void(size_t)> &read = {});

/// One entry of AOTInductor's kernel_information.json (torch/_inductor/codegen/cpp_wrapper_gpu.py and
/// debug.py).
struct KernelInformation {
  std::vector<SharedVector<StackFrame>> stackTraces; ///< Equal tracebacks of one file share one vector.
  std::vector<std::string> postGradNodes, preGradNodes;
};

/// Parses kernel_information.json: kernel key (`NAME:HANDLE`) -> its information.
Expected<std::unordered_map<std::string, KernelInformation>> parseKernelInformation(std::string_view json);

} // namespace inductor::index
