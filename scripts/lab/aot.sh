#!/usr/bin/env bash
# ./lab aot [maven args]: Quarkus' own AOT packaging (JDK 25 AOT cache), the aot-jar layout whose
# packaged-jar ITs are the training run (unit tests skipped: ./lab test runs them). Built from a copy
# of the project in target/aot, so that the fast-jar keeps its place (target/quarkus-app) beside it:
# the cache holds the paths it was trained at (Quarkus' AOT entry point finds its application data
# through them), so the aot-jar runs where it was built. ./lab startup measures it as
# jvm-aot-quarkus, and the minimal application's, built the same way, as minimal-aot-quarkus.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  local app=target/aot/project/target/quarkus-app minimal=target/aot/minimal/target/quarkus-app
  pick_jdk
  use_database
  rm -rf target/aot && mkdir -p target/aot/project/k6
  cp -r pom.xml mvnw .mvn src target/aot/project/ && cp -r k6/lib target/aot/project/k6/ # the ITs read k6/lib/modes.json
  (cd target/aot/project && ./mvnw -B -ntp verify -Dquarkus.package.jar.aot.enabled=true -Dspotless.check.skip=true \
    -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false "$@")
  [[ -f $app/app.aot ]] || die "aot: the ITs left no $app/app.aot"
  log "aot: $app (aot-jar, its cache app.aot trained by the ITs: $(du -h "$app/app.aot" | cut -f1))"
  # The minimal application the same way (its one IT the training, with the service's flags), so
  # that ./lab startup compares the two on one recipe (minimal-aot-quarkus).
  mkdir -p target/aot/minimal
  cp -r scripts/minimal/pom.xml scripts/minimal/src mvnw .mvn target/aot/minimal/
  (cd target/aot/minimal && ./mvnw -B -ntp -q verify -Dquarkus.package.jar.aot.enabled=true \
    -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false "-Dloomlab.jvm.flags=$LOOMLAB_JVM_FLAGS")
  [[ -f $minimal/app.aot ]] || die "aot: the minimal application's IT left no $minimal/app.aot"
  log "aot: $minimal (the minimal application's aot-jar and cache: $(du -h "$minimal/app.aot" | cut -f1))"
}

main "$@"; exit "$?"
