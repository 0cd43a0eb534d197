# Two ranks (gloo, one GPU) whose compiled graphs issue their collectives in another order: rank 1 broadcasts the
# gate before reducing the activations, rank 0 after. The job hangs as real jobs do; the process group's
# timeout ends it (the logs hold both ranks' collective schedules up to the hang).
import datetime
import os

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as fc
import torch.multiprocessing as mp
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=128, gate_first=False):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.gate = nn.Linear(d, 8)
        self.gate_first = gate_first

    def forward(self, x):
        h = torch.relu(self.inp(x))
        g = torch.sigmoid(self.gate(x))
        if self.gate_first:
            g = fc.broadcast(g, 0, dist.group.WORLD)
            h = fc.all_reduce(h, "sum", dist.group.WORLD)
        else:
            h = fc.all_reduce(h, "sum", dist.group.WORLD)
            g = fc.broadcast(g, 0, dist.group.WORLD)
        return h.mean() + g.mean()


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29583"
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=30))
    torch.manual_seed(0)
    fn = torch.compile(Net(gate_first=(rank == 1)).cuda())
    with torch.no_grad():
        out = fn(torch.randn(32, 128, device="cuda"))
        print("rank", rank, float(out))
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
