#!/usr/bin/env bash
# ./lab serve: the service on its own, on http://127.0.0.1:${QUARKUS_HTTP_PORT:-8080}, the schema
# migrated as its owner first, then started as the bench starts it (loomlab.serve). Ctrl-C stops it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  service_ready
  log "service on http://127.0.0.1:${QUARKUS_HTTP_PORT:-8080} (Ctrl-C stops it)"
  # shellcheck disable=SC2086 # the service's flags, one word each
  std_py serve "$JAVA_HOME/bin/java" "$jar" $LOOMLAB_JVM_FLAGS ${JAVA_OPTS:-}
}

main "$@"; exit "$?"
