// Tests for Inductor's per-kernel estimates (index/analysis/OutputCode.h: KernelEstimates), the profile's
// deviceProperties (index/runtime/Profile.h) and the roofline figures (index/runtime/Roofline.h): text shaped
// as torch/_inductor/codegen/triton.py writes it (`inductor_meta={...!r}`: Python's repr of the dict), the
// real profiles' device entries checked against nlohmann's DOM, and the arithmetic against hand-computed
// values.
#include "index/analysis/OutputCode.h"
#include "index/runtime/Profile.h"
#include "index/runtime/Roofline.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace inductor::index;
using json = nlohmann::json;

namespace {

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A wrapper as Inductor writes it with TORCHINDUCTOR_BENCHMARK_KERNEL=1: a pointwise kernel (no FLOPs
// counted), a template (matmul FLOPs), and one kernel without the keys.
const char *kWrapper = R"PY(
from torch._inductor.runtime import triton_heuristics

# kernel path: /tmp/cache/ab/cabc.py
triton_poi_fused_gelu_0 = async_compile.triton('triton_poi_fused_gelu_0', '''
import triton

@triton_heuristics.pointwise(
    size_hints={'x': 33554432}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'xnumel': 'i32'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, warp_size=32), 'constants': {}},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_gelu_0', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'kernel_num_gb': 0.134217728, 'kernel_flop': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_gelu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 33554432
''', device_str='cuda')


triton_tem_fused_mm_1 = async_compile.triton('triton_tem_fused_mm_1', '''
import triton

@triton_heuristics.template(

num_stages=3,
num_warps=8,
triton_meta={'signature': {'arg_A': '*fp16'}, 'device': DeviceProperties(type='cuda', index=0), 'constants': {}},
inductor_meta={'kernel_name': 'triton_tem_fused_mm_1', 'backend_hash': 'AB', 'kernel_num_gb': 2.5165824e-05, 'kernel_flop': 17179869184, 'config_args': {'BLOCK_M': 128}},

)
@triton.jit
def triton_tem_fused_mm_1(arg_A, arg_B, out_ptr0):
    pass
''', device_str='cuda')


triton_red_fused_sum_2 = async_compile.triton('triton_red_fused_sum_2', '''
import triton

@triton_heuristics.reduction(
    size_hints={'x': 64, 'r0_': 256},
    inductor_meta={'kernel_name': 'triton_red_fused_sum_2'},
)
@triton.jit
def triton_red_fused_sum_2(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    pass
''', device_str='cuda')
)PY";

const KernelDefinition *kernelNamed(const OutputCodeAnalysis &a, std::string_view name) {
  for (const KernelDefinition &k : a.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

} // namespace

TEST_CASE("Roofline: estimates from an inductor_meta line") {
  KernelEstimates e = parseKernelEstimates(
      "    inductor_meta={'kernel_name': 'k', 'kernel_num_gb': 0.012582912, 'kernel_flop': 1073741824},");
  REQUIRE(e.numGb);
  CHECK(*e.numGb == doctest::Approx(0.012582912));
  REQUIRE(e.flop);
  CHECK(*e.flop == 1073741824u);
  // Python's repr of small floats is in scientific notation.
  e = parseKernelEstimates("inductor_meta={'kernel_num_gb': 4.096e-06, 'kernel_name': 'k'}");
  REQUIRE(e.numGb);
  CHECK(*e.numGb == doctest::Approx(4.096e-06));
  CHECK_FALSE(e.flop);
  // kernel_num_gb alone (config.profile_bandwidth), at the end of the dict.
  e = parseKernelEstimates("inductor_meta={'kernel_name': 'k', 'kernel_num_gb': 1.5}");
  CHECK(e.numGb == 1.5);
  // Absent, or not a number: nothing invented.
  CHECK(parseKernelEstimates("inductor_meta={'kernel_name': 'k'}") == KernelEstimates{});
  CHECK(parseKernelEstimates("inductor_meta={'kernel_num_gb': None, 'kernel_flop': None}") ==
        KernelEstimates{});
  CHECK(parseKernelEstimates("inductor_meta={'kernel_num_gb': -1.0}") == KernelEstimates{});
  CHECK(parseKernelEstimates("inductor_meta={'kernel_num_gb': 1.0.0}") == KernelEstimates{});
  CHECK(parseKernelEstimates("inductor_meta={'kernel_num_gb': nan}") == KernelEstimates{});
  CHECK(parseKernelEstimates("inductor_meta={'kernel_num_gb': ") == KernelEstimates{});
  // Only inductor_meta lines: the same words in a comment or the kernel body are not the estimates.
  CHECK(parseKernelEstimates("# 'kernel_num_gb': 1.0") == KernelEstimates{});
  CHECK(parseKernelEstimates("triton_meta={'kernel_num_gb': 1.0}") == KernelEstimates{});
}

TEST_CASE("Roofline: the wrapper's and the kernel file's estimates") {
  std::string text = kWrapper;
  OutputCodeAnalysis a = analyzePythonWrapper(splitLines(text));
  const KernelDefinition *poi = kernelNamed(a, "triton_poi_fused_gelu_0");
  const KernelDefinition *tem = kernelNamed(a, "triton_tem_fused_mm_1");
  const KernelDefinition *red = kernelNamed(a, "triton_red_fused_sum_2");
  REQUIRE(poi);
  REQUIRE(tem);
  REQUIRE(red);
  CHECK(poi->estimates.numGb == 0.134217728);
  CHECK(poi->estimates.flop == uint64_t{0});
  CHECK(tem->estimates.numGb == 2.5165824e-05);
  CHECK(tem->estimates.flop == uint64_t{17179869184});
  CHECK(tem->kind == KernelKind::Template);
  CHECK(red->estimates == KernelEstimates{});

  // The cache's kernel file: the same source at module level.
  std::string file =
      "import triton\n\n@triton_heuristics.pointwise(\n    size_hints={'x': 1024},\n"
      "    inductor_meta={'kernel_name': 'triton_poi_fused_0', 'kernel_num_gb': 8.192e-06, "
      "'kernel_flop': 0},\n)\n@triton.jit\ndef triton_poi_fused_0(in_ptr0, xnumel):\n    pass\n";
  std::optional<KernelSourceFile> k = analyzeKernelSource(splitLines(file));
  REQUIRE(k);
  CHECK(k->name == "triton_poi_fused_0");
  CHECK(k->estimates.numGb == 8.192e-06);
  CHECK(k->estimates.flop == uint64_t{0});
  // A template's kernel file: the decorator's arguments at column 0, as select_algorithm.py writes them.
  std::string temFile =
      "import triton\n\n@triton_heuristics.template(\n\nnum_stages=3,\nnum_warps=4,\n"
      "inductor_meta={'kernel_name': 'triton_tem_fused_mm_0', 'kernel_num_gb': 0.025165824, "
      "'kernel_flop': 17179869184},\n\n)\n@triton.jit\ndef triton_tem_fused_mm_0(arg_A):\n"
      "    pass\n";
  k = analyzeKernelSource(splitLines(temFile));
  REQUIRE(k);
  CHECK(k->name == "triton_tem_fused_mm_0");
  CHECK(k->estimates.numGb == 0.025165824);
  CHECK(k->estimates.flop == uint64_t{17179869184});
}

TEST_CASE("Roofline: deviceProperties of a profile") {
  ChromeTrace t = parseChromeTrace(
      R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
          "totalGlobalMem": 85017493504, "computeMajor": 9, "computeMinor": 0, "numSms": 132,
          "nested": {"name": "not this"}},
         {"id": 1, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, "computeMinor": 0, "numSms": "x"}],
         "traceEvents": []})");
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].id == 0);
  CHECK(t.devices[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(t.devices[0].totalGlobalMem == uint64_t{85017493504});
  CHECK(t.devices[0].computeMajor == 9);
  CHECK(t.devices[0].computeMinor == 0);
  CHECK(t.devices[0].numSms == 132);
  CHECK(t.devices[1].name == "NVIDIA A100-SXM4-40GB");
  CHECK_FALSE(t.devices[1].numSms); // Not an integer: left unknown.
  CHECK(t.sawTraceEvents);
  // After traceEvents too, and none at all.
  t = parseChromeTrace(R"({"traceEvents": [], "deviceProperties": [{"name": "Tesla T4"}]})");
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].name == "Tesla T4");
  CHECK(parseChromeTrace(R"({"traceEvents": []})").devices.empty());

  // The real profiles, against nlohmann's DOM.
  for (const char *rel : {"/traces/profiled_mlp/profile.json", "/traces/runs_gpt/profile_base.json"}) {
    std::string path = std::string(INDUCTOR_FIXTURES_DIR) + rel;
    std::string text = readAll(path);
    json dom = json::parse(text);
    ChromeTrace real = parseChromeTrace(text, path);
    REQUIRE(real.devices.size() == dom["deviceProperties"].size());
    for (size_t i = 0; i < real.devices.size(); ++i) {
      const json &d = dom["deviceProperties"][i];
      CHECK(real.devices[i].name == d["name"].get<std::string>());
      CHECK(real.devices[i].numSms == d["numSms"].get<int>());
      CHECK(real.devices[i].computeMajor == d["computeMajor"].get<int>());
      CHECK(real.devices[i].totalGlobalMem == d["totalGlobalMem"].get<uint64_t>());
    }
  }
}

