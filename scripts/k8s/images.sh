#!/usr/bin/env bash
# `./lab k8s images [--push REGISTRY[/PREFIX]] [NAME...]`: the lab's container images, built here
# with a real image builder. buildah (Debian's) builds the Containerfiles of src/main/docker/local
# with vfs storage and chroot isolation; each image is also saved as an archive under
# $LOOMLAB_CACHE/images. An image is rebuilt only when one of its inputs changed.
#
#   NAME   debian | pause | jvm | jvm-aot | jvm21 | postgres | loadgen | k6 | prometheus | keda   (default: all
#          but k6 and keda, in that order; k6 only by name, from a k6 of your own, for deploy/k8s/jobs)
#   --push REGISTRY[/PREFIX]
#          push the images a cluster runs (jvm, jvm-aot, jvm21, postgres, loadgen, k6, prometheus, keda) to a registry, as
#          REGISTRY/PREFIX/loom-lab/<name>:<tag>, and record each one's digest in
#          $LOOMLAB_CACHE/images/pushed/<registry>.txt (manifest name=pushed ref@digest), which
#          `./lab k8s run --registry` deploys. A registry on loopback (127.0.0.1, localhost) is
#          spoken to over plain HTTP; any other over TLS, with buildah's credentials (buildah login).
#
# Names and tags are the manifests' (deploy/k8s), never `latest`, each under $NAMED there:
#   loom-lab/loom-lab-jvm:0.1.0  loom-lab/loom-lab-jvm-aot:0.1.0  loom-lab/loom-lab-jvm21:0.1.0
#   loom-lab/postgres-pgvector:15  loom-lab/loadgen:0.1.0
#   loom-lab/k6:1.8.1            loom-lab/prometheus:3.16      loom-lab/keda:2.21.0
#   loom-lab/pause:1.0-local (the lab's node's sandbox, imported)
# `./lab k8s run --registry` deploys the pushed digests; on the lab's cluster the node also pulls
# the manifests' own names, which are the lab's registry's.
set -euo pipefail
source "$(dirname "$0")/../common.sh"

DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
APP_TAG=0.1.0
# The registry the manifests name the images in: the lab's own at its default port, so that no name
# falls back to docker.io (labmachine.cluster.settings.NAMED_REGISTRY; a test holds the two equal).
NAMED=127.0.0.1:5000
src="$LOOMLAB_ROOT/src/main/docker/local"
out="$LOOMLAB_CACHE/images"
store="$LOOMLAB_CACHE/buildah"
mkdir -p "$out" "$store"
command -v buildah >/dev/null || die "buildah is needed to build the images (Debian: apt-get install buildah)"
B=(buildah --root "$store/storage" --runroot "$store/run" --storage-driver vfs)

# signature FILE... -> one hash of the files' paths, sizes and contents' modification times.
signature() {
  find "$@" -type f -printf '%p %s %T@\n' 2>/dev/null | sort | sha256sum | cut -c1-16
}

# build NAME REF CONTEXT INPUTS_SIGNATURE [buildah bud args...]
build() {
  local name="$1" ref="$2" ctx="$3" sig="$4"
  shift 4
  local archive="$out/$name.tar" stamp="$out/$name.sig"
  if [[ -f $archive && -f $stamp && "$(cat "$stamp")" == "$sig" ]] &&
    "${B[@]}" inspect --type image "localhost/$ref" >/dev/null 2>&1; then
    log "images: $ref up to date"
    return
  fi
  local started=$SECONDS
  log "images: building $ref"
  # jvm21 and jvm-aot-base are the JVM image with another runtime or application in its context:
  # the same Containerfile.
  local file="$src/Containerfile.$name"
  case $name in jvm21 | jvm-aot-base) file="$src/Containerfile.jvm" ;; esac
  "${B[@]}" bud --quiet --isolation chroot --layers=false -f "$file" -t "localhost/$ref" \
    "$@" "$ctx" >/dev/null
  rm -f "$archive"
  "${B[@]}" push --quiet "localhost/$ref" "docker-archive:$archive:docker.io/$ref" >/dev/null
  echo "$sig" >"$stamp"
  # The image this one replaced lost its name: drop it and any other nameless one, or the store
  # grows by every image's size at every rebuild (vfs keeps full copies; 36 GB in a week).
  "${B[@]}" rmi --prune >/dev/null
  log "images: $ref in $((SECONDS - started)) s ($(du -m "$archive" | cut -f1) MB)"
}

