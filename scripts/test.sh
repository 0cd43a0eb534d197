#!/usr/bin/env bash
# The whole test suite: set-up, configure, build (warnings are errors), then ctest; then the sanitizer job
# (scripts/sanitize.sh: the non-editor suite under ASan + UBSan, and 60 s of every fuzz target).
# INDUCTOR_SANITIZE=0 skips the sanitizer job (for a quick local run; CI always runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" || status=1
if [[ "${INDUCTOR_SANITIZE:-1}" != 0 ]]; then
  bash scripts/sanitize.sh || status=1
fi
exit $status
