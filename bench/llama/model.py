# The large real log of the benchmark (issue: performance on real traces): an 8-layer Llama from transformers
# (random init) trained one step at each of eight sequence lengths with automatic dynamic shapes off, so every
# length is a compile of its own, forward and backward: 16 output codes with provenance, most bytes payloads.
import torch
import torch._dynamo
from transformers import LlamaConfig, LlamaForCausalLM

SEQ_LENS = (32, 48, 64, 80, 96, 128, 160, 192)


def main():
    torch.manual_seed(0)
    torch._dynamo.config.automatic_dynamic_shapes = False
    torch._dynamo.config.recompile_limit = 64
    config = LlamaConfig(vocab_size=2048, hidden_size=512, intermediate_size=1376, num_hidden_layers=8,
                         num_attention_heads=8, num_key_value_heads=8, max_position_embeddings=512)
    model = LlamaForCausalLM(config).cuda()
    model.train()
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for n in SEQ_LENS:
        ids = torch.randint(0, config.vocab_size, (2, n), device="cuda")
        out = compiled(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print("seq", n, "loss", out.loss.item(), flush=True)


if __name__ == "__main__":
    main()
