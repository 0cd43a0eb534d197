#!/usr/bin/env python3
"""Regenerates the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/) from the fixtures.

usage: python3 tests/fuzz/make_corpus.py [FIXTURES_DIR]   (default ../shared/fixtures)

Seeds are small (at most 32 KB each, trace logs 16 KB; about 850 KB in all) and deterministic: the same fixtures give the same files.
Trace-log seeds are runs of real records with payloads cut to a few hundred lines and their has_payload md5
recomputed, so that they stay valid records; JSON payloads are kept whole when small. The other targets get
real output code, graph dumps, provenance files and model sources (cut), and hand-written LSP traffic.
"""
import hashlib
import json
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ROOT))
FIXTURES = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "..", "shared", "fixtures"))
TRACES = os.path.join(FIXTURES, "traces")
TLPARSE = os.path.join(FIXTURES, "tlparse-inputs")
CORPUS = os.path.join(ROOT, "corpus")
MAX_SEED = 32 * 1024
MAX_TRACE_SEED = 16 * 1024  # Trace-log seeds (also the index target's).

ENVELOPE = re.compile(r"^(\[rank\d+\]:)?[A-Z]\d{4} \d\d:\d\d:\d\d\.\d+ ")


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data[:MAX_SEED])


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def find(pattern, base=TRACES, limit=None):
    out = []
    for root, dirs, files in sorted(os.walk(base)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if re.search(pattern, p):
                out.append(p)
    return out[:limit]


def records(text):
    """(envelope line, [payload lines]) for each record of a log."""
    out = []
    for line in text.split("\n"):
        if line.startswith("\t") and out:
            out[-1][1].append(line[1:])
        elif ENVELOPE.match(line):
            out.append((line, []))
    return out


def rebuild(envelope, payload, max_lines):
    """A record with its payload cut to max_lines and has_payload made to match again."""
    if payload and len(payload) > max_lines:
        if envelope.find('"encoding": "json"') >= 0:
            return None  # A cut JSON payload is not a realistic record.
        payload = payload[:max_lines]
    if payload:
        digest = hashlib.md5("\n".join(payload).encode("utf-8", "surrogateescape")).hexdigest()
        envelope = re.sub(r'"has_payload": "[0-9a-f]{32}"', '"has_payload": "%s"' % digest, envelope)
    return envelope + "\n" + "".join("\t" + p + "\n" for p in payload)


SKIPPED_KEEP = ("chromium_event", "describe_tensor", "guard_added")


def trace_seeds():
    logs = [
        os.path.join(TRACES, "mlp_train/trace"),
        os.path.join(TRACES, "aoti_conv/trace"),
        os.path.join(TRACES, "graph_break_dynamic/trace"),
        os.path.join(TRACES, "cpu_inductor/trace"),
        os.path.join(TRACES, "multirank/trace"),
        os.path.join(TLPARSE, "inductor_provenance_jit_debug_handle_log.txt"),
        os.path.join(TLPARSE, "inductor_provenance_aot_log_old.txt"),
        os.path.join(TLPARSE, "simple_corrupted_json.log"),
        os.path.join(TLPARSE, "comp_failure.log"),
    ]
    paths = []
    for p in logs:
        paths += find(r"\.(log|txt)$", p, 2) if os.path.isdir(p) else [p]
    count = 0
    for path in paths:
        seed, n = "", 0
        skipped = {}
        for envelope, payload in records(read(path)):
            kind = re.search(r'\] \{"(\w+)"', envelope)
            kind = kind.group(1) if kind else ""
            # A few skipped records of each kind, every kept one.
            if kind in SKIPPED_KEEP or kind.startswith("describe") or kind.startswith("guard"):
                skipped[kind] = skipped.get(kind, 0) + 1
                if skipped[kind] > 2:
                    continue
            rec = rebuild(envelope, payload, 80)
            if rec is None or len(rec) > MAX_TRACE_SEED:
                continue
            if len(seed) + len(rec) > MAX_TRACE_SEED:
                write("fuzz_trace_log", "%s-%d.log" % (os.path.basename(path), n), seed)
                seed, n, count = "", n + 1, count + 1
                if n >= 3:
                    break
            seed += rec
        if seed and n < 3:
            write("fuzz_trace_log", "%s-%d.log" % (os.path.basename(path), n), seed)
            count += 1
    return count


def json_seeds():
    n = 0
    for p in find(r"(inductor_provenance_tracking_\w+|kernel_information)\.json$", TRACES):
        text = read(p)
        if 0 < len(text) <= MAX_SEED and n < 12:
            write("fuzz_provenance", "file-%02d.json" % n, text)
            n += 1
    for path in [os.path.join(TLPARSE, "inductor_provenance_jit_log.txt"),
                 os.path.join(TLPARSE, "inductor_provenance_aot_debug_handle_log.txt"),
                 os.path.join(TRACES, "mlp_train/trace")]:
        for log in (find(r"\.log$", path, 1) if os.path.isdir(path) else [path]):
            for envelope, payload in records(read(log)):
                if '"encoding": "json"' in envelope and payload and n < 24:
                    text = "\n".join(payload)
                    if len(text) <= MAX_SEED:
                        write("fuzz_provenance", "payload-%02d.json" % n, text)
                        n += 1
    write("fuzz_provenance", "traceback.txt",
          '  File "/tmp/work/m.py", line 29, in forward\n    x = blk(x)\n'
          '  File "/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1775, in _call_impl\n'
          '    return forward_call(*args, **kwargs)\n')
    return n


def cut(text, lines):
    return "\n".join(text.split("\n")[:lines])


def code_seeds():
    picks = find(r"torch_compile_debug/.*/output_code\.(py|cpp)$", TRACES)
    picks = [p for p in picks if "mlp_train" in p or "aoti_conv" in p or "cpu_inductor" in p][:4]
    picks += find(r"\.wrapper\.cpp$", TRACES, 1)
    kernels = [p for p in find(r"inductor_cache/[a-z0-9]{2}/c[a-z0-9]{20,}\.py$", TRACES)
               if "async_compile" not in read(p)[:4000]][:2]
    n = 0
    for p in picks + kernels:
        # No source extension: seeds are data, and formatters must leave them alone.
        write("fuzz_output_code", "code-%02d-%s" % (n, os.path.splitext(p)[1][1:]), cut(read(p), 700))
        n += 1
    return n


def graph_seeds():
    n = 0
    for p in find(r"fx_graph_(readable|transformed)\.py$", TRACES, 4):
        # Input: 2 bytes line, 2 bytes column, 1 byte dotted, then the text.
        write("fuzz_graph_dump", "graph-%02d" % n, b"\x00\x14\x00\x0c\x01" + cut(read(p), 300).encode())
        n += 1
    for envelope, payload in records(read(find(r"\.log$", os.path.join(TRACES, "mlp_train/trace"), 1)[0])):
        if re.search(r'(post_grad_graph|pre_grad_graph|aot_forward_graph)', envelope) and payload and n < 7:
            write("fuzz_graph_dump", "payload-%02d" % n, b"\x00\x05\x00\x10\x00" + "\n".join(payload[:300]).encode())
            n += 1
    return n


def python_seeds():
    n = 0
    for p in find(r"/model\.py$", TRACES, 3) + find(r"output_code\.py$", os.path.join(TRACES, "mlp_train"), 1):
        write("fuzz_python_syntax", "src-%02d" % n, b"\x00\x1d\x00\x08" + cut(read(p), 400).encode())
        n += 1
    write("fuzz_python_syntax", "nested", b"\x00\x03\x00\x02" + b"".join(
        (b"    " * i + b"def f%d(x):\n" % i) for i in range(40)))
    return n


def frame(body):
    b = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


LSP = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"processId": 1, "rootUri": "file:///w", "capabilities": {
         "general": {"positionEncodings": ["utf-16", "utf-8"]}, "window": {"workDoneProgress": True},
         "textDocument": {"hover": {"contentFormat": ["markdown"]}}},
         "initializationOptions": {"traceDirs": ["/w/trace"], "pathMappings": [{"from": "/tmp/work", "to": "/w"}]}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///w/model.py", "languageId": "python", "version": 1, "text": "x = 1\n\u00e9 = '\U0001f600'\n"}}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": "file:///w/model.py", "version": 2},
        "contentChanges": [{"range": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 7}},
                            "text": "y"}]}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": "file:///w/model.py"}, "position": {"line": 0, "character": 2}}},
    {"jsonrpc": "2.0", "id": "s", "method": "textDocument/references",
     "params": {"textDocument": {"uri": "inductor-trace:/l.log/3/0-0-forward-output_code.py"},
                "position": {"line": 40, "character": 4}, "context": {"includeDeclaration": True}}},
    {"jsonrpc": "2.0", "id": 3, "method": "workspace/symbol", "params": {"query": "gelu"}},
    {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 3}},
    {"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand", "params": {"command": "inductor.reindex"}},
    {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {"inductorLs": {
        "traceDirs": ["file:///w/t"]}}}},
    {"jsonrpc": "2.0", "id": "inductor-ls/1", "result": None},
    {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "no", "data": [1]}},
    {"jsonrpc": "2.0", "id": 6, "method": "shutdown"},
]


