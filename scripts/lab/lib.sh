# What ./lab and its steps (scripts/lab/STEP.sh, one per branch of its dispatch) share: the service's
# JVM flags, the database, the builds, the harness's Python, kubectl and the cluster's parts.
# Sourced, never run.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$LOOMLAB_ROOT" || exit

# JVM flags of every service JVM the lab starts: src/main/jvm/service.args without its comments
# (as flags, not @file: ./lab startup hands them to a native executable too).
LOOMLAB_JVM_FLAGS="${LOOMLAB_JVM_FLAGS:-$(grep -v '^#' src/main/jvm/service.args | xargs)}"
export LOOMLAB_JVM_FLAGS

# Database: an explicit JDBC URL wins; otherwise the local throwaway PostgreSQL.
use_database() {
  if [[ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ]]; then
    log "database: $QUARKUS_DATASOURCE_JDBC_URL (from the environment)"
    return
  fi
  bash scripts/db.sh start
  eval "$(bash scripts/db.sh env)"
  # The lab owns this database: tests may stop and start it (DatabaseDownTest).
  export LOOMLAB_DB_CONTROL="$LOOMLAB_ROOT/scripts/db.sh"
  log "database: $QUARKUS_DATASOURCE_JDBC_URL"
}

# stale JAR PATH...: true when JAR is missing or a file under the PATHs is newer.
stale() {
  local built="$1"
  shift
  [[ ! -f $built ]] || [[ -n "$(find "$@" -newer "$built" -type f -print -quit)" ]]
}

jar=target/quarkus-app/quarkus-run.jar
build_jar() {
  # Rebuild when any source is newer than the jar.
  if stale "$jar" src/main/java src/main/resources pom.xml; then
    log "building the service (./mvnw package, tests skipped: ./lab test runs them)"
    mvnw -q package -DskipTests -Dspotless.check.skip=true
  fi
}

# What the service needs to run here: the JDK's pick, the database and the jar (bench, serve, startup).
service_ready() {
  pick_jdk
  use_database
  build_jar
}

# The service in Quarkus' aot-jar layout (quarkus.package.jar.aot.enabled: every class on the JDK's
# class path, so that a JDK AOT cache holds the application's classes too, which the fast-jar's own
# class loader keeps out of it), for the jvm-aot image: the image trains its cache on it at its final
# path. Built from a copy of the project, so that the fast-jar keeps its place in target/quarkus-app.
aot_jar=target/aot-jar/project/target/quarkus-app/quarkus-run.jar
build_aot_jar() {
  if stale "$aot_jar" src/main/java src/main/resources pom.xml; then
    log "building the service's aot-jar for the jvm-aot image (Quarkus' AOT packaging, tests skipped)"
    rm -rf target/aot-jar && mkdir -p target/aot-jar/project
    cp -r pom.xml mvnw .mvn src target/aot-jar/project/
    (cd target/aot-jar/project && ./mvnw -B -ntp -q package -DskipTests -Dspotless.check.skip=true \
      -Dquarkus.package.jar.aot.enabled=true)
  fi
}

# The minimal Quarkus application ./lab startup measures the service against (scripts/minimal: one
# endpoint, the service's Quarkus), built by the same ./mvnw.
minimal_jar=scripts/minimal/target/quarkus-app/quarkus-run.jar
build_minimal() {
  if stale "$minimal_jar" scripts/minimal/src/main scripts/minimal/pom.xml; then
    log "building the minimal application (scripts/minimal; its tests run in ./lab test)"
    mvnw -q -f scripts/minimal/pom.xml package -DskipTests
  fi
}

# The harness (scripts/loomlab) with the lab's venv: py MODULE [args], MODULE under loomlab, or
# labmachine.MODULE: the lab's machinery beside it (scripts/labmachine), where an experiment on the
# lab's node, labmachine.experiments.NAME, is its one entry's NAME.
py() {
  local module="$1"
  shift
  if [[ $module == labmachine.experiments.* ]]; then
    set -- "${module##*.}" "$@"
    module=labmachine.experiments
  fi
  [[ $module == labmachine.* ]] || module="loomlab.$module"
  "$(lab_python)" -m "$module" "$@"
}

# A module of the harness that needs the standard library only (the command table, the options, the
# doctor), with Debian's python3: it installs and builds nothing (no venv, no k6, no JDK).
# std_py MODULE [args].
std_py() {
  PYTHONPATH="$LOOMLAB_ROOT/scripts" python3 -S -m "loomlab.$1" "${@:2}"
}

# chart.js for the reports' charts (scripts/chartjs.sh), or nothing: the reports hold tables only.
chartjs() { bash scripts/chartjs.sh 2>/dev/null || true; }

# kubectl: the one on PATH, else the lab's own build of its cluster's version (scripts/k8s/tools.sh
# --kubectl, once), put first on PATH for this command; LOOMLAB_KUBECTL_DIR says where it came from.
use_kubectl() {
  command -v kubectl >/dev/null && return
  local built
  built="$(bash scripts/k8s/tools.sh --kubectl)" || die "kubectl: none on PATH and the lab's build of it failed (above)"
  log "kubectl: none on PATH, the lab's own: $built"
  LOOMLAB_KUBECTL_DIR="$(dirname "$built")"
  export PATH="$LOOMLAB_KUBECTL_DIR:$PATH"
}

# The lab's cluster (labmachine.cluster, a package by step): up, down, status, env, registry, import.
k8s_cluster() { py labmachine.cluster "$@"; }

# What the cluster and the image builds need from Debian, installed when missing.
k8s_apt() {
  local need=() pkg
  for pkg in containerd runc containernetworking-plugins buildah mmdebstrap iptables ipset conntrack nftables; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
  done
  ((${#need[@]})) || return 0
  [[ $EUID -eq 0 ]] || die "missing Debian packages: ${need[*]} (install them as root)"
  log "k8s: installing ${need[*]} from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

# The images (scripts/k8s/images.sh) of the service's two jar layouts, shared by ./lab k8s images and
# the in-cluster runs.
k8s_images() {
  k8s_apt
  pick_jdk
  build_jar
  build_aot_jar
  bash scripts/k8s/images.sh "$@"
}
