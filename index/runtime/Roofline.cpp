// index/runtime/Roofline.cpp: see Roofline.h.
#include "index/runtime/Roofline.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace inductor::index {

namespace {

/// A row of the table: the device name as cudaGetDeviceProperties gives it contains `pattern` and none of
/// `unless`; earlier rows win (the NVL and PCIe parts before the SXM one of the same family).
struct PeakRow {
  std::string_view pattern, unless;
  std::string_view model, memory;
  double memoryGbPerS;
  double tflopPerS; ///< Dense; 0 when no datasheet gives it.
  std::string_view dtype;
  int sms; ///< Of the full part; 0 when unchecked.
};

// Peaks from the vendors' datasheets. Bandwidth: "GPU memory bandwidth". TFLOP/s: the dense tensor-core peak
// of the precision Inductor's matmul templates mostly run (BF16/FP16 with FP32 accumulation); the datasheets
// list the 2:4-sparsity figure with an asterisk, which is twice the dense one given here.
//   - NVIDIA H100 Tensor Core GPU datasheet: H100 SXM 3.35 TB/s, BF16 1,979* TFLOPS; H100 PCIe 2 TB/s,
//     1,513*; H100 NVL 3.9 TB/s, 1,671*. SMs: 132 (SXM, NVL), 114 (PCIe).
//   - NVIDIA H200 Tensor Core GPU datasheet: H200 SXM 4.8 TB/s, BF16 1,979*; H200 NVL 4.8 TB/s, 1,671*.
//   - NVIDIA A100 Tensor Core GPU datasheet: 40GB PCIe and SXM 1,555 GB/s, 80GB PCIe 1,935 GB/s, 80GB SXM
//     2,039 GB/s; BF16 312 TFLOPS (624*). 108 SMs.
//   - NVIDIA A10 datasheet: 600 GB/s, BF16 125 TFLOPS (250*). 72 SMs. The A10G (AWS G5) has 600 GB/s (AWS)
//     and no NVIDIA datasheet: its tensor peak is left unknown. 80 SMs.
//   - NVIDIA L4 datasheet: 300 GB/s, BF16 242 TFLOPS*. 58 SMs.
//   - NVIDIA L40S datasheet: 864 GB/s, BF16 362.05 | 733* TFLOPS; L40: 864 GB/s, 181.05 | 362.1*. 142 SMs.
//   - NVIDIA V100 datasheet: SXM2 900 GB/s, 125 TFLOPS tensor (FP16); PCIe 900 GB/s, 112; V100S PCIe
//     1,134 GB/s, 130. 80 SMs. No BF16 before Ampere.
//   - NVIDIA T4 datasheet: 320 GB/s, FP16 mixed precision 65 TFLOPS. 40 SMs.
constexpr std::array<PeakRow, 18> kPeaks{{
    {"H100 NVL", "", "H100 NVL", "HBM", 3900, 835.5, "BF16/FP16", 132},
    {"H100 PCIe", "", "H100 PCIe", "HBM", 2000, 756.5, "BF16/FP16", 114},
    {"H100", "GH", "H100 SXM", "HBM", 3350, 989.5, "BF16/FP16", 132},
    {"H200 NVL", "", "H200 NVL", "HBM", 4800, 835.5, "BF16/FP16", 132},
    {"H200", "GH", "H200 SXM", "HBM", 4800, 989.5, "BF16/FP16", 132},
    {"A100-SXM4-80GB", "", "A100 SXM4 80GB", "HBM", 2039, 312, "BF16/FP16", 108},
    {"A100 80GB PCIe", "", "A100 PCIe 80GB", "HBM", 1935, 312, "BF16/FP16", 108},
    {"A100-PCIE-80GB", "", "A100 PCIe 80GB", "HBM", 1935, 312, "BF16/FP16", 108},
    {"A100-SXM4-40GB", "", "A100 SXM4 40GB", "HBM", 1555, 312, "BF16/FP16", 108},
    {"A100-PCIE-40GB", "", "A100 PCIe 40GB", "HBM", 1555, 312, "BF16/FP16", 108},
    {"A10G", "", "A10G", "GDDR", 600, 0, "", 80},
    {"A10", "A100", "A10", "GDDR", 600, 125, "BF16/FP16", 72},
    {"L40S", "", "L40S", "GDDR", 864, 362.05, "BF16/FP16", 142},
    {"L40", "", "L40", "GDDR", 864, 181.05, "BF16/FP16", 142},
    {"L4", "L40", "L4", "GDDR", 300, 121, "BF16/FP16", 58},
    {"V100S", "", "V100S PCIe", "HBM", 1134, 130, "FP16", 80},
    {"V100-SXM2", "", "V100 SXM2", "HBM", 900, 125, "FP16", 80},
    {"V100-PCIE", "", "V100 PCIe", "HBM", 900, 112, "FP16", 80},
}};
// T4 is matched apart: "T4" is a substring of too many names.
constexpr PeakRow kT4{"Tesla T4", "", "T4", "GDDR", 320, 65, "FP16", 40};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

KernelPerf perfOf(const KernelEstimates &e, uint64_t ns, uint32_t calls, const GpuPeak *peak) {
  KernelPerf p;
  p.estimates = e;
  p.ns = ns;
  p.calls = calls;
  if (!p.timed() || !e.numGb) return p;
  double seconds = p.meanNs() * 1e-9;
  p.achievedGbPerS = *e.numGb / seconds;
  if (e.flop && *e.flop > 0) p.achievedTflopPerS = double(*e.flop) / seconds / 1e12;
  if (!peak || peak->memoryGbPerS <= 0) return p;
  p.bandwidthPercent = 100.0 * *p.achievedGbPerS / peak->memoryGbPerS;
  double memoryNs = *e.numGb / peak->memoryGbPerS * 1e9; // Per launch.
  double computeNs = 0;
  if (p.achievedTflopPerS && peak->tflopPerS) {
    p.computePercent = 100.0 * *p.achievedTflopPerS / *peak->tflopPerS;
    computeNs = double(*e.flop) / (*peak->tflopPerS * 1e12) * 1e9;
  }
  // Intensity against the ridge point is the same comparison as the two times at peak.
  if (e.flop && *e.flop == 0)
    p.bound = Bound::Memory; // No FLOPs counted: the bytes are all the estimates say.
  else if (e.flop && peak->tflopPerS)
    p.bound = computeNs > memoryNs ? Bound::Compute : Bound::Memory;
  p.peakNsPerLaunch = std::max(memoryNs, computeNs);
  // Under the floor, neither term limits the launch (with the FLOPs unknown, the bound stays unknown).
  if (p.bound != Bound::Unknown && *p.peakNsPerLaunch < double(kLaunchFloorNs)) p.bound = Bound::Latency;
  double atPeak = std::max(*p.peakNsPerLaunch, double(kLaunchFloorNs)) * calls;
  // Estimates are outside input (kernel_flop up to 1.8e19, kernel_num_gb up to 1e30): a time at the peaks
  // past what 64 bits of nanoseconds hold is taken as that much (llround of it is undefined), which leaves
  // no time on the table, as any time at the peaks longer than the measured one does.
  p.timeAtPeakNs = atPeak >= 18446744073709549568.0 ? UINT64_MAX : static_cast<uint64_t>(std::round(atPeak));
  p.timeLeftNs = ns > *p.timeAtPeakNs ? ns - *p.timeAtPeakNs : 0;
  return p;
}

} // namespace

