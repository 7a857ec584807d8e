"""The components' configuration: the files in templates/ with this cluster's knobs filled in
($NAME placeholders, string.Template), and the objects every cluster needs in the API."""

from __future__ import annotations

from pathlib import Path
from string import Template

from . import settings as s

TEMPLATES = Path(__file__).resolve().parent / "templates"
# template -> where it goes in the run directory
FILES = {
    "10-loomlab.conflist": Path("cni/net.d/10-loomlab.conflist"),
    "containerd.toml": Path("containerd/config.toml"),
    "resolv.conf": Path("resolv.conf"),
    "kubelet.yaml": Path("kubelet.yaml"),
    "kube-proxy.yaml": Path("kube-proxy.yaml"),
    "Corefile": Path("Corefile"),
}


def values() -> dict:
    return {"RUN": s.RUN, "CONTAINERD_ROOT": s.CONTAINERD_ROOT, "SOCK": s.SOCK, "PAUSE_IMAGE": s.PAUSE_IMAGE,
            "BRIDGE": s.BRIDGE, "POD_CIDR": s.POD_CIDR, "NODE_IP": s.NODE_IP, "NODE": s.NODE,
            "POD_RANGE_START": s.POD_CIDR.network_address + 10}


def render(name: str) -> str:
    """A template with every placeholder filled; an unknown one is an error, not an empty string."""
    return Template((TEMPLATES / name).read_text()).substitute({k: str(v) for k, v in values().items()})


def write_configs():
    for name, target in FILES.items():
        path = s.RUN / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(name))


def cluster_objects() -> dict:
    """Objects every run needs: DNS's read access, the default StorageClass and local volumes (no
    provisioner here: static local PersistentVolumes on this node, owned per pod by fsGroup)."""
    volumes = s.RUN / "volumes"
    items = [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "loom-lab:coredns"},
         "rules": [{"apiGroups": [""], "resources": ["endpoints", "services", "pods", "namespaces"],
                    "verbs": ["list", "watch"]},
                   {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": "loom-lab:coredns"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "loom-lab:coredns"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "loom-lab:coredns"}]},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
         "metadata": {"name": "loom-lab-local",
                      "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer",
         "reclaimPolicy": "Delete"},
    ]
    for i in range(1, 7):
        path = volumes / f"pv{i}"
        path.mkdir(parents=True, exist_ok=True)
        items.append({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"loom-lab-local-{i}"},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "loom-lab-local",
                     "local": {"path": str(path)},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In", "values": [s.NODE]}]}]}}}})
    return {"apiVersion": "v1", "kind": "List", "items": items}
