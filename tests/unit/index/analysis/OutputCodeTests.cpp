#include "index/analysis/OutputCode.h"

#include "index/analysis/Provenance.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

namespace {

std::vector<int> handles(const OutputCodeAnalysis &a) {
  std::vector<int> out;
  for (const KernelLaunch &l : a.launches)
    out.push_back(l.debugHandle.value_or(-1));
  return out;
}

const KernelLaunch *findLaunch(const OutputCodeAnalysis &a, std::string_view key) {
  for (const KernelLaunch &l : a.launches)
    if (l.key() == key) return &l;
  return nullptr;
}

// A small Python wrapper in the format of torch/_inductor/codegen/wrapper.py (PyTorch 2.11).
constexpr std::string_view kPythonWrapper = R"py(# AOT ID: ['3_backward']
import torch
async_compile = AsyncCompile()


# kernel path: /tmp/cache/ab/cabc.py
# Topologically Sorted Source Nodes: [x, , h_1], Original ATen: [aten.add, aten.gelu]
# Source node to ATen node mapping:
#   h_1 => add_2, erf
#    => add_tensor
# Graph fragment:
#   %addmm : Tensor "f32[64, 1024][1024, 1]cuda:0" = PlaceHolder[target=addmm]
#   return %mul_4
triton_red_fused_add_0 = async_compile.triton('triton_red_fused_add_0', '''
import triton

@triton_heuristics.reduction(
    size_hints={'x': 64, 'r0_': 256},
    inductor_meta={'kernel_name': 'triton_red_fused_add_0'},
)
@triton.jit
def triton_red_fused_add_0(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
''', device_str='cuda')


cpp_fused_relu_1 = async_compile.cpp_pybinding(['float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0)
{
}
''')


async_compile.wait(globals())
del async_compile

class Runner:
    def call(self, args):
        primals_1, = args
        with torch.cuda._DeviceGuard(0):
            # Topologically Sorted Source Nodes: [x], Original ATen: [aten.add]
            # [Provenance debug handles] triton_red_fused_add_0:1
            stream0 = get_raw_stream(0)
            triton_red_fused_add_0.run(buf0, 64, stream=stream0)
            # [Provenance debug handles] extern_kernels.mm:2
            extern_kernels.mm(buf0, primals_1, out=buf1)
            # [Provenance debug handles] triton_red_fused_add_0:3
            stream0 = get_raw_stream(0)
            triton_red_fused_add_0.run(buf1, 64, stream=stream0)
            # [Provenance debug handles] torch.ops.aten._scaled_mm.default:4
            buf2 = torch.ops.aten._scaled_mm.default(buf1, buf0)
            # [Provenance debug handles] mystery_kernel:5
            buf3 = something_else(buf2)
            cpp_fused_relu_1(buf3)
            buf4 = extern_kernels.convolution(buf3, primals_1, stride=(1, 1))
        return (buf4, )
)py";

} // namespace

TEST_CASE("OutputCode: kind names") {
  CHECK(kindFromName("triton_poi_fused_gelu_1") == KernelKind::Pointwise);
  CHECK(kindFromName("triton_red_fused_sum_0:7") == KernelKind::Reduction);
  CHECK(kindFromName("triton_per_fused_native_layer_norm_0") == KernelKind::PersistentReduction);
  CHECK(kindFromName("triton_tem_fused_mm_0") == KernelKind::Template);
  CHECK(kindFromName("triton_for_fused_0") == KernelKind::Foreach);
  CHECK(kindFromName("cpp_fused_mul_relu_sigmoid_0") == KernelKind::Cpp);
  CHECK(kindFromName("extern_kernels.addmm:2") == KernelKind::Extern);
  CHECK(kindFromName("aoti_torch_cuda_convolution") == KernelKind::Extern);
  CHECK(kindFromName("torch.ops.aten.mm.default") == KernelKind::Extern);
  CHECK(kindFromName("call_triton_poi_fused_convolution_0") == KernelKind::Pointwise);
  CHECK(kindFromName("my_kernel") == KernelKind::Unknown);
  CHECK(displayName(KernelKind::PersistentReduction) == "persistent reduction");
  CHECK(displayName(KernelKind::Cpp) == "C++");
  CHECK(displayName(KernelKind::Extern) == "extern");
  CHECK(displayName(KernelKind::Combo) == "combo");
}

TEST_CASE("OutputCode: Python wrapper, inline") {
  std::string text(kPythonWrapper);
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  CHECK(a.language == OutputCodeAnalysis::Language::Python);
  CHECK(a.aotId == "3_backward");
  CHECK(a.graphKind == GraphKind::Backward);

  REQUIRE(a.kernels.size() == 2);
  const KernelDefinition &red = a.kernels[0];
  CHECK(red.name == "triton_red_fused_add_0");
  CHECK(red.nameLine == 13);
  CHECK(red.nameColumn == 0);
  CHECK(red.firstLine == 5);
  CHECK(red.lastLine == 23);
  CHECK(red.sourceFirstLine == 14);
  CHECK(red.sourceLastLine == 22);
  CHECK(red.kind == KernelKind::Reduction);
  CHECK(red.defLine == 21u);
  CHECK(red.defColumn == 4u);
  CHECK(red.kernelPath == "/tmp/cache/ab/cabc.py");
  CHECK(red.sourceNodes == std::vector<std::string>{"x", "", "h_1"});
  CHECK(red.atenOps == std::vector<std::string>{"aten.add", "aten.gelu"});
  REQUIRE(red.sourceToAten.size() == 2);
  CHECK(red.sourceToAten[0].first == "h_1");
  CHECK(red.sourceToAten[0].second == std::vector<std::string>{"add_2", "erf"});
  CHECK(red.sourceToAten[1].first == "");
  CHECK(red.sourceToAten[1].second == std::vector<std::string>{"add_tensor"});

  const KernelDefinition &cpp = a.kernels[1];
  CHECK(cpp.name == "cpp_fused_relu_1");
  CHECK(cpp.kind == KernelKind::Cpp);
  CHECK(cpp.firstLine == 26);
  CHECK(cpp.lastLine == 31);
  CHECK_FALSE(cpp.defLine);
  CHECK(a.findKernel("cpp_fused_relu_1:9") == &cpp);
  CHECK(a.findKernel("nope") == nullptr);

  REQUIRE(a.entries.size() == 1);
  CHECK(a.entries[0].name == "call");
  CHECK(a.entries[0].line == 38);
  CHECK(a.entries[0].column == 8);

  REQUIRE(a.launches.size() == 7);
  CHECK(handles(a) == std::vector<int>{1, 2, 3, 4, 5, -1, -1});
  const KernelLaunch &first = a.launches[0];
  CHECK(first.kernel == "triton_red_fused_add_0");
  CHECK(first.line == 44);
  CHECK(first.column == 12);
  CHECK(first.endColumn == 12 + 22);
  CHECK(first.sourceNodes == std::vector<std::string>{"x"});
  CHECK(first.atenOps == std::vector<std::string>{"aten.add"});
  CHECK(a.launches[1].key() == "extern_kernels.mm:2");
  CHECK(a.launches[1].line == 46);
  CHECK(a.launches[1].sourceNodes.empty());
  CHECK(a.launches[2].line == 49);
  // A torch.ops call found through its provenance comment: NAME is on the line.
  CHECK(a.launches[3].kernel == "torch.ops.aten._scaled_mm.default");
  CHECK(a.launches[3].line == 51);
  CHECK(a.launches[3].column == 19);
  // NAME absent from the line: the first non-space character, an empty range.
  CHECK(a.launches[4].kernel == "mystery_kernel");
  CHECK(a.launches[4].line == 53);
  CHECK(a.launches[4].column == 12);
  CHECK(a.launches[4].endColumn == 12);
  // Launches recognised by pattern, without handles.
  CHECK(a.launches[5].kernel == "cpp_fused_relu_1");
  CHECK(a.launches[5].line == 54);
  CHECK(a.launches[6].kernel == "extern_kernels.convolution");
  CHECK(a.launches[6].column == 19);
}

TEST_CASE("OutputCode: older Python wrapper without debug handles") {
  // PyTorch 2.7 style: top-level `def call(args):`, no provenance comments, `'''` without r.
  std::string text = R"py(# AOT ID: ['0_inference']
cpp_fused_gelu_1 = async_compile.cpp_pybinding(['float*'], '''
extern "C"  void kernel(float* in_out_ptr0)
{
}
''')


def call(args):
    arg0_1, = args
    # Topologically Sorted Source Nodes: [x], Original ATen: [aten.addmm]
    extern_kernels.addmm(arg1_1, arg2_1, arg0_1, alpha=1, beta=1, out=buf0)
    buf1 = buf0; del buf0  # reuse
    cpp_fused_gelu_1(buf1)
    # Topologically Sorted Source Nodes: [add, x_1], Original ATen: [aten.addmm, aten.relu]
    stream0 = get_raw_stream(0)
    triton_poi_fused_addmm_relu_0.run(buf1, arg1_1, 128, stream=stream0)
    return (buf1, )
)py";
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  CHECK(a.graphKind == GraphKind::Inference);
  REQUIRE(a.entries.size() == 1);
  CHECK(a.entries[0].line == 8);
  CHECK(a.entries[0].column == 4);
  REQUIRE(a.launches.size() == 3);
  CHECK(a.launches[0].kernel == "extern_kernels.addmm");
  CHECK_FALSE(a.launches[0].debugHandle);
  CHECK(a.launches[0].sourceNodes == std::vector<std::string>{"x"});
  CHECK(a.launches[1].kernel == "cpp_fused_gelu_1");
  CHECK(a.launches[1].line == 13);
  CHECK(a.launches[1].sourceNodes.empty());
  CHECK(a.launches[2].kernel == "triton_poi_fused_addmm_relu_0");
  CHECK(a.launches[2].sourceNodes == std::vector<std::string>{"add", "x_1"});
}

TEST_CASE("OutputCode: truncated and malformed input") {
  std::string text =
      "x = async_compile.triton('x', '''\n@triton_heuristics.pointwise(\n@triton.jit\ndef x(a):\n";
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  REQUIRE(a.kernels.size() == 1);
  CHECK(a.kernels[0].kind == KernelKind::Pointwise);
  CHECK(a.kernels[0].lastLine == 3);
  CHECK(a.kernels[0].defLine == 3u);
  CHECK(analyzePythonWrapper({}).kernels.empty());
  CHECK(analyzeCppWrapper({}).launches.empty());
  // A provenance comment at the very end, or with no handle, yields nothing or a launch without a handle.
  std::string tail = "    # [Provenance debug handles] k:1\n    # [Provenance debug handles]\n";
  TextLines tailLines = splitLines(tail);
  CHECK(analyzePythonWrapper(tailLines).launches.empty());
  std::string noHandle = "    # [Provenance debug handles] k\n    k.run(x)\n";
  TextLines noHandleLines = splitLines(noHandle);
  OutputCodeAnalysis b = analyzePythonWrapper(noHandleLines);
  REQUIRE(b.launches.size() == 1);
  CHECK(b.launches[0].kernel == "k");
  CHECK_FALSE(b.launches[0].debugHandle);
}

TEST_CASE("OutputCode: AOTI C++ wrapper, inline") {
  std::string text = R"cpp(namespace torch::aot_inductor {
template <typename in_ptr0_type_, typename kernels_type_>
static inline void call_triton_poi_fused_convolution_0(
    const in_ptr0_type_& in_ptr0,
    kernels_type_& kernels_
){
    /*
    async_compile.triton('triton_poi_fused_convolution_0', '''
    import triton

    @triton_heuristics.pointwise(
        size_hints={'y': 16, 'x': 1024},
    )
    @triton.jit
    def triton_poi_fused_convolution_0(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr):
        ynumel = 12
    ''', device_str='cuda')
    */
    if (kernels_.triton_poi_fused_convolution_0 == nullptr) {
    }
    launchKernel(kernels_.triton_poi_fused_convolution_0, grid_0, grid_1, grid_2, 4, 4096, kernel_args_, stream_);
}

void AOTInductorModel::run_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
    AOTIProxyExecutorHandle proxy_executor
) {
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_1, &buf0_handle));
    // Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
    // [Provenance debug handles] triton_poi_fused_convolution_0:1
    call_triton_poi_fused_convolution_0(arg11_1, buf0, 12L, 1024L, this->device_idx_, stream, kernels);
    // [Provenance debug handles] aoti_torch_cuda_addmm_out:2
    static constexpr int64_t int_array_12[] = {4L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf9, fc_bias, buf8, 1L, 1L));
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf3, buf2, arg4_1));
    cpp_fused_gelu_1((float*)(buf4.data_ptr()));
} // AOTInductorModel::run_impl
}
)cpp";
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzeCppWrapper(lines);
  CHECK(a.language == OutputCodeAnalysis::Language::Cpp);
  REQUIRE(a.kernels.size() == 1);
  const KernelDefinition &k = a.kernels[0];
  CHECK(k.name == "triton_poi_fused_convolution_0");
  CHECK(k.nameLine == 2);
  CHECK(k.nameColumn == 24);
  CHECK(k.firstLine == 1);
  CHECK(k.lastLine == 21);
  CHECK(k.kind == KernelKind::Pointwise);
  CHECK(k.defLine == 14u);
  CHECK(k.defColumn == 8u);
  CHECK(k.sourceFirstLine == 8);
  CHECK(k.sourceLastLine == 15);
  REQUIRE(a.entries.size() == 1);
  CHECK(a.entries[0].name == "run_impl");
  CHECK(a.entries[0].line == 23);
  CHECK(a.entries[0].column == 23);
  REQUIRE(a.launches.size() == 4);
  CHECK(a.launches[0].key() == "triton_poi_fused_convolution_0:1");
  CHECK(a.launches[0].line == 31);
  CHECK(a.launches[0].column == 9);
  CHECK(a.launches[0].sourceNodes == std::vector<std::string>{"conv2d"});
  CHECK(a.launches[1].key() == "aoti_torch_cuda_addmm_out:2");
  CHECK(a.launches[1].line == 34);
  CHECK(a.launches[1].column == 32);
  CHECK(a.launches[2].key() == "aoti_torch_cpu_mm_out");
  CHECK(a.launches[3].key() == "cpp_fused_gelu_1");
  CHECK(a.launches[3].column == 4);
}

TEST_CASE("OutputCode: kernel source files and wrapper detection") {
  std::string kernel = R"py(import triton

@triton.jit
def helper(x):
    return x

@triton_heuristics.persistent_reduction(
    size_hints={'x': 64, 'r0_': 256},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_per_fused_0'},
)
@triton.jit
def triton_per_fused_0(in_ptr0, xnumel):
    pass
)py";
  TextLines lines = splitLines(kernel);
  auto k = analyzeKernelSource(lines);
  REQUIRE(k);
  CHECK(k->name == "triton_per_fused_0");
  CHECK(k->line == 11);
  CHECK(k->column == 4);
  CHECK(k->kind == KernelKind::PersistentReduction);
  CHECK_FALSE(looksLikeWrapperCode(lines));

  std::string metaOnly =
      "@triton_heuristics.template(\n    inductor_meta={'kernel_name': 'triton_tem_fused_mm_0'},\n)\n";
  TextLines metaLines = splitLines(metaOnly);
  auto m = analyzeKernelSource(metaLines);
  REQUIRE(m);
  CHECK(m->name == "triton_tem_fused_mm_0");
  CHECK(m->line == 1);
  CHECK(m->column == 35);
  CHECK(m->kind == KernelKind::Template);
  std::string none = "import os\n";
  TextLines noneLines = splitLines(none);
  CHECK_FALSE(analyzeKernelSource(noneLines));

  std::string wrapper(kPythonWrapper);
  TextLines wrapperLines = splitLines(wrapper);
  CHECK(looksLikeWrapperCode(wrapperLines));
}

TEST_CASE("OutputCode: max-autotune benchmark modules are kernel files, not wrapper code") {
  // The shape torch/_inductor/codecache.py writes for each autotuning choice (TritonKernel's
  // codegen_kernel_benchmark): the kernel at module level, then get_args, call and benchmark_all_configs.
  std::string benchmark = R"py(
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics

@triton_heuristics.pointwise(
    size_hints={'x': 262144},
    inductor_meta={'kernel_name': 'Placeholder.DESCRIPTIVE_NAME'},
)
@triton.jit
def triton_(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 262144


def get_args():
    return 262144,


def call(args):
    with torch.cuda._DeviceGuard(0):
        triton_.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        return triton_.benchmark_all_configs(*args)
)py";
  TextLines lines = splitLines(benchmark);
  CHECK_FALSE(looksLikeWrapperCode(lines));
  auto k = analyzeKernelSource(lines);
  REQUIRE(k);
  CHECK(k->name == "triton_");
  // The harness alone (a kernel imported from elsewhere) is still no output code.
  std::string harness = "def get_args():\n    return ()\n\ndef call(args):\n    k.run(*args)\n\n"
                        "def benchmark_all_configs(args):\n    return k.benchmark_all_configs(*args)\n";
  TextLines harnessLines = splitLines(harness);
  CHECK_FALSE(looksLikeWrapperCode(harnessLines));
  // Output code embeds its kernels in strings: their decorators are no module-level kernel, and an older
  // wrapper's top-level `def call(args):` still makes it wrapper code.
  std::string older = R"py(from torch import empty_strided

triton_poi_0 = async_compile.triton('triton_poi_0', '''
@triton.jit
def triton_poi_0(x):
    pass
''', device_str='cuda')

def call(args):
    triton_poi_0.run(x)
)py";
  TextLines olderLines = splitLines(older);
  CHECK(looksLikeWrapperCode(olderLines));
  // Every benchmark module of adam_autotune's cache, recognised by the same shape.
  size_t modules = 0;
  for (const auto &e : fs::recursive_directory_iterator(fs::path(INDUCTOR_TRACES_DIR) / "adam_autotune")) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    std::string text = readFile(e.path());
    if (text.find("\ndef benchmark_all_configs(") == std::string::npos) continue;
    ++modules;
    TextLines l = splitLines(text);
    CHECK_FALSE(looksLikeWrapperCode(l));
  }
  CHECK(modules > 0);
}

TEST_CASE("OutputCode: mlp_train forward output code") {
  fs::path dir = findDir(fixturesDir() / "traces/mlp_train/torch_compile_debug", "model__0_forward_1.0");
  REQUIRE(!dir.empty());
  std::string text = readFile(dir / "output_code.py");
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  CHECK(a.aotId == "0_forward");
  CHECK(a.graphKind == GraphKind::Forward);
  CHECK(handles(a) == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});

  REQUIRE(a.kernels.size() == 5);
  CHECK(a.kernels[0].name == "triton_per_fused_native_layer_norm_0");
  CHECK(a.kernels[0].kind == KernelKind::PersistentReduction);
  CHECK(a.kernels[1].name == "triton_poi_fused_gelu_1");
  CHECK(a.kernels[1].kind == KernelKind::Pointwise);
  CHECK(a.kernels[2].kind == KernelKind::PersistentReduction);
  CHECK(a.kernels[3].name == "triton_poi_fused_add_addmm_3");
  CHECK(a.kernels[3].kind == KernelKind::Pointwise);
  CHECK(a.kernels[4].kind == KernelKind::PersistentReduction);
  // grep -n: 'triton_poi_fused_gelu_1 = async_compile' is line 133, 'def triton_poi_fused_gelu_1' line 150.
  const KernelDefinition *gelu = a.findKernel("triton_poi_fused_gelu_1:3");
  REQUIRE(gelu);
  CHECK(gelu->nameLine == 132);
  CHECK(gelu->firstLine == 120);
  CHECK(gelu->lastLine == 165);
  CHECK(gelu->defLine == 149u);
  CHECK(gelu->defColumn == 4u);
  CHECK(gelu->kernelPath ==
        "/tmp/work/mlp_train/inductor_cache/5x/c5xv5wqme3dzbmmdhlaaj3ixunonsuv7roftbpc5jx7ybmqfhejl.py");
  CHECK(gelu->sourceNodes == std::vector<std::string>{"h_1"});
  CHECK(gelu->atenOps == std::vector<std::string>{"aten.gelu"});
  REQUIRE(gelu->sourceToAten.size() == 1);
  CHECK(gelu->sourceToAten[0].second == std::vector<std::string>{"add_2", "erf", "mul_2", "mul_3", "mul_4"});

  // grep -n 'triton_poi_fused_gelu_1.run' output_code.py: lines 424 and 448.
  const KernelLaunch *l3 = findLaunch(a, "triton_poi_fused_gelu_1:3");
  REQUIRE(l3);
  CHECK(l3->line == 423);
  CHECK(l3->column == 12);
  CHECK(l3->endColumn == 12 + 23);
  CHECK(l3->sourceNodes == std::vector<std::string>{"h_1"});
  const KernelLaunch *l7 = findLaunch(a, "triton_poi_fused_gelu_1:7");
  REQUIRE(l7);
  CHECK(l7->line == 447);
  const KernelLaunch *mm = findLaunch(a, "extern_kernels.mm:8");
  REQUIRE(mm);
  CHECK(mm->sourceNodes == std::vector<std::string>{"h_5", ""});
  REQUIRE(a.entries.size() == 1);
  CHECK(a.entries[0].line == 384);
  CHECK(a.entries[0].column == 8);
}

TEST_CASE("OutputCode: cpu_inductor output code (C++ kernels)") {
  fs::path p = findUnder(fixturesDir() / "traces/cpu_inductor/torch_compile_debug", "output_code.py");
  REQUIRE(!p.empty());
  std::string text = readFile(p);
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  REQUIRE(a.kernels.size() == 2);
  CHECK(a.kernels[0].name == "cpp_fused_mul_relu_sigmoid_0");
  CHECK(a.kernels[0].kind == KernelKind::Cpp);
  CHECK(a.kernels[0].firstLine == 32); // No comment block above it.
  CHECK(a.kernels[1].kind == KernelKind::Cpp);
  REQUIRE(a.launches.size() == 4);
  CHECK(a.launches[1].key() == "cpp_fused_mul_relu_sigmoid_0:2");
  CHECK(a.launches[3].key() == "cpp_fused__softmax_add_mean_1:4");
  CHECK(a.launches[3].column == 8);
}

TEST_CASE("OutputCode: aoti_conv C++ wrapper") {
  fs::path p;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces/aoti_conv/inductor_cache"))
    if (e.path().string().ends_with(".wrapper.cpp")) p = e.path();
  REQUIRE(!p.empty());
  std::string text = readFile(p);
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzeCppWrapper(lines);
  CHECK(handles(a) == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  // grep -n: line 1403 is `AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_convolution(`.
  const KernelLaunch *conv = findLaunch(a, "aoti_torch_cuda_convolution:3");
  REQUIRE(conv);
  CHECK(conv->line == 1402);
  CHECK(conv->column == 32);
  CHECK(conv->sourceNodes == std::vector<std::string>{"conv2d"});
  const KernelLaunch *addmm = findLaunch(a, "aoti_torch_cuda_addmm_out:9");
  REQUIRE(addmm);
  CHECK(addmm->line == 1455);
  // `call_triton_poi_fused_convolution_0(` at line 1390: the range covers the kernel name after `call_`.
  const KernelLaunch *first = findLaunch(a, "triton_poi_fused_convolution_0:1");
  REQUIRE(first);
  CHECK(first->line == 1389);
  CHECK(first->column == 9);
  REQUIRE(a.kernels.size() == 7);
  const KernelDefinition *k0 = a.findKernel("triton_poi_fused_convolution_0");
  REQUIRE(k0);
  CHECK(k0->nameLine == 726);
  CHECK(k0->firstLine == 725);
  CHECK(k0->lastLine == 786);
  CHECK(k0->defLine == 754u);
  CHECK(k0->defColumn == 8u);
  CHECK(k0->kind == KernelKind::Pointwise);
  const KernelDefinition *red =
      a.findKernel("triton_red_fused__native_batch_norm_legit_no_training_convolution_mean_relu_silu_4");
  REQUIRE(red);
  CHECK(red->kind == KernelKind::Reduction);
  REQUIRE(a.entries.size() == 1);
  CHECK(a.entries[0].line == 1346);
  // kernel_information.json, next to the wrapper, is keyed by the same `name:handle`s.
  auto info = parseKernelInformation(readFile(p.parent_path() / "kernel_information.json"));
  REQUIRE(info);
  std::set<std::string> launched, described;
  for (const KernelLaunch &l : a.launches)
    launched.insert(l.key());
  for (const auto &[key, k] : *info)
    described.insert(key);
  CHECK(launched == described);
  // The debug dump's output_code.cpp is the same wrapper.
  fs::path dump = findUnder(fixturesDir() / "traces/aoti_conv/torch_compile_debug", "output_code.cpp");
  REQUIRE(!dump.empty());
  std::string dumpText = readFile(dump);
  TextLines dumpLines = splitLines(dumpText);
  CHECK(handles(analyzeCppWrapper(dumpLines)) == handles(a));
}

TEST_CASE("OutputCode: every fixture file") {
  size_t wrappers = 0, kernelFiles = 0, cppWrappers = 0, launches = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces")) {
    if (!e.is_regular_file()) continue;
    std::string name = e.path().filename().string();
    bool cachePy = name.size() > 3 && name[0] == 'c' && name.ends_with(".py") &&
                   e.path().string().find("inductor_cache") != std::string::npos &&
                   e.path().parent_path().filename().string().find(".debug") == std::string::npos;
    bool outputPy = name == "output_code.py";
    bool cppWrapper = name == "output_code.cpp" || name.ends_with(".wrapper.cpp");
    if (!cachePy && !outputPy && !cppWrapper) continue;
    std::string text = readFile(e.path());
    TextLines lines = splitLines(text);
    CAPTURE(e.path().string());
    if (cppWrapper) {
      OutputCodeAnalysis a = analyzeCppWrapper(lines);
      CHECK(!a.launches.empty());
      CHECK(a.entries.size() == 1);
      ++cppWrappers;
      launches += a.launches.size();
    } else if (outputPy || looksLikeWrapperCode(lines)) {
      OutputCodeAnalysis a = analyzePythonWrapper(lines);
      // cpp_wrapper JIT output code carries no `# AOT ID:` (its graph kind comes from the log or the debug
      // directory); its entry is the C++ `inductor_entry_impl`.
      if (!a.cppWrapperSource) {
        CHECK(!a.aotId.empty());
        CHECK(a.graphKind != GraphKind::Unknown);
      } else if (!a.entries.empty()) {
        CHECK(a.entries[0].name == "inductor_entry_impl");
      }
      CHECK(!a.launches.empty());
      CHECK(a.entries.size() == 1);
      for (const KernelLaunch &l : a.launches) {
        CHECK(l.debugHandle); // All fixtures were recorded with provenance tracking on.
        CHECK(l.endColumn > l.column);
      }
      for (const KernelDefinition &k : a.kernels) {
        CHECK(k.kind != KernelKind::Unknown);
        CHECK(k.firstLine <= k.nameLine);
        CHECK(k.nameLine < k.lastLine);
      }
      ++wrappers;
      launches += a.launches.size();
    } else {
      auto k = analyzeKernelSource(lines);
      REQUIRE(k);
      CHECK(k->kind != KernelKind::Unknown);
      CHECK(lines[k->line].substr(k->column, k->name.size()) == k->name);
      ++kernelFiles;
    }
  }
  CHECK(wrappers >= 20);
  CHECK(kernelFiles >= 20);
  CHECK(cppWrappers == 2);
  CHECK(launches > 100);
}

TEST_CASE("OutputCode: the intermediate value debug printer, and cpp_wrapper JIT output code") {
  auto keysOf = [](const OutputCodeAnalysis &a) {
    std::vector<std::string> keys;
    for (const KernelLaunch &l : a.launches)
      keys.push_back(l.key());
    return keys;
  };
  const std::vector<std::string> expected{"triton_poi_fused_addmm_log_relu_sub_0:2",
                                          "triton_per_fused__softmax_exp_prepare_softmax_online_sub_1:4"};
  for (const char *c : {"jit_printer", "cppwrap_printer"}) {
    CAPTURE(c);
    fs::path output = findUnder(fixturesDir() / "traces" / c / "torch_compile_debug", "output_code.py");
    REQUIRE(!output.empty());
    std::string text = readFile(output);
    TextLines lines = splitLines(text);
    OutputCodeAnalysis a = analyzePythonWrapper(lines);
    std::vector<std::string> keys = keysOf(a);
    // Printer calls name the kernel in strings around the launch: the launch is the call itself.
    REQUIRE(keys.size() == 4);
    CHECK(keys[1] == expected[0]);
    CHECK(keys[3] == expected[1]);
    for (const KernelLaunch &l : a.launches) {
      std::string_view line = lines[l.line];
      CHECK(line.find("print") == std::string_view::npos);
      std::string name = KernelKey::parse(l.key()).name;
      std::string_view token = line.substr(l.column, l.endColumn - l.column);
      CHECK((token == name || token == name.substr(name.rfind('.') + 1)));
    }
    REQUIRE(a.entries.size() == 1);
    bool cpp = std::string_view(c) == "cppwrap_printer";
    CHECK(a.cppWrapperSource == cpp);
    if (cpp) {
      // The launches are the C++ wrapper's (`call_NAME(`, the `aoti_torch_cuda_*` shims), not the `.run(`
      // lines of the auto-tuning docstring at the top.
      CHECK(keys[0] == "aoti_torch_cuda_mm_out:1");
      CHECK(lines[a.launches[1].line].find("call_triton_poi_fused_addmm_log_relu_sub_0(") !=
            std::string_view::npos);
      CHECK(a.entries[0].name == "inductor_entry_impl");
      CHECK(lines[a.entries[0].line].substr(a.entries[0].column, 19) == "inductor_entry_impl");
      // The Triton kernels are the Python part's definitions, each once.
      REQUIRE(a.kernels.size() == 2);
      CHECK(a.kernels[0].name == "triton_poi_fused_addmm_log_relu_sub_0");
      CHECK(a.kernels[0].sourceFirstLine > 0);
    } else {
      CHECK(keys[0] == "extern_kernels.mm:1");
    }
  }
}

TEST_CASE("OutputCode: C++ kernel files") {
  std::string text = R"cpp(#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_mul_0(float* in_out_ptr0,
                       const float* in_ptr0)
{
}
extern "C" void cpp_fused_decl_1(float* in_out_ptr0);
extern "C"  void kernel(float* in_out_ptr0) {
}
)cpp";
  TextLines lines = splitLines(text);
  auto kernels = analyzeCppKernelSource(lines);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "cpp_fused_mul_0");
  CHECK(kernels[0].line == 1);
  CHECK(kernels[0].column == 18);
  CHECK(kernels[0].kind == KernelKind::Cpp);
  CHECK(kernels[1].name == "kernel");
  CHECK(kernels[1].line == 6);

  size_t mains = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir() / "traces/cpu_inductor/inductor_cache"))
    if (e.path().string().ends_with(".main.cpp")) {
      std::string t = readFile(e.path());
      TextLines l = splitLines(t);
      auto k = analyzeCppKernelSource(l);
      REQUIRE(k.size() == 1);
      CHECK(k[0].name == "kernel");
      CHECK(k[0].line == 2);
      ++mains;
    }
  CHECK(mains == 2);
  // AOTInductor on CPU (PyTorch 2.8): the kernels are in the `inductor_aot_kernel_code` payload and only
  // declared in the wrapper.
  fs::path log = fixturesDir() / "tlparse-inputs/inductor_provenance_aot_log.txt";
  auto kernelCode = tracePayloads(log, "inductor_aot_kernel_code");
  REQUIRE(kernelCode.size() == 1);
  TextLines kl = splitLines(kernelCode[0]);
  auto k = analyzeCppKernelSource(kl);
  REQUIRE(k.size() == 2);
  CHECK(k[0].name == "cpp_fused_mul_relu_sigmoid_0");
  CHECK(k[1].name == "cpp_fused_gelu_1");
  auto wrapper = tracePayloads(log, "inductor_aot_wrapper_code");
  REQUIRE(wrapper.size() == 1);
  TextLines wl = splitLines(wrapper[0]);
  CHECK(analyzeCppKernelSource(wl).empty());
  OutputCodeAnalysis a = analyzeCppWrapper(wl);
  std::vector<std::string> keys;
  for (const KernelLaunch &l : a.launches)
    keys.push_back(l.key());
  CHECK(keys == std::vector<std::string>{"aoti_torch_cpu_addmm_out", "cpp_fused_mul_relu_sigmoid_0",
                                         "aoti_torch_cpu_addmm_out", "cpp_fused_gelu_1"});
}

