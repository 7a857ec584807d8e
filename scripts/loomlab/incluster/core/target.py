"""Where an in-cluster command runs and what it deploys: the cluster (--kubeconfig, --context,
--namespace: any cluster, a namespaced Role is enough) and the registry the images come from
(--registry: the digests `./lab k8s images --push` recorded), the same for run, autoscale and
failover."""

from __future__ import annotations

import copy

from loomlab import LabError
from loomlab.cluster.settings import IMAGES
from loomlab.kube import Kube, Target


def connect(args) -> Kube:
    return Kube(Target(args.kubeconfig, args.context, args.namespace))


def pushed(registry: str | None) -> dict[str, str]:
    """local image ref -> pushed ref@digest, as `./lab k8s images --push REGISTRY` recorded them."""
    if not registry:
        return {}
    record = IMAGES / "pushed" / (registry.replace("/", "_").replace(":", "_") + ".txt")
    if not record.exists():
        raise LabError(f"nothing pushed to {registry}: ./lab k8s images --push {registry}")
    return dict(line.split("=", 1) for line in record.read_text().splitlines() if "=" in line)


def has_image(registry: str | None, local_ref: str) -> bool:
    return local_ref in pushed(registry)


def with_images(docs: list[dict], images: dict[str, str]) -> list[dict]:
    """The manifests with every container image that was pushed replaced by its pushed digest."""
    docs = copy.deepcopy(docs)
    for d in docs:
        spec = d.get("spec", {})
        pod = spec.get("template", {}).get("spec") if "template" in spec else None
        for c in (pod or {}).get("containers", []) + (pod or {}).get("initContainers", []):
            if c.get("image") in images:
                c["image"] = images[c["image"]]
    return docs


def without_cpu_limit(docs: list[dict]) -> list[dict]:
    """The Deployments' containers without a CPU limit (their request kept), so no CFS quota: what the
    quota costs each mode in the cluster (docs/results/2026-11-27-cluster-share.md: nothing the runs
    could tell; the pod's cgroup itself costs virtual threads kernel time)."""
    out = copy.deepcopy(docs)
    for d in out:
        if d["kind"] == "Deployment":
            for c in d["spec"]["template"]["spec"]["containers"]:
                c.get("resources", {}).get("limits", {}).pop("cpu", None)
    return out
