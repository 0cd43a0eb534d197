# bench/lora: LoRA fine-tuning of a small Llama through PEFT, the model compiled, three steps under
# torch.profiler with stacks and shapes recorded (what makes real profiles large): the bench's large-profile
# workload (bench/README.md, "Profiles"). Run by bench/lora/regenerate.sh on a GPU machine.
import os

import torch
from peft import LoraConfig, get_peft_model
from torch.profiler import ProfilerActivity, profile
from transformers import LlamaConfig, LlamaForCausalLM

STEPS = int(os.environ.get("STEPS", "3"))


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=8192, hidden_size=512, intermediate_size=1376, num_hidden_layers=8,
                         num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=512)
    model = LlamaForCausalLM(config).cuda()
    model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"]))
    compiled = torch.compile(model)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    def train_step():
        ids = torch.randint(0, config.vocab_size, (4, 256), device="cuda")
        out = compiled(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return out

    out = train_step()  # Compiles, outside the profile.
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 with_stack=True) as prof:
        for _ in range(STEPS):
            out = train_step()
            prof.step()
    torch.cuda.synchronize()
    prof.export_chrome_trace("profile.json")
    print("steps", STEPS, "loss", out.loss.item())


if __name__ == "__main__":
    main()