TEST_CASE("Roofline: the peaks of GPU models") {
  auto peak = [](std::string name, std::optional<int> sms = std::nullopt) {
    DeviceProperties d;
    d.name = std::move(name);
    d.numSms = sms;
    return gpuPeakOf(d);
  };
  std::optional<GpuPeak> h100 = peak("NVIDIA H100 80GB HBM3", 132);
  REQUIRE(h100);
  CHECK(h100->model == "H100 SXM");
  CHECK(h100->memoryGbPerS == 3350);
  CHECK(h100->tflopPerS == 989.5);
  CHECK(h100->memory == "HBM");
  CHECK(peak("NVIDIA H100 PCIe")->memoryGbPerS == 2000);
  CHECK(peak("NVIDIA H100 NVL")->memoryGbPerS == 3900);
  CHECK(peak("NVIDIA H200")->memoryGbPerS == 4800);
  CHECK(peak("NVIDIA H200 NVL")->model == "H200 NVL");
  CHECK(peak("NVIDIA A100-SXM4-40GB")->memoryGbPerS == 1555);
  CHECK(peak("NVIDIA A100-SXM4-80GB")->memoryGbPerS == 2039);
  CHECK(peak("NVIDIA A100 80GB PCIe")->memoryGbPerS == 1935);
  CHECK(peak("NVIDIA A100-SXM4-80GB")->tflopPerS == 312);
  CHECK(peak("NVIDIA A10")->model == "A10");
  CHECK(peak("NVIDIA A10G")->model == "A10G");
  CHECK_FALSE(peak("NVIDIA A10G")->tflopPerS); // No datasheet: unknown, not guessed.
  CHECK(peak("NVIDIA L4")->memoryGbPerS == 300);
  CHECK(peak("NVIDIA L40S")->model == "L40S");
  CHECK(peak("Tesla V100-SXM2-16GB")->dtype == "FP16");
  CHECK(peak("Tesla T4")->memoryGbPerS == 320);
  // Unknown models, MIG slices and cut-down parts: no peaks, with why.
  std::string why;
  DeviceProperties d;
  d.name = "NVIDIA GeForce RTX 4090";
  CHECK_FALSE(gpuPeakOf(d, &why));
  CHECK(why.find("no peaks known for NVIDIA GeForce RTX 4090") != std::string::npos);
  d.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
  CHECK_FALSE(gpuPeakOf(d, &why));
  CHECK(why.find("MIG") != std::string::npos);
  d.name = "NVIDIA H100 80GB HBM3";
  d.numSms = 16;
  CHECK_FALSE(gpuPeakOf(d, &why));
  CHECK(why.find("16 SMs") != std::string::npos);
  d.name.clear();
  CHECK_FALSE(gpuPeakOf(d));

  // An index's choice: one model, else none.
  RuntimeTimes times;
  CHECK_FALSE(peakOf(times).peak);
  times.profiles.emplace_back();
  CHECK(peakOf(times).why.find("deviceProperties") != std::string::npos);
  DeviceProperties h;
  h.name = "NVIDIA H100 80GB HBM3";
  h.numSms = 132;
  times.devices.push_back(h);
  PeakChoice c = peakOf(times);
  REQUIRE(c.peak);
  CHECK(c.device == "NVIDIA H100 80GB HBM3");
  DeviceProperties a;
  a.name = "NVIDIA A100-SXM4-40GB";
  times.devices.push_back(a);
  c = peakOf(times);
  CHECK_FALSE(c.peak);
  CHECK(c.why.find("several GPU models") != std::string::npos);
}

