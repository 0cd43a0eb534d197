// Tests for index/runtime/DebugPrinter.h: both printer formats on the real run logs (every block found, with
// the statistics as printed), level 3 markers, blocks mixed with other output; the k-th-occurrence mapping of
// blocks to launches across calls and compiles; where NaN first shows up.
#include "index/runtime/DebugPrinter.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

using namespace inductor::index;
using namespace inductor::test;

namespace {

const std::string kJit = std::string(INDUCTOR_FIXTURES_DIR) + "/traces/jit_printer/run.log";
const std::string kCpp = std::string(INDUCTOR_FIXTURES_DIR) + "/traces/cppwrap_printer/run.log";

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
    ++n;
  return n;
}

PrinterRecord find(const RunLog &log, PrinterPhase phase, const std::string &kernel, const std::string &arg) {
  for (const PrinterRecord &r : log.records)
    if (r.phase == phase && r.kernel == kernel && r.arg == arg) return r;
  FAIL("no record " << kernel << " " << arg);
  return {};
}

/// A JIT-format block.
std::string jit(const std::string &phase, const std::string &kernel, const std::string &arg, double mean,
                const std::string &extra = "") {
  std::ostringstream s;
  s << "inductor: " << phase << "_launch - " << kernel << " - " << arg << "\n"
    << extra << "Number of elements:  4\nSize:  torch.Size([2, 2])\nDtype:  " << mean << "\nMean:  " << mean
    << "\nMin:  " << mean << "\nMax:  " << mean << "\nStd:  0.0\n";
  return s.str();
}

std::vector<PrinterCompile> compiles(std::initializer_list<std::vector<std::string>> list) {
  std::vector<PrinterCompile> out;
  for (const auto &l : list)
    out.push_back({l});
  return out;
}

} // namespace

TEST_CASE("DebugPrinter: the JIT run log of jit_printer") {
  std::string text = readFile(kJit);
  RunLog log = parseRunLog(text);
  CHECK(looksLikePrinterLog(text));
  CHECK(log.records.size() ==
        count(text, "inductor: before_launch - ") + count(text, "inductor: after_launch - "));
  CHECK(log.malformed == 0);
  PrinterRecord mm = find(log, PrinterPhase::Before, "extern_kernels.mm", "arg2_1");
  CHECK(mm.format == PrinterFormat::Python);
  CHECK(mm.stats.numel == 256u);
  CHECK(mm.stats.shape == std::vector<int64_t>{4, 64});
  CHECK(mm.stats.dtype.empty()); // The JIT printer prints the mean under "Dtype".
  CHECK(*mm.stats.mean == doctest::Approx(-0.07845411449670792));
  CHECK(*mm.stats.min == doctest::Approx(-3.12982439994812));
  CHECK(*mm.stats.max == doctest::Approx(3.3156473636627197));
  CHECK(*mm.stats.std == doctest::Approx(0.9939442873001099));
  CHECK(!mm.stats.nonFinite());
  PrinterRecord after = find(log, PrinterPhase::After, "triton_poi_fused_addmm_log_relu_sub_0", "buf1");
  CHECK(after.stats.nonFinite());
  CHECK(after.stats.hasNan());
  PrinterRecord scalar = find(log, PrinterPhase::Before, "triton_poi_fused_addmm_log_relu_sub_0", "512");
  CHECK(!scalar.stats.tensor);
  CHECK(scalar.stats.value == "512");
  // A parameter printed whole (`Parameter containing: tensor([...], device='cuda:0')`) before its statistics.
  PrinterRecord param = find(log, PrinterPhase::Before, "extern_kernels.addmm", "arg4_1");
  CHECK(param.stats.numel == 64u);
  CHECK(*param.stats.mean == doctest::Approx(0.0012833079090341926));
}

TEST_CASE("DebugPrinter: the C++ wrapper run log of cppwrap_printer") {
  std::string text = readFile(kCpp);
  RunLog log = parseRunLog(text);
  CHECK(looksLikePrinterLog(text));
  CHECK(log.records.size() == count(text, "[  before_launch - ") + count(text, "[  after_launch - ") +
                                  count(text, "[  aoti_model_inputs - "));
  CHECK(log.malformed == 0);
  size_t inputs = 0;
  for (const PrinterRecord &r : log.records)
    inputs += r.phase == PrinterPhase::ModelInput;
  CHECK(inputs == 5);
  PrinterRecord out = find(log, PrinterPhase::After, "aoti_torch_cuda_mm_out", "buf0");
  CHECK(out.format == PrinterFormat::Cpp);
  CHECK(out.stats.dtype == "float32");
  CHECK(out.stats.device == "cuda:0");
  CHECK(out.stats.shape == std::vector<int64_t>{4, 128});
  CHECK(*out.stats.mean == doctest::Approx(0.0527034));
  CHECK(*out.stats.min == doctest::Approx(-2.12487));
  CHECK(!out.stats.std);
  CHECK(find(log, PrinterPhase::Before, "aoti_torch_cuda_mm_out", "buf0").stats.hasNan());
  // `[  before_launch - K - 512L: 512  ]\n[  after_launch - ...  ]:` on one physical line: both are read.
  PrinterRecord scalar = find(log, PrinterPhase::Before, "triton_poi_fused_addmm_log_relu_sub_0", "512L");
  CHECK(!scalar.stats.tensor);
  CHECK(scalar.stats.value == "512");
  PrinterRecord next = find(log, PrinterPhase::After, "triton_poi_fused_addmm_log_relu_sub_0", "buf1");
  CHECK(next.line == scalar.line);
  CHECK(next.stats.hasNan());
  CHECK(find(log, PrinterPhase::After, "triton_per_fused__softmax_exp_prepare_softmax_online_sub_1", "64L")
            .stats.value == "64");
}

