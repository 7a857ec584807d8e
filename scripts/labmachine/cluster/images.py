"""The pod sandbox image in the cluster's containerd, imported from its archive at every `up`
(containerd's sandbox_image is never pulled here; the store is new each time). Every other image
comes from the cluster's registry."""

from __future__ import annotations

from .settings import IMAGES, SOCK, sh

CTR = ["ctr", "--address", SOCK, "-n", "k8s.io"]


def import_sandbox():
    sh(*CTR, "images", "import", IMAGES / "pause.tar", timeout=600)
