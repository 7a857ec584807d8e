#!/bin/bash
# AOT training run inside the image build: start the service with -XX:AOTCacheOutput, exercise
# both modes of every workload the comparison runs, stop it; the JVM writes the cache at exit.
# Arguments: the JVM flags of the Deployment. No curl in the image: bash's /dev/tcp speaks HTTP.
set -euo pipefail
set -a
# shellcheck disable=SC1091
. /run/secrets/training-db
set +a
port=18089
get() {
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$1" >&3
  local status
  read -r _ status _ <&3 || status=000
  cat <&3 >/dev/null
  exec 3>&-
  [[ $status == 200 ]]
}
QUARKUS_HTTP_PORT=$port QUARKUS_HTTP_HOST=127.0.0.1 /opt/java/bin/java "$@" \
  -XX:AOTCacheOutput=/deployments/app.aot -jar /deployments/quarkus-run.jar &
pid=$!
for _ in $(seq 1 300); do get /q/health/ready 2>/dev/null && break; sleep 0.2; done
get /q/health/ready || { echo "training: the service did not get ready" >&2; kill "$pid"; exit 1; }
for mode in worker virtual; do
  for _ in $(seq 1 200); do get "/api/$mode/sleep?ms=1"; done
  # A lookup waits ~0.3 s for its slowest dependency: a few per mode load every class it needs.
  for i in $(seq 1 10); do get "/api/$mode/products/$i"; done
  for _ in $(seq 1 20); do get "/api/$mode/db/slow?ms=1"; done
  get /api/info
done
get /q/metrics
get /q/health
kill -TERM "$pid"
wait "$pid" || true
test -s /deployments/app.aot
echo "training: wrote /deployments/app.aot ($(stat -c %s /deployments/app.aot) bytes)"
