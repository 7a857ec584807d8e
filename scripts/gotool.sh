#!/usr/bin/env bash
# Prints the path of one of the lab's Go programs, building it once with Go (modules from the proxy,
# a few seconds after the first time) and caching it under $LOOMLAB_CACHE by the hash of its sources:
#   reference  the reference server (scripts/reference: Go's net/http doing the sleep endpoint), a
#              column beside the modes
#   loadgen    the load generator (scripts/loadgen: a driver over vegeta's library)
# Without Go it prints nothing and exits 1.
#
#   scripts/gotool.sh NAME            ensure and print the path
#   scripts/gotool.sh NAME --if-built print the path only if no build is needed (exit 1 otherwise)
set -euo pipefail
source "$(dirname "$0")/common.sh"

name="${1:-}"
[[ $name == reference || $name == loadgen ]] || die "usage: scripts/gotool.sh reference|loadgen [--if-built]"
src="$LOOMLAB_ROOT/scripts/$name"
hash="$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | sha256sum | cut -c1-12)"
built="$LOOMLAB_CACHE/$name-$hash/$name"

if [[ -x "$built" ]]; then
  echo "$built"
  exit 0
fi
if [[ ${2:-} == --if-built ]]; then
  echo "scripts/$name is built with Go on first use: scripts/gotool.sh $name" >&2
  exit 1
fi
command -v go >/dev/null 2>&1 || die "scripts/$name needs Go to build (https://go.dev/dl)"
log "$name: building scripts/$name with $(go version | cut -d' ' -f3)"
mkdir -p "$(dirname "$built")"
(cd "$src" && GOFLAGS="-trimpath -buildvcs=false" go build -o "$built.tmp" .) >&2
mv "$built.tmp" "$built"
echo "$built"
