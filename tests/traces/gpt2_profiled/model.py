# Hugging Face transformers: a tiny GPT2LMHeadModel trained for six steps; steps 3-5 run under torch.profiler
# with a schedule and the TensorBoard handler (gzip), so the Chrome trace marks ProfilerStep#N.
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=1000, n_embd=128, n_layer=2, n_head=4, n_positions=128)
    model = GPT2LMHeadModel(config).cuda()
    model.train()
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, config.vocab_size, (4, 64), device="cuda")

    def step():
        out = compiled(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return out.loss

    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    schedule = torch.profiler.schedule(wait=1, warmup=2, active=3, repeat=1)
    handler = torch.profiler.tensorboard_trace_handler("profile", worker_name="worker0", use_gzip=True)
    with torch.profiler.profile(activities=acts, schedule=schedule, on_trace_ready=handler) as prof:
        for _ in range(6):
            loss = step()
            prof.step()
    torch.cuda.synchronize()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
