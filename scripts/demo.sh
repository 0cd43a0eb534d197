#!/usr/bin/env bash
# Set-up, build, then show what inductor-ls finds in the project's own example trace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
build/inductor-ls explain examples/transformer
