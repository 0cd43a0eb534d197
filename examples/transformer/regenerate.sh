#!/usr/bin/env bash
# Regenerates this example's trace on a machine with a CUDA GPU and PyTorch >= 2.9 (made with 2.11 on an H100).
# It runs model.py in a scratch directory (so the paths inside the trace do not match this checkout, as on a
# cluster), then copies back the TORCH_TRACE log, the TORCH_COMPILE_DEBUG directory and Inductor's cache,
# keeping text artifacts only (compiled .so/.cubin/pickled cache entries are dropped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/inductor-example}
rm -rf "$work" && mkdir -p "$work" && cp "$here/model.py" "$work/"
(cd "$work" && TORCH_TRACE="$work/trace" INDUCTOR_PROVENANCE=1 TORCH_COMPILE_DEBUG=1 \
   TORCHINDUCTOR_CACHE_DIR="$work/inductor_cache" python3 model.py > run.log 2>&1)
rm -rf "$work/inductor_cache/triton"  # autotuner records, not code
find "$work/inductor_cache" -type f ! \( -name '*.py' -o -name '*.cpp' -o -name '*.json' -o -name '*.best_config' \) -delete
find "$work" -depth -type d -empty -delete
rm -rf "$here/trace" "$here/torch_compile_debug" "$here/inductor_cache"
cp -r "$work/trace" "$work/torch_compile_debug" "$work/inductor_cache" "$work/run.log" "$here/"
echo "regenerated: $(du -sh "$here" | cut -f1) in $here"
