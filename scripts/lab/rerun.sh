#!/usr/bin/env bash
# ./lab k8s rerun WORKLOAD [--k6]: one of the lab's load Jobs (deploy/k8s/loads, loadgen-WORKLOAD),
# or with --k6 the k6 one a user brings an image for (deploy/k8s/jobs, k6-WORKLOAD), run again. A Job's
# pod template is immutable and a finished Job never runs again: delete, then apply the workload's
# own folder (an indexed Job's resume Job with it: it too has run).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

use_kubectl
dir=deploy/k8s/loads job=loadgen
[[ ${2:-} == --k6 ]] && dir=deploy/k8s/jobs job=k6
workloads="$(cd "$dir" && for d in */; do [[ -f $d/kustomization.yaml && $d != base/ && $d != results/ ]] && printf '%s ' "${d%/}"; done)"
[[ -n "${1:-}" && " $workloads " == *" $1 "* ]] || die "usage: ./lab k8s rerun WORKLOAD [--k6] ($workloads)"
kubectl -n loom-lab delete job "$job-$1" --ignore-not-found
[[ -f $dir/$1/resume-job.yaml ]] && kubectl -n loom-lab delete job "$job-resume-$1" --ignore-not-found
kubectl apply -k "$dir/$1"
log "k8s: follow it with: kubectl -n loom-lab logs -f job/$job-$1"
