# Compile health beyond compile_health: breaks inside a third-party package and inside PyTorch, an explicit
# graph_break(), the recompile limit, a failing backend, fullgraph=True failing, a global guard, grad mode,
# requires_grad, a mark_dynamic constraint violation and a specialisation of a maybe-dynamic size.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

import torch
import torch._dynamo

import mylib

SCALE = 2.0


def lib_break(x):
    y = x * 3
    y = mylib.noisy_norm(y)  # break inside mylib
    return y + 1


def nonzero_break(x):
    idx = torch.nonzero(x > 0)  # dynamic output shape: graph break
    return idx.float().sum()


def explicit_break(x):
    x = x.sin()
    torch._dynamo.graph_break()
    return x.cos()


def tolist_break(x):
    vals = x[0].tolist()  # Tensor.tolist()
    return x * len(vals)


def global_guard(x):
    return x * SCALE  # recompiles when the global changes


def grad_mode(x):
    return (x * 2).sum()  # recompiles when grad mode changes


def limited(x, k: int):
    return x + k  # int specialisation, past the recompile limit


def fullgraph_fail(x):
    y = x.exp()
    print("fullgraph cannot print")
    return y


def constrained(x):
    if x.shape[0] == 8:  # specialises a size marked dynamic
        return x * 2
    return x


def maybe_dyn(x):
    if x.shape[0] > 4:
        return x.sum(0)
    return x.mean(0)


def bad_backend(gm, example_inputs):
    raise RuntimeError("bad_backend: this backend cannot compile graphs with " + str(len(gm.graph.nodes)) + " nodes")


def backend_fail(x):
    return torch.tanh(x) + 1


def run(name, fn):
    try:
        fn()
    except Exception as e:  # keep going: each case is recorded in the trace
        print(name, "raised", type(e).__name__, str(e).splitlines()[0][:200])


def main():
    global SCALE
    torch.manual_seed(0)
    x = torch.randn(16, 32, device="cuda")
    run("lib_break", lambda: torch.compile(lib_break)(x))
    run("nonzero_break", lambda: torch.compile(nonzero_break)(x))
    run("explicit_break", lambda: torch.compile(explicit_break)(x))
    run("tolist_break", lambda: torch.compile(tolist_break)(x))
    g = torch.compile(global_guard)
    run("global_guard", lambda: g(x))
    SCALE = 3.0
    run("global_guard2", lambda: g(x))
    gm = torch.compile(grad_mode)
    run("grad_mode", lambda: gm(x))
    with torch.no_grad():
        run("grad_mode2", lambda: gm(x))
    xr = torch.randn(16, 32, device="cuda", requires_grad=True)
    run("grad_mode3", lambda: gm(xr))
    torch._dynamo.config.recompile_limit = 2
    lim = torch.compile(limited)
    for k in range(5):
        run("limited%d" % k, lambda: lim(x, k))
    torch._dynamo.config.recompile_limit = 8
    run("fullgraph_fail", lambda: torch.compile(fullgraph_fail, fullgraph=True)(x))
    y = torch.randn(8, 32, device="cuda")
    torch._dynamo.mark_dynamic(y, 0)
    run("constrained", lambda: torch.compile(constrained)(y))
    z = torch.randn(8, 32, device="cuda")
    torch._dynamo.maybe_mark_dynamic(z, 0)
    run("maybe_dyn", lambda: torch.compile(maybe_dyn)(z))
    torch._dynamo.config.suppress_errors = True
    run("backend_fail", lambda: torch.compile(backend_fail, backend=bad_backend)(x))
    print("done")


if __name__ == "__main__":
    main()