# The base image must be in buildah's storage for FROM; reload it from its archive if the storage
# was reset since it was built.
ensure_base() {
  "${B[@]}" inspect --type image "localhost/loom-lab/debian:$DEBIAN_SUITE-local" >/dev/null 2>&1 && return
  [[ -f "$out/debian.tar" ]] || build_debian
  "${B[@]}" pull --quiet "docker-archive:$out/debian.tar" >/dev/null
  "${B[@]}" tag "docker.io/loom-lab/debian:$DEBIAN_SUITE-local" "localhost/loom-lab/debian:$DEBIAN_SUITE-local"
}

build_debian() {
  command -v mmdebstrap >/dev/null || die "mmdebstrap is needed for the base image (Debian: apt-get install mmdebstrap)"
  local ctx="$out/context/debian"
  mkdir -p "$ctx"
  if [[ ! -f "$ctx/rootfs.tar" ]]; then
    log "images: Debian $DEBIAN_SUITE minbase from Debian's packages (mmdebstrap, ~1 min)"
    # --format=tar: without it mmdebstrap picks the format from the name's extension, and
    # ".partial" has none it knows, so it made a directory. What a stopped run left goes first.
    rm -rf "$ctx/rootfs.tar" "$ctx/rootfs.tar.partial"
    mmdebstrap --quiet --variant=minbase --mode=root --format=tar "$DEBIAN_SUITE" "$ctx/rootfs.tar.partial"
    mv "$ctx/rootfs.tar.partial" "$ctx/rootfs.tar"
  fi
  build debian "loom-lab/debian:$DEBIAN_SUITE-local" "$ctx" "$(signature "$src/Containerfile.debian" "$ctx/rootfs.tar")"
}

build_pause() {
  local ctx="$out/context/pause" pause
  pause="$(bash "$LOOMLAB_ROOT/scripts/k8s/tools.sh" | sed -n 's/^PAUSE=//p')"
  mkdir -p "$ctx" && cp -p "$pause" "$ctx/pause"
  build pause loom-lab/pause:1.0-local "$ctx" "$(signature "$src/Containerfile.pause" "$ctx/pause")"
}

# Modules of the jlink'd runtime: what jdeps finds in the fast-jar's classes, plus what is reached
# by reflection or service loading only (JFR's management, the management beans Micrometer reads,
# DNS for JNDI-style lookups, the zip file system, charsets).
JLINK_EXTRA=jdk.jfr,jdk.management,jdk.management.jfr,jdk.naming.dns,jdk.zipfs,jdk.charsets,jdk.crypto.ec,jdk.unsupported
app="$LOOMLAB_ROOT/target/quarkus-app"
# The aot-jar layout of the same sources (./lab builds it: build_aot_jar), which the jvm-aot image runs.
aot_app="$LOOMLAB_ROOT/target/aot-jar/project/target/quarkus-app"
need_app() {
  [[ -f "$app/quarkus-run.jar" ]] || die "no $app: build the service first (./lab mvn package -DskipTests)"
}

# stage_app CTX [APP]: the JVM images' own layers (the application, by default the fast-jar; the
# launcher; the service's flags) in CTX.
stage_app() {
  local ctx="$1" from="${2:-$app}"
  rm -rf "$ctx/quarkus-app" && cp -a "$from" "$ctx/quarkus-app"
  rm -f "$ctx/quarkus-app/app.aot" "$ctx/quarkus-app/app-cds.jsa"
  cp -p "$src/run-java.sh" "$LOOMLAB_ROOT/src/main/jvm/service.args" "$ctx/"
}

