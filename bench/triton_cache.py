#!/usr/bin/env python3
"""bench/triton_cache.py: what a Triton cache beside the traces adds to the first answer (issue 30).

    bench/triton_cache.py --server build-bench/inductor-ls [--case ../shared/fixtures/traces/kernel_ir] [--runs 60]

Copies the case twice under --work: as it is (its Inductor cache holds Triton's cache in `triton/<rank>/<key>/`,
where PyTorch puts it by default) and without `inductor_cache/triton/`. Then runs `inductor-ls explain
--no-python` (discovery, the index build and its answers: what the server does before its first answer) on
each copy, alternating, --runs times each, and prints the median and minimum wall times and their ratios
(issue 30's target: at most 1.10). Alternating keeps the machine's load drifts out of the ratio.
Then the same with `explain --json --no-python`, whose `kernels` join every Triton kernel to its entry: what
the first request about a Triton kernel (a hover on a launch, `inductor/lowered`) adds, since the cache is read
on first use.
Nothing of the case is run; only the server binary.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--case", default=os.path.join(HERE, "..", "..", "shared", "fixtures", "traces", "kernel_ir"))
    ap.add_argument("--work", default="/tmp/inductor-bench/triton-cache")
    ap.add_argument("--runs", type=int, default=60)
    a = ap.parse_args()
    case = os.path.normpath(a.case)
    shutil.rmtree(a.work, ignore_errors=True)
    with_cache, without = os.path.join(a.work, "with"), os.path.join(a.work, "without")
    shutil.copytree(case, with_cache, symlinks=True)
    shutil.copytree(case, without, symlinks=True)
    triton = os.path.join(without, "inductor_cache", "triton")
    if not os.path.isdir(triton):
        print("%s has no inductor_cache/triton/" % case)
        return 1
    shutil.rmtree(triton)
    entries = sum(len(os.listdir(os.path.join(with_cache, "inductor_cache", "triton", r)))
                  for r in os.listdir(os.path.join(with_cache, "inductor_cache", "triton")))
    print("| case | command | Triton cache entries | with: median / min ms | without: median / min ms "
          "| ratio of medians | ratio of minimums |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for flags in (["--no-python"], ["--json", "--no-python"]):
        times = {with_cache: [], without: []}
        for _ in range(a.runs):
            for d in (with_cache, without):
                t = time.perf_counter()
                subprocess.run([a.server, "explain"] + flags + [d], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
                times[d].append(time.perf_counter() - t)
        med = {d: statistics.median(v) * 1e3 for d, v in times.items()}
        low = {d: min(v) * 1e3 for d, v in times.items()}
        print("| %s | `explain %s` | %d | %.1f / %.1f | %.1f / %.1f | %.3f | %.3f |" % (
            os.path.basename(case), " ".join(flags), entries, med[with_cache], low[with_cache], med[without],
            low[without], med[with_cache] / med[without], low[with_cache] / low[without]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
