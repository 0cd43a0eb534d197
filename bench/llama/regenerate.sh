#!/usr/bin/env bash
# Regenerates bench/llama/llama8l.log.xz, the large real log of the benchmark, on a machine with a CUDA GPU,
# PyTorch >= 2.9 and transformers (made with PyTorch 2.11 and transformers 5.17 on an H100). Runs model.py in
# a scratch directory so recorded paths are a cluster's, not this checkout's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/work/llama8l}
out=${OUT_DIR:-$here}
rm -rf "$work" && mkdir -p "$work" && cp "$here/model.py" "$work/"
(cd "$work" && TORCH_TRACE="$work/trace" INDUCTOR_PROVENANCE=1 TORCHINDUCTOR_CACHE_DIR="$work/inductor_cache" \
   timeout "${LIMIT:-560}" python3 model.py > run.log 2>&1) || echo "model.py stopped early: $(tail -1 "$work/run.log")"
log=$(ls "$work"/trace/dedicated_log_torch_trace*.log | head -1)
xz -T0 -9e -c "$log" > "$out/llama8l.log.xz"
echo "llama8l: $(stat -c %s "$log") bytes, $(grep -c '"inductor_output_code"' "$log") output codes -> $(stat -c %s "$out/llama8l.log.xz") compressed"
