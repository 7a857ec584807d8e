#!/usr/bin/env bash
# ./lab test [--under-load N] [--jdk 21] [maven args]: the whole suite. The harness's lint
# (scripts/lab/checks.sh) and unit tests, ./mvnw verify (unit tests, packaged-jar ITs, format check),
# the hostile clients (scripts/lab/hostile.sh), the minimal application's tests, and the pinning
# suites again on JDK 21 (what pins differs by JDK).
# --under-load N: the same suite with N CPU hogs (stress-ng) beside it, bounded in time, as on a
# machine busy with another build: the suite must pass there too.
# --jdk 21: the tests' JVMs (and the packaged application the ITs launch) on the JDK 21 runtime of
# scripts/jdk21.sh; the build stays on JDK 25.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  local hogs=0 jdk="" home21 jdk21=""
  while [[ ${1:-} == --under-load || ${1:-} == --jdk ]]; do
    case "$1" in
    --under-load) hogs="${2:?usage: ./lab test --under-load N}" ;;
    --jdk) jdk="${2:?usage: ./lab test --jdk 21}" ;;
    esac
    shift 2
  done
  [[ -z "$jdk" || "$jdk" == 21 ]] || die "./lab test --jdk: 21 is the JDK the lab fetches (the suite runs on 25 without it)"
  pick_jdk
  use_database
  if home21="$(bash scripts/jdk21.sh)"; then
    jdk21="$home21/bin/java"
  elif [[ -n "$jdk" ]]; then
    die "no JDK 21 for ./lab test --jdk 21 (above)"
  else
    warn "no JDK 21 (above): the pinning suites run on JDK $(java_major "$JAVA_HOME/bin/java") only"
  fi
  if ((hogs > 0)); then
    debian_tool stress-ng stress-ng "--under-load's CPU hogs"
    stress-ng --cpu "$hogs" --timeout 1800s --quiet &
    # shellcheck disable=SC2064 # expanded now: the trap runs after main() has returned
    trap "kill $! 2>/dev/null || true" EXIT
    log "test: $hogs CPU hogs (stress-ng, at most 30 min) beside the suite"
  fi
  # Lint reads files, whatever the load: once, on a quiet run, is enough.
  ((hogs > 0)) || bash scripts/lab/checks.sh
  # The harness's tests render the manifests with `kubectl kustomize` (loomlab.incluster.core.services).
  use_kubectl
  log "harness: unittest (scripts/tests)"
  "$(lab_python)" -m unittest discover -s scripts/tests -t scripts -p 'test_*.py'
  if [[ -n "$jdk" ]]; then
    log "./mvnw verify on JDK 21 ($jdk21; built on $JAVA_HOME)"
    mvnw verify -Djvm="$jdk21" "$@"
    return
  fi
  log "./mvnw verify (unit tests, packaged-jar integration tests, format check)"
  mvnw verify "$@"
  # Its liveness bound (100 ms) is a timing: on a quiet run only, as lint.
  ((hogs > 0)) || bash scripts/lab/hostile.sh
  log "the minimal application's tests (scripts/minimal, ./mvnw verify)"
  mvnw -q -f scripts/minimal/pom.xml verify
  [[ -n "$jdk21" ]] || return 0
  log "the pinning suites again on JDK 21 ($jdk21): what pins differs by JDK"
  mvnw surefire:test -Djvm="$jdk21" -Dtest='PinningResourceTest,DemoFloodsTest' -Dsurefire.failIfNoSpecifiedTests=false
}

main "$@"; exit "$?"
