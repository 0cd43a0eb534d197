#!/usr/bin/env python3
"""bench/runs.py: the cost of comparing two runs (issue 28), on two 110 MB runs of a real model.

    bench/runs.py --server build-bench/inductor-ls [--work /tmp/inductor-bench/runs] [--repeat 3]

The workload `runs-llama` is one folder `trace/` holding two runs of one job: the real log of
bench/llama/llama8l.log.xz (16 compiles of an 8-layer transformers Llama, 110 MB; see bench/README.md) as run A,
and the same job run again an hour later as run B: every glog prefix one hour later, every chromium event's
`"ts"` 3,600 s later (their `has_payload` digests recomputed), another pid and another file name. So every
line of model.py has the same kernels in both runs: the comparison has to match every line and every kernel
of the two runs, its most expensive case. bench/llama/model.py sits in `src/` (the recorded `/tmp/work/llama8l/`
is mapped there, as a user with a trace from a cluster would map it).

Timed (page cache warm: a first untimed run of each; the median of --repeat runs):
 - index A alone and B alone: `inductor-ls explain --json --no-python` on a folder holding only that run's log;
 - the comparison: `explain --json --no-python --baseline <A's log> <B's log>` (both indexes built, then
   compared; the JSON's `comparison` is checked to hold every line `same`);
 - the first answer with both runs in the folder, and with only run B: the server started over stdio on the
   folder (`initialize` with `traceDirs`), then `workspace/symbol` for a kernel of the log (answered once the
   index is built), timed from the start of the process to the answer; the symbol is checked to be in run B's
   log, and `inductor/status` to serve run B with run A as the other run.
Issue 28's targets: the comparison at most 2x indexing both runs; the first answer not waiting for run A.
Nothing of the workload is run; only the server binary.
"""
import argparse
import json
import lzma
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from lsp_client import Lsp  # The stdio client profile.py uses too.
from ranks import digest  # The has_payload md5 of a record's payload lines, as the other workload writes it.

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "llama", "llama8l.log.xz")
MODEL = os.path.join(HERE, "llama", "model.py")
RECORDED = "/tmp/work/llama8l/"
SHIFT_US = 3600 * 1000000
KERNEL = "triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0"  # The first kernel of the log's first compile.


def records(text):
    """(envelope line, [payload lines]) of a log's text."""
    env, payload = None, []
    for line in text.split("\n"):
        if line.startswith("\t") and env is not None:
            payload.append(line)
            continue
        if env is not None:
            yield env, payload
        env, payload = line, []
    if env is not None and env != "":
        yield env, payload


PREFIX = re.compile(r"^([VIWEC])(\d{4}) (\d{2}):(\d{2}:\d{2}\.\d{6}) (\d+) ")
TS = re.compile(r'^(\t"ts": )([0-9]+)(\.[0-9]+)?,$')


def rerun(text, pid):
    """The log of the same job run an hour later by process `pid` (same width as the original's)."""
    out = []
    for env, payload in records(text):
        m = PREFIX.match(env)
        if m:
            hour = (int(m.group(3)) + 1) % 24
            env = "%s%s %02d:%s %s " % (m.group(1), m.group(2), hour, m.group(4), pid) + env[m.end():]
        moved = payload
        if '"chromium_event"' in env:
            moved = []
            for l in payload:
                t = TS.match(l)
                moved.append(l if not t else "%s%d%s," % (t.group(1), int(t.group(2)) + SHIFT_US, t.group(3) or ""))
            if moved != payload:
                d = re.search(r'"has_payload": "([0-9a-f]{32})"', env)
                if d and d.group(1) == digest(payload):
                    env = env[: d.start(1)] + digest(moved) + env[d.end(1):]
        out.append(env)
        out.extend(moved)
    return "\n".join(out) + "\n"


