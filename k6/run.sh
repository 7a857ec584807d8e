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
#   ROUNDS   N >= 2: the modes in N interleaved rounds (every mode once a round, the order rotated
#            each round), after WARMUPS unmeasured runs of each mode; then the bench's tables and
#            verdict (python3 -m loomlab.bench.reporting.jobanswer, in the lab's k6 image)
#   WARMUPS  unmeasured runs of each mode before the rounds                    1 (with ROUNDS)
#   EXPECT_POOLS  k=v,... the pools the answer was measured at (/api/info); a service with other
#            pools is refused before any load (exit 3), e.g. worker.max-threads=50 for A3
#   K6_PROMETHEUS_RW_SERVER_URL  also send the samples to this Prometheus (remote write), tagged
#            testid=TESTID (default: the host name), runner=<host name> and mode=<mode>; trends as native histograms
#            with K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true
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

# k6's Prometheus remote write, each run's samples tagged with the run and its mode.
rw=""
# The runner's own tag keeps the series of an Indexed Job's pods apart (same testid, same tags).
[ -n "${K6_PROMETHEUS_RW_SERVER_URL:-}" ] && rw="--out=experimental-prometheus-rw --tag=testid=${TESTID:-$(hostname)} --tag=runner=$(hostname)"

# The lab's answer code, where the image has it (the lab's k6 image; grafana/k6 has no Python).
answer=""
command -v python3 >/dev/null 2>&1 && python3 -c 'import loomlab.bench.reporting.jobanswer' 2>/dev/null && answer=1

if [ -n "${ROUNDS:-}" ] && [ "$ROUNDS" -ge 2 ]; then
  [ -n "$answer" ] || { echo "run.sh: ROUNDS needs the lab's k6 image (python3 and loomlab)" >&2; exit 2; }
  status=0
  for target in $TARGETS; do
    name="$(echo "$target" | sed 's|^https\{0,1\}://||; s|[:/].*||')"
    python3 -m loomlab.bench.reporting.jobanswer bounds "$target" "${EXPECT_POOLS:-}" || exit $?
    # shellcheck disable=SC2086 # the modes are words
    n="$(echo $MODES | wc -w)"
    w=0
    while [ "$w" -lt "${WARMUPS:-1}" ]; do
      w=$((w + 1))
      for mode in $MODES; do
        echo "== warm-up $w, $SCRIPT on $target, mode $mode (not counted)"
        # shellcheck disable=SC2086 # $rw is words
        BASE_URL="$target" MODE="$mode" SUMMARY_JSON="$RESULTS/warmup-${SCRIPT%.js}-$name-$mode-$w.json" \
          RUN_LABEL="warm-up ${SCRIPT%.js} $mode on $name" k6 run --quiet --no-color $rw ${rw:+--tag=mode=$mode} "$DIR/$SCRIPT" >/dev/null || true
      done
    done
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
      r=$((r + 1))
      # Round r starts with the ((r-1) mod n)-th mode: every mode takes every place in turn.
      k=$(((r - 1) % n)) i=0 head="" tail=""
      for mode in $MODES; do
        if [ "$i" -lt "$k" ]; then tail="$tail $mode"; else head="$head $mode"; fi
        i=$((i + 1))
      done
      rotated="$head$tail"
      for mode in $rotated; do
        echo "== round $r/$ROUNDS, $SCRIPT on $target, mode $mode"
        # shellcheck disable=SC2086 # $rw is words
        BASE_URL="$target" MODE="$mode" SUMMARY_JSON="$RESULTS/${SCRIPT%.js}-$name-$mode-r$r.json" \
          RUN_LABEL="round $r ${SCRIPT%.js} $mode on $name" k6 run --quiet --no-color $rw ${rw:+--tag=mode=$mode} "$DIR/$SCRIPT" || status=$?
      done
    done
    python3 -m loomlab.bench.reporting.jobanswer answer --results "$RESULTS" --script "$SCRIPT" --target "$name" \
      --url "$target" --modes "$MODES" --rounds "$ROUNDS"
  done
  exit "$status"
fi

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
      k6 run --quiet --no-color $segment $start $samples $rw ${rw:+--tag=mode=$mode} "$DIR/$SCRIPT" || status=$?
  done
done
exit "$status"
