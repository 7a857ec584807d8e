"""Prometheus in the lab's cluster (deploy/k8s/monitoring, components/monitoring): `up` builds its
image if needed, pushes it to the cluster's registry, applies it, and returns once it is Ready and
every target it discovered answers its scrape (/api/v1/targets, through the API server)."""

from __future__ import annotations

import functools

from loomlab import proc
from loomlab.incluster.core.promql import SERVICE, Prometheus
from loomlab.kube import DEFAULT_NAMESPACE, Kube

from .api import NOT_YET, api, kubectl
from .settings import REGISTRY_PREFIX, ROOT, RUN, sh


def targets(kube: Kube) -> list[dict]:
    """The active targets: each one's pod, health and last error."""
    return [
        {"pod": t["labels"].get("pod", t["scrapeUrl"]), "health": t["health"], "error": t.get("lastError", "")}
        for t in Prometheus(kube).targets(5)
    ]


def all_up(kube: Kube, want: int = 1) -> bool:
    try:
        found = targets(kube)
    except NOT_YET:
        return False  # not Ready yet: the proxy answers 503
    return len(found) >= want and all(t["health"] == "up" for t in found)


def start() -> list[dict]:
    """Prometheus applied, Ready and scraping; its targets."""
    sh("bash", ROOT / "scripts" / "k8s" / "images.sh", "--push", REGISTRY_PREFIX, "prometheus", timeout=900)
    kubectl("apply", "-k", ROOT / "deploy" / "k8s" / "monitoring")
    # The ways to the node the policies name by its address: its DNS (the namespace's pods reach
    # kube-dns' pods only, deploy/k8s/base) and its API server (Prometheus' discovery).
    kubectl("apply", "-k", ROOT / "deploy" / "k8s" / "lab-node")
    kube = api(DEFAULT_NAMESPACE)
    if not proc.wait_until(functools.partial(all_up, kube), 180, 1):
        raise RuntimeError(
            f"Prometheus not Ready or a target down (kubectl -n {DEFAULT_NAMESPACE} describe deployment/{SERVICE};"
            f" logs in {RUN / 'logs'})"
        )
    return targets(kube)
