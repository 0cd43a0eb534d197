// In-process tests of server/features/Lowered.cpp (inductor/lowered) over a small annotated trace whose
// kernel has its kernel file and a Triton cache entry (MiniTrace.h's `files`): the IR lines the IR's own
// locations attribute to a line of the kernel's source.
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::atPosition;
using test::MiniTrace;

namespace {

// Inductor names a kernel file after a hash of its code (torch/_inductor/codecache.py):
// `<cache>/<xy>/c<hash>.py`; Triton's cache entry is `<cache>/triton/<rank>/<hash>/NAME.*`
// (triton/runtime/cache.py).
const std::string kKernelFile = "cache/ab/cabmini0kernel0file0of0the0relu0mul0test00.py";
const std::string kEntry = "cache/triton/0/MINIENTRYHASHOFFIFTYTWOBASETHIRTYTWOCHARACTERSABCDEF/";

/// reluMulTexts with its kernel file (the kernel's source as the output code embeds it) and a cache entry of
/// TTIR and PTX whose locations name that file. Marks: kernel file `offset` (the `xoffset` line), the output
/// code's `offset` (the same line where it embeds the source); ttir `pid`, `mul` (the two ops of that line),
/// `other` (the `xnumel` line's); ptx `ctaid`, `shl` (that line's instructions).
MiniTrace::Texts withKernelIr() {
  MiniTrace::Texts t = test::reluMulTexts();
  const std::string kernel = "${DIR}/" + kKernelFile;
  for (size_t at; (at = t.outputCode.find("${DIR}/cache/kernel.py")) != std::string::npos;)
    t.outputCode.replace(at, 22, kernel);
  const std::string offset = "    xoffset = tl.program_id(0) * XBLOCK";
  t.outputCode.replace(t.outputCode.find(offset), offset.size(),
                       "    $offset[[xoffset = tl.program_id(0) * XBLOCK]]");
  t.files = {
      {kKernelFile, R"py(
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_mul_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4
    $offset[[xoffset = tl.program_id(0) * XBLOCK]]
)py"},
      {kEntry + "triton_poi_fused_mul_relu_0.json",
       R"({"name": "triton_poi_fused_mul_relu_0", "num_warps": 1, "num_stages": 1, "shared": 0})"},
      {kEntry + "triton_poi_fused_mul_relu_0.ttir", R"(#loc = loc(")" + kernel + R"(":6:0)
module {
  tt.func public @triton_poi_fused_mul_relu_0(%in_ptr0: !tt.ptr<f32> loc("in_ptr0"(#loc))) attributes {noinline = false} {
    $other[[%c4_i32 = arith.constant 4 : i32 loc(#loc1)]]
    $pid[[%xoffset = tt.get_program_id x : i32 loc(#loc4)]]
    $mul[[%xoffset_0 = arith.muli %xoffset, %c4_i32 : i32 loc(#loc5)]]
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(")" + kernel + R"(":7:13)
#loc2 = loc(")" + kernel + R"(":8:28)
#loc3 = loc(")" + kernel + R"(":8:33)
#loc4 = loc("xoffset"(#loc2))
#loc5 = loc("xoffset"(#loc3))
)"},
      {kEntry + "triton_poi_fused_mul_relu_0.ptx", R"(//
.version 8.7
.target sm_90a
.address_size 64
.visible .entry triton_poi_fused_mul_relu_0(
)
{
	.loc	1 7 13
	mov.u32 	%r1, 4;
	.loc	1 8 28                          // cabmini.py:8:28
	$ctaid[[mov.u32 	%r2, %ctaid.x;]]
	.loc	1 8 33                          // cabmini.py:8:33
	$shl[[shl.b32 	%r3, %r2, 2;]]
	.loc	1 7 13                          // cabmini.py:7:13
	ret;
}
	.file	1 ")" + kernel + R"("
)"},
  };
  return t;
}

std::vector<protocol::LoweredStage> loweredAt(MiniTrace &t, const std::string &uri, protocol::Position p) {
  return t.call(&server::lowered, uri, atPosition(uri, p));
}

} // namespace

TEST_CASE("lowered: a kernel source line's TTIR and PTX lines, in file order, from the kernel file") {
  MiniTrace t(withKernelIr());
  std::string kernelUri = protocol::fileURI(t.dir() + "/" + kKernelFile);
  std::vector<protocol::LoweredStage> stages =
      loweredAt(t, kernelUri, t.file(kKernelFile).range("offset").start);
  REQUIRE(stages.size() == 2); // The stages the entry has, in compile order.
  CHECK(stages[0].stage == "ttir");
  std::string ttirUri = protocol::fileURI(t.dir() + "/" + kEntry + "triton_poi_fused_mul_relu_0.ttir");
  CHECK(stages[0].locations ==
        std::vector<protocol::Location>{
            {ttirUri, t.file(kEntry + "triton_poi_fused_mul_relu_0.ttir").range("pid")},
            {ttirUri, t.file(kEntry + "triton_poi_fused_mul_relu_0.ttir").range("mul")}});
  CHECK(stages[0].more == 0);
  CHECK(stages[1].stage == "ptx");
  std::string ptxUri = protocol::fileURI(t.dir() + "/" + kEntry + "triton_poi_fused_mul_relu_0.ptx");
  CHECK(stages[1].locations ==
        std::vector<protocol::Location>{
            {ptxUri, t.file(kEntry + "triton_poi_fused_mul_relu_0.ptx").range("ctaid")},
            {ptxUri, t.file(kEntry + "triton_poi_fused_mul_relu_0.ptx").range("shl")}});
}

TEST_CASE("lowered: the same lines from the kernel's source in the output code; nothing elsewhere") {
  MiniTrace t(withKernelIr());
  std::string kernelUri = protocol::fileURI(t.dir() + "/" + kKernelFile);
  std::vector<protocol::LoweredStage> fromFile =
      loweredAt(t, kernelUri, t.file(kKernelFile).range("offset").start);
  REQUIRE(fromFile.size() == 2);
  // The output code embeds the kernel file's text: its `xoffset` line is the same source line.
  CHECK(loweredAt(t, t.outputCodeUri(), t.code.range("offset").start) == fromFile);
  // Another line of the kernel (its TTIR op is on line 7) is not this one's.
  CHECK(
      loweredAt(t, kernelUri, {t.file(kKernelFile).range("offset").start.line - 1, 4})[0].locations.size() ==
      1);
  // Not a kernel's source: the model, the output code's call().
  CHECK(loweredAt(t, t.modelUri(), t.model.range("relu").start).empty());
  CHECK(loweredAt(t, t.outputCodeUri(), t.code.point("run")).empty());
  // No cache entry: nothing, whatever the line.
  MiniTrace bare(test::reluMulTexts());
  CHECK(loweredAt(bare, bare.outputCodeUri(), bare.code.point("run")).empty());
}
