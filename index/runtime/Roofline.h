// index/runtime/Roofline.h: how close each Triton kernel ran to the machine. Inductor's estimates of one
// launch (KernelEstimates: `kernel_num_gb`, `kernel_flop` in the kernel's inductor_meta, written with
// TORCHINDUCTOR_BENCHMARK_KERNEL=1) divided by the measured device time per launch (a profile joined,
// Runtime.h) give the achieved GB/s and TFLOP/s; the GPU's peaks (a table per GPU model, chosen from the
// profile's `deviceProperties`) give the share of peak, the bound (roofline) and the time left on the table.
//
// Units: GB and GB/s are decimal (1e9 bytes), as Inductor's kernel_num_gb and the datasheets; TFLOP/s is 1e12
// FLOP per second; times are nanoseconds of device time.
//
// Roofline: a launch moving B bytes and doing F FLOPs cannot take less than max(B / peak bandwidth,
// F / peak FLOP/s). Its arithmetic intensity F / B against the ridge point (peak FLOP/s / peak bandwidth)
// says which bound applies. Inductor counts FLOPs only for the ops torch.utils.flop_counter has a formula for
// (matmuls, convolutions, attention), so kernel_flop 0 means "none counted": such a kernel is judged by its
// bytes alone (memory-bound by those estimates), and its TFLOP/s is unknown, never 0. Without kernel_flop
// (profile_bandwidth alone) the bound is unknown, and the time left is measured against bandwidth alone.
//
// Thread-safety: pure functions of an index and immutable tables.
#pragma once

#include "index/runtime/Runtime.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// A GPU model's peaks, from its vendor datasheet (see the table in Roofline.cpp).
struct GpuPeak {
  std::string model;               ///< "H100 SXM", "A100 SXM4 80GB", ...
  std::string memory;              ///< "HBM" or "GDDR": what its bandwidth is of.
  double memoryGbPerS = 0;         ///< Peak DRAM (HBM/GDDR) bandwidth, GB/s.
  std::optional<double> tflopPerS; ///< Dense (no sparsity) tensor-core peak, TFLOP/s; nullopt when unknown.
  std::string dtype;               ///< The precision of tflopPerS: "BF16/FP16" ("FP16" before Ampere).
  std::optional<int> sms;          ///< The full part's SM count, when the table knows it.
};

/// The peaks of a device as a profile describes it (`deviceProperties`: the name as cudaGetDeviceProperties
/// gives it, "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "Tesla V100-SXM2-16GB"); nullopt when the
/// table does not know the model, or the device is a MIG slice or has another SM count than the full part
/// (its peaks are not the part's). `why` (optional) says why not.
std::optional<GpuPeak> gpuPeakOf(const DeviceProperties &device, std::string *why = nullptr);

/// The peaks for an index: those of the one GPU model its profiles name (RuntimeTimes::devices); nullopt,
/// with `why` ("no profile names its GPU", "unknown GPU 'X'", "the profiles name several GPU models"),
/// otherwise.
struct PeakChoice {
  std::optional<GpuPeak> peak;
  std::string device; ///< The device name the profiles give (empty when none).
  std::string why;    ///< Empty when `peak` is set.
};
PeakChoice peakOf(const RuntimeTimes &times);

/// The least device time a kernel launch takes, whatever it moves or computes: its launch, the wave's ramp,
/// a DRAM round trip or two. The shortest kernels the fixtures' profiles time on an H100 (1,449 kernels, the
/// trivial elementwise ones of PyTorch and Inductor) take 0.93-0.99 µs; other NVIDIA data-center GPUs are of
/// the same order. A kernel whose time at the peaks is below this floor is latency-bound: neither bandwidth
/// nor FLOPs limit it, and tuning it cannot bring it under the floor (fusing it away can).
constexpr uint64_t kLaunchFloorNs = 1000;

/// Which term of the roofline limits a launch: max(bytes / peak bandwidth, FLOPs / peak FLOP/s,
/// kLaunchFloorNs).
enum class Bound : uint8_t { Unknown, Memory, Compute, Latency };
/// "memory-bound", "compute-bound", "latency-bound", "bound unknown".
std::string_view boundName(Bound bound);

/// A kernel's achieved rates and roofline figures over some launches.
struct KernelPerf {
  KernelEstimates estimates;
  uint64_t ns = 0;                         ///< Measured device time, all calls.
  uint32_t calls = 0;                      ///< Launches timed (ns / calls is the mean time per launch).
  std::optional<double> achievedGbPerS;    ///< numGb per mean launch time.
  std::optional<double> achievedTflopPerS; ///< kernel_flop per mean launch time; nullopt when 0 or absent.
  std::optional<double> bandwidthPercent;  ///< Of the peak bandwidth, 0..100 (more: the estimate is off).
  std::optional<double> computePercent;    ///< Of the dense tensor peak.
  Bound bound = Bound::Unknown;
  /// The least time the launches could take at the peaks (bandwidth alone when the bound is unknown), never
  /// below kLaunchFloorNs per launch (UINT64_MAX when it does not fit), and the measured time minus that,
  /// never below 0 (ns; all calls). 0 left when the measured time beat the peaks: the estimates count more
  /// than was moved or computed (bandwidthPercent or computePercent over 100 says which).
  std::optional<uint64_t> timeAtPeakNs, timeLeftNs;
  /// The time one launch would take at the peaks, without the floor (ns); set with timeAtPeakNs.
  std::optional<double> peakNsPerLaunch;

  bool timed() const { return calls > 0 && ns > 0; }
  double meanNs() const { return calls ? double(ns) / calls : 0.0; }
  /// Of the bound's peak: bandwidthPercent when memory-bound or unknown, computePercent when compute-bound;
  /// when latency-bound, the floor's share of the mean time per launch (100: as short as a launch gets).
  std::optional<double> peakPercent() const {
    if (bound == Bound::Latency)
      return timed() ? std::optional<double>(100.0 * kLaunchFloorNs / meanNs()) : std::nullopt;
    return bound == Bound::Compute ? computePercent : bandwidthPercent;
  }
};

/// The figures of `estimates` over `ns` of device time in `calls` launches, against `peak` (nullptr: rates
/// only). Rates need estimates and time; every member missing an input stays nullopt.
KernelPerf kernelPerf(const KernelEstimates &estimates, uint64_t ns, uint32_t calls, const GpuPeak *peak);

/// Inductor's estimates of the Triton kernel a launch runs (its definition in the output code); nullptr for
/// extern kernels and launches without a definition.
const KernelEstimates *launchEstimates(const Index &index, LaunchRef ref);
/// The figures of one launch (its timing over every profile) against the index's peaks.
KernelPerf launchPerf(const Index &index, LaunchRef ref);
/// The figures of a kernel definition of an output code: its estimates and the timings of every launch of it
/// in that artifact, summed.
KernelPerf definitionPerf(const Index &index, ArtifactId artifact, uint32_t definition);

/// Every timed launch with a time left on the table, most time left first (hotLaunches' order among equals):
/// where tuning pays the most.
struct LaunchTimeLeft {
  LaunchRef ref;
  KernelPerf perf;
};
std::vector<LaunchTimeLeft> launchesByTimeLeft(const Index &index);

} // namespace inductor::index
