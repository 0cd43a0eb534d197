#!/usr/bin/env bash
# Set-up, configure and build: after it, the server is $INDUCTOR_BUILD_DIR/inductor-ls (default build/).
#   scripts/build.sh              everything: the server, the tests, the benchmark
#   scripts/build.sh TARGET...    only those targets and what they need (scripts/demo.sh builds inductor-ls,
#                                 editors/vscode/scripts/package.sh inductor-ls-static), so that a first answer
#                                 does not wait for the test suite to compile
set -euo pipefail
cd "$(dirname "$0")/.."
build=${INDUCTOR_BUILD_DIR:-build}
bash scripts/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} -DINDUCTOR_WERROR=ON >/dev/null
if (($#)); then
  cmake --build "$build" -j"$(nproc)" --target "$@"
else
  cmake --build "$build" -j"$(nproc)"
fi
