// index/analysis/OutputCode.h: analysis of Inductor's output code, the module that torch.compile runs in
// place of the user's graph, and of the standalone kernel files in Inductor's cache.
//
// Formats:
//  - Python wrapper code, written by torch/_inductor/codegen/wrapper.py (PythonWrapperCodegen). It is the
//    `output_code.py` of TORCH_COMPILE_DEBUG, the `inductor_output_code` payload of a TORCH_TRACE log, and
//    the wrapper `c<hash>.py` in the cache. Kernels are defined at module level as `NAME =
//    async_compile.triton('NAME', '''<Triton source>''', device_str='cuda')` (or `.cpp_pybinding`,
//    `.cpp`, `.cuda`, ...) below a comment block (`# kernel path:`, `# Topologically Sorted Source Nodes:`,
//    `# Source node to ATen node mapping:`, `# Graph fragment:`), and launched from `call` (a method of
//    `class Runner` in recent PyTorch, a top-level `def call(args):` in older versions).
//  - The AOTInductor C++ wrapper (`*.wrapper.cpp`, `output_code.cpp`, the `inductor_aot_wrapper_code`
//  payload),
//    written by torch/_inductor/codegen/cpp_wrapper_cpu.py and cpp_wrapper_gpu.py. Each Triton kernel gets a
//    `static inline void call_NAME(...)` helper whose Triton source is kept in a `/*
//    async_compile.triton(...) */` comment; launches are in `AOTInductorModel::run_impl`.
//  - Since PyTorch 2.8 with provenance tracking on (INDUCTOR_PROVENANCE=1 /
//  config.trace.provenance_tracking_level),
//    each launch is preceded by `# [Provenance debug handles] NAME:N` (`//` in C++), where `NAME:N` is the
//    key of the provenance maps (see Provenance.h).
//
// Positions are 0-based lines and 0-based UTF-8 byte columns; column ranges are half-open [column,
// endColumn). Analyses own their strings (no pointers into the input). All functions are pure, thread-safe
// and never throw; malformed input gives a partial analysis.
//
// Performance: these functions run over every output code of traces of several GB. They make one pass over
// the lines with cheap prefix checks, do not allocate for lines that match nothing, and skip the bodies of
// embedded kernel sources (which can be thousands of lines) by looking only for their closing delimiter and a
// few prefixes.
#pragma once

#include "index/support/TextLines.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inductor::index {

/// What kind of kernel Inductor generated. Triton kinds follow the `@triton_heuristics.<kind>(` decorators of
/// torch/_inductor/runtime/triton_heuristics.py, which also give the 3-letter name prefixes (`triton_poi_`,
/// `triton_red_`, `triton_per_`, `triton_tem_`, `triton_for_`, `triton_spl_`).
enum class KernelKind {
  Unknown,
  Pointwise,
  Reduction,
  PersistentReduction,
  CooperativeReduction,
  SplitScan,
  Template,
  Foreach,
  Combo,
  UserDefined, ///< A user's @triton.jit kernel (`@triton_heuristics.user_autotune(`).
  Cpp,         ///< A C++ kernel (`cpp_fused_*`, async_compile.cpp / cpp_pybinding).
  Extern, ///< Not generated: `extern_kernels.*` (cuBLAS, ...), `aoti_torch_*` shims, `torch.ops.*` calls.
};

/// Lower-case words for hover text: "pointwise", "reduction", "persistent reduction", "cooperative
/// reduction", "split scan", "template", "foreach", "combo", "user-defined Triton", "C++", "extern",
/// "unknown".
std::string_view displayName(KernelKind kind);

/// Kind of a kernel known only by name (a provenance key, a profiler event): by prefix (`triton_poi_` ->
/// Pointwise, `cpp_fused_` -> Cpp, `extern_kernels.` / `aoti_torch_` / `torch.ops.` -> Extern, ...). A
/// trailing debug handle (`:3`) is ignored. Unknown when nothing matches.
KernelKind kindFromName(std::string_view name);

/// Which graph of a compiled frame the output code runs: the suffix of its AOT ID (`0_forward`).
enum class GraphKind { Unknown, Forward, Backward, Inference };
/// The graph's name as the AOT ID writes it: "forward", "backward", "inference", or `unknown` (default "")
/// for Unknown. The one place a GraphKind becomes text (compile labels, inductor/listArtifacts).
std::string_view graphKindName(GraphKind kind, std::string_view unknown = {});

