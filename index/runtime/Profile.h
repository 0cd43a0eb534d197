// index/runtime/Profile.h: torch.profiler Chrome traces, and the join of their GPU activities to the kernel
// launches of output code.
//
// Format: the Chrome trace Kineto writes for `prof.export_chrome_trace(path)` and for the `on_trace_ready`
// handler `tensorboard_trace_handler` (`<worker>.<pid|ts>.pt.trace.json`, gzip when use_gzip=True):
// `{"schemaVersion": 1, "deviceProperties": [...], "distributedInfo": {"rank": N}?, "traceEvents": [...]}`.
// Each event is `{"ph": "X", "cat": ..., "name": ..., "pid": ..., "tid": ..., "ts": µs, "dur": µs,
// "args": {"External id": N, "correlation": N, ...}}` (torch/profiler/profiler.py, libkineto's
// ChromeTraceLogger). The categories read here: `cpu_op` and `user_annotation` (operators and
// record_function ranges, on the CPU thread that ran them), `cuda_runtime`/`cuda_driver` (the CPU-side
// launch API calls), and the device activities `kernel`, `gpu_memcpy`, `gpu_memset`. Everything else
// (python_function, flows, metadata, overhead) is skipped while parsing. Times are integer nanoseconds,
// taken from the decimal text of `ts`/`dur` (Kineto prints µs with three decimals), so sums are exact.
//
// Reading streams, without a JSON parser's state per token: the file is memory-mapped (or inflated chunk by
// chunk when gzip) and a scan that follows only the structure (quotes and brackets, found sixteen bytes at a
// time) frames each element of `traceEvents` and the `deviceProperties`/`distributedInfo` members; each
// event of a kept category is then read in place by JsonScan's zero-copy walk, which checks its syntax
// (events of the categories skipped, most of a profile recorded with stacks, are framed and never walked).
// About 390 MB/s on a 124 MB profile, 13x nlohmann's SAX parser that read profiles before (bench/README.md,
// "Profiles"). Only compact records of the kept events are stored (about 48 bytes each plus interned names):
// memory follows what is kept and the longest event (an event the chunk cuts is carried whole into the
// next), never the bytes read (a 1 MB gzip inflating to one 1 GiB string costs a few MB). A profile that
// ends early or holds a syntax error keeps the events before the error (`truncated`); an event missing `ts`
// is skipped and counted. Sizes are bounded (ProfileReadOptions).
//
// Join (joinProfile), exact per launch and never by kernel name alone:
//   1. a device activity's `correlation` names the runtime call that launched it (cudaLaunchKernel,
//      cuLaunchKernel, cudaGraphLaunch, ...); without one, its `External id` names the CPU op it ran under;
//   2. the enclosing `## Call CompiledFxGraph <key> ##` range (record_function in CompiledFxGraph.__call__,
//      torch/_inductor/output_code.py) names the compile: `<key>` is the FX graph cache key the TORCH_TRACE
//      log records after each output code (artifact `fx_graph_cache_miss`/`_hit`). Several compiles with one
//      key are told apart by the enclosing `Torch-Compiled Region: f/c` (forward; torch/_dynamo) or
//      `CompiledFunctionBackward` (backward) and by the rank; a key nobody logged falls back to the compile
//      id and graph kind of those ranges, and without those to the one compile whose whole launch sequence is
//      the call's (no other compile fitting);
//   3. inside one call, the call's direct children in time order (CPU ops, or launch API calls made by the
//      call itself, as the C++ wrapper does) align one-to-one with the output code's launches: the i-th
//      launch takes the next child named as the profiler names that launch (JoinCompile::launchOps); children
//      that match no launch (allocations, copies) are the compile's "other" time;
//   4. every device activity under one child is summed into its launch (cuBLAS launches several kernels).
// Activities outside any compiled call are the eager remainder. Kernels that ran inside a CUDA graph replay
// (the runtime call is cudaGraphLaunch) cannot be tied to single launches: their time goes to the compile
// (graphReplayNs, and by kernel name in replayKernels for display), never to a launch.
//
// Steps: `ProfilerStep#N` ranges (profiler.step()) split the profile; a device activity belongs to the step
// whose range contains its launch on the CPU clock. When steps exist, every number of a ProfileJoin counts
// only activities inside steps, and perStep arrays hold one entry per step in step order.
//
// Thread-safety: everything here is a pure function or an immutable value.
#pragma once

#include "index/support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// What a kept profile event is.
enum class ProfileCategory : uint8_t {
  CpuOp,          ///< `cpu_op`: an operator (aten::mm) or a record_function range.
  UserAnnotation, ///< `user_annotation`: a record_function range (`## Call CompiledFxGraph ... ##`).
  Runtime,        ///< `cuda_runtime` / `cuda_driver`: a launch API call on the CPU.
  Kernel,         ///< `kernel`: a device kernel.
  Memcpy,         ///< `gpu_memcpy`.
  Memset,         ///< `gpu_memset`.
};

