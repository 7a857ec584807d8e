"""Where an in-cluster command runs and what it deploys: the cluster (--kubeconfig, --context,
--namespace: any cluster, a namespaced Role is enough) and the registry the images come from
(--registry: the digests `./lab k8s images --push` recorded), the same for run, autoscale and
failover."""

from __future__ import annotations

import copy

from loomlab import LabError
from loomlab.kube import Kube, Target
from loomlab.labcluster import IMAGES


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


def with_cpu_limit(docs: list[dict], cpus: float) -> list[dict]:
    """The Deployments' containers with `cpus` as their CPU limit (0: none, so no CFS quota: what the
    quota costs each mode in the cluster, docs/results/2026-11-27-cluster-share.md: nothing the runs
    could tell; the pod's cgroup itself costs virtual threads kernel time)."""
    out = copy.deepcopy(docs)
    for d in out:
        if d["kind"] == "Deployment":
            for c in d["spec"]["template"]["spec"]["containers"]:
                limit_cpu(c.setdefault("resources", {}), cpus)
    return out


def limit_cpu(resources: dict, cpus: float) -> None:
    """A container's `resources` with `cpus` as its CPU limit (0: none); the request kept (what the
    scheduler places), lowered to the limit only where it is above it (the API refuses that)."""
    limits, requests = resources.setdefault("limits", {}), resources.setdefault("requests", {})
    if not cpus:
        limits.pop("cpu", None)
        return
    limits["cpu"] = f"{cpus:g}"
    if cpus < cpu_of(requests.get("cpu", "0")):
        requests["cpu"] = limits["cpu"]


def cpu_of(quantity: str) -> float:
    """A CPU quantity of Kubernetes' ("100m", "2", "1.5") in CPUs."""
    return int(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)
