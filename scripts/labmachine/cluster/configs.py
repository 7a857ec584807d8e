"""The components' configuration: the files in templates/ with this cluster's knobs filled in
($NAME placeholders, string.Template), and the objects every cluster needs in the API."""

from __future__ import annotations

from pathlib import Path
from string import Template

import yaml

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
    "registry.yml": Path("registry.yml"),
    # containerd's registry host configuration: the lab's registry speaks plain HTTP on loopback.
    "hosts.toml": Path(f"containerd/certs.d/{s.REGISTRY}/hosts.toml"),
}
# ... and, should it listen on another port, stands in for the registry the manifests name
# (NAMED_REGISTRY): the node pulls those names from the lab's registry, and no pull leaves the machine.
MIRROR = ("mirror.toml", Path(f"containerd/certs.d/{s.NAMED_REGISTRY}/hosts.toml"))


def values() -> dict:
    return {
        "RUN": s.RUN,
        "CONTAINERD_ROOT": s.CONTAINERD_ROOT,
        "SOCK": s.SOCK,
        "PAUSE_IMAGE": s.PAUSE_IMAGE,
        "BRIDGE": s.BRIDGE,
        "POD_CIDR": s.POD_CIDR,
        "NODE_IP": s.NODE_IP,
        "NODE": s.NODE,
        "POD_RANGE_START": s.POD_CIDR.network_address + 10,
        "REGISTRY": s.REGISTRY,
        "REGISTRY_ROOT": s.REGISTRY_ROOT,
        "METRICS_PORT": s.METRICS_PORT,
    }


def render(name: str) -> str:
    """A template with every placeholder filled; an unknown one is an error, not an empty string."""
    return Template((TEMPLATES / name).read_text()).substitute({k: str(v) for k, v in values().items()})


def write_configs():
    files = FILES if s.REGISTRY == s.NAMED_REGISTRY else dict([*FILES.items(), MIRROR])
    for name, target in files.items():
        path = s.RUN / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(name))


def cluster_objects() -> dict:
    """Objects every run needs: templates/cluster-objects.yaml's and the local volumes (no provisioner
    here: static local PersistentVolumes on this node, owned per pod by fsGroup)."""
    volumes = s.RUN / "volumes"
    items = [d for d in yaml.safe_load_all(render("cluster-objects.yaml")) if d]
    for i in range(1, 17):  # a results volume per workload's Job, spares; 13-16 the database's data
        path = volumes / f"pv{i}"
        path.mkdir(parents=True, exist_ok=True)
        # ReadWriteMany too: every pod of this one node may write it (the indexed Job's runners do);
        # the database's claim asks one pod alone (a mode the API offers with no other).
        modes = ["ReadWriteOncePod"] if i > 12 else ["ReadWriteOnce", "ReadWriteMany"]
        on_node = {"key": "kubernetes.io/hostname", "operator": "In", "values": [s.NODE]}
        spec = {
            "capacity": {"storage": "10Gi"},
            "accessModes": modes,
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "loom-lab-local",
            "local": {"path": str(path)},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [on_node]}]}},
        }
        items.append(
            {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"loom-lab-local-{i}"}, "spec": spec}
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}
