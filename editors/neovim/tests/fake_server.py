#!/usr/bin/env python3
"""A stand-in for inductor-ls that follows the pinned interface, for testing the Neovim
client while the real server is not ready: INDUCTOR_LS=editors/neovim/tests/fake_server.py.

It knows one fact of the mlp_train fixture (kernels whose name contains "gelu" come from
model.py line 16, 1-based) and finds launches by text. It is not a model of the server;
the real binary is what the tests are for. stdout carries only LSP frames.
"""
import glob
import json
import os
import re
import sys
import urllib.parse

ARTIFACT = "inductor-trace:/dedicated_log_torch_trace_9bvvd8es.log/0/0_0_0-forward-output_code.py"
ORIGIN_LINE = 15  # 0-based: model.py:16
ORIGIN_TEXT = "h = F.gelu(self.fc1(h))"

state = {"root": None, "encoding": "utf-16", "docs": {}, "refresh": False}


def send(msg):
    msg["jsonrpc"] = "2.0"
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(sys.stdin.buffer.read(length))


def to_path(uri):
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path)


def to_uri(path):
    return "file://" + urllib.parse.quote(path)


def output_codes():
    return sorted(glob.glob(os.path.join(state["root"], "torch_compile_debug", "**", "output_code.py"), recursive=True))


def forward_code():
    codes = output_codes()
    for p in codes:
        if "forward" in p:
            return p
    return codes[0] if codes else None


def text_of(uri):
    if uri in state["docs"]:
        return state["docs"][uri]
    if uri == ARTIFACT:
        with open(forward_code()) as f:
            return f.read()
    with open(to_path(uri)) as f:
        return f.read()


def word_at(uri, pos):
    lines = text_of(uri).split("\n")
    if pos["line"] >= len(lines):
        return ""
    line = lines[pos["line"]]
    for m in re.finditer(r"\w+", line):
        if m.start() <= pos["character"] <= m.end():
            return m.group(0)
    return ""


def model_uri():
    return to_uri(os.path.join(state["root"], "model.py"))


def loc(uri, line, col=0, end=None):
    return {"uri": uri, "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": end or col}}}


def launches(uri, text):
    out = []
    for i, line in enumerate(text.split("\n")):
        m = re.search(r"(triton_\w*gelu\w*)\.run\(", line)
        if m:
            out.append((loc(uri, i, m.start(1), m.end(1)), m.group(1)))
    return out


def all_launches():
    out = []
    for p in output_codes():
        with open(p) as f:
            out += launches(to_uri(p), f.read())
    if forward_code():
        out += launches(ARTIFACT, text_of(ARTIFACT))
    return out


def origin():
    return [loc(model_uri(), ORIGIN_LINE, 4, 27)]


