
import os
os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/inductor-example/inductor_cache'
os.environ['TORCH_COMPILE_DEBUG'] = '1'
os.environ['INDUCTOR_PROVENANCE'] = '1'
os.environ['TORCH_TRACE'] = '/tmp/inductor-example/trace'
os.environ['TORCH_CUDA_ARCH_LIST'] = '9.0a'

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

torch._inductor.config.trace.enabled = False
torch._inductor.config.trace.save_real_tensors = False
torch._functorch.config.functionalize_rng_ops = False
torch._functorch.config.debug_partitioner = True
torch._functorch.config.fake_tensor_allow_unsafe_data_ptr_access = True
torch._functorch.config.unlift_effect_tokens = True
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



    def forward(self, primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9):
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(primals_1, 2)
        mean = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        mul = torch.ops.aten.mul.Tensor(primals_1, rsqrt)
        mul_1 = torch.ops.aten.mul.Tensor(mul, primals_2);  mul = primals_2 = None
        permute = torch.ops.aten.permute.default(primals_3, [1, 0])
        view = torch.ops.aten.view.default(mul_1, [512, 128]);  mul_1 = None
        mm = torch.ops.aten.mm.default(view, permute);  permute = None
        view_1 = torch.ops.aten.view.default(mm, [8, 64, 384]);  mm = None
        split = torch.ops.aten.split.Tensor(view_1, 128, -1);  view_1 = None
        getitem = split[0]
        getitem_1 = split[1]
        getitem_2 = split[2];  split = None
        view_2 = torch.ops.aten.view.default(getitem, [8, 64, 4, -1]);  getitem = None
        permute_1 = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None
        view_3 = torch.ops.aten.view.default(getitem_1, [8, 64, 4, -1]);  getitem_1 = None
        permute_2 = torch.ops.aten.permute.default(view_3, [0, 2, 1, 3]);  view_3 = None
        view_4 = torch.ops.aten.view.default(getitem_2, [8, 64, 4, -1]);  getitem_2 = None
        permute_3 = torch.ops.aten.permute.default(view_4, [0, 2, 1, 3]);  view_4 = None
        _scaled_dot_product_efficient_attention = torch.ops.aten._scaled_dot_product_efficient_attention.default(permute_1, permute_2, permute_3, None, True, 0.0, True)
        getitem_3 = _scaled_dot_product_efficient_attention[0]
        getitem_4 = _scaled_dot_product_efficient_attention[1]
        getitem_5 = _scaled_dot_product_efficient_attention[2]
        getitem_6 = _scaled_dot_product_efficient_attention[3];  _scaled_dot_product_efficient_attention = None
        permute_4 = torch.ops.aten.permute.default(getitem_3, [0, 2, 1, 3])
        view_5 = torch.ops.aten.view.default(permute_4, [8, 64, 128]);  permute_4 = None
        permute_5 = torch.ops.aten.permute.default(primals_4, [1, 0])
        view_6 = torch.ops.aten.view.default(view_5, [512, 128]);  view_5 = None
        mm_1 = torch.ops.aten.mm.default(view_6, permute_5);  view_6 = permute_5 = None
        view_7 = torch.ops.aten.view.default(mm_1, [8, 64, 128])
        add_1 = torch.ops.aten.add.Tensor(primals_1, view_7);  view_7 = None
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(add_1, 2)
        mean_1 = torch.ops.aten.mean.dim(pow_2, [-1], True);  pow_2 = None
        add_2 = torch.ops.aten.add.Tensor(mean_1, 1e-06);  mean_1 = None
        rsqrt_1 = torch.ops.aten.rsqrt.default(add_2);  add_2 = None
        mul_2 = torch.ops.aten.mul.Tensor(add_1, rsqrt_1)
        mul_3 = torch.ops.aten.mul.Tensor(mul_2, primals_5);  mul_2 = None
        view_8 = torch.ops.aten.view.default(mul_3, [512, 128]);  mul_3 = None
        permute_6 = torch.ops.aten.permute.default(primals_6, [1, 0])
        addmm = torch.ops.aten.addmm.default(primals_7, view_8, permute_6);  primals_7 = permute_6 = None
        view_9 = torch.ops.aten.view.default(addmm, [8, 64, 512])
        neg = torch.ops.aten.neg.default(view_9)
        exp = torch.ops.aten.exp.default(neg);  neg = None
        add_3 = torch.ops.aten.add.Tensor(exp, 1);  exp = None
        div = torch.ops.aten.div.Tensor(view_9, add_3);  view_9 = add_3 = None
        view_10 = torch.ops.aten.view.default(div, [512, 512]);  div = None
        permute_7 = torch.ops.aten.permute.default(primals_8, [1, 0])
        addmm_1 = torch.ops.aten.addmm.default(primals_9, view_10, permute_7);  primals_9 = permute_7 = None
        view_11 = torch.ops.aten.view.default(addmm_1, [8, 64, 128]);  addmm_1 = None
        add_4 = torch.ops.aten.add.Tensor(add_1, view_11);  add_1 = view_11 = None
        return (add_4, primals_1, primals_3, primals_4, primals_5, primals_6, primals_8, rsqrt, view, permute_1, permute_2, permute_3, getitem_3, getitem_4, getitem_5, getitem_6, mm_1, rsqrt_1, view_8, addmm, view_10)

def load_args(reader):
    buf0 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf0, (8, 64, 128), is_leaf=True)  # primals_1
    buf1 = reader.storage(None, 512, device=device(type='cuda', index=0))
    reader.tensor(buf1, (128,), is_leaf=True)  # primals_2
    buf2 = reader.storage(None, 196608, device=device(type='cuda', index=0))
    reader.tensor(buf2, (384, 128), is_leaf=True)  # primals_3
    buf3 = reader.storage(None, 65536, device=device(type='cuda', index=0))
    reader.tensor(buf3, (128, 128), is_leaf=True)  # primals_4
    buf4 = reader.storage(None, 512, device=device(type='cuda', index=0))
    reader.tensor(buf4, (128,), is_leaf=True)  # primals_5
    buf5 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf5, (512, 128), is_leaf=True)  # primals_6
    buf6 = reader.storage(None, 2048, device=device(type='cuda', index=0))
    reader.tensor(buf6, (512,), is_leaf=True)  # primals_7
    buf7 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf7, (128, 512), is_leaf=True)  # primals_8
    buf8 = reader.storage(None, 512, device=device(type='cuda', index=0))
    reader.tensor(buf8, (128,), is_leaf=True)  # primals_9
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, tracing_mode='real', check_str=None)
        # mod(*args)