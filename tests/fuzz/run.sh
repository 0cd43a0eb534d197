#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz for SECONDS each (default 60) and prints, per target, the inputs
# executed, the coverage reached and what was found. `tests/fuzz/run.sh 600` is the long run.
#
# usage: tests/fuzz/run.sh [SECONDS] [TARGET...]        (targets: fuzz_* names; default all)
# env:   BUILD_DIR   the build with -DINDUCTOR_FUZZ=ON (default build-san, made by scripts/sanitize.sh)
#        FUZZ_JOBS   targets run at the same time (default 2)
#
# Each target starts from the committed seeds (tests/fuzz/corpus/<target>, read only) plus what earlier runs
# found (BUILD_DIR/fuzz-corpus/<target>, where new inputs are written); crashes, leaks and timeouts are saved
# as BUILD_DIR/fuzz-findings/<target>-* and make the script exit 1. Logs: BUILD_DIR/fuzz-logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
build=${BUILD_DIR:-build-san}
jobs=${FUZZ_JOBS:-2}
if [[ ! -d "$build/fuzz" ]]; then
  echo "fuzz: no targets in $build/fuzz; build them first (bash scripts/sanitize.sh --build-only)" >&2
  exit 2
fi
targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in "$build"/fuzz/fuzz_*; do targets+=("$(basename "$t")"); done
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-findings" "$build/fuzz-logs"

run_one() {
  local t=$1
  local seeds=tests/fuzz/corpus/$t work=$build/fuzz-corpus/$t log=$build/fuzz-logs/$t.log
  [[ $t == fuzz_index ]] && seeds=tests/fuzz/corpus/fuzz_trace_log # Logs too: one set of seeds.
  mkdir -p "$work"
  [[ -d "$seeds" ]] || seeds=
  # -timeout: one input taking longer is a finding (a hang); -rss_limit_mb: so is one using more memory.
  # The outer timeout is a guard against a target that ignores max_total_time.
  local rc=0
  timeout --kill-after=30 $((seconds + 120)) "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$build/fuzz-findings/$t-" "$work" $seeds \
    >"$log" 2>&1 || rc=$?
  echo "$rc" >"$log.rc"
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
done
wait || true

status=0
printf '%-22s %12s %8s %8s %8s  %s\n' target executions cov ft corpus result
for t in "${targets[@]}"; do
  log=$build/fuzz-logs/$t.log
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  # (|| true: under pipefail a grep or ls that matches nothing would end the script here.)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" 2>/dev/null | awk '{print $2}' | tail -1 || true)
  last=$(grep -E '^#[0-9]+.*(cov|DONE)' "$log" 2>/dev/null | tail -1 || true)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
  findings=$(ls "$build/fuzz-findings/$t-"* 2>/dev/null | wc -l || true)
  result=ok
  if [[ "$rc" != 0 || "$findings" != 0 ]]; then
    result="FOUND (exit $rc, $findings input(s) in $build/fuzz-findings; see $log)"
    status=1
  fi
  printf '%-22s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
if ((status)); then
  for t in "${targets[@]}"; do
    grep -E -m3 'ERROR: |SUMMARY: |fuzz property violated' "$build/fuzz-logs/$t.log" 2>/dev/null | sed "s/^/  $t: /"
  done
fi
exit $status
