# Compile health that second-pass users hit: a frame past the recompile limit, frames Dynamo skips and runs
# eagerly, a failure raised inside PyTorch from a user line, and one guard failing against several earlier
# compiles (grad mode).
import torch
import torch._dynamo


def shapes(x):
    return x * 2 + 1  # recompiles on every new size (automatic dynamic off), past the recompile limit


def loop_break(x):
    for i in range(3):
        x = x + i
        print("step", i)  # graph break inside a loop
    return x


def gen_skip(x):
    def g():
        yield x + 1
        yield x * 2

    return sum(g())


def bad_matmul(x, w):
    y = x.relu()
    return y @ w  # shapes do not match: raised inside PyTorch, from this line


def grad_many(x):
    return (x * 3).sum()  # compiled for 3 sizes, then called under no_grad


def run(name, fn):
    try:
        fn()
    except Exception as e:  # keep going: each case is recorded in the trace
        print(name, "raised", type(e).__name__, str(e).splitlines()[0][:200])


def main():
    torch.manual_seed(0)
    torch._dynamo.config.automatic_dynamic_shapes = False
    torch._dynamo.config.recompile_limit = 3
    s = torch.compile(shapes)
    for n in range(1, 7):
        run("shapes%d" % n, lambda: s(torch.randn(n, device="cuda")))
    torch._dynamo.config.recompile_limit = 8
    x = torch.randn(16, 32, device="cuda")
    run("loop_break", lambda: torch.compile(loop_break)(x))
    run("gen_skip", lambda: torch.compile(gen_skip)(x))
    run("bad_matmul", lambda: torch.compile(bad_matmul)(x, torch.randn(16, 8, device="cuda")))
    gm = torch.compile(grad_many)
    for n in (8, 16, 32):
        run("grad_many%d" % n, lambda: gm(torch.randn(n, device="cuda")))
    with torch.no_grad():
        run("grad_many_nograd", lambda: gm(torch.randn(8, device="cuda")))
    print("done")


if __name__ == "__main__":
    main()
