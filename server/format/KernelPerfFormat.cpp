// server/format/KernelPerfFormat.cpp: how close a Triton kernel ran to the machine
// (index/runtime/Roofline.h), as hover text, the `kernels` of inductor/hotLines and explain (see
// KernelFormat.h).
#include "server/format/KernelFormat.h"

#include "index/runtime/Roofline.h"
#include "server/format/RuntimeFormat.h"
#include "server/format/WireEnums.h"

#include <cstdio>

namespace inductor::server {

namespace {

std::string number(double v) {
  char buf[32];
  // Estimates are outside input: a rate of 1e33 printed in full would not fit (and be cut without a word).
  std::snprintf(buf, sizeof buf, v >= 1e9 ? "%.3g" : v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  return buf;
}

/// A datasheet figure as printed there: "989.5", "312".
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// A peak bandwidth as the datasheet gives it: "3.35 TB/s", "1.555 TB/s", "864 GB/s".
std::string peakBandwidth(double gbPerS) {
  return gbPerS >= 1000 ? exact(gbPerS / 1000) + " TB/s" : exact(gbPerS) + " GB/s";
}

/// Whether the kernel behind a symbol is one Inductor could estimate, and its figures: a launch alone, a
/// definition's launches, or a kernel file's launches from every output code using it.
struct PerfTarget {
  bool triton = false;
  index::KernelPerf perf;
};

PerfTarget perfTarget(const index::Index &index, const index::SymbolAt &symbol) {
  PerfTarget t;
  std::optional<index::TritonKernelRef> kernel = index::tritonKernelOf(index, symbol);
  if (!kernel) return t;
  t.triton = true;
  const index::Artifact &a = index.artifact(symbol.artifact);
  if (symbol.kind == index::SymbolAt::Kind::Launch && a.kind != index::ArtifactKind::KernelSource) {
    t.perf = index::launchPerf(index, {symbol.artifact, symbol.index});
  } else if (kernel->definition >= 0) {
    t.perf = index::definitionPerf(index, symbol.artifact, static_cast<uint32_t>(kernel->definition));
  } else if (a.kernelSource) {
    // A kernel file: the time of every definition using it, against the file's own estimates.
    uint64_t ns = 0;
    uint32_t calls = 0;
    for (const auto &[artifact, definition] : a.kernelDefinitions) {
      index::KernelPerf p = index::definitionPerf(index, artifact, static_cast<uint32_t>(definition));
      ns += p.ns;
      calls += p.calls;
    }
    index::PeakChoice peak = index::peakOf(index.runtime().times);
    t.perf = index::kernelPerf(a.kernelSource->estimates, ns, calls, peak.peak ? &*peak.peak : nullptr);
  }
  return t;
}

} // namespace

std::string gbPerSText(double gbPerS) {
  return gbPerS >= 1000 ? number(gbPerS / 1000) + " TB/s" : number(gbPerS) + " GB/s";
}

std::string peakText(const index::PeakChoice &choice) {
  if (!choice.peak) return "no peaks: " + choice.why;
  const index::GpuPeak &p = *choice.peak;
  std::string s = p.model + ": " + peakBandwidth(p.memoryGbPerS) + " " + p.memory;
  s += p.tflopPerS ? ", " + exact(*p.tflopPerS) + " TFLOP/s dense " + p.dtype + " tensor"
                   : ", tensor peak unknown";
  return s + " (vendor datasheet)";
}

std::string kernelPerfText(const index::KernelPerf &perf, const index::PeakChoice &choice) {
  const index::KernelEstimates &e = perf.estimates;
  if (!e.numGb)
    return "unknown: no kernel_num_gb in the kernel's inductor_meta (run with "
           "TORCHINDUCTOR_BENCHMARK_KERNEL=1 "
           "for Inductor's byte and FLOP estimates)";
  std::string estimate = number(*e.numGb * 1e3) + " MB per launch";
  if (e.flop) estimate += *e.flop ? ", " + number(double(*e.flop) / 1e9) + " GFLOP" : ", no FLOPs counted";
  if (!perf.timed())
    return "Inductor estimates " + estimate + "; achieved rates unknown: no profile timed this kernel";
  const index::GpuPeak *peak = choice.peak ? &*choice.peak : nullptr;
  std::string s = gbPerSText(*perf.achievedGbPerS);
  if (perf.bandwidthPercent && peak)
    s += " · " + percentText(*perf.bandwidthPercent) + " of " + peak->memory + " peak (" +
         peakBandwidth(peak->memoryGbPerS) + ", " + peak->model + ")";
  if (perf.achievedTflopPerS) {
    s += " · " + number(*perf.achievedTflopPerS) + " TFLOP/s";
    if (perf.computePercent && peak)
      s += " · " + percentText(*perf.computePercent) + " of dense " + peak->dtype + " tensor peak (" +
           exact(*peak->tflopPerS) + " TFLOP/s)";
  }
  if (!peak) return s + " · " + choice.why + " (no share of peak)";
  s += " · " + std::string(index::boundName(perf.bound));
  if (perf.bound == index::Bound::Latency && perf.peakNsPerLaunch)
    s += " (at the peaks a launch would take " +
         formatDuration(static_cast<uint64_t>(*perf.peakNsPerLaunch)) + ", but none takes under ~" +
         formatDuration(index::kLaunchFloorNs) + ": fusing it away saves more than tuning it)";
  else if (e.flop && *e.flop == 0)
    s += " (Inductor counted no FLOPs: it counts matmuls, convolutions and attention only)";
  else if (!e.flop)
    s += " (no kernel_flop: judged by bandwidth alone)";
  if (perf.bandwidthPercent && *perf.bandwidthPercent > 100)
    s += " · above the DRAM peak: served from cache, or the byte estimate counts more than was moved";
  if (perf.computePercent && *perf.computePercent > 100)
    s += " · above the tensor peak: the FLOP estimate counts more than was computed";
  s += " · " + formatDuration(static_cast<uint64_t>(perf.meanNs())) + " per launch over " +
       std::to_string(perf.calls) + (perf.calls == 1 ? " launch" : " launches");
  if (perf.timeLeftNs) s += ", " + formatDuration(*perf.timeLeftNs) + " left on the table in all";
  return s;
}

std::string kernelPerfMarkdown(const index::Index &index, const index::SymbolAt &symbol) {
  PerfTarget t = perfTarget(index, symbol);
  if (!t.triton) return {};
  return "\n\n**Roofline:** " + kernelPerfText(t.perf, index::peakOf(index.runtime().times));
}

void addLaunchPerf(const index::Index &index, index::LaunchRef ref, const index::PeakChoice &choice,
                   protocol::HotKernel &k) {
  index::KernelPerf p = index::launchPerf(index, ref);
  const index::Launch &l = index.launch(ref);
  if (l.definition < 0 || l.kind == index::KernelKind::Extern || l.kind == index::KernelKind::Cpp) {
    k.roofline = "not a Triton kernel: Inductor estimates only its Triton kernels";
    return;
  }
  k.numGb = p.estimates.numGb;
  if (p.estimates.flop) k.flop = double(*p.estimates.flop);
  k.achievedGbPerS = p.achievedGbPerS;
  k.achievedTflopPerS = p.achievedTflopPerS;
  k.peakPercent = p.peakPercent();
  k.bound = wireEnum(p.bound);
  k.timeLeftNs = p.timeLeftNs;
  k.roofline = kernelPerfText(p, choice);
}

void addKernelPerf(const index::Index &index, const index::SymbolAt &symbol, protocol::KernelResources &r) {
  PerfTarget t = perfTarget(index, symbol);
  if (!t.triton) return;
  r.numGb = t.perf.estimates.numGb;
  if (t.perf.estimates.flop) r.flop = double(*t.perf.estimates.flop);
  r.achievedGbPerS = t.perf.achievedGbPerS;
  r.achievedTflopPerS = t.perf.achievedTflopPerS;
}

} // namespace inductor::server
