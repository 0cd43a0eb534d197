#!/usr/bin/env bash
# Makes bench/lora's trace and profile on a machine with a CUDA GPU, PyTorch >= 2.9, transformers and PEFT, as
# tests/traces/make_on_gpu.sh makes the test traces (run in /tmp/work/lora): writes lora.tar.xz (model.py,
# trace/, profile.json) into $OUT_DIR (default: this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT_DIR:-$here}
work=/tmp/work/lora
rm -rf "$work" && mkdir -p "$work" && cp "$here/model.py" "$work/"
(cd "$work" && TORCH_TRACE="$work/trace" INDUCTOR_PROVENANCE=1 python3 model.py > run.log 2>&1) || { tail -20 "$work/run.log"; exit 1; }
tail -1 "$work/run.log"
ls -la "$work" "$work/trace"
tar -C /tmp/work -cJf "$out/lora.tar.xz" lora/model.py lora/trace lora/profile.json
ls -la "$out/lora.tar.xz"
