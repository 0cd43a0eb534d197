#!/usr/bin/env python3
"""bench/ranks.py: the ranks workload of issue 29, made at bench time from real rank logs, and timed.

    bench/ranks.py --server build-bench/inductor-ls [--ranks 8,1024] [--work /tmp/inductor-bench/ranks]

A workload `ranks-<N>` is N rank logs of one job, each a copy of a real rank log of
../shared/fixtures/traces/ranks_diverge (rank r is a copy of that case's rank r % 4: so rank 2 recompiles, rank 3
graph-breaks and rank 1 generates other code in every group of four), as on hosts of 8 GPUs: rank r runs on
device r % 8, written into the payloads the way PyTorch writes a device (`cuda:1`, `index=1`,
`_DeviceGuard(1`, `get_raw_stream(1`, `stream1`; the same forms as bench/Workload.cpp onDevice, lengths kept)
with their `has_payload` digests recomputed; each record's `rank` and `[rankN]:` prefix and the glog pid are
the rank's, and the file is `dedicated_log_torch_trace_rank_<r>_bench.log`. The case's model.py is copied
beside `trace/`, so the divergences land on lines of a file that exists.

Timed, per workload (page cache warm: a first untimed run): `inductor-ls explain --json --no-python DIR`
(the index built, every compile compared between ranks, `ranks` written), its wall time, the number of
divergences, and `wc -l` of the logs; the figure compared across N is milliseconds per 100k log lines.
Nothing of the workload is run; only the server binary.

    bench/ranks.py --server build/inductor-ls --first [--ranks 1024,4096] [--repeat 3]

`--first` times instead what issue 45 measures: the server started over LSP on the workload (`--no-watch`,
no settings, the workload its workspace), from its start to the first correct `textDocument/definition` of a
launch in rank 0's output code, that document open as an editor reopens it (its URI and text asked of an
earlier, untimed start; the request sent at once: it waits for the index that can answer it); `wc -l` over
the same logs in the same run (the better of two); the time until a lens of model.py is answered (every rank
read: a model line's lens waits for all of them); and the server's peak RSS then (VmHWM), against the
trace's bytes. `--first-rank-over N` passes the server's option (0: every rank read before any answer). Correct: the answer is a line of the workload's model.py that the log's `# File: .../model.py:N`
comments name, holding the code they record.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

from lsp_client import Lsp  # The stdio client of profile.py and runs.py.

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "fixtures", "traces", "ranks_diverge"))
FORMS = ["cuda:0", "index=0", "_DeviceGuard(0", "get_raw_stream(0", "stream0"]


def on_device(text, device):
    if device == 0:
        return text
    d = str(device)
    for form in FORMS:
        pat = re.escape(form) + r"(?![0-9])"
        if form == "stream0":
            pat = r"(?<![A-Za-z0-9_])" + pat
        text = re.sub(pat, form[:-1] + d, text)
    return text


def digest(payload_lines):
    return hashlib.md5("\n".join(l[1:] if l.startswith("\t") else l for l in payload_lines).encode()).hexdigest()


def records(path):
    """(envelope line, [payload lines]) of a log, lines without their '\n'."""
    env, payload = None, []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("\t") and env is not None:
                payload.append(line)
                continue
            if env is not None:
                yield env, payload
            env, payload = line, []
    if env is not None:
        yield env, payload


def replica(source, rank, device):
    out = []
    src_rank = None
    for env, payload in records(source):
        m = re.search(r'"rank": ([0-9]+)', env)
        if m:
            src_rank = m.group(1)
            env = env[: m.start(1)] + str(rank) + env[m.end(1):]
        if src_rank is not None:
            env = env.replace("[rank%s]:" % src_rank, "[rank%d]:" % rank, 1)
        parts = env.split(" ", 3)
        if len(parts) == 4 and parts[2].isdigit():
            parts[2] = str(int(parts[2]) + rank)
            env = " ".join(parts)
        moved = [on_device(l, device) for l in payload]
        if moved != payload:
            m = re.search(r'"has_payload": "([0-9a-f]{32})"', env)
            if m and m.group(1) == digest(payload):
                env = env[: m.start(1)] + digest(moved) + env[m.end(1):]
        out.append(env)
        out.extend(moved)
    return "\n".join(out) + "\n"


def make(work, n):
    d = os.path.join(work, "ranks-%d" % n)
    stamp = os.path.join(d, ".complete")
    if os.path.exists(stamp):
        return d
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "trace"))
    shutil.copy(os.path.join(CASE, "model.py"), d)
    logs = sorted(os.listdir(os.path.join(CASE, "trace")))
    sources = {int(re.search(r"_rank_([0-9]+)_", l).group(1)): os.path.join(CASE, "trace", l) for l in logs}
    cache = {}
    for r in range(n):
        key = (r % len(sources), r % 8)
        if key not in cache:
            cache[key] = replica(sources[key[0]], 0, key[1])
        text = cache[key]
        # The rank's own fields (cheap textual passes over the cached replica of its source and device).
        text = re.sub(r'"rank": 0\b', '"rank": %d' % r, text)
        with open(os.path.join(d, "trace", "dedicated_log_torch_trace_rank_%d_bench.log" % r), "w",
                  encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    open(stamp, "w").close()
    return d


def start_lsp(cmd, root):
    """The server of `cmd` started over stdio (bench/lsp_client.py) and initialized on the folder `root`."""
    lsp = Lsp(cmd)
    uri = "file://" + os.path.abspath(root)
    lsp.request("initialize", {"processId": None, "rootUri": uri,
                               "workspaceFolders": [{"uri": uri, "name": "bench"}],
                               "capabilities": {"general": {"positionEncodings": ["utf-16"]}}})
    lsp.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return lsp


def recorded_model_lines(d):
    """{1-based line: code} of model.py as rank 0's log's `# File: .../model.py:N in F, code: C` name them."""
    out = {}
    log = [f for f in os.listdir(os.path.join(d, "trace")) if "_rank_0_" in f][0]
    pat = re.compile(r"# File: \S*/model\.py:([0-9]+) in \S+, code: (.*)$")
    with open(os.path.join(d, "trace", log), encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = pat.search(line.rstrip("\n"))
            if m:
                out[int(m.group(1))] = m.group(2).strip()
    return out


def rank0_launch(server, d):
    """(uri, text, line, character) of the first launch in rank 0's output code, asked of a server once (an
    untimed start): what an editor has open when the server starts (a document of the last session)."""
    lsp = start_lsp([server, "--no-watch"], d)
    try:
        artifacts = lsp.request("inductor/listArtifacts", {})
        code = [a for a in artifacts if a["kind"] == "outputCode" and a.get("rank") == 0][0]
        text = lsp.request("inductor/artifactContent", {"uri": code["uri"]})["text"]
    finally:
        lsp.close()
    for n, line in enumerate(text.split("\n")):
        m = re.search(r"\b(triton_\w+)\.run\(", line)
        if m:
            return code["uri"], text, n, m.start(1) + 1
    raise RuntimeError("no launch in rank 0's output code")


def first_answer(server, d, files, where, extra=()):
    """(seconds to the first correct definition, seconds until a model.py lens (every rank read), wc -l
    seconds, peak RSS KiB) of one start, the output code of `where` (rank0_launch) open in the editor."""
    uri, text, line, character = where
    wc = min(timed(["wc", "-l"] + files) for _ in range(2))
    start = time.monotonic()
    lsp = start_lsp([server, "--no-watch"] + list(extra), d)
    try:
        lsp.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}}})
        answer = lsp.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                          "position": {"line": line, "character": character}})
        seconds = time.monotonic() - start
        model_uri = "file://" + os.path.join(d, "model.py")
        lsp.request("textDocument/codeLens", {"textDocument": {"uri": model_uri}})
        every = time.monotonic() - start
        rss = lsp.peak_rss_mb() * 1024
    finally:
        lsp.close()
    recorded = recorded_model_lines(d)
    model = open(os.path.join(d, "model.py"), encoding="utf-8").read().split("\n")
    ok = bool(answer) and all(
        a["uri"] == "file://" + os.path.join(d, "model.py") and a["range"]["start"]["line"] + 1 in recorded
        and model[a["range"]["start"]["line"]].strip().startswith(recorded[a["range"]["start"]["line"] + 1])
        for a in answer)
    if not ok:
        raise RuntimeError("wrong first answer: %s" % json.dumps(answer))
    return seconds, every, wc, rss


def timed(cmd):
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--ranks", default="8,1024")
    ap.add_argument("--work", default="/tmp/inductor-bench/ranks")
    ap.add_argument("--first", action="store_true", help="time the first correct definition (issue 45)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--first-rank-over", help="the server's --first-rank-over (default: the server's)")
    a = ap.parse_args()
    if a.first:
        print("| workload | GB | first correct definition s | wc -l s | ratio | every rank read s | peak RSS MB "
              "| RSS / trace |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        extra = ["--first-rank-over", a.first_rank_over] if a.first_rank_over is not None else []
        for n in [int(x) for x in a.ranks.split(",")]:
            d = os.path.abspath(make(a.work, n))
            files = [os.path.join(d, "trace", f) for f in sorted(os.listdir(os.path.join(d, "trace")))]
            size = sum(os.path.getsize(f) for f in files)
            where = rank0_launch(a.server, d)  # Also warms the page cache.
            for _ in range(a.repeat):
                seconds, every, wc, rss = first_answer(a.server, d, files, where, extra)
                print("| ranks-%d | %.2f | %.3f | %.3f | %.1fx | %.3f | %.0f | %.0f%% |" % (
                    n, size / 1e9, seconds, wc, seconds / wc, every, rss / 1024, rss * 1024 * 100 / size))
        return 0
    rows = []
    for n in [int(x) for x in a.ranks.split(",")]:
        d = make(a.work, n)
        lines = 0
        for name in os.listdir(os.path.join(d, "trace")):
            with open(os.path.join(d, "trace", name), "rb") as f:
                lines += sum(1 for _ in f)
        cmd = [a.server, "explain", "--json", "--no-python", d]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)  # warm
        t = time.monotonic()
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        wall = time.monotonic() - t
        j = json.loads(out)
        ranks = j["ranks"]
        kinds = {}
        for dv in ranks["divergences"]:
            kinds[dv["kind"]] = kinds.get(dv["kind"], 0) + 1
        rows.append((n, lines, wall, ranks["count"], kinds, j["stats"]["corruptedRecords"]))
    print("| workload | log lines | explain wall s | ms per 100k lines | ranks | divergences by kind | corrupted |")
    print("|---|---|---|---|---|---|---|")
    for n, lines, wall, count, kinds, bad in rows:
        k = ", ".join("%s %d" % kv for kv in sorted(kinds.items()))
        print("| ranks-%d | %d | %.2f | %.1f | %d | %s | %d |" % (n, lines, wall, wall * 1e3 / (lines / 1e5), count, k, bad))


if __name__ == "__main__":
    sys.exit(main())
