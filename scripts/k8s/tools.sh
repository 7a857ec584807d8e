#!/usr/bin/env bash
# Builds (once) and caches the tools of `./lab k8s verify`, then prints their paths as
# KEY=path lines: a real kube-apiserver built from the Go module proxy, etcd from Debian's
# etcd-server package (unpacked, not installed), and kubeconform.
#
#   scripts/k8s/tools.sh      ~8-10 min cold on 2 cores (kube-apiserver), then instant
set -euo pipefail
source "$(dirname "$0")/../common.sh"

K8S_VERSION="${K8S_VERSION:-1.32.13}"
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.8.0}"
tools="$LAB_CACHE/k8s-tools"
mkdir -p "$tools"
command -v go >/dev/null || die "Go is needed to build kube-apiserver and kubeconform"

apiserver="$tools/kube-apiserver-v$K8S_VERSION"
if [[ ! -x "$apiserver" ]]; then
  log "k8s: building kube-apiserver v$K8S_VERSION from the Go module proxy (~8 min, once)"
  mod="$tools/apiserver-build"
  rm -rf "$mod" && mkdir -p "$mod"
  # k8s.io/kubernetes pins its staging modules to v0.0.0 with local replaces; a consumer must
  # replace each with its published version (v0.<minor>.<patch>).
  staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
    cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt
    kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet
    metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller)
  minor="0.${K8S_VERSION#1.}"
  {
    echo "module loomlab/apiserver"
    echo "go 1.23"
    echo "godebug default=go1.23"
    echo "require k8s.io/kubernetes v$K8S_VERSION"
    for s in "${staging[@]}"; do echo "replace k8s.io/$s => k8s.io/$s v$minor"; done
  } >"$mod/go.mod"
  cat >"$mod/tools.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
  (cd "$mod" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true)
  (cd "$mod" && GOFLAGS=-mod=mod go build -trimpath -o "$apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  rm -rf "$mod"
fi

etcd="$tools/etcd/usr/bin/etcd"
if [[ ! -x "$etcd" ]]; then
  log "k8s: fetching etcd from Debian's etcd-server package"
  (cd "$tools" && rm -f etcd-server_*.deb && apt-get download etcd-server >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get download etcd-server >/dev/null; })
  dpkg -x "$tools"/etcd-server_*.deb "$tools/etcd"
  rm -f "$tools"/etcd-server_*.deb
fi

kubeconform="$tools/kubeconform-$KUBECONFORM_VERSION"
if [[ ! -x "$kubeconform" ]]; then
  log "k8s: building kubeconform $KUBECONFORM_VERSION"
  GOBIN="$tools/bin" GOFLAGS=-trimpath go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" >&2
  mv "$tools/bin/kubeconform" "$kubeconform"
fi

echo "KUBE_APISERVER=$apiserver"
echo "ETCD=$etcd"
echo "KUBECONFORM=$kubeconform"
