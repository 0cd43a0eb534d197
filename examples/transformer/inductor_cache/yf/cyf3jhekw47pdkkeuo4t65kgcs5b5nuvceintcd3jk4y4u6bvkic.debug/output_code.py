# AOT ID: ['0_forward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/inductor-example/inductor_cache/42/c427bg6hnhr52ulkvf5326m4x7kw37i2bacsphjcliwg3hsm72rr.py
# Topologically Sorted Source Nodes: [pow_1, mean, add, rms, mul, mul_1], Original ATen: [aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add => add
#   mean => mean
#   mul => mul
#   mul_1 => mul_1
#   pow_1 => pow_1
#   rms => rsqrt
# Graph fragment:
#   %primals_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %buf0 : Tensor "f32[8, 64, 1][64, 1, 512]cuda:0" = PlaceHolder[target=buf0]
#   %rsqrt : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0" = PlaceHolder[target=rsqrt]
#   %primals_2 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_2]
#   %pow_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%primals_1, 2), kwargs = {})
#   %mean : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_1, [-1], True), kwargs = {})
#   %add : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean, 1e-06), kwargs = {})
#   %rsqrt : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add,), kwargs = {})
#   %mul : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%primals_1, %rsqrt), kwargs = {})
#   %mul_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %primals_2), kwargs = {})
#   return %buf0,%rsqrt,%mul_1
triton_per_fused_add_mean_mul_pow_rsqrt_0 = async_compile.triton('triton_per_fused_add_mean_mul_pow_rsqrt_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 512, 'r0_': 128},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_mean_mul_pow_rsqrt_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 4096, 'r0_': 786944}}
)
@triton.jit
def triton_per_fused_add_mean_mul_pow_rsqrt_0(in_out_ptr0, in_ptr0, in_ptr1, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 512
    r0_numel = 128
    R0_BLOCK: tl.constexpr = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 128*x0), xmask, other=0.0)
    tmp12 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last')
    tmp1 = tmp0 * tmp0
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp4 = tl.where(xmask, tmp2, 0)
    tmp5 = tl.sum(tmp4, 1)[:, None].to(tl.float32)
    tmp6 = tl.full([1, 1], 128.0, tl.float32)
    tmp7 = (tmp5 / tmp6)
    tmp8 = tl.full([1, 1], 1e-06, tl.float32)
    tmp9 = tmp7 + tmp8
    tmp10 = libdevice.rsqrt(tmp9)
    tmp11 = tmp0 * tmp10
    tmp13 = tmp11 * tmp12
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp10, xmask)
    tl.store(out_ptr0 + (r0_1 + 128*x0), tmp13, xmask)