def make(work):
    d = os.path.join(work, "runs-llama")
    stamp = os.path.join(d, ".complete")
    if os.path.exists(stamp):
        return d
    shutil.rmtree(d, ignore_errors=True)
    with lzma.open(SOURCE, "rt", encoding="utf-8", errors="surrogateescape", newline="") as f:
        a = f.read()
    pid = PREFIX.match(a).group(5)
    b = rerun(a, str(int(pid) + 1).rjust(len(pid), "1"))
    for sub, logs in (("both", {"a": a, "b": b}), ("only_a", {"a": a}), ("only_b", {"b": b})):
        os.makedirs(os.path.join(d, sub, "trace"))
        for name, text in logs.items():
            with open(os.path.join(d, sub, "trace", "dedicated_log_torch_trace_%s.log" % name), "w",
                      encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(text)
    os.makedirs(os.path.join(d, "src"))
    shutil.copy(MODEL, os.path.join(d, "src", "model.py"))
    open(stamp, "w").close()
    return d


def timed(cmd, repeat):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)  # warm
    walls, out = [], None
    for _ in range(repeat):
        t = time.monotonic()
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        walls.append(time.monotonic() - t)
    return statistics.median(walls), out


def first_answer(server, d, sub):
    """Seconds from starting the server to its first answer (workspace/symbol for a kernel of the log, which
    waits for the index), the log its location is in, and inductor/status."""
    t = time.monotonic()
    c = Lsp([server])
    c.request("initialize", {
        "processId": None, "rootUri": None, "capabilities": {},
        "initializationOptions": {"traceDirs": [os.path.join(d, sub, "trace")],
                                  "pathMappings": [{"from": RECORDED, "to": os.path.join(d, "src") + "/"}],
                                  "trusted": False}})
    c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    symbols = c.request("workspace/symbol", {"query": KERNEL})
    wall = time.monotonic() - t
    status = c.request("inductor/status", {})
    c.close()
    uri = symbols[0]["location"]["uri"] if symbols else ""
    return wall, uri, status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--work", default="/tmp/inductor-bench/runs")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    d = make(a.work)
    mapping = ["--path-mapping", "%s=%s/" % (RECORDED, os.path.join(d, "src"))]
    explain = [a.server, "explain", "--json", "--no-python"] + mapping
    size = os.path.getsize(os.path.join(d, "only_a", "trace", "dedicated_log_torch_trace_a.log"))
    index_a, _ = timed(explain + [os.path.join(d, "only_a")], a.repeat)
    index_b, _ = timed(explain + [os.path.join(d, "only_b")], a.repeat)
    log_a = os.path.join(d, "both", "trace", "dedicated_log_torch_trace_a.log")
    log_b = os.path.join(d, "both", "trace", "dedicated_log_torch_trace_b.log")
    compare, out = timed(explain + ["--baseline", log_a, log_b], a.repeat)
    comparison = json.loads(out)["comparison"]
    changes = {}
    for line in comparison["lines"]:
        changes[line["change"]] = changes.get(line["change"], 0) + 1
    if not comparison["lines"] or set(changes) != {"same"} or comparison["events"]:
        print("unexpected comparison of a run with its rerun: %s, %d events" % (changes, len(comparison["events"])))
        return 1
    walls = {}
    for sub in ("only_b", "both"):
        first_answer(a.server, d, sub)  # warm
        runs = [first_answer(a.server, d, sub) for _ in range(a.repeat)]
        walls[sub] = statistics.median(r[0] for r in runs)
        uri, status = runs[-1][1], runs[-1][2]
        if "dedicated_log_torch_trace_b.log" not in uri or status.get("otherRuns") != (1 if sub == "both" else 0):
            print("%s: the first answer is not run B's alone: %s, status %s" % (sub, uri, status))
            return 1
        print("%s: %s found in %s; status: run %s, %s other run(s)" % (
            sub, KERNEL, uri.split("/")[-4] if "/" in uri else uri, status.get("run"), status.get("otherRuns")))
    print("| workload | MB per run | index A s | index B s | compare (both + comparison) s | ratio to A+B "
          "| lines compared | first answer, run B alone s | first answer, A and B in the folder s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| runs-llama | %.0f | %.2f | %.2f | %.2f | %.2f | %d | %.2f | %.2f |" % (
        size / 1e6, index_a, index_b, compare, compare / (index_a + index_b), len(comparison["lines"]),
        walls["only_b"], walls["both"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
