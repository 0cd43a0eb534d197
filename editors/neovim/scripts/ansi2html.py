#!/usr/bin/env python3
"""Renders the output of `tmux capture-pane -e -p` (text with ANSI SGR colour codes) as an HTML page of
one <pre>, for editors/neovim/scripts/screenshot.sh. Handles what tmux emits: reset, bold, italic,
underline, reverse, the 16 colours, the 256-colour palette and 24-bit colours. Usage:
ansi2html.py < capture.txt > page.html"""
import html
import re
import sys

BASE16 = ["#1d1f21", "#cc6666", "#b5bd68", "#f0c674", "#81a2be", "#b294bb", "#8abeb7", "#c5c8c6",
          "#666666", "#d54e53", "#b9ca4a", "#e7c547", "#7aa6da", "#c397d8", "#70c0b1", "#eaeaea"]
FG, BG = "#c5c8c6", "#1d1f21"


def palette(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def main():
    state = {}
    out = []
    sgr = re.compile(r"\x1b\[([0-9;]*)m")
    for line in sys.stdin.read().split("\n"):
        pos = 0
        for m in list(sgr.finditer(line)) + [None]:
            end = m.start() if m else len(line)
            text = line[pos:end]
            if text:
                fg, bg = state.get("fg", FG), state.get("bg", BG)
                if state.get("reverse"):
                    fg, bg = bg, fg
                style = "color:%s;background:%s" % (fg, bg)
                if state.get("bold"):
                    style += ";font-weight:bold"
                if state.get("italic"):
                    style += ";font-style:italic"
                if state.get("underline"):
                    style += ";text-decoration:underline"
                out.append('<span style="%s">%s</span>' % (style, html.escape(text)))
            if not m:
                break
            pos = m.end()
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    state = {}
                elif c == 1:
                    state["bold"] = True
                elif c == 3:
                    state["italic"] = True
                elif c == 4:
                    state["underline"] = True
                elif c == 7:
                    state["reverse"] = True
                elif c == 22:
                    state.pop("bold", None)
                elif c == 23:
                    state.pop("italic", None)
                elif c == 24:
                    state.pop("underline", None)
                elif c == 27:
                    state.pop("reverse", None)
                elif 30 <= c <= 37 or 90 <= c <= 97:
                    state["fg"] = BASE16[c - 30 if c < 90 else c - 82]
                elif 40 <= c <= 47 or 100 <= c <= 107:
                    state["bg"] = BASE16[c - 40 if c < 100 else c - 92]
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    state["fg" if c == 38 else "bg"] = palette(codes[i + 2])
                    i += 2
                elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                    state["fg" if c == 38 else "bg"] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                    i += 4
                elif c == 39:
                    state.pop("fg", None)
                elif c == 49:
                    state.pop("bg", None)
                i += 1
        out.append("\n")
    sys.stdout.write(
        '<!doctype html><meta charset="utf-8"><body style="margin:0;background:%s">'
        '<pre style="margin:0;padding:8px;font:14px/1.4 \'DejaVu Sans Mono\',monospace;background:%s;color:%s">'
        "%s</pre>" % (BG, BG, FG, "".join(out)))


if __name__ == "__main__":
    main()
