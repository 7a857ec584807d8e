"""The lab's own cluster as the harness meets it: the kubeconfig `./lab k8s up` writes, where the
image archives and their pushes are recorded, and the names the lab's images have in its registry
(the manifests name them so, scripts/k8s/images.sh builds them so). The cluster's machinery
(labmachine.cluster) builds to these; the harness reads them and imports nothing of the machinery.
Standard library only."""

from __future__ import annotations

import os
from pathlib import Path

from loomlab import CACHE

K8S_HOME = Path(os.environ.get("LOOMLAB_K8S_HOME", CACHE / "k8s"))
RUN = K8S_HOME / "run"  # everything of one cluster's life: wiped by `./lab k8s down`
KUBECONFIG = RUN / "admin.kubeconfig"
# The node's image store: it lives and dies with the cluster (a cluster is up where it exists).
CONTAINERD_ROOT = RUN / "containerd" / "root"
IMAGES = CACHE / "images"  # image archives built by scripts/k8s/images.sh, and the registries each went to
# The registry the manifests (deploy/k8s) name every image of the lab in: the lab's own at its default
# port, fully qualified so that no name falls back to docker.io (scripts/k8s/images.sh says the same).
NAMED_REGISTRY = "127.0.0.1:5000"
# The lab's images as the manifests name them (`./lab k8s images --push` maps these to a registry's).
LAB_IMAGES = f"{NAMED_REGISTRY}/loom-lab"
# The runs' image (scripts/k8s/images.sh loadgen): the lab's engine and Python package on Debian.
LOADGEN_IMAGE = f"{LAB_IMAGES}/loadgen:0.1.0"