''', device_str='cuda')


# kernel path: /tmp/inductor-example/inductor_cache/xj/cxjufqwfgceldmuojygyzlclwu7ogbtxybo2sjkz4kg2i7goxr6c.py
# Topologically Sorted Source Nodes: [linear_1, x, pow_2, mean_1, add_2, rms_1, mul_2, mul_3], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_2 => add_2
#   linear_1 => view_7
#   mean_1 => mean_1
#   mul_2 => mul_2
#   mul_3 => mul_3
#   pow_2 => pow_2
#   rms_1 => rsqrt_1
#   x => add_1
# Graph fragment:
#   %primals_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %mm_1 : Tensor "f32[512, 128][128, 1]cuda:0" = PlaceHolder[target=mm_1]
#   %buf10 : Tensor "f32[8, 64, 1][64, 1, 512]cuda:0" = PlaceHolder[target=buf10]
#   %rsqrt_1 : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0" = PlaceHolder[target=rsqrt_1]
#   %primals_5 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_5]
#   %view_7 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_1, [8, 64, 128]), kwargs = {})
#   %add_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_1, %view_7), kwargs = {})
#   %pow_2 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_1, 2), kwargs = {})
#   %mean_1 : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_2, [-1], True), kwargs = {})
#   %add_2 : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_1, 1e-06), kwargs = {})
#   %rsqrt_1 : Tensor "f32[8, 64, 1][64, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_2,), kwargs = {})
#   %mul_2 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_1, %rsqrt_1), kwargs = {})
#   %mul_3 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_2, %primals_5), kwargs = {})
#   return %buf10,%rsqrt_1,%mul_3
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 512, 'r0_': 128},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 4096, 'r0_': 1049088}}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 512
    r0_numel = 128
    R0_BLOCK: tl.constexpr = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 128*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_1 + 128*x0), xmask, other=0.0)
    tmp14 = tl.load(in_ptr2 + (r0_1), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp2
    tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
    tmp6 = tl.where(xmask, tmp4, 0)
    tmp7 = tl.sum(tmp6, 1)[:, None].to(tl.float32)
    tmp8 = tl.full([1, 1], 128.0, tl.float32)
    tmp9 = (tmp7 / tmp8)
    tmp10 = tl.full([1, 1], 1e-06, tl.float32)
    tmp11 = tmp9 + tmp10
    tmp12 = libdevice.rsqrt(tmp11)
    tmp13 = tmp2 * tmp12
    tmp15 = tmp13 * tmp14
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp12, xmask)
    tl.store(out_ptr0 + (r0_1 + 128*x0), tmp15, xmask)
''', device_str='cuda')