def lsp_seeds():
    for i, m in enumerate(LSP):
        write("fuzz_jsonrpc_message", "msg-%02d.json" % i, json.dumps(m))
    stream = b"".join(frame(json.dumps(m)) for m in LSP)
    write("fuzz_jsonrpc_framing", "session.bin", stream)
    write("fuzz_jsonrpc_framing", "headers.bin", b"content-length: 2\r\ncontent-type: application/vscode-jsonrpc; "
                                               b"charset=utf-8\r\n\r\n{}" + b"Content-Length: 10\r\n\r\n{\"id\":1}"
                                               + frame("[]") + b"Content-Length: 99999999999\r\n\r\n{}" + frame("{}"))
    write("fuzz_jsonrpc_framing", "delimited.txt", "# comment\n" + "\n---\n".join(json.dumps(m) for m in LSP[:4]))
    for i, u in enumerate(["file:///tmp/work/model.py", "file://localhost/a%20b/c%23d", "file:x", "file:/tmp/a.py",
                           "inductor-trace:/log.log/147/0_0_0-forward-output_code.py", "untitled:Untitled-1",
                           "vscode-notebook-cell:/w/n.ipynb#W0sZmlsZQ%3D%3D", "file:///caf%C3%A9/%E4%B8%AD.py",
                           "http://h:80/p?q=1#f", "file:////srv//x", "C:\\x", "s://a%2Fb@c/p"]):
        write("fuzz_uri", "uri-%02d.txt" % i, u)
    texts = ["def f(x):\n    return x\n", "a\r\nb\r\n\r\n", "\u00e9\u4e2d\U0001f600 tail\n", "\xff\xfe bad \xc3",
             '{"line": 1e30, "character": -1}', '{"line": 18446744073709551615, "character": 2.5}']
    for i, t in enumerate(texts):
        # Input: 2 bytes line, 2 bytes character, 1 byte encoding, then the text.
        write("fuzz_position", "text-%02d.bin" % i, bytes([0, i % 3, 0, 5 + i, i % 3]) +
              t.encode("utf-8", "surrogateescape") if "\xff" not in t else bytes([0, 0, 0, 3, 1]) + b"\xff\xfe bad \xc3")
    for i, t in enumerate([b"file:///home/u/model.py", "4 kernels \u00b7 2 forward \"q\" \\ \t\n".encode(),
                           b"bad \xe6\x97 \x80 \xff \xc0\xaf end", "\U0001f600 \u65e5\u672c \x00\x1f\x7f".encode()]):
        write("fuzz_json_writer", "string-%02d.bin" % i, t)


