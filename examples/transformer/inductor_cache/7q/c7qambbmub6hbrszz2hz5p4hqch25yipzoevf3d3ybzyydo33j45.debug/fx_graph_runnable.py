
import os
os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/inductor-example/inductor_cache'
os.environ['TORCH_COMPILE_DEBUG'] = '1'
os.environ['INDUCTOR_PROVENANCE'] = '1'
os.environ['TORCH_TRACE'] = '/tmp/inductor-example/trace'
os.environ['TORCH_CUDA_ARCH_LIST'] = '9.0a'
os.environ['TRITON_CACHE_DIR'] = '/tmp/inductor-example/inductor_cache/triton/0'

import torch
from torch import tensor, device
import torch.fx as fx
from torch._dynamo.testing import rand_strided
from math import inf
import torch._inductor.inductor_prims



import torch._dynamo.config
import torch._inductor.config
import torch._functorch.config
import torch.fx.experimental._config

torch._inductor.config.deterministic = False
torch._inductor.config.triton.store_cubin = False
torch._inductor.config.trace.enabled = False
torch._inductor.config.trace.save_real_tensors = False
torch._functorch.config.functionalize_rng_ops = False
torch._functorch.config.debug_partitioner = False
torch._functorch.config.fake_tensor_allow_unsafe_data_ptr_access = True
torch._functorch.config.unlift_effect_tokens = False
torch._functorch.config.selective_decompose = False



isolate_fails_code_str = None





if "__compile_source__" in globals():
    import inspect as __after_aot_inspect
    import linecache as __after_aot_linecache
    __after_aot_filename = __after_aot_inspect.currentframe().f_code.co_filename
    __after_aot_linecache.cache[__after_aot_filename] = (
        len(__compile_source__),
        None,
        __compile_source__.splitlines(True),
        __after_aot_filename,
    )
# torch version: 2.11.0+cu130
# torch cuda version: 13.0
# torch git version: 70d99e998b4955e0049d13a98d77ae1b14db1f45


# CUDA Info: 
# nvcc: NVIDIA (R) Cuda compiler driver 
# Copyright (c) 2005-2025 NVIDIA Corporation 
# Built on Wed_Aug_20_01:58:59_PM_PDT_2025 
# Cuda compilation tools, release 13.0, V13.0.88 
# Build cuda_13.0.r13.0/compiler.36424714_0 

# GPU Hardware Info: 
# NVIDIA H100 80GB HBM3 : 1 

torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.reset_table()