TEST_CASE("DebugPrinter: level 3 markers, interleaved output, malformed headers, bounds") {
  RunLog log = parseRunLog("step 1\n[ before_launch: triton_a ]\n[ after_launch: triton_a ]\n"
                           "[ before_launch: triton_b ]\nCUDA error: an illegal memory access\n");
  REQUIRE(log.records.size() == 3);
  CHECK(log.records[0].format == PrinterFormat::KernelNamesOnly);
  CHECK(log.records[2].kernel == "triton_b");
  CHECK(log.records[2].line == 3);
  PrinterMapping m = mapRunLog(log, compiles({{"triton_a", "triton_b"}}));
  CHECK(unfinishedLaunch(log, m) == 1);
  CHECK(m.launches[1].launch == 1);

  // A user print between blocks does not end up in the statistics; `Mean:` from the program after a block is
  // not the block's.
  RunLog mixed =
      parseRunLog(jit("before", "k", "buf0", 1.0) + "loss 0.5\nMean: 99\n" + jit("after", "k", "buf0", 2.0));
  REQUIRE(mixed.records.size() == 2);
  CHECK(*mixed.records[0].stats.mean == 1.0);
  CHECK(*mixed.records[1].stats.mean == 2.0);
  RunLog bad = parseRunLog("inductor: before_launch - \ninductor: sideways_launch - k - a\n");
  CHECK(bad.records.empty());
  CHECK(bad.malformed >= 1);
  RunLogOptions small;
  small.maxRecords = 1;
  RunLog cut = parseRunLog(jit("before", "k", "a", 1) + jit("after", "k", "a", 1), small);
  CHECK(cut.records.size() == 1);
  CHECK(cut.truncated);
  // Odd numbers: -nan, inf, -inf.
  RunLog odd =
      parseRunLog("[  after_launch - k - buf0  ]:\nNumber of elements: 4\nDtype: float32\nMean value: -nan\n"
                  "Min value: -inf\nMax value: inf\nDevice: cuda:0\nSize: [4]\n\n");
  REQUIRE(odd.records.size() == 1);
  CHECK(std::isnan(*odd.records[0].stats.mean));
  CHECK(std::isinf(*odd.records[0].stats.min));
  CHECK(!looksLikePrinterLog("nothing here"));
}

