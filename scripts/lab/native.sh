#!/usr/bin/env bash
# ./lab native [maven args]: the native build and its ITs (-Dnative). It needs GraalVM/Mandrel
# (native-image) or a container runtime for Quarkus' container build; this says which is missing
# instead of failing deep inside Maven.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  pick_jdk
  if command -v native-image >/dev/null 2>&1 || [[ -x "${GRAALVM_HOME:-/nonexistent}/bin/native-image" ]]; then
    use_database
    mvnw verify -Dnative "$@"
  elif docker info >/dev/null 2>&1 || podman info >/dev/null 2>&1; then
    use_database
    mvnw verify -Dnative -Dquarkus.native.container-build=true "$@"
  else
    die "no native toolchain here: install GraalVM or Mandrel for JDK 25 (native-image on PATH or
      GRAALVM_HOME), or a running Docker/Podman for Quarkus' container build; or build the image with
      src/main/docker/Dockerfile.native-multistage on a machine with Docker."
  fi
}

main "$@"; exit "$?"
