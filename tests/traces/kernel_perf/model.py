# Achieved bandwidth and FLOP/s (issue 30 point 5): with TORCHINDUCTOR_BENCHMARK_KERNEL=1 (the case's `env`),
# Inductor writes `kernel_num_gb` (and, where it can estimate it, `kernel_flop`) into each Triton kernel's
# inductor_meta. An MLP block trained for a step (pointwise, reductions, matmuls), plus a max-autotune function
# whose matmul becomes a Triton template kernel; both profiled, with the Triton cache kept.
import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.norm(x)
        h = F.gelu(self.up(h))  # a pointwise epilogue over 4d
        h = self.down(h)
        return (x + h).float().pow(2).mean()  # a reduction over the whole batch


def scaled_mm(a, b, bias):
    return torch.relu(a @ b + bias) * 0.5  # a template kernel with its epilogue


def main():
    torch.manual_seed(0)
    d = 1024
    block = Block(d).cuda().to(torch.bfloat16)
    step = torch.compile(block)
    x = torch.randn(8192, d, device="cuda", dtype=torch.bfloat16)
    mm = torch.compile(scaled_mm, mode="max-autotune-no-cudagraphs")
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    b = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    bias = torch.randn(2048, device="cuda", dtype=torch.float16)
    for _ in range(2):
        step(x).backward()
        mm(a, b, bias)
    torch.cuda.synchronize()
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    ) as prof:
        for _ in range(3):
            step(x).backward()
            mm(a, b, bias)
            prof.step()
        torch.cuda.synchronize()
    prof.export_chrome_trace("profile.json")
    print("done")


if __name__ == "__main__":
    main()
