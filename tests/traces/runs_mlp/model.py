# Three runs of one script into one TORCH_TRACE folder, edited between runs as a user would (runs.sh makes
# the edits): run 1 is this file; run 2 inserts a helper above the model (every later line moves down),
# replaces GELU by tanh and adds a residual scale; run 3 adds a `.tolist()` graph break and a second batch
# size (a recompile). Each run writes its own torch.profiler trace, profile_<n>.json (three steps).
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

RUN = int(sys.argv[1]) if len(sys.argv) > 1 else 1
# @@HELPER@@


class Block(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.up(self.norm(x))
        h = F.gelu(h)  # @@ACT@@
        h = self.down(h)
        # @@BREAK@@
        return x + h  # @@RESIDUAL@@


class Net(nn.Module):
    def __init__(self, d=256, n=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return F.log_softmax(self.head(x), dim=-1)


def main():
    torch.manual_seed(0)
    net = Net().cuda()
    fn = torch.compile(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    sizes = [64] if RUN < 3 else [64, 96]

    def step(bs):
        x = torch.randn(bs, 256, device="cuda")
        y = torch.randint(0, 10, (bs,), device="cuda")
        loss = F.nll_loss(fn(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()

    for bs in sizes:
        for _ in range(2):
            step(bs)
    torch.cuda.synchronize()
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    ) as prof:
        for _ in range(3):
            step(sizes[-1])
            prof.step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(f"profile_{RUN}.json")
    print("run", RUN, "done")


if __name__ == "__main__":
    main()
