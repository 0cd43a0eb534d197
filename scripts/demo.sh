#!/usr/bin/env bash
# Set-up, build the server only (not the test suite), then show what inductor-ls finds in the project's own
# example trace.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/inductor-ls ]] || echo "demo: building the server build/inductor-ls (minutes the first time)" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! bash scripts/build.sh inductor-ls >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  exit 1
fi
build/inductor-ls explain examples/transformer
