#!/usr/bin/env python3
"""bench/profile.py: the first answer with a large torch.profiler trace beside the log (issue 45).

    bench/profile.py --server build/inductor-ls [--copies 1,5,15] [--work /tmp/inductor-bench/profile]

The workload `large-profile-<K>` is bench/lora/lora.tar.xz (a real LoRA fine-tuning of a transformers model
through PEFT on an H100, three steps: its TORCH_TRACE log, 4.4 MB, and its torch.profiler trace, 9 MB; made by
bench/lora/regenerate.sh) with the profile's events written K times one after the other: copy k's `ts` are
k spans later, its `correlation`/`External id` k x 10^7 higher, its step names `ProfilerStep#<n + 3k>`. So
the profile is K times as long (K=5: 45 MB, K=15: 134 MB) and every line's GPU time is K times the K=1 time.

Measured for each K, page cache warm (a first untimed run), the median of --repeat runs:
 - `first`: seconds from starting the server on the folder (workspace discovery finds the log and the
   profile) to the answer of `workspace/symbol` for a kernel of the log (answered once the index is served);
 - `joined`: seconds until `inductor/status` says `indexing: false` (the profile joined);
 - the same `first` with the profile moved out of the folder (`no profile`), and `wc -l` over the same files;
 - peak RSS of the server (VmHWM) at the end.
Checked: the lens GPU times of model.py after the join are K times those of K=1 (within the lenses' three
significant digits). Issue 45's target: `first` with the profile at most 1.2x `first` without it.
Nothing of the workload is run; only the server binary.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tarfile
import time

from lsp_client import Lsp  # The same stdio client as runs.py.

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "lora", "lora.tar.xz")
KERNEL = "triton_red_fused_add_embedding_mean_mul_pow_rsqrt_1"


def grow(profile, copies):
    """The profile's events written `copies` times, each copy later and with its own correlation ids."""
    with open(profile) as f:
        d = json.load(f)
    events = d["traceEvents"]
    times = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float))]
    starts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = (max(times) - min(starts)) + 1000.0
    steps = len({e["name"] for e in events if str(e.get("name", "")).startswith("ProfilerStep#")})
    out = []
    for k in range(copies):
        for e in events:
            e = dict(e)
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] = round(e["ts"] + k * span, 3)
            if "args" in e and isinstance(e["args"], dict):
                a = dict(e["args"])
                for key in ("correlation", "External id", "Ev Idx"):
                    if isinstance(a.get(key), int):
                        a[key] += k * 10_000_000
                e["args"] = a
            if k and e.get("cat") == "ac2g" and isinstance(e.get("id"), int):
                e["id"] += k * 10_000_000
            name = str(e.get("name", ""))
            if k and name.startswith("ProfilerStep#"):
                e["name"] = "ProfilerStep#%d" % (int(name[len("ProfilerStep#"):]) + k * steps)
            out.append(e)
    d["traceEvents"] = out
    return d


def make(work, copies):
    """`<work>/large-profile-<K>/` (model.py, trace/, profile.json) and `<work>/no-profile/` (the same folder
    without the profile)."""
    base = os.path.join(work, "no-profile")
    if not os.path.isdir(base):
        os.makedirs(work, exist_ok=True)
        tmp = os.path.join(work, "extract")
        shutil.rmtree(tmp, ignore_errors=True)
        with tarfile.open(SOURCE) as t:
            t.extractall(tmp)
        os.rename(os.path.join(tmp, "lora"), base)
        os.rename(os.path.join(base, "profile.json"), os.path.join(work, "profile.json"))
        shutil.rmtree(tmp)
    d = os.path.join(work, "large-profile-%d" % copies)
    if not os.path.isfile(os.path.join(d, "profile.json")):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base, d)
        with open(os.path.join(d, "profile.json.part"), "w") as f:
            json.dump(grow(os.path.join(work, "profile.json"), copies), f, indent=1)
        os.rename(os.path.join(d, "profile.json.part"), os.path.join(d, "profile.json"))
    return base, d


def session(server, d):
    """(first answer s, joined s, lens titles of model.py, peak RSS MB) of a server on the folder `d`."""
    t = time.monotonic()
    c = Lsp([server])
    uri = "file://" + d
    c.request("initialize", {
        "processId": None, "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": "w"}],
        "capabilities": {}, "initializationOptions": {"trusted": False}})
    c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    symbols = c.request("workspace/symbol", {"query": KERNEL})
    first = time.monotonic() - t
    if not symbols:
        raise RuntimeError("no symbol %s in %s" % (KERNEL, d))
    while c.request("inductor/status", {}).get("indexing"):
        time.sleep(0.005)
    joined = time.monotonic() - t
    model = os.path.join(d, "model.py")
    with open(model) as f:
        text = f.read()
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file://" + model, "languageId": "python", "version": 1, "text": text}}})
    lenses = c.request("textDocument/codeLens", {"textDocument": {"uri": "file://" + model}}) or []
    titles = {l["range"]["start"]["line"]: (l.get("command") or {}).get("title", "") for l in lenses}
    rss = c.peak_rss_mb()
    c.close()
    return first, joined, titles, rss


def micros(title):
    """The GPU time a lens title shows, in µs (None without one)."""
    m = re.search(r"([0-9.]+) (µs|ms|s)\b", title)
    if not m:
        return None
    return float(m.group(1)) * {"µs": 1, "ms": 1e3, "s": 1e6}[m.group(2)]


def wc(d):
    files = [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith((".log", ".json"))]
    t = time.monotonic()
    subprocess.run(["wc", "-l"] + files, stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--work", default="/tmp/inductor-bench/profile")
    ap.add_argument("--copies", default="1,5,15")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    server = os.path.abspath(a.server)
    rows, ok, unit = [], True, None
    for copies in [int(x) for x in a.copies.split(",")]:
        base, d = make(a.work, copies)
        session(server, base), session(server, d)  # Page cache warm.
        bare = [session(server, base) for _ in range(a.repeat)]
        runs = [session(server, d) for _ in range(a.repeat)]
        first = statistics.median(r[0] for r in runs)
        joined = statistics.median(r[1] for r in runs)
        first_bare = statistics.median(r[0] for r in bare)
        titles = runs[-1][2]
        times = {line: micros(t) for line, t in titles.items() if micros(t)}
        if copies == 1:
            unit = times
        elif unit is not None:
            for line, us in unit.items():
                got = times.get(line)
                if got is None or abs(got - copies * us) > 0.01 * copies * us + 0.5:
                    print("  model.py:%d: %s, expected %.1f µs" % (line + 1, titles.get(line), copies * us))
                    ok = False
        mb = os.path.getsize(os.path.join(d, "profile.json")) / 1e6
        rows.append("| large-profile-%d | %.0f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.0f | %d |" % (
            copies, mb, first_bare, first, first / first_bare, joined, wc(d), max(r[3] for r in runs), len(times)))
    print("| workload | profile MB | first, no profile s | first s | ratio | joined s | wc -l s | peak RSS MB "
          "| lines timed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)
    if not ok:
        print("lens GPU times are not K times those of K=1")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
