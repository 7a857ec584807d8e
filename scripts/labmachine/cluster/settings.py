"""Every knob of the lab's cluster (an environment variable with a default), the paths of one
cluster's life, and the small helpers every step uses: say, fail, sh, Step."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
import time

from loomlab import CACHE, ROOT  # noqa: F401 - re-exported: every path of the cluster starts from them

# What the harness knows of the cluster too, said there (re-exported).
from loomlab.labcluster import (  # noqa: F401
    CONTAINERD_ROOT,
    IMAGES,
    KUBECONFIG,
    LAB_IMAGES,
    LOADGEN_IMAGE,
    NAMED_REGISTRY,
    RUN,
)
from loomlab.labcluster import K8S_HOME as HOME

SOCK = RUN / "containerd" / "containerd.sock"
CTR = ["ctr", "--address", SOCK, "-n", "k8s.io"]  # the node's containerd, in the kubelet's namespace
LAST_LOGS = HOME / "last-logs"  # the components' logs of the cluster `down` last ended
# The node's image store (CONTAINERD_ROOT) lives and dies with the cluster: every `up` starts with the
# sandbox image alone, and each pod's image is pulled from the registry (which keeps what was pushed).
POD_CIDR = ipaddress.ip_network(os.environ.get("LOOMLAB_K8S_POD_CIDR", "10.244.0.0/24"))
SERVICE_CIDR = ipaddress.ip_network(os.environ.get("LOOMLAB_K8S_SERVICE_CIDR", "10.96.0.0/24"))
BRIDGE = os.environ.get("LOOMLAB_K8S_BRIDGE", "loomlab0")
NODE = os.environ.get("LOOMLAB_K8S_NODE", "loom-lab-node")
NODE_IP = str(next(POD_CIDR.hosts()))  # the bridge's own address: pods' gateway and the node
API_SERVICE_IP = str(next(SERVICE_CIDR.hosts()))
API_PORT = 6443
PAUSE_IMAGE = "docker.io/loom-lab/pause:1.0-local"
METRICS_PORT = 4443  # metrics-server, behind the API server's aggregation layer (metrics.k8s.io)
# The cluster's registry (distribution), on loopback only: `./lab k8s images --push` puts the images
# there and the node's containerd pulls them over plain HTTP (loopback, hosts.toml), as a cluster
# pulls from any registry. Its storage is kept across down/up, like containerd's.
REGISTRY_PORT = int(os.environ.get("LOOMLAB_K8S_REGISTRY_PORT", "5000"))
REGISTRY = f"127.0.0.1:{REGISTRY_PORT}"
REGISTRY_PREFIX = REGISTRY  # what `./lab k8s images --push` pushes to for the lab's cluster
REGISTRY_ROOT = HOME / "registry"
PORTS = [2379, 2380, API_PORT, METRICS_PORT, REGISTRY_PORT, 10248, 10249, 10250, 10256, 10257, 10259]
COMPONENTS = [
    "etcd",
    "kube-apiserver",
    "registry",
    "containerd",
    "kube-controller-manager",
    "kube-scheduler",
    "kubelet",
    "kube-proxy",
    "coredns",
    "metrics-server",
    "kube-router",
]


def say(msg: str):
    print(f"\033[1;34m[k8s]\033[0m {msg}", flush=True)


def fail(msg: str):
    print(f"\033[1;31m[k8s] error:\033[0m {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def sh(*cmd, check=True, input=None, timeout=120) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, input=input, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {(p.stderr or p.stdout).strip()}")
    return p


class Step:
    """Prints a step and how long it took."""

    timings: list[tuple[str, float]] = []

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        self.started = time.monotonic()
        print(f"\033[1;34m[k8s]\033[0m {self.what} ...", end="", flush=True)
        return self

    def __exit__(self, kind, *_):
        took = time.monotonic() - self.started
        Step.timings.append((self.what, took))
        print(f" {'done' if kind is None else 'FAILED'} ({took:.1f} s)", flush=True)
