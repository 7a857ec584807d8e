#!/usr/bin/env bash
# `./lab k8s verify`: tools (cached), then labmachine.verify (scripts/labmachine/verify/). See its __init__ for the stages.
set -euo pipefail
source "$(dirname "$0")/../common.sh"

command -v kubectl >/dev/null || die "kubectl is needed (kubectl kustomize renders the manifests)"
command -v openssl >/dev/null || die "openssl is needed (service-account key of the test API server)"
tools="$(bash "$LOOMLAB_ROOT/scripts/k8s/tools.sh")"
python="$(lab_python)"
src="$("$python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')"
# The schemas of the API server's own minor (scripts/k8s/kubernetes).
minor="$(sed -n 's/^K8S_VERSION=\([0-9]*\.[0-9]*\)\..*/\1/p' <<<"$tools")"
[[ -d "$src/kubernetes-json-schema/v$minor.0-local-strict" ]] || die "kubernetes-validate has no schemas for $minor"
export LOOMLAB_K8S_SCHEMAS_SRC="$src/kubernetes-json-schema/v$minor.0-local-strict"
export LOOMLAB_K8S_SCHEMAS="$LOOMLAB_CACHE/k8s-tools/schemas-v$minor.0-local-strict"
export LOOMLAB_K8S_TOOLS="$tools"
exec "$python" -m labmachine.verify
