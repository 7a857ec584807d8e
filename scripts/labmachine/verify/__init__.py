"""`./lab k8s verify`: the manifests checked as a cluster would, without a cluster.

Stages, each printed:
  1. render   every kustomization with `kubectl kustomize`
  2. schema   kubeconform, strict (unknown fields are errors), against Kubernetes' published JSON
              schemas bundled by the PyPI package kubernetes-validate (local files, no network)
  3. server   `kubectl apply --dry-run=server` into a real kube-apiserver + etcd on loopback, the
              namespace labelled pod-security.kubernetes.io/enforce=restricted, so the API server's
              own validation and Pod Security admission judge every object
  4. refs     every ConfigMap, Secret, PVC and Service a pod or StatefulSet names exists in the
              rendered output, and every Service selector matches a pod template
Then the same stages against deliberately broken manifests (deploy/k8s/testdata/broken), each of
which must be rejected by the stage it targets: proof that each check can fail.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml  # PyYAML, installed with kubernetes-validate

from loomlab import ROOT

K8S = ROOT / "deploy" / "k8s"
KUSTOMIZATIONS = [
    "namespace",
    "access",
    "base",
    "overlays/jvm",
    "overlays/jvm-aot",
    "overlays/jvm21",
    "overlays/native",
    "overlays/jvm-autoscaled",
    "overlays/jvm-queue-autoscaled",
    "overlays/jvm-production",
    "monitoring",
    "lab-node",
    "jobs",
    "loads",
    "operator",
    "local",
    "local/jobs",
    "local/jdk21",
]
# Custom resources without a schema among Kubernetes' own: kubeconform skips them. The API server
# judges a ScaledObject by KEDA's own CRD (SERVED_CRDS, from KEDA's module); the k6 operator's
# TestRun is judged by neither (its module is not served here).
NO_SCHEMA_KINDS = {"TestRun", "ScaledObject"}
NOT_SERVED_KINDS = {"TestRun"}
SERVED_CRDS = ("crd/bases/keda.sh_scaledobjects.yaml",)  # under KEDA's config/
NAMESPACE = "loom-lab"


def say(msg: str):
    print(msg, flush=True)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class Failure(Exception):
    pass


def render(directory: Path, label: str = "") -> list[dict]:
    p = run(["kubectl", "kustomize", str(directory)])
    if p.returncode != 0:
        raise Failure(f"render {label or directory.relative_to(ROOT)}: {p.stderr.strip()}")
    return [d for d in yaml.safe_load_all(p.stdout) if d]
