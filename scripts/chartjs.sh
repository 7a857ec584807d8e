#!/usr/bin/env bash
# Prints the path of Chart.js's UMD bundle (a maintained charting library, from the npm
# registry), fetched once into the cache; report.html inlines it so the report works offline.
set -euo pipefail
source "$(dirname "$0")/common.sh"
CHARTJS_VERSION="${CHARTJS_VERSION:-4.5.1}"
dir="$LOOMLAB_CACHE/chartjs-$CHARTJS_VERSION"
if [[ ! -f "$dir/chart.umd.min.js" ]]; then
  debian_tool npm "nodejs npm" "report.html's charts (chart.js, fetched once)"
  log "report: fetching chart.js@$CHARTJS_VERSION from the npm registry"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "chart.js@$CHARTJS_VERSION" >/dev/null && tar xzf chart.js-*.tgz)
  mkdir -p "$dir"
  cp "$tmp/package/dist/chart.umd.min.js" "$tmp/package/LICENSE.md" "$dir/"
  rm -rf "$tmp"
fi
echo "$dir/chart.umd.min.js"
