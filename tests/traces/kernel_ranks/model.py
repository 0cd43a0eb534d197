# kernel_ranks: DistributedDataParallel on 2 GPUs (NCCL) around a compiled MLP block, the Triton cache kept:
# each rank compiles its kernels into its own `inductor_cache/triton/<rank>/` (the same kernel files, one
# Triton cache entry per rank and kernel).
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, d=512):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.norm(x)
        h = F.gelu(self.fc1(h))
        return torch.softmax(x + self.fc2(h), dim=-1)


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = DDP(Block().cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    step = torch.compile(model)
    for _ in range(3):
        x = torch.randn(32, 128, 512, device="cuda")
        loss = step(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    torch.cuda.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
