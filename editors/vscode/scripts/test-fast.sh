#!/usr/bin/env bash
# Fast tests of the VS Code extension: type-check, bundle, package the .vsix,
# then protocol-level tests (node --test) of the real server binary on the
# fixtures. Needs Node >= 20 and npm; installs node_modules here from
# package-lock.json (npm ci) when they are missing or stale.
#
#   INDUCTOR_LS        server binary (default: <repo>/build/inductor-ls)
#   INDUCTOR_FIXTURES  fixture root (default: <repo>/shared/fixtures, else /work/shared/fixtures)
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir=$(pwd)
repo=$(cd ../.. && pwd)
export INDUCTOR_LS=${INDUCTOR_LS:-$repo/build/inductor-ls}

# npm ci is skipped when node_modules matches the lockfile already.
if ! cmp -s package-lock.json node_modules/.package-lock.json.installed 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.installed
fi

npm run --silent typecheck
npm run --silent build
# The README's one command; its last line names the file it wrote, which both READMEs' install
# lines must name (`code --install-extension .../NAME.vsix`), and nothing else.
packaged=$(bash scripts/package.sh | tail -n 1)
echo "$packaged"
vsix=$(sed -n 's/^packaged \(.*\.vsix\) (.*/\1/p' <<<"$packaged")
if [[ ! -f $vsix ]]; then
  echo "error: scripts/package.sh said \"$packaged\", not the .vsix it wrote" >&2
  exit 1
fi
for readme in "$repo/README.md" "$ext_dir/README.md"; do
  installs=$(grep -o 'code --install-extension [^ `]*' "$readme" || true)
  if [[ -z $installs ]] || grep -v -q "/$(basename "$vsix")\$" <<<"$installs"; then
    echo "error: $readme installs \"${installs:-nothing}\", not the $(basename "$vsix") that scripts/package.sh writes" >&2
    exit 1
  fi
done

if [[ ! -x $INDUCTOR_LS ]]; then
  echo "error: inductor-ls binary not found at $INDUCTOR_LS (build it, or set INDUCTOR_LS)" >&2
  exit 1
fi
node --test --test-reporter=spec --test-concurrency=1 --test-timeout=180000 test/fast/
