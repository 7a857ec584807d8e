#!/usr/bin/env bash
# Prints the path of the reference server (scripts/reference: Go's net/http doing the sleep
# endpoint), building it once with Go (modules from the proxy, a few seconds after the first time)
# and caching it under $LOOMLAB_CACHE by the hash of its sources. `./lab bench` runs it beside
# the modes; without Go it prints nothing and exits 1.
#
#   scripts/reference.sh            ensure and print the path
#   scripts/reference.sh --if-built print the path only if no build is needed (exit 1 otherwise)
set -euo pipefail
source "$(dirname "$0")/common.sh"

src="$LOOMLAB_ROOT/scripts/reference"
hash="$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | sha256sum | cut -c1-12)"
built="$LOOMLAB_CACHE/reference-$hash/reference"

if [[ -x "$built" ]]; then
  echo "$built"
  exit 0
fi
if [[ ${1:-} == --if-built ]]; then
  echo "the reference server is built with Go on first use: scripts/reference.sh" >&2
  exit 1
fi
command -v go >/dev/null 2>&1 || die "the reference server needs Go to build (https://go.dev/dl)"
log "reference server: building scripts/reference with $(go version | cut -d' ' -f3)"
mkdir -p "$(dirname "$built")"
(cd "$src" && GOFLAGS="-trimpath -buildvcs=false" go build -o "$built.tmp" .) >&2
mv "$built.tmp" "$built"
echo "$built"