TEST_CASE("OutputCode: output code in every log agrees with its provenance") {
  size_t checked = 0;
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir())) {
    if (!e.is_regular_file() || (e.path().extension() != ".log" && e.path().extension() != ".txt")) continue;
    CAPTURE(e.path().string());
    auto python = tracePayloads(e.path(), "inductor_output_code");
    auto cpp = tracePayloads(e.path(), "inductor_aot_wrapper_code");
    auto mappings = tracePayloads(e.path(), "inductor_provenance_tracking_node_mappings");
    std::vector<OutputCodeAnalysis> analyses;
    for (const std::string &p : python) {
      TextLines lines = splitLines(p);
      analyses.push_back(analyzePythonWrapper(lines));
      CHECK(analyses.back().entries.size() == 1);
    }
    for (const std::string &p : cpp) {
      TextLines lines = splitLines(p);
      analyses.push_back(analyzeCppWrapper(lines));
      CHECK(analyses.back().entries.size() == 1);
    }
    for (const OutputCodeAnalysis &a : analyses)
      CHECK(!a.launches.empty());
    // When each output code has its own mappings, in the same order, every launch is mapped (as spelled:
    // `name:handle` in version 2, `name` in version 1). A backward's mappings may also hold its forward's
    // kernels (PyTorch 2.11 keeps one provenance state over a training compile: runs_gpt), so a key mapped
    // but not launched by this output code must have been launched by an earlier one of the log.
    if (mappings.size() != analyses.size()) continue;
    std::set<std::string> launchedSoFar;
    for (size_t i = 0; i < analyses.size(); ++i) {
      for (const KernelLaunch &l : analyses[i].launches)
        launchedSoFar.insert(l.key());
      auto m = parseNodeMappings(mappings[i]);
      REQUIRE(m);
      if (m->empty()) continue;
      std::set<std::string> launched, mapped;
      for (const KernelLaunch &l : analyses[i].launches)
        launched.insert(l.key());
      for (const auto &[key, nodes] : m->kernelToPost)
        mapped.insert(key);
      if (m->version >= 2) {
        for (const std::string &key : launched)
          CHECK_MESSAGE(mapped.count(key) == 1, key);
        for (const std::string &key : mapped)
          CHECK_MESSAGE(launchedSoFar.count(key) == 1, key);
      } else {
        // Version 1 maps only some kernels (PyTorch 2.7 left out extern calls of AOTI's C++ wrapper).
        for (const std::string &key : mapped)
          CHECK(launched.count(key) == 1);
      }
      ++checked;
    }
  }
  CHECK(checked >= 15);
}

