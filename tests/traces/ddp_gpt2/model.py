# DistributedDataParallel over NCCL on 2 GPUs (torchrun), a transformers GPT-2 compiled whole: DDPOptimizer
# splits each graph at the gradient buckets' boundaries, so one compile logs several output codes; the
# third step's longer sequence recompiles. One log per rank.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=2, n_embd=192, n_head=3, vocab_size=2048, n_positions=256)
    model = GPT2LMHeadModel(cfg).cuda()
    model = DDP(model, bucket_cap_mb=1)
    model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for seq in (32, 32, 64):
        x = torch.randint(0, 2048, (2, seq), device="cuda")
        out = model(input_ids=x, labels=x)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