std::optional<GpuPeak> gpuPeakOf(const DeviceProperties &device, std::string *why) {
  auto fail = [&](std::string reason) -> std::optional<GpuPeak> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const std::string &name = device.name;
  if (name.empty()) return fail("the profile does not name its GPU");
  if (contains(name, "MIG")) return fail(name + " is a MIG slice: its peaks are not the whole GPU's");
  const PeakRow *row = nullptr;
  for (const PeakRow &r : kPeaks)
    if (contains(name, r.pattern) && (r.unless.empty() || !contains(name, r.unless))) {
      row = &r;
      break;
    }
  if (!row && contains(name, kT4.pattern)) row = &kT4;
  if (!row) return fail("no peaks known for " + name);
  if (row->sms && device.numSms && *device.numSms != row->sms)
    return fail(name + " has " + std::to_string(*device.numSms) + " SMs, the " + std::string(row->model) +
                " " + std::to_string(row->sms) + ": not the part the table knows");
  GpuPeak p;
  p.model = row->model;
  p.memory = row->memory;
  p.memoryGbPerS = row->memoryGbPerS;
  if (row->tflopPerS > 0) p.tflopPerS = row->tflopPerS;
  p.dtype = row->dtype;
  if (row->sms) p.sms = row->sms;
  return p;
}

