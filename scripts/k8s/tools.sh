#!/usr/bin/env bash
# Builds (once) and caches every Kubernetes binary the lab runs, then prints their paths as
# KEY=path lines. One version for all of them, used by `./lab k8s verify` (the API server alone)
# and `./lab k8s up` (the whole single-node cluster):
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl
#                 built from the module pinned in scripts/k8s/kubernetes (its go.mod and go.sum, read
#                 only: Kubernetes 1.35.4) (~10 min cold on 2 cores)
#   coredns       $COREDNS_VERSION with only the plugins a cluster DNS needs (~1 min)
#   pause         the sandbox process of every pod (a few lines of Go, below)
#   metrics-server $METRICS_SERVER_VERSION: the resource metrics API (kubectl top, the autoscaler) (~3 min)
#   kube-router   firewall only: the NetworkPolicy engine, from the module pinned in scripts/k8s/kube-router (~3 min)
#   registry      the CNCF registry (distribution) $REGISTRY_VERSION: where the images go and the node
#                 pulls them from, as on any cluster (~1 min)
#   prometheus    $PROMETHEUS_VERSION (Prometheus 3), Kubernetes service discovery only, no web UI
#                 (its assets are built with npm): the cluster's metrics store, in the lab's image (~2 min)
#   keda          KEDA $KEDA_VERSION's operator and metrics API server (cmd/operator, cmd/adapter):
#                 the queue autoscaler, in the lab's image (~6 min)
#   etcd          from Debian's etcd-server package (unpacked, not installed)
#   kubeconform   strict schema checks
#
#   scripts/k8s/tools.sh          build what is missing, print KEY=path lines
#   scripts/k8s/tools.sh --kubectl   kubectl alone, of the same version (~3 min cold, once): its path
#   scripts/k8s/tools.sh --if-built  build nothing: exit 0 when every one is built, 1 otherwise
set -euo pipefail
source "$(dirname "$0")/../common.sh"

COREDNS_VERSION="${COREDNS_VERSION:-v1.12.0}"
COREDNS_BUILD=2 # bump when the plugin list below changes: the cached binary is rebuilt
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.8.0}"
METRICS_SERVER_VERSION="${METRICS_SERVER_VERSION:-v0.9.0}"
REGISTRY_VERSION="${REGISTRY_VERSION:-v3.1.2}"
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-v0.316.0}"
KEDA_VERSION="${KEDA_VERSION:-v2.21.0}"
tools="$LOOMLAB_CACHE/k8s-tools"
k8s_module="$LOOMLAB_ROOT/scripts/k8s/kubernetes"
K8S_VERSION="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print substr($3, 2)}' "$k8s_module/go.mod")"
# Named by the version and the module's hash: changing a pin rebuilds them.
bin="$tools/v$K8S_VERSION-$(cat "$k8s_module/go.mod" "$k8s_module/go.sum" | sha256sum | cut -c1-12)"
mkdir -p "$bin"
command -v go >/dev/null || die "Go is needed to build the Kubernetes components (https://go.dev/dl)"
# Go's build cache of these builds, the lab's own, removed once every binary is built: it held 9.8 GiB
# after a cold build (2026-11-27), and the binaries are rebuilt only when a pin changes. The module
# cache stays (KEDA's manifests are read from it, and a rebuild downloads nothing twice).
export GOCACHE="$tools/go-build"
build_cache_removed() {
  [[ -d $GOCACHE ]] || return 0
  log "k8s: Go's build cache of these builds removed ($(du -sh "$GOCACHE" | cut -f1); the binaries are kept)"
  rm -rf "$GOCACHE"
}

# --if-built: each build below first asks need(), which ends the check there.
if_built=0
[[ ${1:-} == --if-built ]] && if_built=1
need() { if ((if_built)); then exit 1; fi; }