TEST_CASE("Roofline: achieved rates, bound and time left") {
  GpuPeak h100;
  h100.model = "H100 SXM";
  h100.memory = "HBM";
  h100.memoryGbPerS = 3350;
  h100.tflopPerS = 989.5;
  h100.dtype = "BF16/FP16";

  // A pointwise kernel: 0.134217728 GB per launch, 3 launches in 300 µs (100 µs each).
  KernelEstimates poi{0.134217728, 0};
  KernelPerf p = kernelPerf(poi, 300'000, 3, &h100);
  REQUIRE(p.achievedGbPerS);
  CHECK(*p.achievedGbPerS == doctest::Approx(0.134217728 / 100e-6));
  CHECK_FALSE(p.achievedTflopPerS); // None counted: unknown, never 0.
  CHECK(*p.bandwidthPercent == doctest::Approx(100.0 * (0.134217728 / 100e-6) / 3350));
  CHECK(p.bound == Bound::Memory);
  // At peak: 0.134217728 GB / 3350 GB/s = 40.065 µs per launch.
  CHECK(*p.timeAtPeakNs == uint64_t(std::llround(0.134217728 / 3350 * 1e9 * 3)));
  CHECK(*p.timeLeftNs == 300'000 - *p.timeAtPeakNs);
  CHECK(p.peakPercent() == p.bandwidthPercent);

  // A matmul: 2048³·2 FLOPs, 25.2 MB, 50 µs per launch: intensity far above the ridge (295 FLOP/B).
  KernelEstimates mm{2.5165824e-02, 17179869184};
  p = kernelPerf(mm, 100'000, 2, &h100);
  CHECK(*p.achievedTflopPerS == doctest::Approx(17179869184.0 / 50e-6 / 1e12));
  CHECK(p.bound == Bound::Compute);
  CHECK(*p.computePercent == doctest::Approx(100.0 * 17179869184.0 / 50e-6 / 1e12 / 989.5));
  CHECK(p.peakPercent() == p.computePercent);
  CHECK(*p.timeAtPeakNs == uint64_t(std::llround(17179869184.0 / 989.5e12 * 1e9 * 2)));

  // No kernel_flop (profile_bandwidth alone): bandwidth figures, bound unknown, time left by bandwidth.
  p = kernelPerf(KernelEstimates{0.134217728, std::nullopt}, 300'000, 3, &h100);
  CHECK(p.bound == Bound::Unknown);
  CHECK(p.bandwidthPercent);
  CHECK(p.timeLeftNs);

  // A launch whose bytes take 40 ns at peak (134 KB): under the launch floor, latency-bound. The least time
  // is the floor, not the bandwidth's, so a 1.5 µs launch leaves 0.5 µs, not 1.46 µs, on the table.
  // The floor as Roofline.h states it (1 µs: the fixtures' shortest kernels take 0.93-0.99 µs on an H100),
  // written here rather than read from the product, so that a changed floor fails until this is revisited.
  constexpr uint64_t kFloorNs = 1'000;
  KernelEstimates tiny{0.000134217728, 0};
  p = kernelPerf(tiny, 3'000, 2, &h100);
  CHECK(p.bound == Bound::Latency);
  CHECK(boundName(p.bound) == "latency-bound");
  CHECK(*p.peakNsPerLaunch == doctest::Approx(0.000134217728 / 3350 * 1e9));
  CHECK(*p.timeAtPeakNs == 2 * kFloorNs);
  CHECK(*p.timeLeftNs == 3'000 - 2 * kFloorNs);
  CHECK(*p.peakPercent() == doctest::Approx(100.0 * kFloorNs / 1'500));
  CHECK(*p.bandwidthPercent == doctest::Approx(100.0 * (0.000134217728 / 1.5e-6) / 3350)); // Still given.
  // At the floor: nothing left. Just over the floor at peak: memory-bound again.
  CHECK(*kernelPerf(tiny, 900, 1, &h100).timeLeftNs == 0);
  KernelEstimates floorBytes{3350.0 * 1.2e-6, 0}; // 1.2 µs at peak.
  CHECK(kernelPerf(floorBytes, 4'000, 1, &h100).bound == Bound::Memory);
  // FLOPs unknown: the bound stays unknown, but the floor still holds for the time left.
  p = kernelPerf(KernelEstimates{0.000134217728, std::nullopt}, 3'000, 2, &h100);
  CHECK(p.bound == Bound::Unknown);
  CHECK(*p.timeLeftNs == 3'000 - 2 * kFloorNs);

  // Faster than the peak says: no negative time left.
  p = kernelPerf(poi, 30'000, 3, &h100);
  CHECK(*p.bandwidthPercent > 100);
  CHECK(*p.timeLeftNs == 0);

  // Estimates of any size (issue 43: kernel_num_gb up to 1e30 is read): the time at the peaks past 64 bits of
  // nanoseconds is taken as that much (llround of it was undefined, and gave 2^63), nothing is left.
  p = kernelPerf(KernelEstimates{1e30, 0}, 300'000, 3, &h100);
  CHECK(*p.timeAtPeakNs == UINT64_MAX);
  CHECK(*p.timeLeftNs == 0);
  CHECK(*p.bandwidthPercent > 1e30);

  // No peaks: rates only. No time or no estimates: nothing.
  p = kernelPerf(poi, 300'000, 3, nullptr);
  CHECK(p.achievedGbPerS);
  CHECK_FALSE(p.bandwidthPercent);
  CHECK_FALSE(p.timeLeftNs);
  CHECK(p.bound == Bound::Unknown);
  p = kernelPerf(poi, 0, 0, &h100);
  CHECK_FALSE(p.achievedGbPerS);
  CHECK_FALSE(p.timeLeftNs);
  p = kernelPerf(KernelEstimates{}, 300'000, 3, &h100);
  CHECK_FALSE(p.achievedGbPerS);
  CHECK_FALSE(p.bandwidthPercent);

  // A GPU without a known tensor peak: compute share and bound unknown, bandwidth known.
  GpuPeak a10g = h100;
  a10g.tflopPerS.reset();
  p = kernelPerf(mm, 100'000, 2, &a10g);
  CHECK(p.achievedTflopPerS);
  CHECK_FALSE(p.computePercent);
  CHECK(p.bound == Bound::Unknown);
  CHECK(p.bandwidthPercent);
}
