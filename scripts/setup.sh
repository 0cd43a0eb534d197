#!/usr/bin/env bash
# Installs everything inductor-ls needs to build on Debian bookworm (run as root), and fetches the
# tree-sitter-python grammar from the npm registry as a pinned, checksummed tarball.
# Idempotent: packages already at the pinned version and a verified tarball are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian bookworm versions, pinned (each is the only version bookworm ships).
# Tools are checked by command (node/npm may come from another package than Debian's npm).
declare -A TOOLS=([g++]=g++ [cmake]=cmake [ninja]=ninja-build [pkg-config]=pkg-config [npm]=npm)
PKGS=(
  nlohmann-json3-dev=3.11.2-2
  libtree-sitter-dev=0.20.7-1
  libboost-dev=1.74.0.3
  doctest-dev=2.4.9~ds-1
  # The sanitizer and fuzzing job (scripts/sanitize.sh): clang 14 with its compiler-rt (ASan, UBSan, libFuzzer).
  clang=1:14.0-55.7~deb12u1
  libclang-rt-14-dev=1:14.0.6-12
  zlib1g-dev=1:1.2.13.dfsg-1
)
missing=()
for t in "${!TOOLS[@]}"; do
  command -v "$t" >/dev/null 2>&1 || missing+=("${TOOLS[$t]}")
done
for p in "${PKGS[@]}"; do
  name=${p%%=*}
  want=${p#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  if [[ "$have" != "install ok installed"* ]]; then missing+=("$p"); continue; fi
  if [[ "$p" == *=* && "$have" != *" $want" ]]; then missing+=("$p"); fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# tree-sitter-python 0.23.6 is the last release with ABI 14, which Debian's libtree-sitter 0.20.7 accepts.
GRAMMAR_VERSION=0.23.6
GRAMMAR_SHA256=aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a
dir=third_party/tree-sitter-python
tgz=third_party/tree-sitter-python-$GRAMMAR_VERSION.tgz
mkdir -p third_party
if [[ ! -f "$dir/.verified-$GRAMMAR_SHA256" ]]; then
  if [[ ! -f "$tgz" ]] || ! echo "$GRAMMAR_SHA256  $tgz" | sha256sum -c --status; then
    rm -f "$tgz"
    # npm pack downloads the tarball only; it runs no install scripts.
    (cd third_party && npm pack --silent "tree-sitter-python@$GRAMMAR_VERSION" >/dev/null)
  fi
  echo "$GRAMMAR_SHA256  $tgz" | sha256sum -c --status || { echo "setup: checksum mismatch for $tgz" >&2; exit 1; }
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$tgz" -C "$dir" --strip-components=1 package/src package/LICENSE
  touch "$dir/.verified-$GRAMMAR_SHA256"
fi
echo "setup: ok"
