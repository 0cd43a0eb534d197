# FSDP2 (fully_shard) over NCCL on 2 GPUs (torchrun), a transformers Llama whose decoder layers are each
# compiled (`layer.compile()`): every layer is a recompile of the same frame. One log per rank.
import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=128, intermediate_size=344, num_hidden_layers=2, num_attention_heads=2,
                      num_key_value_heads=1, vocab_size=2048, max_position_embeddings=256)
    model = LlamaForCausalLM(cfg).cuda()
    for layer in model.model.layers:
        layer.compile()
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(2):
        x = torch.randint(0, 2048, (2, 32), device="cuda")
        out = model(input_ids=x, labels=x)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
