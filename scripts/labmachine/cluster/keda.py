"""KEDA on the lab's cluster, for the queue autoscaler (components/queue-autoscaler): the lab's image
of KEDA's operator and metrics API server (scripts/k8s/tools.sh builds them from KEDA's Go module)
pushed to the cluster's registry, and KEDA's own manifests from the same module (config/: its CRDs,
namespace, RBAC, the two Deployments, the external metrics APIService) applied with that image. Not
its admission webhooks: they only validate ScaledObjects, which `./lab k8s verify` checks against
KEDA's CRD. A user's cluster installs KEDA's release instead (docs/kubernetes.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from loomlab import LabError, proc
from loomlab.kube import Kube
from loomlab.podstatus import condition

from .api import NOT_YET, api, kubectl
from .processes import tools
from .settings import NAMED_REGISTRY, REGISTRY_PREFIX, ROOT, say, sh

# config/default's parts, less ../webhooks.
PARTS = ("crd", "general", "rbac", "manager", "metrics-server", "service_account")
UPSTREAM_IMAGES = ("ghcr.io/kedacore/keda", "ghcr.io/kedacore/keda-metrics-apiserver")  # any tag
IMAGE = f"{NAMED_REGISTRY}/loom-lab/keda:2.21.0"  # scripts/k8s/images.sh keda: /keda and /keda-adapter, as upstream's
APISERVICE = "v1beta1.external.metrics.k8s.io"


def manifests(config: Path) -> list[dict]:
    """KEDA's manifests of the module's config/, its images the lab's."""
    docs: list[dict] = []
    for part in PARTS:
        out = subprocess.run(["kubectl", "kustomize", str(config / part)], capture_output=True, text=True, check=True)
        docs += [d for d in yaml.safe_load_all(out.stdout) if d]
    for d in docs:
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            if c["image"].rsplit(":", 1)[0] in UPSTREAM_IMAGES:
                c.update(image=IMAGE, imagePullPolicy="IfNotPresent")
    return docs


def available(cluster: Kube) -> bool:
    try:
        deployments = cluster.json("/apis/apps/v1/namespaces/keda/deployments", 5)["items"]
        service = cluster.json(f"/apis/apiregistration.k8s.io/v1/apiservices/{APISERVICE}", 5)
    except NOT_YET:
        return False
    ready = all(d["status"].get("availableReplicas", 0) >= 1 for d in deployments) and len(deployments) == 2
    return ready and condition(service, "Available")


def install(timeout_s: float = 300) -> None:
    """KEDA installed and serving external metrics (a no-op when it is)."""
    cluster = api()
    if available(cluster):
        return
    say(f"installing KEDA ({IMAGE}, manifests of KEDA's module) for the queue autoscaler")
    sh("bash", ROOT / "scripts" / "k8s" / "images.sh", "--push", REGISTRY_PREFIX, "keda", timeout=900)
    docs = manifests(Path(tools()["KEDA_CONFIG"]))
    # Server-side: KEDA's CRDs are too large for the last-applied annotation of a client-side apply.
    kubectl(
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
        input=json.dumps({"kind": "List", "apiVersion": "v1", "items": docs}),
    )
    if not proc.wait_until(lambda: available(cluster), timeout_s, 2):
        raise LabError(
            f"KEDA not available within {timeout_s:.0f} s"
            f" (kubectl -n keda get pods; kubectl get apiservice {APISERVICE})"
        )
