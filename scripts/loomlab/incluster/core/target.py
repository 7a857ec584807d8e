"""Where an in-cluster command runs and what it deploys: the cluster (--kubeconfig, --context,
--namespace: any cluster, a namespaced Role is enough) and the registry the images come from
(--registry: the digests `./lab k8s images --push` recorded), the same for run, autoscale and
failover."""

from __future__ import annotations

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