from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()



    def forward(self, primals_1, primals_3, primals_4, primals_5, primals_6, primals_8, rsqrt, view, permute_1, permute_2, permute_3, getitem_3, getitem_4, getitem_5, getitem_6, mm_1, rsqrt_1, view_8, addmm, view_10, tangents_1):
        view_12 = torch.ops.aten.view.default(tangents_1, [512, 128])
        permute_7 = torch.ops.aten.permute.default(primals_8, [1, 0]);  primals_8 = None
        permute_8 = torch.ops.aten.permute.default(permute_7, [1, 0]);  permute_7 = None
        mm_2 = torch.ops.aten.mm.default(view_12, permute_8);  permute_8 = None
        permute_9 = torch.ops.aten.permute.default(view_12, [1, 0])
        mm_3 = torch.ops.aten.mm.default(permute_9, view_10);  permute_9 = view_10 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(view_12, [0], True);  view_12 = None
        view_13 = torch.ops.aten.view.default(sum_1, [128]);  sum_1 = None
        view_14 = torch.ops.aten.view.default(mm_2, [8, 64, 512]);  mm_2 = None
        view_9 = torch.ops.aten.view.default(addmm, [8, 64, 512]);  addmm = None
        neg = torch.ops.aten.neg.default(view_9)
        exp = torch.ops.aten.exp.default(neg);  neg = None
        add_3 = torch.ops.aten.add.Tensor(exp, 1);  exp = None
        reciprocal = torch.ops.aten.reciprocal.default(add_3);  add_3 = None
        mul_4 = torch.ops.aten.mul.Tensor(reciprocal, 1);  reciprocal = None
        mul_5 = torch.ops.aten.mul.Tensor(view_14, mul_4);  view_14 = None
        sub = torch.ops.aten.sub.Tensor(1, mul_4);  mul_4 = None
        mul_6 = torch.ops.aten.mul.Tensor(view_9, sub);  view_9 = sub = None
        add_6 = torch.ops.aten.add.Tensor(mul_6, 1);  mul_6 = None
        mul_7 = torch.ops.aten.mul.Tensor(mul_5, add_6);  mul_5 = add_6 = None
        view_15 = torch.ops.aten.view.default(mul_7, [512, 512]);  mul_7 = None
        permute_6 = torch.ops.aten.permute.default(primals_6, [1, 0]);  primals_6 = None
        permute_12 = torch.ops.aten.permute.default(permute_6, [1, 0]);  permute_6 = None
        mm_4 = torch.ops.aten.mm.default(view_15, permute_12);  permute_12 = None
        permute_13 = torch.ops.aten.permute.default(view_15, [1, 0])
        mm_5 = torch.ops.aten.mm.default(permute_13, view_8);  permute_13 = view_8 = None
        sum_2 = torch.ops.aten.sum.dim_IntList(view_15, [0], True);  view_15 = None
        view_16 = torch.ops.aten.view.default(sum_2, [512]);  sum_2 = None
        view_17 = torch.ops.aten.view.default(mm_4, [8, 64, 128]);  mm_4 = None
        view_7 = torch.ops.aten.view.default(mm_1, [8, 64, 128]);  mm_1 = None
        add_1 = torch.ops.aten.add.Tensor(primals_1, view_7);  view_7 = None
        mul_2 = torch.ops.aten.mul.Tensor(add_1, rsqrt_1)
        mul_8 = torch.ops.aten.mul.Tensor(view_17, mul_2);  mul_2 = None
        mul_9 = torch.ops.aten.mul.Tensor(view_17, primals_5);  view_17 = primals_5 = None
        sum_3 = torch.ops.aten.sum.dim_IntList(mul_8, [0, 1], True);  mul_8 = None
        view_18 = torch.ops.aten.view.default(sum_3, [128]);  sum_3 = None
        mul_10 = torch.ops.aten.mul.Tensor(mul_9, add_1)
        mul_11 = torch.ops.aten.mul.Tensor(mul_9, rsqrt_1);  mul_9 = None
        sum_4 = torch.ops.aten.sum.dim_IntList(mul_10, [2], True);  mul_10 = None
        add_7 = torch.ops.aten.add.Tensor(tangents_1, mul_11);  tangents_1 = mul_11 = None
        pow_3 = torch.ops.aten.pow.Tensor_Scalar(rsqrt_1, 3);  rsqrt_1 = None
        mul_12 = torch.ops.aten.mul.Scalar(sum_4, -0.5);  sum_4 = None
        mul_13 = torch.ops.aten.mul.Tensor(mul_12, pow_3);  mul_12 = pow_3 = None
        expand = torch.ops.aten.expand.default(mul_13, [8, 64, 128]);  mul_13 = None
        div_1 = torch.ops.aten.div.Scalar(expand, 128);  expand = None
        pow_4 = torch.ops.aten.pow.Tensor_Scalar(add_1, 1.0);  add_1 = None
        mul_14 = torch.ops.aten.mul.Scalar(pow_4, 2.0);  pow_4 = None
        mul_15 = torch.ops.aten.mul.Tensor(div_1, mul_14);  div_1 = mul_14 = None
        add_8 = torch.ops.aten.add.Tensor(add_7, mul_15);  add_7 = mul_15 = None
        view_19 = torch.ops.aten.view.default(add_8, [512, 128]);  add_8 = None
        permute_16 = torch.ops.aten.permute.default(view_19, [1, 0])
        permute_4 = torch.ops.aten.permute.default(getitem_3, [0, 2, 1, 3])
        view_5 = torch.ops.aten.view.default(permute_4, [8, 64, 128]);  permute_4 = None
        view_6 = torch.ops.aten.view.default(view_5, [512, 128]);  view_5 = None
        mm_6 = torch.ops.aten.mm.default(permute_16, view_6);  permute_16 = view_6 = None
        permute_5 = torch.ops.aten.permute.default(primals_4, [1, 0]);  primals_4 = None
        permute_18 = torch.ops.aten.permute.default(permute_5, [1, 0]);  permute_5 = None
        mm_7 = torch.ops.aten.mm.default(view_19, permute_18);  view_19 = permute_18 = None
        view_20 = torch.ops.aten.view.default(mm_7, [8, 64, 128]);  mm_7 = None
        view_21 = torch.ops.aten.view.default(view_20, [8, 64, 4, 32]);  view_20 = None
        permute_20 = torch.ops.aten.permute.default(view_21, [0, 2, 1, 3]);  view_21 = None
        _scaled_dot_product_efficient_attention_backward = torch.ops.aten._scaled_dot_product_efficient_attention_backward.default(permute_20, permute_1, permute_2, permute_3, None, getitem_3, getitem_4, getitem_5, getitem_6, 0.0, [True, True, True, False], True);  permute_20 = permute_1 = permute_2 = permute_3 = getitem_3 = getitem_4 = getitem_5 = getitem_6 = None
        getitem_7 = _scaled_dot_product_efficient_attention_backward[0]
        getitem_8 = _scaled_dot_product_efficient_attention_backward[1]
        getitem_9 = _scaled_dot_product_efficient_attention_backward[2];  _scaled_dot_product_efficient_attention_backward = None
        permute_21 = torch.ops.aten.permute.default(getitem_9, [0, 2, 1, 3]);  getitem_9 = None
        view_22 = torch.ops.aten.view.default(permute_21, [8, 64, 128]);  permute_21 = None
        permute_22 = torch.ops.aten.permute.default(getitem_8, [0, 2, 1, 3]);  getitem_8 = None
        view_23 = torch.ops.aten.view.default(permute_22, [8, 64, 128]);  permute_22 = None
        permute_23 = torch.ops.aten.permute.default(getitem_7, [0, 2, 1, 3]);  getitem_7 = None
        view_24 = torch.ops.aten.view.default(permute_23, [8, 64, 128]);  permute_23 = None
        cat = torch.ops.aten.cat.default([view_24, view_23, view_22], 2);  view_24 = view_23 = view_22 = None
        view_25 = torch.ops.aten.view.default(cat, [512, 384]);  cat = None
        permute_24 = torch.ops.aten.permute.default(view_25, [1, 0])
        mm_8 = torch.ops.aten.mm.default(permute_24, view);  permute_24 = view = None
        permute = torch.ops.aten.permute.default(primals_3, [1, 0]);  primals_3 = None
        permute_26 = torch.ops.aten.permute.default(permute, [1, 0]);  permute = None
        mm_9 = torch.ops.aten.mm.default(view_25, permute_26);  view_25 = permute_26 = None
        view_26 = torch.ops.aten.view.default(mm_9, [8, 64, 128]);  mm_9 = None
        mul = torch.ops.aten.mul.Tensor(primals_1, rsqrt);  primals_1 = rsqrt = None
        mul_16 = torch.ops.aten.mul.Tensor(view_26, mul);  view_26 = mul = None
        sum_5 = torch.ops.aten.sum.dim_IntList(mul_16, [0, 1], True);  mul_16 = None
        view_27 = torch.ops.aten.view.default(sum_5, [128]);  sum_5 = None
        return (None, view_27, mm_8, mm_6, view_18, mm_5, view_16, mm_3, view_13)

