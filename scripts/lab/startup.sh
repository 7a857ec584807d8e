#!/usr/bin/env bash
# ./lab startup [options]: start-up and first requests (loomlab.startup) of the service's variants and
# the minimal application, with the JDK's pick, the database, both jars and loadgen ready first. Its
# folder: target/loom-lab/startup-DATE.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  service_ready
  build_minimal
  loadgen="$(bash scripts/gotool.sh loadgen)"
  out="target/loom-lab/startup-$(date +%Y%m%d-%H%M%S)"
  py startup --java "$JAVA_HOME/bin/java" --loadgen "$loadgen" --out "$out" --minimal "$minimal_jar" "$@"
}

main "$@"; exit "$?"
