"""Prometheus in the lab's cluster (deploy/k8s/monitoring, components/monitoring): `up` builds its
image if needed, pushes it to the cluster's registry, applies it, and returns once it is Ready and
every target it discovered answers its scrape (/api/v1/targets, through the API server)."""

from __future__ import annotations

import functools

from loomlab import proc

from .api import Api, kubectl
from .settings import REGISTRY_PREFIX, ROOT, RUN, sh

NAMESPACE = "loom-lab"
SERVICE = "prometheus"
PORT = 9090


def api_path(path: str) -> str:
    """A path of Prometheus' HTTP API through the API server's service proxy."""
    return f"/api/v1/namespaces/{NAMESPACE}/services/http:{SERVICE}:{PORT}/proxy{path}"


def targets(api: Api) -> list[dict]:
    """The active targets: each one's pod, health and last error."""
    active = api.json(api_path("/api/v1/targets?state=active"), 5)["data"]["activeTargets"]
    return [
        {"pod": t["labels"].get("pod", t["scrapeUrl"]), "health": t["health"], "error": t.get("lastError", "")}
        for t in active
    ]


def all_up(api: Api, want: int = 1) -> bool:
    try:
        found = targets(api)
    except OSError:
        return False  # not Ready yet: the proxy answers 503
    return len(found) >= want and all(t["health"] == "up" for t in found)


def start() -> list[dict]:
    """Prometheus applied, Ready and scraping; its targets."""
    images = ROOT / "scripts" / "k8s" / "images.sh"
    sh("bash", images, "--push", REGISTRY_PREFIX, "prometheus", timeout=900)
    kubectl("apply", "-k", ROOT / "deploy" / "k8s" / "monitoring")
    # The ways to the node the policies name by its address: its DNS (the namespace's pods reach
    # kube-dns' pods only, deploy/k8s/base) and its API server (Prometheus' discovery).
    kubectl("apply", "-k", ROOT / "deploy" / "k8s" / "lab-node")
    api = Api()
    if not proc.wait_until(functools.partial(all_up, api), 180, 1):
        raise RuntimeError(
            f"Prometheus not Ready or a target down (kubectl -n {NAMESPACE} describe deployment/{SERVICE};"
            f" logs in {RUN / 'logs'})"
        )
    return targets(api)
