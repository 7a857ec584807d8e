"""The lab's images in the cluster's containerd: the archives of scripts/k8s/images.sh imported
once each (a stamp per archive), since nothing here can be pulled from a registry."""

from __future__ import annotations

from .settings import HOME, IMAGES, SOCK, sh

CTR = ["ctr", "--address", SOCK, "-n", "k8s.io"]


def import_images():
    stamps = HOME / "imported"
    stamps.mkdir(parents=True, exist_ok=True)
    for archive in sorted(IMAGES.glob("*.tar")):
        if archive.stem == "debian":
            continue  # the base of the others, never run by itself
        stamp = stamps / (archive.name + ".stamp")
        signature = f"{archive.stat().st_size} {archive.stat().st_mtime_ns}"
        if stamp.exists() and stamp.read_text() == signature:
            continue
        sh(*CTR, "images", "import", archive, timeout=600)
        stamp.write_text(signature)
