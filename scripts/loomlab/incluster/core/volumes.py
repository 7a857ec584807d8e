"""A results volume read back on any cluster: a reader pod that mounts it (read-only unless its files
are to be removed, after the Job's pod let go of it, so a ReadWriteOnce volume may move to another
node), the files packed with tar and read through the API server (pods/exec), the pod deleted."""

from __future__ import annotations

import base64
import io
import tarfile
from pathlib import Path

from kubernetes.stream import stream

from loomlab import LabError, proc
from loomlab.incluster.core import pods, target
from loomlab.kube import Kube

READER_IMAGE = target.LOADGEN_IMAGE  # the runs' own image: it has tar, gzip and base64


def reader_pod(name: str, claim: str, image: str, writable: bool) -> dict:
    """A pod that only holds the volume (read-only unless its files are to be removed)."""
    return pods.restricted_pod(
        name,
        {"app.kubernetes.io/component": "results-reader"},
        image,
        pods.IDLE,
        volumes=[{"name": "results", "persistentVolumeClaim": {"claimName": claim, "readOnly": not writable}}],
        mounts=[{"name": "results", "mountPath": "/results", "readOnly": not writable}],
    )


def fetch(kube: Kube, claim: str, out: Path, image: str, folder: str = ".", remove: bool = False) -> list[str]:
    """The files of a results volume's folder, extracted under `out` (and removed from the volume
    with `remove`); their names."""
    name = f"{claim}-reader"[:63].rstrip("-")
    kube.delete("v1", "Pod", name)
    proc.wait_until(
        lambda: not any(p["metadata"]["name"] == name for p in kube.pods("app.kubernetes.io/component=results-reader")),
        60,
        0.5,
    )
    kube.apply([reader_pod(name, claim, image, remove)])
    try:
        if not proc.wait_until(lambda: kube.pod(name)["status"].get("phase") == "Running", 180, 0.5):
            raise LabError(f"the reader pod {name} did not start (kubectl -n {kube.ns} describe pod {name})")
        # base64: the exec stream carries text.
        packed = stream(
            kube.core.connect_get_namespaced_pod_exec,
            name,
            kube.ns,
            command=[
                "sh",
                "-c",
                f"tar czf - -C '/results/{folder}' . | base64 -w0"
                + (f" && rm -rf '/results/{folder}'" if remove else ""),
            ],
            stderr=False,
            stdin=False,
            stdout=True,
            tty=False,
            _preload_content=True,
        )
    finally:
        kube.delete("v1", "Pod", name)
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(packed)), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        tar.extractall(out, members=members, filter="data")
    return sorted(m.name.removeprefix("./") for m in members)
