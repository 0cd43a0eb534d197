// index/runtime/DebugPrinter.h: run logs of Inductor's intermediate value debug printer, and their mapping to
// the launches of output code.
//
// The printer (torch/_inductor/codegen/debug_utils.py, DebugPrinterManager; on with
// `AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2` or
// `config.aot_inductor.debug_intermediate_value_printer`, JIT and AOTInductor) wraps every launch of the
// wrapper in prints of each kernel argument, before and after the launch, to the run's stdout. Three formats,
// interleaved with whatever else the program prints:
//  - JIT, Python wrapper (`_print_debugging_tensor_value_info`):
//      inductor: before_launch - triton_poi_fused_addmm_log_relu_sub_0 - buf1
//      Number of elements:  512            (then, for small tensors, the tensor itself before this line)
//      Size:  torch.Size([4, 128])
//      Dtype:  0.0527...                   (sic: PyTorch prints the mean here; a real dtype is kept if seen)
//      Mean:  0.0527...    Min:  ...    Max:  ...    Std:  ...
//    and for a non-tensor argument `inductor: before_launch - KERNEL - 512` then `Value:  512`.
//  - C++ wrapper and AOTInductor (`aoti_torch_print_tensor_handle`, torch/csrc/inductor/aoti_torch):
//      [  before_launch - aoti_torch_cuda_mm_out - buf0  ]:
//      Number of elements: 512 / Dtype: float32 / Mean value: nan / Min value: / Max value: / Device: cuda:0
//      / Size: [4, 128] / Stride: / Layout: / Is contiguous: / Requires grad: / (blank line)
//    graph inputs as `[  aoti_model_inputs - arg0_1  ]:`, and integer arguments as
//    `[  before_launch - KERNEL - 512L: 512  ]` followed by a literal backslash-n (printf("\\n") in the
//    generated C++), often with the next header on the same line.
//  - Level 3 (kernel names only, C++ wrapper): `[ before_launch: KERNEL ]`.
// Statistics are those PyTorch printed: `nan`/`inf` values are kept as such (TensorStats::nonFinite()).
//
// Mapping (mapRunLog): records group into launch events (a kernel's before-records then its after-records);
// blocks name kernels, not debug handles, so within one call of an output code the k-th event of kernel K is
// the k-th launch of K in that output code, and an event that cannot continue the current call (a kernel the
// call has no further launch of, or an earlier launch) starts a new call: the next step. A new call's output
// code is the one whose launch sequence explains the most events from there on (several compiles can share
// kernel names). `aoti_model_inputs` blocks start a call.
//
// Bounds: parseRunLog keeps at most RunLogOptions::maxRecords records; lines that are not the printer's are
// skipped. All functions are pure and never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

enum class PrinterPhase : uint8_t { Before, After, ModelInput };
enum class PrinterFormat : uint8_t { Python, Cpp, KernelNamesOnly };

/// The statistics of one printed argument.
struct TensorStats {
  bool tensor = true; ///< False for scalars (`Value: 512`, `512L: 512`).
  std::string value;  ///< Scalars: the printed value.
  std::optional<uint64_t> numel;
  std::vector<int64_t> shape;
  bool hasShape = false;
  std::string dtype;                         ///< "float32" (C++ format); empty when not printed.
  std::string device;                        ///< "cuda:0" (C++ format); empty when not printed.
  std::optional<double> mean, min, max, std; ///< As printed; may be NaN or infinite.
  /// Whether any printed statistic is NaN or infinite.
  bool nonFinite() const;
  bool hasNan() const;
};

/// One printed block.
struct PrinterRecord {
  PrinterPhase phase = PrinterPhase::Before;
  PrinterFormat format = PrinterFormat::Python;
  std::string kernel; ///< As printed: `extern_kernels.mm`, `aoti_torch_cuda_mm_out`, a Triton name. Empty for
                      ///< model inputs.
  std::string arg;    ///< `buf1`, `arg2_1`, `512L`; empty for level-3 markers.
  TensorStats stats;
  uint32_t line = 0; ///< 0-based line of the header in the run log.
};

struct RunLogOptions {
  size_t maxRecords = 2'000'000; ///< Records kept; the rest is reported as truncated.
};

struct RunLog {
  std::vector<PrinterRecord> records;
  size_t malformed = 0; ///< Headers whose kernel or argument could not be read (skipped).
  bool truncated = false;
};

/// Parses the printer's blocks out of a run log (see the file comment).
RunLog parseRunLog(std::string_view text, const RunLogOptions &options = {});

/// Whether the first bytes of a file hold printer output (`inductor: before_launch - `, `[  before_launch -
/// `,
/// `[  aoti_model_inputs - `, `[ before_launch: `). Cheap; for discovery.
bool looksLikePrinterLog(std::string_view head);

/// An output code as the mapping sees it: the kernel name of each launch, in order (KernelLaunch::kernel).
struct PrinterCompile {
  std::vector<std::string> launchKernels;
};

constexpr uint32_t kNoLaunch = UINT32_MAX;

/// One launch event: the records of one kernel launch, in one call.
struct PrinterLaunch {
  uint32_t call = kNoLaunch;    ///< Index into PrinterMapping::calls; kNoLaunch when unmatched.
  uint32_t compile = kNoLaunch; ///< Index into the compiles given to mapRunLog.
  uint32_t launch = kNoLaunch;  ///< Launch index in that compile's output code.
  std::string kernel;
  std::vector<uint32_t> before, after; ///< Record indices.
};

/// One call of an output code (one step of it).
struct PrinterCall {
  uint32_t compile = kNoLaunch;
  uint32_t ordinal = 0;         ///< 0 for the first call of that compile, 1 for the next...
  std::vector<uint32_t> inputs; ///< `aoti_model_inputs` records.
};

struct PrinterMapping {
  std::vector<PrinterCall> calls;
  std::vector<PrinterLaunch> launches; ///< In log order.
  size_t unmatched = 0;                ///< Launch events no output code explains.
};

/// Maps the records of a run log to calls and launches (see the file comment).
PrinterMapping mapRunLog(const RunLog &log, const std::vector<PrinterCompile> &compiles);

/// Where NaN/Inf first shows up in a run.
struct NonFiniteOrigin {
  enum class Kind {
    Produced,   ///< `launch`'s outputs hold NaN/Inf while its inputs did not: it made them.
    InInputs,   ///< `launch`'s inputs already held NaN/Inf (from outside the printed launches).
    GraphInput, ///< A graph input held NaN/Inf when the call began (`aoti_model_inputs`).
  } kind = Kind::Produced;
  uint32_t launch = kNoLaunch;   ///< Index into PrinterMapping::launches (Produced, InInputs).
  uint32_t call = kNoLaunch;     ///< Index into PrinterMapping::calls.
  std::vector<std::string> args; ///< The arguments holding NaN/Inf.
  bool nan = true;               ///< NaN (else only infinities).
};

/// The first launch event, in log order, whose arguments hold NaN/Inf, classified. Arguments named `bufN`
/// that no earlier launch of the same call printed are fresh outputs: their before-values are uninitialised
/// memory and are ignored.
std::optional<NonFiniteOrigin> firstNonFinite(const RunLog &log, const PrinterMapping &mapping);

/// The last launch event when the log ends after its before-records with no after-record: the launch that
/// was running when the process died (the use of level 3 with CUDA_LAUNCH_BLOCKING=1). kNoLaunch otherwise.
uint32_t unfinishedLaunch(const RunLog &log, const PrinterMapping &mapping);

} // namespace inductor::index
