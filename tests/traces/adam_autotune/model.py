# A compiled optimizer step (Adam: kernels whose stacks hold only PyTorch's frames) and a max-autotune
# matmul (the Inductor cache holds one benchmark module per autotuning choice).
import torch


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 512)
        self.fc2 = torch.nn.Linear(512, 256)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


@torch.compile
def opt_step(opt):
    opt.step()


def head(a, b):
    return torch.relu(a @ b) * 2.0  # a template kernel with max-autotune


def main():
    torch.manual_seed(0)
    model = MLP().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(64, 256, device="cuda")
    for _ in range(2):
        loss = model(x).square().mean()
        loss.backward()
        opt_step(opt)
        opt.zero_grad()
    h = torch.compile(head, mode="max-autotune-no-cudagraphs")
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    h(a, b)
    torch.cuda.synchronize()
    print("done")


if __name__ == "__main__":
    main()
