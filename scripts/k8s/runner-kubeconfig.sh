#!/usr/bin/env bash
# Prints a kubeconfig for the lab's namespaced ServiceAccount (deploy/k8s/access): the current
# context's cluster, a token of the account (kubectl create token), the namespace. Run it as the
# admin who applied deploy/k8s/access; hand the file to whoever runs `./lab k8s run`.
# The token never travels in a command's arguments (where ps shows it to every user): it goes from
# kubectl's output into the document this prints.
#
#   scripts/k8s/runner-kubeconfig.sh [NAMESPACE] [ACCOUNT] [DURATION] > runner.kubeconfig
#   defaults: loom-lab loom-lab-runner 2h
set -euo pipefail
umask 077
ns="${1:-loom-lab}" account="${2:-loom-lab-runner}" duration="${3:-2h}"
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
ca_data="$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')"
ca_file="$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority}')"
[[ -n $ca_data ]] || ca_data="$(base64 -w0 <"$ca_file")"
token="$(kubectl -n "$ns" create token "$account" --duration="$duration")"
cat <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: lab
    cluster:
      server: "$server"
      certificate-authority-data: "$ca_data"
users:
  - name: "$account"
    user:
      token: "$token"
contexts:
  - name: "$account"
    context:
      cluster: lab
      user: "$account"
      namespace: "$ns"
current-context: "$account"
EOF
