#!/usr/bin/env bash
# The sanitizer job of CI (run by scripts/test.sh): an ASan + UBSan build with clang in its own directory
# (build-san: -fno-sanitize-recover=all, and coverage instrumentation for the fuzz targets), the non-editor
# test suite under it, then a bounded run of every libFuzzer target (tests/fuzz/run.sh).
#
# Zero sanitizer reports are tolerated. Every process writes its reports to files (ASAN_OPTIONS and
# UBSAN_OPTIONS log_path), the servers that the end-to-end tests start included, whose own failures a test
# might not see; any report file fails the job.
#
# usage: scripts/sanitize.sh [--build-only] [FUZZ_SECONDS]   (default 60 per target; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ "${1:-}" == "--build-only" ]]; then
  build_only=1
  shift
fi
fuzz_seconds=${1:-60}

bash scripts/setup.sh >/dev/null
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# -O1: what the sanitizers recommend; -O0 makes the suite several times slower.
cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DINDUCTOR_WERROR=ON -DINDUCTOR_EDITOR_TESTS=OFF -DINDUCTOR_FUZZ=ON \
  "-DCMAKE_CXX_FLAGS=$san -fsanitize=fuzzer-no-link" "-DCMAKE_C_FLAGS=$san" \
  "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
cmake --build build-san -j"$(nproc)"
((build_only)) && exit 0

reports=$(mktemp -d /tmp/inductor-sanitizer-reports-XXXXXX)
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
status=0
ctest --test-dir build-san -LE editor --output-on-failure -j"$(nproc)" || status=1
if compgen -G "$reports/*" >/dev/null; then
  echo "sanitize: sanitizer reports (each one fails the job):" >&2
  for f in "$reports"/*; do
    echo "==== $f" >&2
    head -60 "$f" >&2
  done
  status=1
fi
rm -rf "$reports"

if ((fuzz_seconds > 0)); then
  # libFuzzer reports its own findings (and saves the inputs); its options are its own.
  unset ASAN_OPTIONS UBSAN_OPTIONS
  BUILD_DIR=build-san tests/fuzz/run.sh "$fuzz_seconds" || status=1
fi
exit $status
