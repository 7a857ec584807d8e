#!/usr/bin/env bash
# Prints the path of a real k6 v1.8.1, building it once from the Go module proxy (~3 min) and
# caching it under $LOOMLAB_CACHE. A k6 already on PATH at that version is used as is.
#
#   scripts/k6.sh            ensure and print the path
#   scripts/k6.sh --if-built print the path only if no build is needed (exit 1 otherwise)
#   K6_VERSION=v1.8.1        the version to build
set -euo pipefail
source "$(dirname "$0")/common.sh"

K6_VERSION="${K6_VERSION:-v1.8.1}"
cached="$LOOMLAB_CACHE/k6-$K6_VERSION/k6"

if command -v k6 >/dev/null 2>&1 && k6 version 2>/dev/null | grep -q "k6 $K6_VERSION "; then
  command -v k6
  exit 0
fi
if [[ -x "$cached" ]] && "$cached" version >/dev/null 2>&1; then
  echo "$cached"
  exit 0
fi
if [[ ${1:-} == --if-built ]]; then
  echo "k6 $K6_VERSION is built from the Go module proxy on first use (about 3 minutes): ./lab k6 version" >&2
  exit 1
fi
command -v go >/dev/null 2>&1 || die "k6 $K6_VERSION is not installed and Go is missing to build it.
      Install Go (https://go.dev/dl) or k6 itself (https://grafana.com/docs/k6/latest/set-up/install-k6/)."
log "k6: building go.k6.io/k6@$K6_VERSION with $(go version | cut -d' ' -f3) (about 3 minutes, once)"
mkdir -p "$(dirname "$cached")"
GOBIN="$(dirname "$cached")" GOFLAGS=-trimpath go install "go.k6.io/k6@$K6_VERSION" >&2
"$cached" version >&2
echo "$cached"
