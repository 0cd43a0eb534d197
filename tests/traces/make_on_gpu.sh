#!/usr/bin/env bash
# Makes the real traces under tests/traces/ on a machine with a CUDA GPU, PyTorch >= 2.9 and transformers and
# torchvision (made with PyTorch 2.11 on H100s and H200s; the torchrun cases, ddp_gpt2, fsdp_llama and kernel_ranks,
# need 2 GPUs, fsdp_ranks 4).
# Each case runs in /tmp/work/<case>/ as on a cluster, then is packed as <case>.tar.xz into $OUT_DIR:
# model.py, trace/, torch_compile_debug/, inductor_cache/ (text only), run.log, profiles, and site-packages/:
# copies of the third-party files that the trace's frames name (what a user's own environment would hold),
# with ORIGIN.txt naming the folder they came from.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT_DIR:-$here}
cases=${CASES:-hf_llama tv_resnet gpt2_profiled cudagraph_profiled health_lib ddp_gpt2 fsdp_llama health_zoo adam_autotune no_provenance}
one() {
  local c=$1 work=/tmp/work/$1
  rm -rf "$work" && mkdir -p "$work" && cp -r "$here/$c/." "$work/"
  # A case with an `nproc` file runs under torchrun on that many GPUs (NCCL): one log per rank.
  local launch=(python3)
  if [[ -f "$work/nproc" ]]; then
    launch=(torchrun --standalone --nproc_per_node="$(cat "$work/nproc")")
    rm "$work/nproc"
  fi
  # A case with a `noprovenance` file runs without INDUCTOR_PROVENANCE (what most users' traces are).
  local provenance=1
  if [[ -f "$work/noprovenance" ]]; then provenance=0; rm "$work/noprovenance"; fi
  # A case with a `runs.sh` runs that instead of model.py (several runs into one trace folder, editing the
  # model between them, as users do); it is the project's own script, run only here.
  local script=("${launch[@]}" model.py)
  if [[ -f "$work/runs.sh" ]]; then script=(bash runs.sh); fi
  # A case with a `keeptriton` file keeps the Triton cache (IR, PTX, cubin, metadata) inside the Inductor cache.
  local keeptriton=0
  if [[ -f "$work/keeptriton" ]]; then keeptriton=1; rm "$work/keeptriton"; fi
  # A case with an `env` file runs with its KEY=VALUE lines in the environment (e.g.
  # TORCHINDUCTOR_BENCHMARK_KERNEL=1, which makes Inductor write kernel_num_gb/kernel_flop).
  local extra=()
  if [[ -f "$work/env" ]]; then mapfile -t extra < <(grep -E '^[A-Z_][A-Z0-9_]*=' "$work/env"); rm "$work/env"; fi
  (cd "$work" && env "${extra[@]}" TORCH_TRACE="$work/trace" INDUCTOR_PROVENANCE=$provenance TORCH_COMPILE_DEBUG=1 \
     TORCHINDUCTOR_CACHE_DIR="$work/inductor_cache" timeout "${LIMIT:-500}" "${script[@]}" > run.log 2>&1)
  echo "$c: exit $? $(tail -1 "$work/run.log")"
  [[ -f "$work/runs.sh" ]] && rm "$work/runs.sh"
  if [[ $keeptriton == 0 ]]; then rm -rf "$work/inductor_cache/triton"; fi
  find "$work/inductor_cache" -path "$work/inductor_cache/triton" -prune -o -type f \
    ! \( -name '*.py' -o -name '*.cpp' -o -name '*.json' -o -name '*.best_config' \) -print0 | xargs -0 -r rm -f
  if [[ $keeptriton == 1 ]]; then
    find "$work/inductor_cache/triton" -type f ! \( -name '*.source' -o -name '*.ttir' -o -name '*.ttgir' \
      -o -name '*.llir' -o -name '*.ptx' -o -name '*.cubin' -o -name '*.json' \) -delete
  fi
  # Third-party files named by the trace (not torch/triton's own, not the case's own site-packages).
  local site
  site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
  grep -ahoE "$site/[A-Za-z0-9_./-]+\.py" "$work"/trace/*.log | sort -u | while read -r f; do
    rel=${f#"$site"/}
    case "$rel" in torch/*|triton/*|functorch/*|torchgen/*) continue ;; esac
    [[ -f "$f" ]] && mkdir -p "$work/site-packages/$(dirname "$rel")" && cp "$f" "$work/site-packages/$rel"
  done
  [[ -d "$work/site-packages" && ! -f "$work/site-packages/ORIGIN.txt" ]] && echo "$site" > "$work/site-packages/ORIGIN.txt"
  find "$work" -name __pycache__ -prune -exec rm -rf {} +
  find "$work" -depth -type d -empty -delete
  tar -C /tmp/work -cJf "$out/$c.tar.xz" "$c"
  echo "$c: $(du -sh "$work" | cut -f1) -> $(stat -c %s "$out/$c.tar.xz") bytes packed"
}
for c in $cases; do one "$c" & done
wait
