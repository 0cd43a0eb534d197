# Four ranks (gloo, one GPU) of a data-parallel loop whose ranks drift apart the usual ways: the last batch is
# uneven on rank 3 (a recompile on its batch size, rank 3 alone), rank 1 evaluates under torch.no_grad() once
# (an inference graph only rank 1 compiles), and rank 0 reads a config flag the others do not set (another
# branch: different kernels on rank 0). Shapes of collectives stay equal on every rank, so the job ends.
import os

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as fc
import torch.multiprocessing as mp
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=128, fast_norm=False):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.inp = nn.Linear(d, d)
        self.out = nn.Linear(d, 16)
        self.fast_norm = fast_norm

    def forward(self, x):
        if self.fast_norm:
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        else:
            h = self.norm(x)
        h = torch.tanh(self.inp(h))
        s = fc.all_reduce(h.detach().mean(0, keepdim=True), "sum", dist.group.WORLD)
        return self.out(h - s)


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29571"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    net = Net(fast_norm=(rank == 0)).cuda()
    fn = torch.compile(net)
    batches = [32, 32, 32]
    if rank == 3:
        batches[-1] = 20  # the uneven last shard
    for step, bs in enumerate(batches):
        x = torch.randn(bs, 128, device="cuda")
        out = fn(x)
        out.square().mean().backward()
    if rank == 1:
        with torch.no_grad():
            fn(torch.randn(32, 128, device="cuda"))
    else:
        fn(torch.randn(32, 128, device="cuda")).sum().backward()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(4,), nprocs=4)
