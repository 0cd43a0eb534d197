// In-process tests of server/features/HotLines.cpp (inductor/hotLines) and InlayHint.cpp over small annotated
// traces with a profile (MiniTrace.h's withProfile): the device time a profile measured, on the user lines
// and launches it came from, and the same figure on every surface that shows it (hot lines, the line's lens
// and hover, the launch's inlay hint).
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

#include <map>

using namespace inductor;
using test::atPosition;
using test::MiniTrace;

namespace {

/// Two model lines, each its own kernel (not fused), launched in order. Marks: model `relu`, `mul`; code
/// `relu` and `mul` (each kernel's name at its launch) and `reluEnd`, `mulEnd` (the ends of those lines).
MiniTrace::Texts twoKernels() {
  MiniTrace::Texts t = test::reluMulTexts();
  t.outputCode = R"py(from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: ${DIR}/cache/k0.py
# Topologically Sorted Source Nodes: [y], Original ATen: [aten.relu]
# Source node to ATen node mapping:
#   y => relu
triton_poi_fused_relu_0 = async_compile.triton('triton_poi_fused_relu_0', '''
@triton.jit
def triton_poi_fused_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4
''', device_str='cuda')


# kernel path: ${DIR}/cache/k1.py
# Topologically Sorted Source Nodes: [mul], Original ATen: [aten.mul]
# Source node to ATen node mapping:
#   mul => mul
triton_poi_fused_mul_1 = async_compile.triton('triton_poi_fused_mul_1', '''
@triton.jit
def triton_poi_fused_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    args.clear()
    buf0 = empty_strided_cuda((4, ), (1, ), torch.float32)
    $relu[[triton_poi_fused_relu_0]].run(arg0_1, buf0, 4, stream=stream0)$reluEnd^
    buf1 = empty_strided_cuda((4, ), (1, ), torch.float32)
    $mul[[triton_poi_fused_mul_1]].run(buf0, buf1, 4, stream=stream0)$mulEnd^
    return (buf1, )
)py";
  // Three calls: relu 1 µs and mul 2.5 µs a launch.
  return test::withProfile(t, {{"triton_poi_fused_relu_0", 1.0}, {"triton_poi_fused_mul_1", 2.5}}, 3);
}

protocol::HotLinesResult hotLinesOf(MiniTrace &t, std::optional<std::string> uri = std::nullopt) {
  protocol::HotLinesParams params;
  params.uri = uri;
  return t.call(&server::hotLines, uri.value_or(""), params);
}

std::vector<protocol::InlayHint> hintsOf(MiniTrace &t) {
  protocol::InlayHintParams p;
  p.textDocument.uri = t.outputCodeUri();
  p.range = {{0, 0}, {100000, 0}};
  return t.call(&server::inlayHint, t.outputCodeUri(), p);
}

std::string hoverText(MiniTrace &t, const std::string &uri, protocol::Position at) {
  std::optional<protocol::Hover> h = t.call(&server::hover, uri, atPosition(uri, at));
  REQUIRE(h);
  return h->contents.value;
}

} // namespace

TEST_CASE("hotLines: each model line's own kernel's time, largest first; each launch's time at its site") {
  MiniTrace t(twoKernels());
  protocol::HotLinesResult r = hotLinesOf(t);
  CHECK(r.basis == protocol::TimeBasis::Total); // No ProfilerStep marks.
  CHECK(r.profiles == std::vector<std::string>{t.dir() + "/trace/profile.json"});
  CHECK(r.totalNs == 10500); // 3 × (1 + 2.5) µs.
  CHECK(r.unjoinedNs == 0);
  REQUIRE(r.lines.size() == 2);
  // mul's 7.5 µs first, relu's 3 µs second; neither counts the other's kernel.
  CHECK(r.lines[0].location == protocol::Location{t.modelUri(), t.model.range("mul")});
  CHECK(r.lines[0].ns == 7500);
  CHECK(r.lines[0].launches == 1);
  CHECK(r.lines[0].label == "7.50 µs total");
  CHECK(r.lines[1].location == protocol::Location{t.modelUri(), t.model.range("relu")});
  CHECK(r.lines[1].ns == 3000);
  CHECK(r.lines[1].label == "3.00 µs total");
  CHECK(r.lines[0].percent == doctest::Approx(100.0 * 7500 / 10500));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.kernels[0].kernel == "triton_poi_fused_mul_1");
  CHECK(r.kernels[0].location == protocol::Location{t.outputCodeUri(), t.code.range("mul")});
  CHECK(r.kernels[0].ns == 7500);
  CHECK(r.kernels[0].compile == "[0/0]");
  CHECK(r.kernels[1].location == protocol::Location{t.outputCodeUri(), t.code.range("relu")});
  CHECK(r.kernels[1].ns == 3000);
  // No peaks without the profile's deviceProperties: no roofline figures, and the reason given.
  CHECK(r.peak.starts_with("no peaks: "));
  CHECK(!r.kernels[0].bound);
  CHECK(r.kernelsByTimeLeft.empty());
}

TEST_CASE("hotLines: a uri names one user file's lines and no kernels; no profile is basis none") {
  MiniTrace t(twoKernels());
  protocol::HotLinesResult mine = hotLinesOf(t, t.modelUri());
  CHECK(mine.lines.size() == 2);
  CHECK(mine.kernels.empty());
  CHECK(hotLinesOf(t, t.outputCodeUri()).lines.empty()); // Generated code is no user file.
  MiniTrace bare(test::reluMulTexts());
  protocol::HotLinesResult none = hotLinesOf(bare);
  CHECK(none.basis == protocol::TimeBasis::None);
  CHECK(none.lines.empty());
  CHECK(none.kernels.empty());
  CHECK(none.totalNs == 0);
}

TEST_CASE("hotLines, codeLens, hover and inlayHint: one figure per line and launch, on every surface") {
  MiniTrace t(twoKernels());
  protocol::HotLinesResult r = hotLinesOf(t);
  REQUIRE(r.lines.size() == 2);
  protocol::CodeLensParams lensParams;
  lensParams.textDocument.uri = t.modelUri();
  nlohmann::json lenses = test::parsed(t.call(&server::codeLens, t.modelUri(), lensParams));
  std::map<uint32_t, std::string> lensTitles; // Line -> the titles of its lenses, joined.
  for (const nlohmann::json &lens : lenses)
    lensTitles[test::rangeOf(lens["range"]).start.line] += lens["command"]["title"].get<std::string>() + "\n";
  for (const protocol::HotLine &line : r.lines) {
    REQUIRE(line.location);
    uint32_t at = line.location->range.start.line;
    CAPTURE(at);
    CHECK(lensTitles[at].find(line.label) != std::string::npos);
    CHECK(hoverText(t, t.modelUri(), line.location->range.start).find(line.label) != std::string::npos);
    // The other line's figure is nowhere on this one.
    const protocol::HotLine &other = &line == &r.lines[0] ? r.lines[1] : r.lines[0];
    CHECK(lensTitles[at].find(other.label) == std::string::npos);
  }
  // Each launch's inlay hint, at its line's end, reads its kernel's figure.
  std::map<std::string, std::string> hintAt; // "line:character" -> label.
  for (const protocol::InlayHint &h : hintsOf(t))
    hintAt[std::to_string(h.position.line) + ":" + std::to_string(h.position.character)] = h.label;
  for (const char *kernel : {"relu", "mul"}) {
    CAPTURE(kernel);
    protocol::Position end = t.code.point(std::string(kernel) + "End");
    const protocol::HotKernel &k = r.kernels[std::string(kernel) == "mul" ? 0 : 1];
    std::string hint = hintAt[std::to_string(end.line) + ":" + std::to_string(end.character)];
    CHECK(hint.starts_with(k.label));
  }
}