TEST_CASE("DebugPrinter: the k-th block of a kernel is its k-th launch; a new call is the next step") {
  // One compile launching a, b, a; two calls.
  std::string text;
  for (int call = 0; call < 2; ++call)
    for (const char *k : {"a", "b", "a"})
      text += jit("before", k, "buf0", 1) + jit("after", k, "buf0", 2);
  RunLog log = parseRunLog(text);
  PrinterMapping m = mapRunLog(log, compiles({{"a", "b", "a"}}));
  REQUIRE(m.launches.size() == 6);
  REQUIRE(m.calls.size() == 2);
  CHECK(m.calls[1].ordinal == 1);
  std::vector<uint32_t> launches, callsOf;
  for (const PrinterLaunch &l : m.launches) {
    launches.push_back(l.launch);
    callsOf.push_back(l.call);
  }
  CHECK(launches == std::vector<uint32_t>{0, 1, 2, 0, 1, 2});
  CHECK(callsOf == std::vector<uint32_t>{0, 0, 0, 1, 1, 1});
  CHECK(m.unmatched == 0);

  SUBCASE("the same kernel launched twice in a row is two launches") {
    std::string twice = jit("before", "a", "buf0", 1) + jit("after", "a", "buf0", 1) +
                        jit("before", "a", "buf0", 1) + jit("after", "a", "buf0", 1);
    PrinterMapping t = mapRunLog(parseRunLog(twice), compiles({{"a", "a"}}));
    REQUIRE(t.launches.size() == 2);
    CHECK(t.launches[1].launch == 1);
    CHECK(t.calls.size() == 1);
  }
  SUBCASE("kernel names shared by two compiles: the compile that explains the run wins") {
    // Forward launches x, y; backward launches x, z (Inductor numbers kernels per graph).
    std::string run;
    for (const char *k : {"x", "y", "x", "z"})
      run += jit("before", k, "buf0", 1) + jit("after", k, "buf0", 1);
    PrinterMapping t = mapRunLog(parseRunLog(run), compiles({{"x", "y"}, {"x", "z"}}));
    REQUIRE(t.calls.size() == 2);
    CHECK(t.calls[0].compile == 0);
    CHECK(t.calls[1].compile == 1);
    CHECK(t.launches[2].launch == 0);
    CHECK(t.launches[3].launch == 1);
  }
  SUBCASE("filtered printing (AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT) skips launches, not calls") {
    std::string run;
    for (int call = 0; call < 2; ++call)
      run += jit("before", "b", "buf0", 1) + jit("after", "b", "buf0", 1);
    PrinterMapping t = mapRunLog(parseRunLog(run), compiles({{"a", "b", "a"}}));
    CHECK(t.calls.size() == 2);
    CHECK(t.launches[0].launch == 1);
    CHECK(t.launches[1].launch == 1);
  }
  SUBCASE("a kernel no output code launches is unmatched and does not end the call") {
    std::string run =
        jit("before", "a", "buf0", 1) + jit("before", "zzz", "buf0", 1) + jit("before", "b", "buf0", 1);
    PrinterMapping t = mapRunLog(parseRunLog(run), compiles({{"a", "b"}}));
    CHECK(t.unmatched == 1);
    CHECK(t.calls.size() == 1);
    CHECK(t.launches[2].launch == 1);
  }
}

TEST_CASE("DebugPrinter: where NaN first shows up") {
  SUBCASE("jit_printer: the fused log kernel makes it from finite inputs") {
    RunLog log = parseRunLog(readFile(kJit));
    PrinterMapping m = mapRunLog(
        log, compiles({{"extern_kernels.mm", "triton_poi_fused_addmm_log_relu_sub_0", "extern_kernels.addmm",
                        "triton_per_fused__softmax_exp_prepare_softmax_online_sub_1"}}));
    CHECK(m.unmatched == 0);
    CHECK(m.calls.size() == 1);
    auto o = firstNonFinite(log, m);
    REQUIRE(o);
    CHECK(o->kind == NonFiniteOrigin::Kind::Produced);
    CHECK(m.launches[o->launch].kernel == "triton_poi_fused_addmm_log_relu_sub_0");
    CHECK(o->args == std::vector<std::string>{"buf1"});
    CHECK(o->nan);
    CHECK(unfinishedLaunch(log, m) == kNoLaunch);
  }
  SUBCASE("cppwrap_printer: an uninitialised output buffer holding NaN before its launch is not an input") {
    RunLog log = parseRunLog(readFile(kCpp));
    PrinterMapping m =
        mapRunLog(log, compiles({{"aoti_torch_cuda_mm_out", "triton_poi_fused_addmm_log_relu_sub_0",
                                  "aoti_torch_cuda_addmm_out",
                                  "triton_per_fused__softmax_exp_prepare_softmax_online_sub_1"}}));
    CHECK(m.unmatched == 0);
    REQUIRE(m.calls.size() == 1);
    CHECK(m.calls[0].inputs.size() == 5);
    auto o = firstNonFinite(log, m);
    REQUIRE(o);
    CHECK(o->kind == NonFiniteOrigin::Kind::Produced);
    CHECK(m.launches[o->launch].launch == 1);
  }
  SUBCASE("NaN in an input, and in a graph input") {
    std::string run = jit("before", "a", "arg0_1", NAN) + jit("after", "a", "buf0", NAN);
    RunLog log = parseRunLog(run);
    auto o = firstNonFinite(log, mapRunLog(log, compiles({{"a"}})));
    REQUIRE(o);
    CHECK(o->kind == NonFiniteOrigin::Kind::InInputs);
    CHECK(o->args == std::vector<std::string>{"arg0_1"});
    RunLog g = parseRunLog("[  aoti_model_inputs - arg0_1  ]:\nNumber of elements: 4\nMean value: inf\n\n" +
                           jit("before", "a", "buf0", 1));
    auto gi = firstNonFinite(g, mapRunLog(g, compiles({{"a"}})));
    REQUIRE(gi);
    CHECK(gi->kind == NonFiniteOrigin::Kind::GraphInput);
    CHECK(!gi->nan);
  }
  SUBCASE("no NaN, no finding") {
    RunLog log = parseRunLog(jit("before", "a", "buf0", 1) + jit("after", "a", "buf0", 2));
    CHECK(!firstNonFinite(log, mapRunLog(log, compiles({{"a"}}))));
  }
}