components=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)
# For a machine with no kubectl (Debian 12's is 1.20): the lab's, built like the cluster's own.
only_kubectl=0
[[ ${1:-} == --kubectl ]] && only_kubectl=1 && components=(kubectl)
missing=()
for c in "${components[@]}"; do [[ -x "$bin/$c" ]] || missing+=("$c"); done
if ((${#missing[@]})); then
  need
  log "k8s: building ${missing[*]} v$K8S_VERSION from scripts/k8s/kubernetes ($( ((only_kubectl)) && echo "~3" || echo "~8") min cold, once)"
  started=$SECONDS
  mod="$tools/build-k8s"
  rm -rf "$mod" && cp -r "$k8s_module" "$mod"
  pkgs=()
  for c in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  # The version the binaries report (nodes, `kubectl version`), as Kubernetes' own build stamps it.
  ldflags="-X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1"
  minor="${K8S_VERSION#1.}"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=${minor%%.*} -X k8s.io/component-base/version.gitTreeState=clean"
  ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=v$K8S_VERSION"
  (cd "$mod" && GOFLAGS=-mod=readonly go build -p "$(nproc)" -trimpath -ldflags "$ldflags" -o "$bin/" "${pkgs[@]}" >&2)
  rm -rf "$mod"
  log "k8s: built in $((SECONDS - started)) s"
fi
if ((only_kubectl)); then
  # Only after a build of its own: a build of the rest may be using the cache beside it.
  if ((${#missing[@]})); then build_cache_removed; fi
  echo "$bin/kubectl"
  exit 0
fi

coredns="$tools/coredns-$COREDNS_VERSION-$COREDNS_BUILD"
if [[ ! -x "$coredns" ]]; then
  need
  log "k8s: building CoreDNS $COREDNS_VERSION (cluster DNS plugins only, ~1 min)"
  mod="$tools/build-coredns"
  rm -rf "$mod" && mkdir -p "$mod"
  printf 'module loomlab/coredns\n\ngo 1.23\n\nrequire github.com/coredns/coredns %s\n' \
    "$COREDNS_VERSION" >"$mod/go.mod"
  # CoreDNS compiles its plugin list from plugin.cfg; a main of our own names just these, in
  # the order plugin.cfg gives them (the order in which they handle a query). No `forward`:
  # names outside the cluster are not resolved, so no query ever leaves the machine.
  cat >"$mod/main.go" <<'GO'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	"github.com/coredns/coredns/coremain"
)

func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes"}
}

func main() { coremain.Run() }
GO
  (cd "$mod" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 &&
    CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$coredns" .)
  rm -rf "$mod"
fi

pause="$tools/pause"
if [[ ! -x "$pause" ]]; then
  need
  log "k8s: building the pod sandbox's pause process"
  mod="$tools/build-pause"
  rm -rf "$mod" && mkdir -p "$mod"
  printf 'module loomlab/pause\n\ngo 1.23\n' >"$mod/go.mod"
  # What Kubernetes' pause does: hold the pod's namespaces, reap orphans (it is PID 1 of a
  # shared PID namespace), exit on SIGINT/SIGTERM.
  cat >"$mod/main.go" <<'GO'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
GO
  (cd "$mod" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$pause" .)
  rm -rf "$mod"
fi

etcd="$tools/etcd/usr/bin/etcd"
if [[ ! -x "$etcd" ]]; then
  need
  log "k8s: fetching etcd from Debian's etcd-server package"
  # A stale package list is refreshed once when the download fails.
  (cd "$tools" && rm -f etcd-server_*.deb &&
    if ! apt-get download etcd-server >/dev/null 2>&1; then apt-get update -qq && apt-get download etcd-server >/dev/null; fi)
  dpkg -x "$tools"/etcd-server_*.deb "$tools/etcd"
  rm -f "$tools"/etcd-server_*.deb
fi

# go_tool PATH PACKAGE VERSION WHAT: `go install PACKAGE@VERSION` (static) once, kept at PATH. Each
# build has a GOBIN of its own, so two builds at once never move each other's binary.
go_tool() {
  local target="$1" package="$2" version="$3" what="$4" gobin
  [[ -x "$target" ]] && return
  need
  log "k8s: building $what from the Go module proxy (once)"
  gobin="$(mktemp -d "$tools/bin.XXXXXX")"
  GOBIN="$gobin" CGO_ENABLED=0 GOFLAGS=-trimpath go install "$package@$version" >&2
  mv "$gobin/${package##*/}" "$target"
  rmdir "$gobin"
}

kubeconform="$tools/kubeconform-$KUBECONFORM_VERSION"
go_tool "$kubeconform" github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION" \
  "kubeconform $KUBECONFORM_VERSION"
metrics_server="$tools/metrics-server-$METRICS_SERVER_VERSION"
go_tool "$metrics_server" sigs.k8s.io/metrics-server/cmd/metrics-server "$METRICS_SERVER_VERSION" \
  "metrics-server $METRICS_SERVER_VERSION (~3 min cold)"
# kube-router, firewall only: the NetworkPolicy engine, built from the module pinned in
# scripts/k8s/kube-router (its go.mod says which libraries are raised past v2.1.0's, and why); the
# cached binary is named by that module's hash, so changing a pin rebuilds it.
kr_module="$LOOMLAB_ROOT/scripts/k8s/kube-router"
kube_router="$tools/kube-router-$(cat "$kr_module/go.mod" "$kr_module/go.sum" | sha256sum | cut -c1-12)"
if [[ ! -x "$kube_router" ]]; then
  need
  log "k8s: building kube-router $(awk '$1 == "require" && $2 ~ /kube-router/ {print $3}' "$kr_module/go.mod") (the NetworkPolicy engine, scripts/k8s/kube-router) (~3 min cold, once)"
  mod="$tools/build-kube-router"
  rm -rf "$mod" && cp -r "$kr_module" "$mod"
  (cd "$mod" && GOFLAGS=-mod=readonly go build -p 2 -trimpath -o "$kube_router" \
    github.com/cloudnativelabs/kube-router/v2/cmd/kube-router >&2)
  rm -rf "$mod"
fi
registry="$tools/registry-$REGISTRY_VERSION"
go_tool "$registry" github.com/distribution/distribution/v3/cmd/registry "$REGISTRY_VERSION" \
  "the registry (distribution) $REGISTRY_VERSION (~1 min)"

# module_build MODULE VERSION OUT_DIR TAGS PACKAGE...: the packages of a module whose go.mod has
# replace directives (go install refuses those), built inside a copy of it, binaries into OUT_DIR.
# module_dir MODULE VERSION: where the Go module cache holds the module (downloaded if missing).
module_dir() {
  local dir
  dir="$(cd "$tools" && go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d $dir ]] || die "go mod download $1@$2 gave no directory"
  echo "$dir"
}
module_build() {
  local module="$1" version="$2" dest="$3" tags="$4" dir mod
  shift 4
  dir="$(module_dir "$module" "$version")"
  mod="$tools/build-${module##*/}"
  rm -rf "$mod" && cp -r "$dir" "$mod" && chmod -R u+w "$mod"
  mkdir -p "$dest.partial"
  (cd "$mod" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -p 2 -trimpath -tags "$tags" \
    -o "$dest.partial/" "$@" >&2)
  rm -rf "$mod" "$dest" && mv "$dest.partial" "$dest"
}
prometheus="$tools/prometheus-$PROMETHEUS_VERSION"
if [[ ! -x "$prometheus/prometheus" ]]; then
  need
  log "k8s: building Prometheus $PROMETHEUS_VERSION, Kubernetes discovery only (~2 min cold, once)"
  # Its own build tags: every discovery mechanism removed but Kubernetes'.
  module_build github.com/prometheus/prometheus "$PROMETHEUS_VERSION" "$prometheus" \
    remove_all_sd,enable_kubernetes_sd,netgo ./cmd/prometheus
fi
keda="$tools/keda-$KEDA_VERSION"
if [[ ! -x "$keda/operator" || ! -x "$keda/adapter" ]]; then
  need
  log "k8s: building KEDA $KEDA_VERSION's operator and metrics API server (~6 min cold, once)"
  module_build github.com/kedacore/keda/v2 "$KEDA_VERSION" "$keda" "" ./cmd/operator ./cmd/adapter
fi

((if_built)) && exit 0
build_cache_removed

echo "K8S_VERSION=$K8S_VERSION"
for c in "${components[@]}"; do
  key="${c^^}"
  echo "${key//-/_}=$bin/$c"
done
echo "COREDNS=$coredns"
echo "PAUSE=$pause"
echo "ETCD=$etcd"
echo "KUBECONFORM=$kubeconform"
echo "METRICS_SERVER=$metrics_server"
echo "REGISTRY=$registry"
echo "KUBE_ROUTER=$kube_router"
echo "PROMETHEUS=$prometheus/prometheus"
echo "KEDA_VERSION=$KEDA_VERSION"
echo "KEDA_OPERATOR=$keda/operator"
echo "KEDA_ADAPTER=$keda/adapter"
echo "KEDA_CONFIG=$(module_dir github.com/kedacore/keda/v2 "$KEDA_VERSION")/config"
