#!/usr/bin/env bash
# ./lab bench [options]: the comparison (loomlab.bench) on the local service, with what it runs on
# built or started first: the JDK's pick, the database, the jar, loadgen, the reference server (unless
# --no-reference) and the minimal application (with --minimal). Its folder: target/loom-lab/DATE,
# target/loom-lab/latest. --plan or --compare reads the harness alone (./lab runs those itself).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  local loadgen out chart reference=""
  service_ready
  loadgen="$(bash scripts/gotool.sh loadgen)"
  out="target/loom-lab/$(date +%Y%m%d-%H%M%S)"
  log "bench: writing to $out"
  chart="$(chartjs)"
  [[ -n "$chart" ]] || warn "chart.js unavailable: report.html will hold tables only"
  [[ " $* " == *" --no-reference "* ]] || reference="$(bash scripts/gotool.sh reference)" ||
    warn "the reference server could not be built: the sleep loads run without its column"
  [[ " $* " != *" --minimal "* ]] || build_minimal
  LOOMLAB_COMMAND="${LOOMLAB_COMMAND:-./lab bench $*}" py bench --loadgen "$loadgen" --java "$JAVA_HOME/bin/java" \
    --out "$out" --chartjs "$chart" --reference "$reference" --minimal-jar "$minimal_jar" "$@"
  ln -sfn "$(basename "$out")" target/loom-lab/latest
}

main "$@"; exit "$?"
