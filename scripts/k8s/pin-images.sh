#!/usr/bin/env bash
# Pins, as the admin, the images whose pods may read a key of db-credentials: the database's and the
# service variants' (their schema migration runs the service's image), each by the digest this
# machine's `./lab k8s images --push REGISTRY` recorded: push from a checkout you reviewed, then pin.
# The admission policy (deploy/k8s/access) gives a key only to a pod on a pinned image, so an image
# built elsewhere (a new digest) waits for the admin. Pins of other registries are kept. Run it after
# `kubectl apply -k deploy/k8s/access`, which empties the pins.
#
#   scripts/k8s/pin-images.sh REGISTRY[/PREFIX] [NAMESPACE]      (NAMESPACE: loom-lab)
set -euo pipefail
registry="${1:?usage: scripts/k8s/pin-images.sh REGISTRY[/PREFIX] [NAMESPACE]}" ns="${2:-loom-lab}"
record="${LOOMLAB_CACHE:-$HOME/.cache/loom-lab}/images/pushed/$(tr '/:' '__' <<<"$registry").txt"
[[ -f $record ]] || { echo "nothing pushed to $registry: ./lab k8s images --push $registry" >&2; exit 1; }
ours="$registry/loom-lab/"
pins=()
while IFS='=' read -r _ pushed; do # name=pushed@digest: the database's and the service's, of this registry
  [[ $pushed == "$ours"* && ${pushed#"$ours"} =~ ^(postgres-pgvector|loom-lab-[a-z0-9-]+)@sha256:[0-9a-f]{64}$ ]] &&
    pins+=("$pushed")
done <"$record"
((${#pins[@]})) || { echo "$record holds neither the database's nor the service's image of $registry" >&2; exit 1; }
for kept in $(kubectl -n "$ns" get configmap loom-lab-registries -o jsonpath='{.data.images}'); do
  [[ $kept == "$ours"* ]] || pins+=("$kept") # another registry's, as the admin pinned it
done
# Every pin is [a-z0-9.:/@-] (the record's, above; the ConfigMap's, the admin's): no quoting in JSON.
kubectl -n "$ns" patch configmap loom-lab-registries --type merge -p "{\"data\":{\"images\":\"${pins[*]}\"}}" >/dev/null
echo "pinned in $ns: ${pins[*]}"
