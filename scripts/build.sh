#!/usr/bin/env bash
# Set-up, configure and build: after it, the server is build/inductor-ls.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} -DINDUCTOR_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
