// Tests for server/format/KernelPerfFormat.cpp: how a kernel's roofline figures read in hovers and explain,
// for estimates of any size (Inductor's kernel_num_gb and kernel_flop are outside input: a trace can say
// 1e30).
#include "index/runtime/Roofline.h"
#include "server/format/KernelFormat.h"
#include "server/format/RuntimeFormat.h"

#include <doctest/doctest.h>

#include <regex>
#include <string>

using namespace inductor;
using namespace inductor::server;

namespace {

index::PeakChoice h100() {
  index::GpuPeak p;
  p.model = "H100 SXM";
  p.memory = "HBM";
  p.memoryGbPerS = 3350;
  p.tflopPerS = 989.5;
  p.dtype = "BF16/FP16";
  index::PeakChoice c;
  c.peak = p;
  c.device = "NVIDIA H100 80GB HBM3";
  return c;
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("KernelPerfFormat: estimates far above the peaks read as shares, with the caveat that says so") {
  // Issue 43: kernel_num_gb 1e30 printed `4102687814381275054086080063078 of HBM peak` (the number cut by
  // its buffer, its '%' lost), and a huge kernel_flop `25001725640% of dense tensor peak` with no caveat.
  index::PeakChoice choice = h100();
  index::KernelPerf bytes = index::kernelPerf({1e30, 0}, 300'000, 3, &*choice.peak);
  std::string s = kernelPerfText(bytes, choice);
  INFO(s);
  // 1e30 GB in 100 µs: 1e34 GB/s, 3e32 % of 3,350 GB/s; each printed whole, with its unit.
  CHECK(std::regex_search(s, std::regex(R"(^1e\+31 TB/s · 3e\+32% of HBM peak \(3\.35 TB/s, H100 SXM\))")));
  CHECK(has(s, "above the DRAM peak"));
  index::KernelPerf flops = index::kernelPerf({0.001, uint64_t{15} << 60}, 300'000, 3, &*choice.peak);
  s = kernelPerfText(flops, choice);
  INFO(s);
  CHECK(has(s, "% of dense BF16/FP16 tensor peak (989.5 TFLOP/s)"));
  CHECK(has(s, "above the tensor peak: the FLOP estimate counts more than was computed"));
  // Shares within reason read as before.
  CHECK(percentText(77.2) == "77%");
  CHECK(percentText(4102687814381275054086080063078.0) == "4.1e+30%");
}