def handle(method, params):
    if method == "initialize":
        caps = params.get("capabilities", {})
        offered = caps.get("general", {}).get("positionEncodings") or caps.get("offsetEncoding") or []
        state["encoding"] = "utf-8" if "utf-8" in offered else "utf-16"
        state["refresh"] = bool(caps.get("workspace", {}).get("codeLens", {}).get("refreshSupport"))
        state["root"] = to_path(params.get("rootUri") or "file://" + os.getcwd())
        return {
            "capabilities": {
                "positionEncoding": state["encoding"],
                "textDocumentSync": {"openClose": True, "change": 1},
                "definitionProvider": True,
                "referencesProvider": True,
                "hoverProvider": True,
                "codeLensProvider": {"resolveProvider": False},
                "documentSymbolProvider": True,
                "workspaceSymbolProvider": True,
                "executeCommandProvider": {"commands": ["inductor.reindex"]},
            },
            "offsetEncoding": state["encoding"] if "offsetEncoding" in caps else None,
            "serverInfo": {"name": "fake-inductor-ls", "version": "0"},
        }
    if method == "shutdown":
        return None
    if method == "textDocument/definition":
        w = word_at(params["textDocument"]["uri"], params["position"])
        return origin() if "gelu" in w else []
    if method == "textDocument/hover":
        w = word_at(params["textDocument"]["uri"], params["position"])
        if "gelu" not in w:
            return None
        return {"contents": {"kind": "markdown", "value": "**%s** (debug handle 3, compile 0/0, forward, triton)\n\norigins: `model.py:16` %s" % (w, ORIGIN_TEXT)}}
    if method == "textDocument/references":
        if params["textDocument"]["uri"] == model_uri() and params["position"]["line"] == ORIGIN_LINE:
            return [l for l, _ in all_launches()]
        return []
    if method == "inductor/launchSites":
        if params["textDocument"]["uri"] == model_uri() and params["position"]["line"] == ORIGIN_LINE:
            return [l for l, _ in all_launches()]
        return []
    if method == "textDocument/codeLens":
        uri = params["textDocument"]["uri"]
        if uri == model_uri():
            r = loc(uri, ORIGIN_LINE)["range"]
            return [{"range": r, "command": {"title": "3 kernels · 2 forward · 1 backward", "command": "inductor.showLaunchSites", "arguments": [uri, r["start"]]}}]
        lenses = []
        text = text_of(uri)
        for i, line in enumerate(text.split("\n")):  # AOTI C++ wrappers: one lens per kernel caller
            if re.search(r"\bcall_triton_\w+\(", line):
                lenses.append({"range": loc(uri, i)["range"], "command": {"title": "model.py:17  x = f(x)", "command": "inductor.showLocations", "arguments": [uri, {"line": i, "character": 0}, origin()]}})
        for l, _ in launches(uri, text):
            lenses.append({"range": l["range"], "command": {"title": "model.py:16  " + ORIGIN_TEXT, "command": "inductor.showLocations", "arguments": [uri, l["range"]["start"], origin()]}})
        return lenses
    if method == "textDocument/documentSymbol" or method == "workspace/symbol":
        return []
    if method == "inductor/listArtifacts":
        return [{"uri": ARTIFACT, "title": "forward output code (log)", "compileId": "0/0", "rank": 0, "graphKind": "forward", "kind": "outputCode", "languageId": "python"}]
    if method == "inductor/artifactContent":
        if params["uri"] != ARTIFACT:
            raise KeyError(params["uri"])
        return {"text": text_of(ARTIFACT), "languageId": "python"}
    if method == "inductor/status":
        return status()
    if method == "workspace/executeCommand":
        if state["refresh"]:
            send({"id": "refresh-1", "method": "workspace/codeLens/refresh", "params": None})
        send({"method": "inductor/status", "params": status()})
        return None
    raise NotImplementedError(method)


def status():
    return {"indexing": False, "traces": 1, "compiles": 2, "kernels": 9, "launches": 18, "errors": 0}


def main():
    while True:
        msg = read()
        if msg is None:
            return
        method = msg.get("method")
        if method is None:
            continue  # a response to our request
        params = msg.get("params") or {}
        if method == "exit":
            return
        if method == "textDocument/didOpen":
            state["docs"][params["textDocument"]["uri"]] = params["textDocument"]["text"]
        elif method == "textDocument/didChange":
            state["docs"][params["textDocument"]["uri"]] = params["contentChanges"][-1]["text"]
        elif method == "textDocument/didClose":
            state["docs"].pop(params["textDocument"]["uri"], None)
        if "id" not in msg:
            if method == "initialized":
                send({"method": "inductor/status", "params": status()})
            continue
        try:
            send({"id": msg["id"], "result": handle(method, params)})
        except NotImplementedError:
            send({"id": msg["id"], "error": {"code": -32601, "message": "method not found: " + method}})
        except Exception as e:  # noqa: BLE001 - a fake: report anything as InvalidParams
            send({"id": msg["id"], "error": {"code": -32602, "message": repr(e)}})


if __name__ == "__main__":
    main()
