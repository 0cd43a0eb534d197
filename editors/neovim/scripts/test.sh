#!/usr/bin/env bash
# Headless tests of the Neovim plugin against a real inductor-ls binary.
#   INDUCTOR_LS        server binary (default: <repo>/build/inductor-ls)
#   INDUCTOR_FIXTURES  fixtures folder (default: <repo>/../shared/fixtures)
#   INDUCTOR_TEST_FILTER     run only cases whose "spec: name" contains this text
#   INDUCTOR_TEST_TIMEOUT_MS wait limit per signal (default 30000)
# Installs Debian's neovim with apt-get when nvim is missing. Exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
export INDUCTOR_LS="${INDUCTOR_LS:-$repo/build/inductor-ls}"
export INDUCTOR_FIXTURES="${INDUCTOR_FIXTURES:-$repo/../shared/fixtures}"

if ! command -v nvim >/dev/null 2>&1; then
  echo "nvim not found; installing Debian's neovim" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq neovim >/dev/null
fi
if [ ! -x "$INDUCTOR_LS" ]; then
  echo "server binary not found: $INDUCTOR_LS (set INDUCTOR_LS)" >&2
  exit 2
fi
if [ ! -d "$INDUCTOR_FIXTURES/traces/mlp_train" ]; then
  echo "fixtures not found: $INDUCTOR_FIXTURES (set INDUCTOR_FIXTURES)" >&2
  exit 2
fi

cd "$repo"
nvim --version | head -1
# --clean -u NONE: no user config or plugins; the runner loads ours from editors/neovim.
# The python3 provider is off: opening a .py file otherwise probes `python3` (seconds with pyenv shims).
# No swap files: a run ended by :cquit must not leave any for the next run to stumble on.
timeout 300 nvim --headless --clean -u NONE --cmd 'let g:loaded_python3_provider = 0' --cmd 'set noswapfile' \
  -c "set rtp^=$here" \
  -c 'luafile editors/neovim/tests/run.lua' </dev/null
