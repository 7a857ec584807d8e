#!/usr/bin/env bash
# ./lab test's hostile clients (python -m loomlab.hostile) against the packaged jar at the pods' heap
# (a pod's 1 GiB at 75 %), on a port of its own, with the suite's rows and table in target/hostile.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  pick_jdk
  port=18089 status=0
  # curl: the readiness wait below; a stock Debian 12 has none.
  debian_tool curl curl "the hostile clients' readiness wait"
  log "hostile clients against the packaged jar at the pods' heap (-Xmx768m), port $port"
  # shellcheck disable=SC2086 # the service's flags, one word each
  QUARKUS_HTTP_PORT=$port "$JAVA_HOME/bin/java" -Xmx768m $LOOMLAB_JVM_FLAGS -jar "$jar" >target/hostile-service.log 2>&1 &
  service=$!
  for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$port/q/health/ready" >/dev/null && break
    kill -0 "$service" 2>/dev/null || break
    sleep 0.5
  done
  py hostile --url "http://127.0.0.1:$port" --out target/hostile/hostile.json || status=$?
  kill "$service" 2>/dev/null || true
  wait "$service" 2>/dev/null || true
  ((status == 0)) || { tail -20 target/hostile-service.log >&2; die "hostile clients: not as their contracts say (above)"; }
}

main "$@"; exit "$?"
