# Hugging Face transformers: a tiny LlamaForCausalLM (random init) trained for two AdamW steps. The model code
# lives in the installed package (site-packages/transformers/models/llama/modeling_llama.py).
import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
    model = LlamaForCausalLM(config).cuda()
    model.train()
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(2):
        ids = torch.randint(0, config.vocab_size, (2, 32), device="cuda")
        out = compiled(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print("step", step, "loss", out.loss.item())


if __name__ == "__main__":
    main()