/// One kept `"ph": "X"` event. Times in nanoseconds on the profile's clock.
struct ProfileEvent {
  uint64_t ts = 0, dur = 0;
  int64_t externalId = -1;  ///< `args["External id"]`, -1 when absent.
  int64_t correlation = -1; ///< `args.correlation`, -1 when absent.
  uint32_t name = 0;        ///< Index into ChromeTrace::names.
  uint32_t thread = 0; ///< Index into ChromeTrace::threads (`pid:tid`; for device events `device:stream`).
  ProfileCategory category = ProfileCategory::CpuOp;
  uint64_t end() const { return ts + dur; }
};

/// Bounds on reading one profile. Memory follows what is kept, never the bytes read: the text is streamed
/// (mapped, or inflated 256 KB at a time), an event is held only while a chunk boundary cuts it (at most
/// eight times maxTokenBytes, else it is skipped as it streams by, and counted), and nothing longer than
/// maxTokenBytes is kept.
struct ProfileReadOptions {
  /// Stop after this many (decompressed) bytes; the rest is reported as truncated. Default 4 GiB.
  uint64_t maxBytes = 4ull << 30;
  /// Stop after keeping this many events (about 48 bytes each). Default 8 million.
  size_t maxEvents = 8'000'000;
  /// A string or number longer than this (bytes of JSON text) is never kept: it is counted
  /// (ChromeTrace::cutStrings), and an event that needed it (ph, cat, name, pid, tid) is skipped and counted.
  /// An event longer than eight times this (at least 64 KiB) is skipped and counted.
  /// Default 1 MiB; the longest strings of real profiles (kernel names, `Input Dims`, python stacks) are a
  /// few KB.
  size_t maxTokenBytes = 1u << 20;
  /// A whitespace run between tokens longer than this is counted (ChromeTrace::cutWhitespace); it is never
  /// held. Default 64 KiB (pretty-printed profiles indent by a few dozen bytes).
  size_t maxWhitespaceRun = 64u << 10;
  /// Arrays and objects nested deeper than this end the reading (truncated). Default 128, the most the walk
  /// of an event accepts (json_scan::kMaxDepth; a larger value reads as 128). Kineto writes 4.
  size_t maxDepth = 128;
  /// Stop (truncated) once the distinct event names and threads kept take this many bytes. Default 256 MiB.
  uint64_t maxNameBytes = 256ull << 20;
};

/// One entry of the profile's `deviceProperties` (Kineto's DeviceProperties, from cudaGetDeviceProperties):
/// `{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": bytes, "computeMajor": 9, "computeMinor": 0,
/// "numSms": 132, ...}`. Members absent or of another type stay empty.
struct DeviceProperties {
  std::optional<int> id;
  std::string name; ///< At most 256 bytes kept.
  std::optional<int> computeMajor, computeMinor, numSms;
  std::optional<uint64_t> totalGlobalMem; ///< Bytes.
  friend bool operator==(const DeviceProperties &, const DeviceProperties &) = default;
};

/// A profile as read: the kept events, in file order.
struct ChromeTrace {
  std::string path;
  std::vector<std::string> names;        ///< Interned event names.
  std::vector<std::string> threads;      ///< Interned `pid:tid` strings.
  std::vector<ProfileEvent> cpu;         ///< CpuOp, UserAnnotation and Runtime events.
  std::vector<ProfileEvent> device;      ///< Kernel, Memcpy and Memset events.
  std::optional<int> rank;               ///< `distributedInfo.rank`, when the profile has one.
  std::vector<DeviceProperties> devices; ///< `deviceProperties`, in order; at most 64 kept.
  uint64_t bytes = 0;                    ///< Bytes parsed (decompressed).
  /// Kept-category events without a usable `ts`/`dur`, or with a needed field over maxTokenBytes.
  size_t skippedEvents = 0;
  size_t cutStrings = 0;       ///< Strings and numbers over ProfileReadOptions::maxTokenBytes, not kept.
  size_t cutWhitespace = 0;    ///< Whitespace runs over ProfileReadOptions::maxWhitespaceRun, shortened.
  bool truncated = false;      ///< The text ended early, had a syntax error, or hit a bound.
  std::string problem;         ///< Why it is truncated ("syntax error at byte N: ..."), else empty.
  bool sawTraceEvents = false; ///< The document had a `traceEvents` array at all.

  const std::string &nameOf(const ProfileEvent &e) const { return names[e.name]; }
};

/// Parses a Chrome trace held in memory (plain JSON). Never fails: malformed input gives what was read
/// before the error, with `truncated` and `problem` set.
ChromeTrace parseChromeTrace(std::string_view text, std::string path = "",
                             const ProfileReadOptions &options = {});

/// Reads a Chrome trace file, plain or gzip (told by the magic bytes, not the name). Errors: the file cannot
/// be opened or mapped, or it is neither JSON nor gzip. A gzip stream that is corrupt part-way keeps what
/// was inflated before (truncated).
Expected<ChromeTrace> readChromeTrace(const std::string &path, const ProfileReadOptions &options = {});

