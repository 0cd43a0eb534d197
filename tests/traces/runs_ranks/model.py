# Two runs of a two-rank job (gloo, both ranks on one GPU) into one TORCH_TRACE folder: four logs, two per
# rank. Between the runs, runs.sh edits the model (ReLU becomes SiLU, an extra all_reduce of the loss scale).
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as fc
import torch.multiprocessing as mp
import torch.nn as nn

RUN = int(sys.argv[1]) if len(sys.argv) > 1 else 1


class Net(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        h = torch.relu(self.inp(x))  # @@ACT@@
        h = h + fc.all_reduce(h.detach(), "sum", dist.group.WORLD)
        # @@EXTRA@@
        return self.out(h).mean()


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(29600 + RUN)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    net = Net().cuda()
    fn = torch.compile(net)
    for step in range(2):
        x = torch.randn(32, 128, device="cuda")
        loss = fn(x)
        loss.backward()
        if rank == 0:
            print("run", RUN, "step", step, loss.item())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
