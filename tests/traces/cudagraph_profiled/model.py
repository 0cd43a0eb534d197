# An MLP compiled with mode="reduce-overhead" (CUDA graphs), inference, profiled for three steps: kernels run
# inside graph replays, so the profile cannot tie them to single launches.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim=256):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return torch.sigmoid(self.fc2(h)) * x


def main():
    torch.manual_seed(0)
    model = MLP().cuda().eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(64, 256, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            compiled(x)
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(3):
                with torch.profiler.record_function("infer"):
                    out = compiled(x)
            torch.cuda.synchronize()
    prof.export_chrome_trace("profile.json")
    print("sum", float(out.sum()))


if __name__ == "__main__":
    main()