# kernel path: /tmp/inductor-example/inductor_cache/wc/cwcz7rl6pcal3hbm6vycyd4wi6dduqqgellifsyng2bqjbmvtf7i.py
# Topologically Sorted Source Nodes: [linear_2, h], Original ATen: [aten.view, aten.silu]
# Source node to ATen node mapping:
#   h => add_3, div, exp, neg
#   linear_2 => view_9
# Graph fragment:
#   %addmm : Tensor "f32[512, 512][512, 1]cuda:0" = PlaceHolder[target=addmm]
#   %view_9 : Tensor "f32[8, 64, 512][32768, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%addmm, [8, 64, 512]), kwargs = {})
#   %neg : Tensor "f32[8, 64, 512][32768, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%view_9,), kwargs = {})
#   %exp : Tensor "f32[8, 64, 512][32768, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
#   %add_3 : Tensor "f32[8, 64, 512][32768, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[8, 64, 512][32768, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%view_9, %add_3), kwargs = {})
#   return %div
triton_poi_fused_silu_view_2 = async_compile.triton('triton_poi_fused_silu_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 262144}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_silu_view_2', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 3145728}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_silu_view_2(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 262144
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = -tmp0
    tmp2 = libdevice.exp(tmp1)
    tmp3 = tl.full([1], 1.0, tl.float32)
    tmp4 = tmp2 + tmp3
    tmp5 = (tmp0 / tmp4)
    tl.store(out_ptr0 + (x0), tmp5, None)
''', device_str='cuda')


# kernel path: /tmp/inductor-example/inductor_cache/xw/cxw647d7ygcq56lyykmzvoc4jcbrer6rljmnlebyhulj63us5tww.py
# Topologically Sorted Source Nodes: [linear_1, x, , linear_3, add_3], Original ATen: [aten._unsafe_view, aten.add, aten.addmm, aten.view]
# Source node to ATen node mapping:
#    => add_tensor
#   add_3 => add_4
#   linear_1 => view_7
#   linear_3 => view_11
#   x => add_1
# Graph fragment:
#   %primals_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %mm_1 : Tensor "f32[512, 128][128, 1]cuda:0" = PlaceHolder[target=mm_1]
#   %primals_9 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_9]
#   %mm_default : Tensor "f32[512, 128][128, 1]cuda:0" = PlaceHolder[target=mm_default]
#   %view_7 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_1, [8, 64, 128]), kwargs = {})
#   %add_1 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_1, %view_7), kwargs = {})
#   %add_tensor : Tensor "f32[512, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%primals_9, %mm_default), kwargs = {})
#   %view_11 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%add_tensor, [8, 64, 128]), kwargs = {})
#   %add_4 : Tensor "f32[8, 64, 128][8192, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_1, %view_11), kwargs = {})
#   return %add_4
triton_poi_fused__unsafe_view_add_addmm_view_3 = async_compile.triton('triton_poi_fused__unsafe_view_add_addmm_view_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 65536}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_add_addmm_view_3', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 4, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1311232}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_add_addmm_view_3(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, XBLOCK : tl.constexpr):
    xnumel = 65536
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 128)
    tmp0 = tl.load(in_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr1 + (x2), None)
    tmp3 = tl.load(in_ptr2 + (x0), None, eviction_policy='evict_last')
    tmp4 = tl.load(in_out_ptr0 + (x2), None)
    tmp2 = tmp0 + tmp1
    tmp5 = tmp3 + tmp4
    tmp6 = tmp2 + tmp5
    tl.store(in_out_ptr0 + (x2), tmp6, None)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9 = args
        args.clear()
        assert_size_stride(primals_1, (8, 64, 128), (8192, 128, 1))
        assert_size_stride(primals_2, (128, ), (1, ))
        assert_size_stride(primals_3, (384, 128), (128, 1))
        assert_size_stride(primals_4, (128, 128), (128, 1))
        assert_size_stride(primals_5, (128, ), (1, ))
        assert_size_stride(primals_6, (512, 128), (128, 1))
        assert_size_stride(primals_7, (512, ), (1, ))
        assert_size_stride(primals_8, (128, 512), (512, 1))
        assert_size_stride(primals_9, (128, ), (1, ))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf0 = empty_strided_cuda((8, 64, 1), (64, 1, 512), torch.float32)
            buf1 = reinterpret_tensor(buf0, (8, 64, 1), (64, 1, 1), 0); del buf0  # reuse
            buf2 = empty_strided_cuda((8, 64, 128), (8192, 128, 1), torch.float32)
            # Topologically Sorted Source Nodes: [pow_1, mean, add, rms, mul, mul_1], Original ATen: [aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused_add_mean_mul_pow_rsqrt_0:1
            stream0 = get_raw_stream(0)
            triton_per_fused_add_mean_mul_pow_rsqrt_0.run(buf1, primals_1, primals_2, buf2, 512, 128, stream=stream0)
            del primals_2
            buf3 = empty_strided_cuda((512, 384), (384, 1), torch.float32)
            # Topologically Sorted Source Nodes: [mul, mul_1, linear], Original ATen: [aten.mul, aten.t, aten.view, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:2
            extern_kernels.mm(reinterpret_tensor(buf2, (512, 128), (128, 1), 0), reinterpret_tensor(primals_3, (128, 384), (1, 128), 0), out=buf3)
            # Topologically Sorted Source Nodes: [linear, split, view, q_1, view_1, k_1, view_2, v_1, y], Original ATen: [aten._unsafe_view, aten.split, aten.view, aten.transpose, aten._scaled_dot_product_efficient_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_efficient_attention.default:3
            buf4 = torch.ops.aten._scaled_dot_product_efficient_attention.default(reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 0), reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 128), reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 256), None, True, 0.0, True)
            buf5 = buf4[0]
            assert_size_stride(buf5, (8, 4, 64, 32), (8192, 32, 128, 1), 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            assert_alignment(buf5, 16, 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            buf6 = buf4[1]
            assert_size_stride(buf6, (8, 4, 64), (256, 64, 1), 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            assert_alignment(buf6, 16, 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            buf7 = buf4[2]
            assert_size_stride(buf7, (), (), 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            assert_alignment(buf7, 16, 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            buf8 = buf4[3]
            assert_size_stride(buf8, (), (), 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            assert_alignment(buf8, 16, 'torch.ops.aten._scaled_dot_product_efficient_attention.default')
            del buf4
            buf9 = empty_strided_cuda((512, 128), (128, 1), torch.float32)
            # Topologically Sorted Source Nodes: [transpose_3, reshape, linear_1], Original ATen: [aten.transpose, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:4
            extern_kernels.mm(reinterpret_tensor(buf5, (512, 128), (128, 1), 0), reinterpret_tensor(primals_4, (128, 128), (1, 128), 0), out=buf9)
            buf10 = empty_strided_cuda((8, 64, 1), (64, 1, 512), torch.float32)
            buf11 = reinterpret_tensor(buf10, (8, 64, 1), (64, 1, 1), 0); del buf10  # reuse
            buf12 = empty_strided_cuda((8, 64, 128), (8192, 128, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_1, x, pow_2, mean_1, add_2, rms_1, mul_2, mul_3], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1:5
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_1.run(buf11, primals_1, buf9, primals_5, buf12, 512, 128, stream=stream0)
            buf13 = empty_strided_cuda((512, 512), (512, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_1, x, mul_2, mul_3, linear_2], Original ATen: [aten._unsafe_view, aten.add, aten.mul, aten.view, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.addmm:6
            extern_kernels.addmm(primals_7, reinterpret_tensor(buf12, (512, 128), (128, 1), 0), reinterpret_tensor(primals_6, (128, 512), (1, 128), 0), alpha=1, beta=1, out=buf13)
            del primals_7
            buf14 = empty_strided_cuda((8, 64, 512), (32768, 512, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_2, h], Original ATen: [aten.view, aten.silu]
            # [Provenance debug handles] triton_poi_fused_silu_view_2:7
            stream0 = get_raw_stream(0)
            triton_poi_fused_silu_view_2.run(buf13, buf14, 262144, stream=stream0)
            buf15 = empty_strided_cuda((512, 128), (128, 1), torch.float32)
            # Topologically Sorted Source Nodes: [linear_2, h, linear_3, ], Original ATen: [aten.view, aten.silu, aten.t, aten.addmm]
            # [Provenance debug handles] extern_kernels.mm:8
            extern_kernels.mm(reinterpret_tensor(buf14, (512, 512), (512, 1), 0), reinterpret_tensor(primals_8, (512, 128), (1, 512), 0), out=buf15)
            buf16 = reinterpret_tensor(buf15, (8, 64, 128), (8192, 128, 1), 0); del buf15  # reuse
            # Topologically Sorted Source Nodes: [linear_1, x, , linear_3, add_3], Original ATen: [aten._unsafe_view, aten.add, aten.addmm, aten.view]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_add_addmm_view_3:9
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_add_addmm_view_3.run(buf16, primals_1, buf9, primals_9, 65536, stream=stream0)
            del primals_9
        return (buf16, primals_1, primals_3, primals_4, primals_5, primals_6, primals_8, buf1, reinterpret_tensor(buf2, (512, 128), (128, 1), 0), reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 0), reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 128), reinterpret_tensor(buf3, (8, 4, 64, 32), (24576, 32, 384, 1), 256), buf5, buf6, buf7, buf8, buf9, buf11, reinterpret_tensor(buf12, (512, 128), (128, 1), 0), buf13, reinterpret_tensor(buf14, (512, 512), (512, 1), 0), )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((8, 64, 128), (8192, 128, 1), device='cuda:0', dtype=torch.float32)
    primals_2 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_3 = rand_strided((384, 128), (128, 1), device='cuda:0', dtype=torch.float32)
    primals_4 = rand_strided((128, 128), (128, 1), device='cuda:0', dtype=torch.float32)
    primals_5 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_6 = rand_strided((512, 128), (128, 1), device='cuda:0', dtype=torch.float32)
    primals_7 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_8 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.float32)
    primals_9 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    return [primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
