#!/bin/sh
# Runs one k6 script against every TARGET in each of MODES, as a Kubernetes Job does (also works
# locally). Each run prints loom-lab's table to the log and writes its raw summary to RESULTS.
#
#   SCRIPT   the script, e.g. sleep.js                        required
#   TARGETS  base URLs, space separated                       http://loom-lab-jvm:8080
#   MODES    execution models        the script's modes in modes.json (WRITES=copy: "copy"'s)
#   CLIENTS  reactive: with MODES=virtual, virtual threads awaiting the reactive clients (db, product)
#   RESULTS  folder for the raw summaries                     /results
#   SEGMENTS split the test over N pods (Indexed Job); this pod takes JOB_COMPLETION_INDEX
#   PAUSED   1: start paused, k6's REST API on 0.0.0.0:6565, until resumed (every runner at once)
#   SAMPLES  1: also write the raw samples (k6's CSV, gzipped) beside each summary, for the merge
#
# Local: SCRIPT=sleep.js TARGETS=http://127.0.0.1:8080 RESULTS=/tmp/k6 sh k6/run.sh
set -eu
: "${SCRIPT:?SCRIPT is required}"
TARGETS="${TARGETS:-http://loom-lab-jvm:8080}"
RESULTS="${RESULTS:-/results}"
DIR="$(cd "$(dirname "$0")" && pwd)"
# The mode matrix: lib/modes.json here, modes.json beside this file in the Jobs' ConfigMap.
matrix="$DIR/lib/modes.json"
[ -f "$matrix" ] || matrix="$DIR/modes.json"
key="${SCRIPT%.js}"
[ "${WRITES:-}" = copy ] && key=copy
# A line of the matrix reads:  "sleep": ["worker", "virtual", "reactive"],
MODES="${MODES:-$(sed -n "s/^ *\"$key\": \[\(.*\)\],\{0,1\}\$/\1/p" "$matrix" | tr -d '",')}"
[ -n "$MODES" ] || { echo "run.sh: no modes for '$key' in $matrix" >&2; exit 2; }
mkdir -p "$RESULTS"

segment=""
suffix=""
if [ -n "${SEGMENTS:-}" ]; then
  i="${JOB_COMPLETION_INDEX:-0}"
  # k6 execution segments: this pod runs the i-th of SEGMENTS equal slices of the load.
  segment="--execution-segment=$i/$SEGMENTS:$((i + 1))/$SEGMENTS --execution-segment-sequence=$(seq -s, 0 "$SEGMENTS" | sed "s|\([0-9]*\)|\1/$SEGMENTS|g")"
  suffix="-part$i"
fi

start=""
[ "${PAUSED:-}" = 1 ] && start="--paused --address=0.0.0.0:6565"
# Times in microseconds: the merge places each runner's requests on one clock.
[ "${SAMPLES:-}" = 1 ] && export K6_CSV_TIME_FORMAT=unix_micro

status=0
for target in $TARGETS; do
  name="$(echo "$target" | sed 's|^https\{0,1\}://||; s|[:/].*||')"
  for mode in $MODES; do
    out="$RESULTS/${SCRIPT%.js}-$name-$mode$suffix.json"
    echo "== $SCRIPT on $target, mode $mode ${segment:+($segment)}"
    samples=""
    [ "${SAMPLES:-}" = 1 ] && samples="--out=csv=${out%.json}.csv.gz"
    # shellcheck disable=SC2086
    BASE_URL="$target" MODE="$mode" SUMMARY_JSON="$out" RUN_LABEL="${SCRIPT%.js} $mode on $name" \
      k6 run --quiet --no-color $segment $start $samples "$DIR/$SCRIPT" || status=$?
  done
done
exit "$status"