/// Inductor's estimates of one launch of a Triton kernel, from its `inductor_meta={...}` decorator argument
/// (torch/_inductor/codegen/triton.py, codegen_kernel; select_algorithm.py for templates). Written only with
/// TORCHINDUCTOR_BENCHMARK_KERNEL=1 (config.benchmark_kernel), `kernel_num_gb` also with
/// TORCHINDUCTOR_PROFILE_BANDWIDTH (config.profile_bandwidth):
///   - `'kernel_num_gb': <float>`: estimate_kernel_num_bytes() / 1e9, the bytes the kernel reads and writes
///     (its inputs and outputs, in-place buffers twice) in decimal GB, printed by Python's repr
///     (`0.012582912`, `4.096e-06`);
///   - `'kernel_flop': <int>`: estimate_flops(), the FLOPs of the nodes torch.utils.flop_counter has a
///   formula
///     for (matmuls, convolutions, attention); 0 for kernels of other ops (pointwise, reductions).
/// Both nullopt when absent, or not a finite non-negative number.
struct KernelEstimates {
  std::optional<double> numGb;
  std::optional<uint64_t> flop;
  friend bool operator==(const KernelEstimates &, const KernelEstimates &) = default;
};
/// Reads the estimates of an `inductor_meta={...}` line (leading whitespace allowed). Cheap: two substring
/// searches, and only on lines that start with `inductor_meta=`; nothing found elsewhere.
KernelEstimates parseKernelEstimates(std::string_view line);

/// A kernel defined in output code.
struct KernelDefinition {
  std::string name;
  /// Position of NAME: `NAME = async_compile...` in Python; NAME inside `call_NAME` in the AOTI C++ wrapper.
  uint32_t nameLine = 0, nameColumn = 0;
  /// The whole definition: the comment block above, the statement, the embedded source and its closing line
  /// (Python); the `template <...>` line through the closing `}` of `call_NAME` (C++). Inclusive.
  uint32_t firstLine = 0, lastLine = 0;
  /// Position of NAME in `def NAME(` inside the embedded Triton source, if any.
  std::optional<uint32_t> defLine, defColumn;
  KernelKind kind = KernelKind::Unknown;
  /// From `# kernel path: /.../inductor_cache/e5/ce5l....py`: the cache file holding the kernel alone.
  std::string kernelPath;
  /// The line of that comment (meaningful when kernelPath is not empty): another rank's copy of this output
  /// code names its own kernel file there (see kernelPathOfLine).
  uint32_t kernelPathLine = 0;
  /// `# Topologically Sorted Source Nodes: [h, x]`: pre-grad FX node names (an entry may be empty, as
  /// printed).
  std::vector<std::string> sourceNodes;
  /// `Original ATen: [aten.add, aten.native_layer_norm]`.
  std::vector<std::string> atenOps;
  /// `# Source node to ATen node mapping:` then `#   h => add, add_1`: a source node (pre-grad FX node name,
  /// possibly empty) and the post-grad FX node names it became.
  std::vector<std::pair<std::string, std::vector<std::string>>> sourceToAten;
  /// Lines of the embedded kernel source string, inclusive; both 0 when there is none (a multi-kernel, or the
  /// source was cut off). For Triton, `sourceFirstLine` is the line after `'''`.
  uint32_t sourceFirstLine = 0, sourceLastLine = 0;
  /// Inductor's estimates from the embedded source's inductor_meta (absent unless benchmark_kernel was on).
  KernelEstimates estimates;
};

/// One launch of a kernel from the wrapper's `call` / `run_impl`.
///
/// How launches are found:
///  - Below a `[Provenance debug handles] NAME:N` comment, the first line (within 24 lines, before the next
///  such
///    comment or a dedent) on which NAME, or its last dotted component, appears as a token is the launch of
///    NAME, whatever its form (`NAME.run(`, `buf2 = torch.ops.aten._scaled_mm.default(`, `call_NAME(`,
///    `AOTI_TORCH_ERROR_CODE_CHECK(NAME(`). The lines between are setup (`stream0 = get_raw_stream(0)`,
///    AOTI's `static constexpr` arrays). If NAME appears nowhere, the first code line below the comment is
///    the launch.
///  - Without a comment (older output code), by pattern: Python `NAME.run(`, `extern_kernels.X(` and calls of
///  a
///    kernel defined earlier in the file (`cpp_fused_relu_1(buf3)`), with or without `x = `; C++
///    `call_NAME(`, `AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_<device>_OP(` and `cpp_fused_*(`.
///    `launchKernel(kernels_.NAME, ...)` inside a `call_NAME` helper is not a launch.
///  - The `Topologically Sorted Source Nodes` comment is taken when it is at most 8 lines above the launch
///  and no
///    other launch took it. FIXME(analysis): a comment above a call we do not recognise (an old-style
///    `torch.ops.*` call without a provenance comment) can be taken by the next launch.
struct KernelLaunch {
  /// The kernel as the provenance maps name it: `triton_poi_fused_gelu_1`, `extern_kernels.addmm`,
  /// `aoti_torch_cuda_convolution`, `cpp_fused_mul_relu_sigmoid_0`.
  std::string kernel;
  /// From `# [Provenance debug handles] NAME:N` above the launch; empty in older output code.
  std::optional<int> debugHandle;
  /// The kernel name token on the launch line: [column, endColumn) on `line`. For `call_NAME(` it covers
  /// NAME; when the provenance comment names a kernel that does not appear on the line, it is the first
  /// non-space character and endColumn == column.
  uint32_t line = 0, column = 0, endColumn = 0;
  /// From the `Topologically Sorted Source Nodes: [...], Original ATen: [...]` comment right above.
  std::vector<std::string> sourceNodes, atenOps;
  /// KernelKey::str() of Provenance.h: `name:handle`, or the name alone without a handle.
  std::string key() const;
};

