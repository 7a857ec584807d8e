#!/usr/bin/env bash
# Prints a kubeconfig for the lab's namespaced ServiceAccount (deploy/k8s/access): the current
# context's cluster, a token of the account (kubectl create token), the namespace. Run it as the
# admin who applied deploy/k8s/access; hand the file to whoever runs `./lab k8s run`.
#
#   scripts/k8s/runner-kubeconfig.sh [NAMESPACE] [ACCOUNT] [DURATION] > runner.kubeconfig
#   defaults: loom-lab loom-lab-runner 2h
set -euo pipefail
ns="${1:-loom-lab}" account="${2:-loom-lab-runner}" duration="${3:-2h}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
ca_data="$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')"
ca_file="$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority}')"
[[ -n $ca_data ]] || ca_data="$(base64 -w0 <"$ca_file")"
token="$(kubectl -n "$ns" create token "$account" --duration="$duration")"
export KUBECONFIG="$out"
kubectl config set-cluster lab --server="$server" >/dev/null
kubectl config set clusters.lab.certificate-authority-data "$ca_data" >/dev/null
kubectl config set-credentials "$account" --token="$token" >/dev/null
kubectl config set-context "$account" --cluster=lab --user="$account" --namespace="$ns" >/dev/null
kubectl config use-context "$account" >/dev/null
cat "$out"
