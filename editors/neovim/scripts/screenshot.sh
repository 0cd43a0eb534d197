#!/usr/bin/env bash
# Takes editors/neovim/screenshot.png: Neovim (Debian's 0.7.2) in a real terminal (tmux, 150x40) with the
# README's setup, on the mlp_train fixture: model.py with its code lenses and the hover of line 16 (`K`),
# beside the forward output code with its origin lenses. The pane is captured with its colours
# (tmux capture-pane -e), rendered to HTML (ansi2html.py) and photographed by headless Chromium.
#   INDUCTOR_LS        server binary (default: <repo>/build/inductor-ls)
#   INDUCTOR_FIXTURES  fixtures folder (default: <repo>/../shared/fixtures)
#   OUT                the picture (default: editors/neovim/screenshot.png)
# Needs tmux, nvim, chromium and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
INDUCTOR_LS="${INDUCTOR_LS:-$repo/build/inductor-ls}"
INDUCTOR_FIXTURES="${INDUCTOR_FIXTURES:-$repo/../shared/fixtures}"
OUT="${OUT:-$here/screenshot.png}"
mlp="$INDUCTOR_FIXTURES/traces/mlp_train"
forward=$(ls "$mlp"/torch_compile_debug/*/torchinductor/model__0_forward_1.0/output_code.py)
work=$(mktemp -d)
trap 'tmux kill-session -t inductor-shot 2>/dev/null || true; rm -rf "$work"' EXIT

cat > "$work/init.lua" <<LUA
vim.opt.rtp:prepend('$here')
vim.cmd('syntax on')
vim.cmd('filetype plugin on')
vim.o.background = 'dark'
vim.o.termguicolors = false
-- Floats in a dark grey rather than 0.7's default magenta (Pmenu), as most colorschemes have them.
vim.cmd('highlight NormalFloat ctermbg=236 ctermfg=252')
vim.cmd('highlight FloatBorder ctermbg=236 ctermfg=244')
vim.o.number = true
vim.o.signcolumn = 'no'
vim.o.laststatus = 2
vim.o.swapfile = false
vim.g.loaded_python3_provider = 0
require('inductor_ls').setup({ cmd = { '$INDUCTOR_LS', '--log-file', '$work/ls.log' } })
vim.o.statusline = '%f %= %{v:lua.require("inductor_ls").statusline()} '
LUA

tmux new-session -d -s inductor-shot -x 150 -y 40 \
  "nvim --clean -u '$work/init.lua' -O '$mlp/model.py' '$forward'"
wait_for() { # text, seconds
  for _ in $(seq 1 $((10 * $2))); do
    tmux capture-pane -p -t inductor-shot | grep -qF "$1" && return 0
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2
  tmux capture-pane -p -t inductor-shot >&2
  return 1
}
keys() { tmux send-keys -t inductor-shot "$@"; }
# The server has answered: kernel lenses on model.py (the window on the left, where nvim starts).
wait_for "kernels, " 60
# The output code on the right: show the first gelu launch with its origin lens.
keys Escape 'C-w' 'l' ':call search("triton_poi_fused_gelu_1.run(")' Enter 'zt' '6' 'C-y'
wait_for "model.py:" 30
sleep 1
# model.py on the left, line 16, K.
keys 'C-w' 'h' ':16' Enter 'w'
wait_for "4 kernels, 10 launches" 30
keys 'K'
wait_for "from line 16" 30
sleep 1
tmux capture-pane -e -p -t inductor-shot > "$work/pane.txt"
python3 "$here/scripts/ansi2html.py" < "$work/pane.txt" > "$work/pane.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1300,900 \
  --screenshot="$OUT" "file://$work/pane.html" 2>/dev/null
echo "wrote $OUT"