/// The entry function of the wrapper: `call` (Python), `run_impl` (AOTI C++) or `inductor_entry_impl` (the
/// C++ wrapper of cpp_wrapper JIT output code); position of the name.
struct EntryPoint {
  std::string name;
  uint32_t line = 0, column = 0;
};

struct OutputCodeAnalysis {
  enum class Language { Python, Cpp } language = Language::Python;
  /// From `# AOT ID: ['0_forward']` (Python only): `0_forward`; empty if absent.
  std::string aotId;
  GraphKind graphKind = GraphKind::Unknown;
  /// In file order.
  std::vector<KernelDefinition> kernels;
  /// In file order; a kernel launched twice appears twice (with different debug handles).
  std::vector<KernelLaunch> launches;
  std::vector<EntryPoint> entries;
  /// cpp_wrapper JIT output code (`torch._inductor.config.cpp_wrapper`): a Python module whose C++ wrapper is
  /// the string `cpp_wrapper_src`. Its launches and its entry point (`inductor_entry_impl`) are in that text,
  /// analysed as by analyzeCppWrapper; PyTorch writes no `# AOT ID:` line in it.
  bool cppWrapperSource = false;

  /// The definition named `name` (a trailing `:N` debug handle is ignored), or nullptr. Linear search; the
  /// pointer is valid while this analysis is alive and unmodified.
  const KernelDefinition *findKernel(std::string_view name) const;
};

/// The path of a `# kernel path: PATH` comment line of Python output code (leading spaces allowed), as
/// KernelDefinition::kernelPath takes it; nullopt when the line is not one.
std::optional<std::string_view> kernelPathOfLine(std::string_view line);

/// Analyzes Python wrapper code (see the file comment). Module-level strings that are no kernel's source are
/// skipped (the `Compile-time auto-tuning block` docstring of max-autotune output code holds `.run(` lines
/// that are not launches), except cpp_wrapper's `cpp_wrapper_src`, analysed as C++ (cppWrapperSource).
OutputCodeAnalysis analyzePythonWrapper(const TextLines &lines);

/// Analyzes an AOTInductor C++ wrapper (see the file comment). `kernels` holds the `call_NAME` helpers;
/// `CUfunction NAME{nullptr};` and `extern "C" void cpp_fused_...(...);` are declarations and are not listed.
OutputCodeAnalysis analyzeCppWrapper(const TextLines &lines);

/// The kernel of a standalone kernel file: a Triton cache file `c<hash>.py` (written by
/// torch/_inductor/codecache.py from the same source as the wrapper's embedded string). Position of NAME in
/// `@triton.jit\ndef NAME(`; if there is no such `def`, the position of NAME in `'kernel_name': 'NAME'`.
struct KernelSourceFile {
  std::string name;
  uint32_t line = 0, column = 0;
  KernelKind kind = KernelKind::Unknown;
  KernelEstimates estimates; ///< From the file's inductor_meta line (see KernelEstimates).
};

/// nullopt when the lines hold no Triton kernel.
std::optional<KernelSourceFile> analyzeKernelSource(const TextLines &lines);

/// The C++ kernels defined in a C++ kernel file: `extern "C" void NAME(...) {` definitions (declarations
/// ending in `;` are skipped). Used for AOTInductor's `*.kernel.cpp` / `inductor_aot_kernel_code` (kernels
/// named `cpp_fused_*`) and the cache's `*.main.cpp` of async_compile.cpp_pybinding (a single kernel named
/// `kernel`). Position of NAME; kind Cpp.
std::vector<KernelSourceFile> analyzeCppKernelSource(const TextLines &lines);

/// True for wrapper code, false for a kernel file: all are `c<hash>.py` in the cache. Judged by shape,
/// outside embedded sources: the wrapper has `async_compile = AsyncCompile()` or a `# AOT ID:` line, or else
/// a `def call(` and no kernel of its own at module level. Kernel files define their kernel at module level
/// (`@triton.jit`, `@triton_heuristics.*` decorators), and with max-autotune the cache also holds a benchmark
/// module per autotuning choice (torch/_inductor/codecache.py, written by select_algorithm.py and
/// TritonKernel.codegen_kernel_benchmark): the kernel at module level with `get_args`, `call(args)` and
/// `benchmark_all_configs` that run it. Neither is output code: they are never a compile of their own.
bool looksLikeWrapperCode(const TextLines &lines);

} // namespace inductor::index
