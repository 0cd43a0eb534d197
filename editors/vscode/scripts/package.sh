#!/usr/bin/env bash
# Packages the extension as a user installs it: a platform-specific .vsix
# (`vsce package --target linux-x64`) carrying a stripped, statically linked
# inductor-ls at server/inductor-ls, which the extension starts when
# inductorLs.serverPath is not set. Run by `npm run package` (and by the test
# scripts); the result is inductor-ls-linux-x64.vsix.
#
#   INDUCTOR_BUILD_DIR  the CMake build folder to build the static server in
#                       (default: <repo>/build; target inductor-ls-static)
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
  if [[ ! -f $build/CMakeCache.txt ]]; then
    echo "error: no CMake build folder at $build (configure one as the README says, or set INDUCTOR_BUILD_DIR)" >&2
    exit 1
  fi
  cmake --build "$build" --target inductor-ls-static >/dev/null
  binary=$build/inductor-ls-static
fi
rm -rf server
mkdir -p server
strip --strip-all -o server/inductor-ls "$binary"
chmod 755 server/inductor-ls
server/inductor-ls --version >/dev/null
npx vsce package --no-dependencies --allow-missing-repository --skip-license --no-rewrite-relative-links \
  --target "$target" --out "$out" >/dev/null
echo "packaged $(pwd)/$out ($(du -h "$out" | cut -f1), server $(du -h server/inductor-ls | cut -f1))"
