#!/usr/bin/env bash
# Pins, as the admin, the images whose pods may read a key of db-credentials: the database's and the
# service variants' (their schema migration runs the service's image), each by the digest `./lab k8s
# images --push REGISTRY` recorded. The admission policy (deploy/k8s/access) gives a key only to a
# pod on one of them, so a later push (a new digest) waits for the admin's pin. Run it after
# `kubectl apply -k deploy/k8s/access`, which empties the pins again.
#
#   scripts/k8s/pin-images.sh REGISTRY[/PREFIX] [NAMESPACE]      (NAMESPACE: loom-lab)
set -euo pipefail
registry="${1:?usage: scripts/k8s/pin-images.sh REGISTRY[/PREFIX] [NAMESPACE]}" ns="${2:-loom-lab}"
record="${LOOMLAB_CACHE:-$HOME/.cache/loom-lab}/images/pushed/$(tr '/:' '__' <<<"$registry").txt"
[[ -f $record ]] || { echo "nothing pushed to $registry: ./lab k8s images --push $registry" >&2; exit 1; }
# name=pushed@digest lines; the database's and the service's, by digest.
images="$(cut -d= -f2 "$record" | grep -E '/(postgres-pgvector|loom-lab-[a-z0-9-]+)@sha256:[0-9a-f]{64}$' |
  sort | tr '\n' ' ')"
[[ -n $images ]] || { echo "$record holds neither the database's nor the service's image" >&2; exit 1; }
kubectl -n "$ns" patch configmap loom-lab-registries --type merge -p "{\"data\":{\"images\":\"${images% }\"}}" >/dev/null
echo "pinned in $ns: ${images% }"