def profile_seeds():
    """fuzz_profile: 5 bytes of bounds (token, whitespace, depth, events), then a profile or a recompile_reasons
    payload. The real profiles' first events, closed again; hand-written reasons."""
    n = 0
    for name in ["profiled_mlp/profile.json", "runs_gpt/profile_base.json"]:
        path = os.path.join(TRACES, name)
        if not os.path.exists(path):
            continue
        text = read(path)
        cut = text.rfind("},", 0, MAX_SEED - 64)
        write("fuzz_profile", name.replace("/", "-"), bytes([16, 4, 8, 0, 64]) + (text[:cut + 1] + "]}").encode(
            "utf-8", "surrogateescape"))
        n += 1
    write("fuzz_profile", "recompile_reasons.json", bytes([0, 0, 0, 0, 0]) +
          b'["8/0: tensor \'x\' size mismatch at index 0. expected 8, actual 16", [], [[]], "0/0: k == 1"]')
    return n + 1


def triton_seeds():
    """fuzz_triton_ir: a stage byte (source, ttir, ttgir, llir, ptx) and 8 bytes of limits (the largest), then
    a real IR file of kernel_ir's Triton cache, cut. fuzz_cubin: the kernel name's length and name, then the
    entry's cubin."""
    stages = {".source": 0, ".ttir": 1, ".ttgir": 2, ".llir": 3, ".ptx": 4}
    # The largest the target picks: 1,001 code lines, 65 files, 1,001-byte names, 1,001 aliases, 65 functions.
    limits = bytes([0x03, 0xE8, 64, 0x03, 0xE8, 0x03, 0xE8, 64])
    entries = sorted({os.path.dirname(p) for p in find(r"kernel_ir/inductor_cache/triton/0/[A-Z2-7]{52}/[^/]+$")})
    entries = [e for e in entries if all(len(os.path.splitext(f)[0]) <= 64 for f in os.listdir(e))][:2]
    n = 0
    for entry in entries:
        for name in sorted(os.listdir(entry)):
            stem, ext = os.path.splitext(name)
            path = os.path.join(entry, name)
            if ext in stages:
                write("fuzz_triton_ir", "%s%s" % (os.path.basename(entry)[:8], ext),
                      bytes([stages[ext]]) + limits + cut(read(path), 400).encode("utf-8", "surrogateescape"))
                n += 1
            elif ext == ".cubin":
                with open(path, "rb") as f:
                    write("fuzz_cubin", "%s.cubin" % os.path.basename(entry)[:8],
                          bytes([len(stem)]) + stem.encode() + f.read())
                n += 1
    return n


def main():
    if not os.path.isdir(TRACES):
        sys.exit("fixtures not found: " + FIXTURES)
    shutil.rmtree(CORPUS, ignore_errors=True)
    print("trace logs", trace_seeds())
    print("provenance", json_seeds())
    print("output code", code_seeds())
    print("graphs", graph_seeds())
    print("python", python_seeds())
    print("profiles", profile_seeds())
    print("triton", triton_seeds())
    lsp_seeds()
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(CORPUS) for f in fs)
    print("corpus: %d files, %d KB" % (sum(len(fs) for _, _, fs in os.walk(CORPUS)), total // 1024))


if __name__ == "__main__":
    main()
