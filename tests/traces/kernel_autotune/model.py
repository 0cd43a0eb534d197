# Kernel internals beyond kernel_ir: max-autotune template kernels (a matmul with a fused epilogue), a
# user-written Triton kernel called from the compiled function, and a reduction, with the Triton cache kept
# (IR, PTX, cubin, metadata) where PyTorch puts it (<TORCHINDUCTOR_CACHE_DIR>/triton/0/<hash>/). Profiled, so
# the kernels' achieved bandwidth can be computed.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * scale + 1.0
    tl.store(out_ptr + offs, y, mask=mask)


def scale_shift(x, scale):
    out = torch.empty_like(x)
    n = x.numel()
    scale_shift_kernel[(triton.cdiv(n, 1024),)](x, out, n, scale, BLOCK=1024)
    return out


def layer(a, w, b):
    h = torch.relu(a @ w + b)  # a template kernel with its epilogue
    h = scale_shift(h, 0.5)  # the user's own Triton kernel
    return h.softmax(dim=-1).sum(dim=0)


def main():
    torch.manual_seed(0)
    fn = torch.compile(layer, mode="max-autotune-no-cudagraphs")
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    w = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, device="cuda", dtype=torch.float16)
    fn(a, w, b)
    torch.cuda.synchronize()
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    ) as prof:
        for _ in range(3):
            fn(a, w, b)
            prof.step()
        torch.cuda.synchronize()
    prof.export_chrome_trace("profile.json")
    print("done")


if __name__ == "__main__":
    main()