TEST_CASE("OutputCode: kernel kinds from decorators and async_compile") {
  std::string text = R"py(# AOT ID: ['1_inference']
triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''
@triton_heuristics.pointwise(
    size_hints={'x': 1024},
    inductor_meta={'combo_grid_meta': {'num_kernels': 2}, 'kernel_name': 'triton_poi_fused_0'},
)
@triton.jit
def triton_poi_fused_0(in_ptr0):
    pass
''', device_str='cuda')
add_kernel_0 = async_compile.triton('add_kernel', '''
@triton_heuristics.user_autotune(
    configs=[],
)
@triton.jit
def add_kernel(in_ptr0):
    pass
''', device_str='cuda')
triton_for_fused_1 = async_compile.triton('triton_for_fused_1', '''
@triton_heuristics.foreach(
)
@triton.jit
def triton_for_fused_1(in_ptr0):
    pass
''', device_str='cuda')
triton_spl_fused_2 = async_compile.triton('triton_spl_fused_2', """
@triton_heuristics.split_scan(
)
@triton.jit
def triton_spl_fused_2(in_ptr0):
    pass
""", device_str='cuda')
cuda_kernel_3 = async_compile.cuda(r'''
extern "C" void kernel() {}
''', 'so')
halide_kernel_4 = async_compile.halide(meta, '''
import halide as hl
''')


def call(args):
    # [Provenance debug handles] triton_poi_fused_0:99999999999999
    triton_poi_fused_0.run(buf0, stream=stream0)
    add_kernel_0.run(buf0, buf1, 1024, stream=stream0)
    add_kernel_0.run(buf1, buf2, 1024, stream=stream0)
    triton_spl_fused_2.run(buf0, stream=stream0)
    halide_kernel_4(buf0)
)py";
  TextLines lines = splitLines(text);
  OutputCodeAnalysis a = analyzePythonWrapper(lines);
  CHECK(a.graphKind == GraphKind::Inference);
  REQUIRE(a.kernels.size() == 6);
  CHECK(a.kernels[0].kind == KernelKind::Combo);
  CHECK(a.kernels[1].kind == KernelKind::UserDefined);
  CHECK(a.kernels[1].defLine == 15u); // `def add_kernel(`: the def name differs from the variable.
  CHECK(a.kernels[2].kind == KernelKind::Foreach);
  CHECK(a.kernels[3].kind == KernelKind::SplitScan); // A """ source.
  CHECK(a.kernels[3].lastLine == 31);
  CHECK(a.kernels[4].kind == KernelKind::Template);
  CHECK(a.kernels[5].kind == KernelKind::Unknown);
  REQUIRE(a.launches.size() == 5);
  // A handle that does not fit an int stays in the name, as KernelKey::parse does.
  CHECK(a.launches[0].kernel == "triton_poi_fused_0:99999999999999");
  CHECK_FALSE(a.launches[0].debugHandle);
  CHECK(a.launches[1].kernel == "add_kernel_0");
  CHECK(a.launches[2].kernel == "add_kernel_0");
  CHECK(a.launches[3].kernel == "triton_spl_fused_2");
  CHECK(a.launches[4].kernel == "halide_kernel_4");
}
