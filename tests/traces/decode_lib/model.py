# decode_lib: greedy decoding with transformers' `generate()` and a static KV cache, whose forward transformers
# compiles itself: every compiled frame is library code (site-packages/transformers), and this file only calls
# `model.generate` (the entry point into the compiled code). The second generate() runs under torch.profiler
# (profile.json).
import torch
from torch.profiler import ProfilerActivity, profile
from transformers import LlamaConfig, LlamaForCausalLM


def build_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    model = LlamaForCausalLM(config).cuda().eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.pad_token_id = 0
    return model


def decode(model, prompt, new_tokens):
    return model.generate(prompt, max_new_tokens=new_tokens, do_sample=False)


def main():
    model = build_model()
    prompt = torch.randint(1, 1000, (1, 16), device="cuda")
    out = decode(model, prompt, 8)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        out = decode(model, prompt, 8)
        torch.cuda.synchronize()
    prof.export_chrome_trace("profile.json")
    print("generated", out.shape[1] - prompt.shape[1], "tokens")


if __name__ == "__main__":
    main()
