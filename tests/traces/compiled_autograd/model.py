import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)


def main():
    torch.manual_seed(0)
    model = MLP().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = torch.compile(model)
    for _ in range(3):
        x = torch.randn(32, 64, device="cuda")
        loss = step(x).sum()
        # Compiled autograd: the backward graph is traced at run time and compiled (compiled_autograd_id).
        with torch._dynamo.compiled_autograd._enable(torch.compile(backend="inductor")):
            loss.backward()
        opt.step()
        opt.zero_grad()
    torch.cuda.synchronize()
    print("done", loss.item())


if __name__ == "__main__":
    main()
