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


def metrics_server_objects() -> list[dict]:
    """metrics.k8s.io: metrics-server (a process on the node, like CoreDNS) reached through a
    Service without a selector, with its read access and the delegated authentication an
    aggregated API server needs (the roles of metrics-server's own manifests). Long because it
    declares metrics-server's API objects (RBAC, Service, Endpoints, APIService)."""
    user = {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "loom-lab:metrics-server"}

    def role(kind, name):
        return {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name}

    system = {"name": "metrics-server", "namespace": "kube-system"}
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "loom-lab:metrics-server"},
            "rules": [
                {"apiGroups": [""], "resources": ["nodes/metrics"], "verbs": ["get"]},
                {"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": ["get", "list", "watch"]},
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "loom-lab:metrics-server"},
            "roleRef": role("ClusterRole", "loom-lab:metrics-server"),
            "subjects": [user],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "loom-lab:metrics-server:auth-delegator"},
            "roleRef": role("ClusterRole", "system:auth-delegator"),
            "subjects": [user],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "loom-lab:metrics-server:auth-reader", "namespace": "kube-system"},
            "roleRef": role("Role", "extension-apiserver-authentication-reader"),
            "subjects": [user],
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": system,
            "spec": {"ports": [{"name": "https", "port": 443, "targetPort": s.METRICS_PORT}]},
        },
        {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": system,
            "subsets": [{"addresses": [{"ip": s.NODE_IP}], "ports": [{"name": "https", "port": s.METRICS_PORT}]}],
        },
        # Its serving certificate is self-signed (as in metrics-server's own manifests).
        {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {
                "service": {**system, "port": 443},
                "group": "metrics.k8s.io",
                "version": "v1beta1",
                "insecureSkipTLSVerify": True,
                "groupPriorityMinimum": 100,
                "versionPriority": 100,
            },
        },
    ]


def kube_router_objects() -> list[dict]:
    """What kube-router's firewall reads (the read rules of the ClusterRole in its module's
    daemonset/kubeadm-kuberouter.yaml; its leases and services/status serve the router and the proxy,
    which do not run here)."""
    read = ["get", "list", "watch"]
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "loom-lab:kube-router"},
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["namespaces", "pods", "services", "nodes", "endpoints"],
                    "verbs": read,
                },
                {"apiGroups": ["networking.k8s.io"], "resources": ["networkpolicies"], "verbs": read},
                {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": read},
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "loom-lab:kube-router"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "loom-lab:kube-router"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "loom-lab:kube-router"}],
        },
    ]


def cluster_objects() -> dict:
    """Objects every run needs: DNS's and the policy engine's read access, the metrics API, the
    default StorageClass and local volumes (no provisioner here: static local PersistentVolumes on
    this node, owned per pod by fsGroup). Long because it declares the API objects every run needs,
    one literal each."""
    volumes = s.RUN / "volumes"
    items = (
        [
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": "loom-lab:coredns"},
                "rules": [
                    {
                        "apiGroups": [""],
                        "resources": ["endpoints", "services", "pods", "namespaces"],
                        "verbs": ["list", "watch"],
                    },
                    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]},
                ],
            },
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": "loom-lab:coredns"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "loom-lab:coredns"},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "loom-lab:coredns"}],
            },
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {
                    "name": "loom-lab-local",
                    "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
                },
                "provisioner": "kubernetes.io/no-provisioner",
                "volumeBindingMode": "WaitForFirstConsumer",
                "reclaimPolicy": "Delete",
            },
        ]
        + metrics_server_objects()
        + kube_router_objects()
    )
    for i in range(1, 17):  # a results volume per workload's Job, spares; 13-16 the database's data
        path = volumes / f"pv{i}"
        path.mkdir(parents=True, exist_ok=True)
        # ReadWriteMany too: every pod of this one node may write it (the indexed Job's runners do);
        # the database's claim asks one pod alone (a mode the API offers with no other).
        modes = ["ReadWriteOncePod"] if i > 12 else ["ReadWriteOnce", "ReadWriteMany"]
        items.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": f"loom-lab-local-{i}"},
                "spec": {
                    "capacity": {"storage": "10Gi"},
                    "accessModes": modes,
                    "persistentVolumeReclaimPolicy": "Retain",
                    "storageClassName": "loom-lab-local",
                    "local": {"path": str(path)},
                    "nodeAffinity": {
                        "required": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "kubernetes.io/hostname", "operator": "In", "values": [s.NODE]}
                                    ]
                                }
                            ]
                        }
                    },
                },
            }
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}