build_jvm() {
  pick_jdk >/dev/null
  local ctx="$out/context/jvm"
  need_app
  ensure_base
  local jdk_sig app_sig
  jdk_sig="$(sha256sum "$JAVA_HOME/release" | cut -c1-16)"
  app_sig="$(signature "$app")"
  mkdir -p "$ctx"
  if [[ ! -f "$ctx/runtime.sig" || "$(cat "$ctx/runtime.sig")" != "$jdk_sig $app_sig" ]]; then
    log "images: jlink'ing a JDK runtime for the service"
    # jdeps over every class of the fast-jar, unpacked as one class path (given modular jars, jdeps
    # would resolve them as modules and stop at the first automatic module it cannot find).
    local modules classes="$ctx/classes" j
    rm -rf "$classes" && mkdir -p "$classes"
    for j in "$app"/lib/main/*.jar "$app"/app/*.jar "$app"/quarkus/*.jar; do
      unzip -qo "$j" -d "$classes" 2>/dev/null || true
    done
    find "$classes" -name module-info.class -delete
    modules="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps "$classes" | tail -n1)"
    rm -rf "$classes"
    [[ $modules == java.base* ]] || die "jdeps found no modules: $modules"
    log "images: runtime modules $modules,$JLINK_EXTRA"
    rm -rf "$ctx/runtime"
    "$JAVA_HOME/bin/jlink" --add-modules "$modules,$JLINK_EXTRA" --strip-debug --no-man-pages \
      --no-header-files --compress=zip-6 --output "$ctx/runtime"
    echo "$jdk_sig $app_sig" >"$ctx/runtime.sig"
  fi
  stage_app "$ctx"
  build jvm "loom-lab/loom-lab-jvm:$APP_TAG" "$ctx" \
    "$(signature "$src/Containerfile.jvm" "$src/run-java.sh" "$ctx/service.args" "$ctx/runtime.sig" "$out/debian.sig") $app_sig"
}

# The same jar on the seeds' JDK 21 (deploy/k8s/overlays/jvm21): the JVM image with the runtime
# scripts/jdk21.sh provides (Temurin 21, already jlinked by its packager: java.se, jdk.jfr,
# jdk.management, jdk.unsupported among its modules) in place of the jlinked 25.
build_jvm21() {
  local ctx="$out/context/jvm21" jdk21 runtime_sig
  need_app
  ensure_base
  jdk21="$(bash "$LOOMLAB_ROOT/scripts/jdk21.sh")"
  runtime_sig="$(sha256sum "$jdk21/release" | cut -c1-16)"
  mkdir -p "$ctx"
  if [[ ! -f "$ctx/runtime.sig" || "$(cat "$ctx/runtime.sig")" != "$runtime_sig" ]]; then
    rm -rf "$ctx/runtime" && cp -a "$jdk21" "$ctx/runtime"
    echo "$runtime_sig" >"$ctx/runtime.sig"
  fi
  stage_app "$ctx"
  build jvm21 "loom-lab/loom-lab-jvm21:$APP_TAG" "$ctx" \
    "$(signature "$src/Containerfile.jvm" "$src/run-java.sh" "$ctx/service.args" "$ctx/runtime.sig" "$out/debian.sig") $(signature "$app")"
}

# The JVM image's runtime and launcher with the service in Quarkus' aot-jar layout: the base the
# jvm-aot image trains its cache on. With the fast-jar, the cache would hold the JDK's and Quarkus'
# boot classes only: the application's are loaded by Quarkus' own class loader, which the JDK's
# AOT cache leaves out (1,422 classes from the cache against 10,468, 2026-11-29-quarkus-aot.md).
build_jvm_aot_base() {
  build_jvm
  [[ -f "$aot_app/quarkus-run.jar" ]] || die "no $aot_app: ./lab k8s images builds the aot-jar first"
  local ctx="$out/context/jvm-aot-base"
  mkdir -p "$ctx"
  rm -rf "$ctx/runtime" && cp -al "$out/context/jvm/runtime" "$ctx/runtime"
  cp -p "$out/context/jvm/runtime.sig" "$ctx/"
  stage_app "$ctx" "$aot_app"
  build jvm-aot-base "loom-lab/loom-lab-jvm-aot-base:$APP_TAG" "$ctx" \
    "$(signature "$src/Containerfile.jvm" "$src/run-java.sh" "$ctx/service.args" "$ctx/runtime.sig" "$out/debian.sig") $(signature "$aot_app")"
}

build_jvm_aot() {
  build_jvm_aot_base
  local ctx="$out/context/jvm-aot"
  mkdir -p "$ctx" && cp "$src/train-aot.sh" "$ctx/"
  # The training run's database: the lab's local PostgreSQL (an explicit QUARKUS_DATASOURCE_JDBC_URL
  # wins), handed over as a build secret. Started for the build, it is stopped again after it: the
  # host around a cluster (./lab k8s down compares its listening sockets) stays as it was.
  local started_db=""
  if [[ -z "${QUARKUS_DATASOURCE_JDBC_URL:-}" ]]; then
    bash "$LOOMLAB_ROOT/scripts/db.sh" status >/dev/null 2>&1 || started_db=1
    bash "$LOOMLAB_ROOT/scripts/db.sh" start >&2
    eval "$(bash "$LOOMLAB_ROOT/scripts/db.sh" env)"
  fi
  local secret="$ctx/training-db.env"
  (umask 077 && {
    echo "QUARKUS_DATASOURCE_JDBC_URL=$QUARKUS_DATASOURCE_JDBC_URL"
    echo "QUARKUS_DATASOURCE_USERNAME=${QUARKUS_DATASOURCE_USERNAME:-}"
    echo "QUARKUS_DATASOURCE_PASSWORD=${QUARKUS_DATASOURCE_PASSWORD:-}"
  } >"$secret")
  build jvm-aot "loom-lab/loom-lab-jvm-aot:$APP_TAG" "$ctx" \
    "$(signature "$src/Containerfile.jvm-aot" "$src/train-aot.sh" "$out/jvm-aot-base.sig")" \
    --build-arg "BASE=localhost/loom-lab/loom-lab-jvm-aot-base:$APP_TAG" \
    --secret "id=training-db,src=$secret" --network host
  rm -f "$secret"
  if [[ -n $started_db ]]; then bash "$LOOMLAB_ROOT/scripts/db.sh" stop >&2; fi
}

build_postgres() {
  ensure_base
  bash "$LOOMLAB_ROOT/scripts/pgvector.sh" >&2
  local ctx="$out/context/postgres" pg_config=/usr/lib/postgresql/15/bin/pg_config
  rm -rf "$ctx" && mkdir -p "$ctx/pgvector/lib" "$ctx/pgvector/extension"
  # -p: the copies keep their times, which the signature reads (else a rebuild every time).
  cp -p "$("$pg_config" --pkglibdir)/vector.so" "$ctx/pgvector/lib/"
  cp -p "$("$pg_config" --sharedir)"/extension/vector* "$ctx/pgvector/extension/"
  cp "$src/pg-entrypoint.sh" "$ctx/"
  build postgres loom-lab/postgres-pgvector:15 "$ctx" \
    "$(signature "$src/Containerfile.postgres" "$src/pg-entrypoint.sh" "$ctx/pgvector" "$out/debian.sig")" --network host
}

# The lab's Python package laid out as in the repository (loomlab.ROOT finds k6/lib/modes.json and
# src/main/proto), into the context $1: what the Jobs' images run beside their generator.
lab_code() {
  local ctx="$1"
  rm -rf "$ctx/loom-lab" && mkdir -p "$ctx/loom-lab/scripts" "$ctx/loom-lab/k6/lib" "$ctx/loom-lab/src/main/proto"
  (cd "$LOOMLAB_ROOT/scripts" && find loomlab \( -name '*.py' -o -path '*/templates/*' \) -type f \
    -exec cp -p --parents {} "$ctx/loom-lab/scripts/" \;)
  cp -p "$LOOMLAB_ROOT/k6/lib/modes.json" "$ctx/loom-lab/k6/lib/"
  cp -p "$LOOMLAB_ROOT/src/main/proto/ingest.proto" "$ctx/loom-lab/src/main/proto/"
}

build_loadgen() {
  ensure_base
  local ctx="$out/context/loadgen"
  mkdir -p "$ctx"
  command -v go >/dev/null 2>&1 || die "the loadgen image needs Go to build scripts/loadgen (https://go.dev/dl)"
  # Static (no cgo): the binary runs on the image's Debian whatever this machine's C library is.
  (cd "$LOOMLAB_ROOT/scripts/loadgen" && CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false" go build -o "$ctx/loadgen.new" .)
  if cmp -s "$ctx/loadgen.new" "$ctx/loadgen"; then rm "$ctx/loadgen.new"; else mv "$ctx/loadgen.new" "$ctx/loadgen"; fi
  lab_code "$ctx"
  build loadgen loom-lab/loadgen:$APP_TAG "$ctx" \
    "$(signature "$src/Containerfile.loadgen" "$ctx/loadgen" "$ctx/loom-lab" "$out/debian.sig")" --network host
}

build_k6() {
  ensure_base
  local ctx="$out/context/k6" k6
  # Your own k6 (K6, or on PATH): the lab never fetches or builds k6 (AGPL-3.0).
  k6="${K6:-$(command -v k6 || true)}"
  [[ -x $k6 ]] || die "the k6 image (for deploy/k8s/jobs' k6 Jobs; the lab's own runs use loadgen) packs a k6 of your own: put it on PATH or set K6=PATH
      (the lab does not build k6: AGPL-3.0; https://grafana.com/docs/k6/latest/set-up/install-k6/)"
  mkdir -p "$ctx" && cp -p "$k6" "$ctx/k6"
  lab_code "$ctx"  # the answer code (python3 -m loomlab.bench.reporting.jobanswer)
  build k6 loom-lab/k6:1.8.1 "$ctx" \
    "$(signature "$src/Containerfile.k6" "$ctx/k6" "$ctx/loom-lab" "$out/debian.sig")" --network host
}

build_prometheus() {
  ensure_base
  local ctx="$out/context/prometheus"
  mkdir -p "$ctx" && cp -p "$(bash "$LOOMLAB_ROOT/scripts/k8s/tools.sh" | sed -n 's/^PROMETHEUS=//p')" "$ctx/prometheus"
  build prometheus loom-lab/prometheus:3.16 "$ctx" "$(signature "$src/Containerfile.prometheus" "$ctx/prometheus" "$out/debian.sig")"
}

build_keda() {
  ensure_base
  local ctx="$out/context/keda" t
  t="$(bash "$LOOMLAB_ROOT/scripts/k8s/tools.sh")"
  mkdir -p "$ctx"
  cp -p "$(sed -n 's/^KEDA_OPERATOR=//p' <<<"$t")" "$ctx/operator"
  cp -p "$(sed -n 's/^KEDA_ADAPTER=//p' <<<"$t")" "$ctx/adapter"
  build keda loom-lab/keda:2.21.0 "$ctx" "$(signature "$src/Containerfile.keda" "$ctx/operator" "$ctx/adapter" "$out/debian.sig")"
}

# push NAME LOCAL_REF: the built image to the registry, its digest recorded.
push() {
  local name="$1" ref="$2" dest tls=true digest
  dest="$push_to/$ref"
  case "${push_to%%/*}" in 127.0.0.1:* | localhost:* | 127.0.0.1 | localhost) tls=false ;; esac
  "${B[@]}" push --quiet --tls-verify="$tls" --digestfile "$out/pushed/$name.digest" "localhost/$ref" "docker://$dest" >/dev/null
  digest="$(cat "$out/pushed/$name.digest")"
  echo "$NAMED/$ref=${dest%:*}@$digest" >>"$record.partial"
  log "images: pushed $dest@$digest"
}

push_to=""
if [[ ${1:-} == --push ]]; then
  push_to="${2:?usage: images.sh --push REGISTRY[/PREFIX] [NAME...]}"
  shift 2
fi
names=("$@")
((${#names[@]})) || names=(debian pause jvm jvm-aot jvm21 postgres loadgen prometheus)
for n in "${names[@]}"; do
  case "$n" in
  debian) build_debian ;;
  pause) build_pause ;;
  jvm) build_jvm ;;
  jvm-aot) build_jvm_aot ;;
  jvm21) build_jvm21 ;;
  postgres) build_postgres ;;
  loadgen) build_loadgen ;;
  k6) build_k6 ;;
  prometheus) build_prometheus ;;
  keda) build_keda ;;
  *) die "unknown image '$n' (debian, pause, jvm, jvm-aot, jvm21, postgres, loadgen, k6, prometheus, keda)" ;;
  esac
done

if [[ -n $push_to ]]; then
  mkdir -p "$out/pushed"
  record="$out/pushed/$(tr '/:' '__' <<<"$push_to").txt"
  rm -f "$record.partial"
  for n in "${names[@]}"; do
    case "$n" in
    jvm) push jvm "loom-lab/loom-lab-jvm:$APP_TAG" ;;
    jvm-aot) push jvm-aot "loom-lab/loom-lab-jvm-aot:$APP_TAG" ;;
    jvm21) push jvm21 "loom-lab/loom-lab-jvm21:$APP_TAG" ;;
    postgres) push postgres loom-lab/postgres-pgvector:15 ;;
    loadgen) push loadgen "loom-lab/loadgen:$APP_TAG" ;;
    k6) push k6 loom-lab/k6:1.8.1 ;;
    prometheus) push prometheus loom-lab/prometheus:3.16 ;;
    keda) push keda loom-lab/keda:2.21.0 ;;
    esac
  done
  # Earlier pushes of images not named this time stay recorded.
  if [[ -f $record ]]; then
    grep -v -F -f <(cut -d= -f1 "$record.partial") "$record" >"$record.kept" || true
    cat "$record.kept" >>"$record.partial"
    rm -f "$record.kept"
  fi
  mv "$record.partial" "$record"
  log "images: pushed to $push_to, recorded in $record"
fi
