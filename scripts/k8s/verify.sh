#!/usr/bin/env bash
# `./lab k8s verify`: tools (cached), then loomlab.verify (scripts/loomlab/verify/). See its __init__ for the stages.
set -euo pipefail
source "$(dirname "$0")/../common.sh"

command -v kubectl >/dev/null || die "kubectl is needed (kubectl kustomize renders the manifests)"
command -v openssl >/dev/null || die "openssl is needed (service-account key of the test API server)"
tools="$(bash "$LOOMLAB_ROOT/scripts/k8s/tools.sh")"
python="$(lab_python)"
src="$("$python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')"
# v1.33: the v1.32 schema wrongly requires StatefulSet.spec.serviceName; the API server is 1.32.
export LOOMLAB_K8S_SCHEMAS_SRC="$src/kubernetes-json-schema/v1.33.0-local-strict"
export LOOMLAB_K8S_SCHEMAS="$LOOMLAB_CACHE/k8s-tools/schemas-v1.33.0-local-strict"
export LOOMLAB_K8S_TOOLS="$tools"
exec "$python" -m loomlab.verify
