#!/bin/sh
# bench/run.sh: the inductor-ls benchmark in one command (see bench/README.md).
#
#   bench/run.sh [--sizes 10M,100M,1G,1G-single,hf_bert-x32,llama,llama-x8] [more `inductor-bench run`
#                 options: --requests N, --starts N, --open-docs N, --no-append, --seed N]
#
# Builds inductor-ls and inductor-bench (Release), generates the workloads that are missing (cached under the
# work directory), runs every measurement, prints the Markdown table and writes it to bench/results.md.
# Environment:
#   INDUCTOR_BENCH_WORK    workloads, server logs and per-size results (default /tmp/inductor-bench)
#   INDUCTOR_BENCH_BUILD   build directory (default <repo>/build-bench)
#   INDUCTOR_FIXTURES_DIR  the fixtures (default <repo>/../shared/fixtures)
#   INDUCTOR_BENCH_REV     benchmark this commit instead of the working tree: it is exported (git archive)
#                          under the work directory and built there, with this checkout's bench/ on top.
#   INDUCTOR_TLPARSE       a tlparse binary to time on the same files (default: the one
#                          ../shared/tools/tlparse/build_tlparse.sh builds, ${TMPDIR:-/tmp}/tlparse-build/bin/tlparse,
#                          when it exists; "none": not timed).
set -eu
args="$*"

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
work=${INDUCTOR_BENCH_WORK:-/tmp/inductor-bench}
fixtures=${INDUCTOR_FIXTURES_DIR:-$(cd "$repo/.." && pwd)/shared/fixtures}
mkdir -p "$work"

if [ -n "${INDUCTOR_BENCH_REV:-}" ]; then
  sha=$(git -C "$repo" rev-parse --short "$INDUCTOR_BENCH_REV")
  src="$work/src-$sha"
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    git -C "$repo" archive "$sha" | tar -x -C "$src"
  fi
  [ -e "$src/third_party" ] || ln -s "$repo/third_party" "$src/third_party"
  mkdir -p "$src/bench"
  cp "$here"/*.cpp "$here"/*.h "$here"/CMakeLists.txt "$src/bench/"
  build=${INDUCTOR_BENCH_BUILD:-$src/build}
  commit=$sha
else
  src=$repo
  build=${INDUCTOR_BENCH_BUILD:-$repo/build-bench}
  commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git -C "$repo" status --porcelain -- index server protocol CMakeLists.txt 2>/dev/null)" ]; then
    commit="$commit (with uncommitted changes in index/, server/ or protocol/)"
  fi
fi

# GCC 12 at -O3 reports false positives (array-bounds, restrict, maybe-uninitialized inside libstdc++ and
# nlohmann) that -Werror would turn into a failed build; they stay warnings here.
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINDUCTOR_WERROR=ON \
    "-DINDUCTOR_FIXTURES_DIR=$fixtures" \
    "-DCMAKE_CXX_FLAGS=-g -Wno-error=array-bounds -Wno-error=restrict -Wno-error=stringop-overflow -Wno-error=stringop-overread -Wno-error=maybe-uninitialized" \
    >/dev/null
fi
cmake --build "$build" --target inductor-ls inductor-bench >&2

tlparse=${INDUCTOR_TLPARSE:-${TMPDIR:-/tmp}/tlparse-build/bin/tlparse}
set --
[ "$tlparse" != none ] && [ -x "$tlparse" ] && set -- --tlparse "$tlparse"
exec "$build/bench/inductor-bench" run --server "$build/inductor-ls" --fixtures "$fixtures" --work "$work" \
  --llama "$here/llama/llama8l.log.xz" --out "$here/results.md" --commit "$commit" "$@" $args
