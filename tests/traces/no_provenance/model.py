# A small model compiled without INDUCTOR_PROVENANCE=1 (the case's `noprovenance` file): launches carry no
# provenance, only the output code's `# Topologically Sorted Source Nodes` and `# Source node to ATen node mapping`.
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(64)
        self.fc = torch.nn.Linear(64, 64)

    def forward(self, x):
        h = self.norm(x)
        h = torch.nn.functional.gelu(self.fc(h))
        return x + h


def main():
    torch.manual_seed(0)
    m = torch.compile(Block().cuda())
    x = torch.randn(32, 64, device="cuda", requires_grad=True)
    m(x).sum().backward()
    print("done")


if __name__ == "__main__":
    main()