PeakChoice peakOf(const RuntimeTimes &times) {
  PeakChoice c;
  if (times.devices.empty()) {
    c.why = times.present() ? "no profile names its GPU (deviceProperties)" : "no profile";
    return c;
  }
  for (const DeviceProperties &d : times.devices)
    if (d.name != times.devices.front().name) {
      c.why = "the profiles name several GPU models (" + times.devices.front().name + ", " + d.name + ")";
      return c;
    }
  c.device = times.devices.front().name;
  std::string why;
  for (const DeviceProperties &d : times.devices) {
    std::optional<GpuPeak> p = gpuPeakOf(d, &why);
    if (!p) {
      c.peak.reset();
      c.why = why;
      return c;
    }
    if (!c.peak) c.peak = std::move(p);
  }
  return c;
}

std::string_view boundName(Bound bound) {
  switch (bound) {
  case Bound::Memory:
    return "memory-bound";
  case Bound::Compute:
    return "compute-bound";
  case Bound::Latency:
    return "latency-bound";
  case Bound::Unknown:
    break;
  }
  return "bound unknown";
}

KernelPerf kernelPerf(const KernelEstimates &estimates, uint64_t ns, uint32_t calls, const GpuPeak *peak) {
  return perfOf(estimates, ns, calls, peak);
}

const KernelEstimates *launchEstimates(const Index &index, LaunchRef ref) {
  if (!ref.artifact.valid()) return nullptr;
  const Artifact &a = index.artifact(ref.artifact);
  if (ref.index >= a.launches.size()) return nullptr;
  int d = a.launches[ref.index].definition;
  if (d < 0 || static_cast<size_t>(d) >= a.code.kernels.size()) return nullptr;
  return &a.code.kernels[static_cast<size_t>(d)].estimates;
}

KernelPerf launchPerf(const Index &index, LaunchRef ref) {
  PeakChoice peak = peakOf(index.runtime().times);
  const KernelEstimates *e = launchEstimates(index, ref);
  const LaunchTiming *t = launchTiming(index, ref);
  return perfOf(e ? *e : KernelEstimates{}, t ? t->ns : 0, t ? t->calls : 0,
                peak.peak ? &*peak.peak : nullptr);
}

KernelPerf definitionPerf(const Index &index, ArtifactId artifact, uint32_t definition) {
  if (!artifact.valid()) return {};
  const Artifact &a = index.artifact(artifact);
  if (definition >= a.code.kernels.size()) return {};
  uint64_t ns = 0;
  uint32_t calls = 0;
  for (uint32_t l = 0; l < a.launches.size(); ++l)
    if (a.launches[l].definition == static_cast<int>(definition))
      if (const LaunchTiming *t = launchTiming(index, {artifact, l})) {
        ns += t->ns;
        calls += t->calls;
      }
  PeakChoice peak = peakOf(index.runtime().times);
  return perfOf(a.code.kernels[definition].estimates, ns, calls, peak.peak ? &*peak.peak : nullptr);
}

std::vector<LaunchTimeLeft> launchesByTimeLeft(const Index &index) {
  PeakChoice peak = peakOf(index.runtime().times);
  std::vector<LaunchTimeLeft> out;
  if (!peak.peak) return out;
  for (const TimedLaunch &t : hotLaunches(index)) {
    const KernelEstimates *e = launchEstimates(index, t.ref);
    if (!e || !e->numGb) continue;
    KernelPerf p = perfOf(*e, t.timing->ns, t.timing->calls, &*peak.peak);
    if (p.timeLeftNs) out.push_back({t.ref, p});
  }
  std::stable_sort(out.begin(), out.end(), [](const LaunchTimeLeft &a, const LaunchTimeLeft &b) {
    return *a.perf.timeLeftNs > *b.perf.timeLeftNs;
  });
  return out;
}

} // namespace inductor::index
