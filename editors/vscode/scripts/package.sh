#!/usr/bin/env bash
# Packages the extension as a user installs it, in one command from a fresh clone:
#
#   bash editors/vscode/scripts/package.sh     # writes editors/vscode/inductor-ls-linux-x64.vsix
#   code --install-extension editors/vscode/inductor-ls-linux-x64.vsix
#
# A platform-specific .vsix (`vsce package --target linux-x64`) carrying a stripped, statically
# linked inductor-ls at server/inductor-ls, which the extension starts when inductorLs.serverPath
# is not set. Installs the npm packages it needs here (npm ci) when they are missing or stale;
# without a CMake build folder, sets one up and configures it (scripts/build.sh: the Debian
# packages and the grammar, as root on a fresh machine) and builds only the server
# (target inductor-ls-static), not the tests. Also run by `npm run package` and the test scripts.
#
#   INDUCTOR_BUILD_DIR  the CMake build folder to build the static server in (default: <repo>/build)
#   INDUCTOR_LS_SHIP    a server binary to ship instead (skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(cd ../.. && pwd)
target=linux-x64
out=inductor-ls-$target.vsix
if [[ $(uname -s)-$(uname -m) != Linux-x86_64 && -z ${INDUCTOR_LS_SHIP:-} ]]; then
  echo "error: the shipped server is built here, so packaging for $target needs a linux x86_64 machine" >&2
  exit 1
fi
if [[ -n ${INDUCTOR_LS_SHIP:-} ]]; then
  binary=$INDUCTOR_LS_SHIP
else
  build=${INDUCTOR_BUILD_DIR:-$repo/build}
  if [[ -f $build/CMakeCache.txt ]]; then
    cmake --build "$build" --target inductor-ls-static >/dev/null
  else
    echo "package: no CMake build folder at $build: configuring one and building the server (minutes)" >&2
    log=$(mktemp)
    if ! INDUCTOR_BUILD_DIR=$build bash "$repo/scripts/build.sh" inductor-ls-static >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      rm -f "$log"
      exit 1
    fi
    rm -f "$log"
  fi
  binary=$build/inductor-ls-static
fi
# The extension's own build tools (vsce, esbuild, tsc), from package-lock.json.
if ! cmp -s package-lock.json node_modules/.package-lock.json.installed 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json node_modules/.package-lock.json.installed
fi
rm -rf server
mkdir -p server
strip --strip-all -o server/inductor-ls "$binary"
chmod 755 server/inductor-ls
server/inductor-ls --version >/dev/null
npx vsce package --no-dependencies --allow-missing-repository --skip-license --no-rewrite-relative-links \
  --target "$target" --out "$out" >/dev/null
echo "packaged $(pwd)/$out ($(du -h "$out" | cut -f1), server $(du -h server/inductor-ls | cut -f1))"
