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
    "overlays/native",
    "overlays/jvm-autoscaled",
    "jobs",
    "operator",
    "local",
    "local/jobs",
]
# Custom resources the API server here does not know (the k6 operator's CRDs are not installed).
NO_SCHEMA_KINDS = {"TestRun"}
NAMESPACE = "loom-lab"


def say(msg: str):
    print(msg, flush=True)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class Failure(Exception):
    pass


def render(directory: Path) -> list[dict]:
    p = run(["kubectl", "kustomize", str(directory)])
    if p.returncode != 0:
        raise Failure(f"render {directory.relative_to(ROOT)}: {p.stderr.strip()}")
    return [d for d in yaml.safe_load_all(p.stdout) if d]
