#!/usr/bin/env bash
# ./lab k8s run|autoscale|failover|... (an in-cluster command that deploys): deploy.sh NAME MODULE
# [args]. Its images come from a registry the cluster pulls from, --registry or the lab's own when
# its cluster is up; they are built (when an input changed) and pushed first, with the database's
# Secret (scripts/lab/secret.sh). Its folder: target/loom-lab/k8s-[NAME-]DATE. --plan prints the plan
# and deploys nothing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  what="$1" module="$2"
  shift 2
  for a in "$@"; do
    [[ $a != --plan ]] || { py "$module" "$@"; exit; }
  done
  registry="$(std_py incluster.cli --registry-of "$@")"
  if [[ -z $registry ]]; then
    k8s_cluster status >/dev/null 2>&1 ||
      die "give --registry REGISTRY[/PREFIX] (where your cluster pulls the images from), or ./lab k8s up"
    registry="$(k8s_cluster registry)"
    set -- "$@" --registry "$registry"
  fi
  bash scripts/lab/secret.sh
  k8s_images --push "$registry"
  if [[ $what == run ]]; then
    out="target/loom-lab/k8s-$(date +%Y%m%d-%H%M%S)"
    set -- --chartjs "$(chartjs)" "$@"
  else
    out="target/loom-lab/k8s-$what-$(date +%Y%m%d-%H%M%S)"
  fi
  log "k8s $what: writing to $out"
  mkdir -p "$out"
  py "$module" --out "$out" "$@"
  [[ $what != run ]] || ln -sfn "$(basename "$out")" target/loom-lab/k8s-latest
}

main "$@"; exit "$?"
