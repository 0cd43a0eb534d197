# inductor-ls example: a tiny decoder block trained for two steps under torch.compile.
# Forward and backward graphs give Triton pointwise, reduction and persistent-reduction kernels,
# extern matmuls (cuBLAS) and the flash-attention kernel behind scaled_dot_product_attention.
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * rms * self.weight


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, t, self.heads, -1).transpose(1, 2)
        k = k.view(b, t, self.heads, -1).transpose(1, 2)
        v = v.view(b, t, self.heads, -1).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim=128, heads=4):
        super().__init__()
        self.norm1 = RMSNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = RMSNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        h = F.silu(self.up(self.norm2(x)))
        return x + self.down(h)


def main():
    torch.manual_seed(0)
    model = Block().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = torch.compile(model)
    x = torch.randn(8, 64, 128, device="cuda")
    for _ in range(2):
        loss = step(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