/// Whether the first bytes of a file look like a profiler Chrome trace: gzip magic, or a JSON object whose
/// first kilobytes mention `traceEvents` or `schemaVersion`. Cheap; for discovery.
bool looksLikeChromeTrace(std::string_view head);

// ---------------------------------------------------------------------------------------------------------
// Join.

/// Which graph of a compiled frame a compile runs (what the profile can tell: forward under `Torch-Compiled
/// Region`, backward under `CompiledFunctionBackward`).
enum class JoinGraph : uint8_t { Unknown, Forward, Backward, Inference };

/// A compile as the join sees it.
struct JoinCompile {
  std::string cacheKey; ///< FX graph cache key; empty when the log recorded none.
  std::optional<int> frameId, frameCompileId;
  JoinGraph graph = JoinGraph::Unknown;
  std::optional<int> rank;
  /// Per launch of the output code, in order: the names the profiler gives its CPU op (any of them matches).
  /// See profilerOpNames().
  std::vector<std::vector<std::string>> launchOps;
};

/// The names the profiler gives the CPU op of a launch: a Triton kernel's own name (CachingAutotuner.run
/// records it), `aten::mm` for `extern_kernels.mm`, `aten::X` for `torch.ops.aten.X.default` and
/// `aten.X.out`, `aten::X` for the AOTI shim `aoti_torch_cuda_X[_out]`, `ns::op` for `torch.ops.ns.op`.
std::vector<std::string> profilerOpNames(std::string_view kernel);

/// Time of one launch of a compile.
struct LaunchTime {
  uint64_t ns = 0;               ///< Device time of every activity of this launch, all calls (in steps).
  uint32_t activities = 0;       ///< Device activities summed into ns.
  uint32_t calls = 0;            ///< Calls in which this launch was found.
  std::vector<uint64_t> perStep; ///< Per step (empty when steps are not marked).
};

/// What happened to one compile in a profile.
struct CompileTime {
  uint64_t ns = 0;            ///< Device time of everything its calls launched (launches, other, replays).
  uint64_t otherNs = 0;       ///< Of that, under children of the call that are no launch (copies, ...).
  uint64_t graphReplayNs = 0; ///< Of that, inside CUDA graph replays (per launch unknown).
  uint32_t calls = 0;         ///< `## Call CompiledFxGraph` ranges joined to this compile.
  uint32_t graphReplays = 0;  ///< Calls that replayed a CUDA graph.
  /// Launches of the output code found in no call although the compile ran (outside CUDA graphs): a join
  /// that is not exact for this compile.
  uint32_t launchesMissed = 0;
  /// How the calls were tied to the compile: by the FX graph cache key (exact), or by the compile id and
  /// graph kind of the enclosing ranges (the key was not in the log), or by the launch sequence alone
  /// (neither was known: output code found only in files): every launch found in order, nothing else
  /// launched, and no other compile fitting.
  bool byCompileId = false;
  bool bySequence = false;
  std::vector<LaunchTime> launches; ///< One per JoinCompile::launchOps entry.
  std::vector<uint64_t> perStep;
  std::map<std::string, uint64_t> replayKernels; ///< CUDA graph replays: kernel name -> ns (display only).
};

/// A `## Call CompiledFxGraph` range that could not be tied to any compile.
struct UnjoinedCall {
  std::string key;
  uint64_t ns = 0; ///< Device time under it.
};

/// The join of one profile.
struct ProfileJoin {
  std::string path;
  std::vector<CompileTime> compiles; ///< One per JoinCompile, same order.
  uint64_t totalNs = 0;              ///< Every device activity (in steps when steps are marked).
  uint64_t eagerNs = 0;              ///< Outside any compiled call.
  uint64_t unjoinedNs = 0;           ///< Inside compiled calls tied to no compile.
  uint64_t outsideStepsNs = 0;       ///< Steps marked: device time outside every step (not in the totals).
  uint64_t kernelActivities = 0;     ///< Device activities counted in totalNs.
  std::vector<std::string> steps;    ///< `ProfilerStep#N` names, in step order; empty when not marked.
  std::vector<uint64_t> stepNs;      ///< Device time per step.
  uint32_t calls = 0;                ///< `## Call CompiledFxGraph` ranges.
  std::vector<UnjoinedCall> unjoined;
  /// Activities with neither a runtime call nor a CPU op to join through (profiles without CPU activity):
  /// counted in the eager remainder, and said so.
  uint64_t unlinkedActivities = 0;
  /// Eager remainder by top-level CPU op (the outermost range that launched it), largest first, at most 20.
  std::vector<std::pair<std::string, uint64_t>> eagerOps;
};

/// Joins a profile's device activities to the launches of `compiles` (see the file comment).
ProfileJoin joinProfile(const ChromeTrace &trace, const std::vector<JoinCompile> &compiles);

} // namespace inductor::index
