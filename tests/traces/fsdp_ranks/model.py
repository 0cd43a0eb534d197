# fsdp_ranks: FSDP2 (fully_shard) over NCCL on 4 GPUs, a transformers Llama whose decoder layers are each
# compiled (regional compilation, `layer.compile()`), the Triton cache kept (one `triton/<rank>/` per rank),
# two AdamW steps. Then one evaluation forward in which the ranks differ: rank 0 runs it as it trained, rank 1
# under `torch.no_grad()`, rank 2 under `torch.autocast("cuda", torch.bfloat16)`, rank 3 on a longer
# sequence: the compiled layers recompile on ranks 1-3, each for its own reason (grad mode, autocast, a size).
import contextlib

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from transformers import LlamaConfig, LlamaForCausalLM


def evaluation_context(rank):
    if rank == 1:
        return torch.no_grad()
    if rank == 2:
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=4096, max_position_embeddings=512)
    model = LlamaForCausalLM(cfg).cuda()
    for layer in model.model.layers:
        layer.compile()
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(2):
        x = torch.randint(0, cfg.vocab_size, (4, 64), device="cuda")
        out = model(input_ids=x, labels=x)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
    length = 96 if rank == 3 else 64
    x = torch.randint(0, cfg.vocab_size, (4, length), device="cuda")
    with evaluation_context(rank):
        logits = model(input_ids=x).logits
    print("rank", rank, "eval logits", tuple(logits.shape), logits.dtype, flush=True)
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