def load_args(reader):
    buf0 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf0, (8, 64, 128), is_leaf=True)  # primals_1
    buf1 = reader.storage(None, 196608, device=device(type='cuda', index=0))
    reader.tensor(buf1, (384, 128), is_leaf=True)  # primals_3
    buf2 = reader.storage(None, 65536, device=device(type='cuda', index=0))
    reader.tensor(buf2, (128, 128), is_leaf=True)  # primals_4
    buf3 = reader.storage(None, 512, device=device(type='cuda', index=0))
    reader.tensor(buf3, (128,), is_leaf=True)  # primals_5
    buf4 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf4, (512, 128), is_leaf=True)  # primals_6
    buf5 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf5, (128, 512), is_leaf=True)  # primals_8
    buf6 = reader.storage(None, 2048, device=device(type='cuda', index=0))
    reader.tensor(buf6, (8, 64, 1), is_leaf=True)  # rsqrt
    buf7 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf7, (512, 128), is_leaf=True)  # view
    buf8 = reader.storage(None, 786432, device=device(type='cuda', index=0))
    reader.tensor(buf8, (8, 4, 64, 32), (24576, 32, 384, 1), is_leaf=True)  # permute_1
    reader.tensor(buf8, (8, 4, 64, 32), (24576, 32, 384, 1), storage_offset=128, is_leaf=True)  # permute_2
    reader.tensor(buf8, (8, 4, 64, 32), (24576, 32, 384, 1), storage_offset=256, is_leaf=True)  # permute_3
    buf9 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf9, (8, 4, 64, 32), (8192, 32, 128, 1), is_leaf=True)  # getitem_3
    buf10 = reader.storage(None, 8192, device=device(type='cuda', index=0))
    reader.tensor(buf10, (8, 4, 64), is_leaf=True)  # getitem_4
    buf11 = reader.storage(None, 8, device=device(type='cuda', index=0), dtype_hint=torch.int64)
    reader.tensor(buf11, (), dtype=torch.int64, is_leaf=True)  # getitem_5
    buf12 = reader.storage(None, 8, device=device(type='cuda', index=0), dtype_hint=torch.int64)
    reader.tensor(buf12, (), dtype=torch.int64, is_leaf=True)  # getitem_6
    buf13 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf13, (512, 128), is_leaf=True)  # mm_1
    buf14 = reader.storage(None, 2048, device=device(type='cuda', index=0))
    reader.tensor(buf14, (8, 64, 1), is_leaf=True)  # rsqrt_1
    buf15 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf15, (512, 128), is_leaf=True)  # view_8
    buf16 = reader.storage(None, 1048576, device=device(type='cuda', index=0))
    reader.tensor(buf16, (512, 512), is_leaf=True)  # addmm
    buf17 = reader.storage(None, 1048576, device=device(type='cuda', index=0))
    reader.tensor(buf17, (512, 512), is_leaf=True)  # view_10
    buf18 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf18, (8, 64, 128), is_leaf=True)  # tangents_1
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, tracing_mode='real', check_str=None)
        # mod(*args)