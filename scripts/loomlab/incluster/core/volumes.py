"""A results volume read back on any cluster: a reader pod that mounts it (read-only unless its files
are to be removed, after the Job's pod let go of it, so a ReadWriteOnce volume may move to another
node), whose one command packs the files with tar and prints them, base64, with their SHA-256, to
its log; the log read through the API server (pods/log: no exec into any pod), checked, the pod
deleted. A container's log is rotated at the kubelet's containerLogMaxSize (10 MiB by default):
a folder larger than that packed is refused by its checksum, not read in part."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
from pathlib import Path

from loomlab import LabError, proc
from loomlab.incluster.core import pods
from loomlab.kube import Kube
from loomlab.labcluster import LOADGEN_IMAGE

READER_IMAGE = LOADGEN_IMAGE  # the runs' own image: it has tar, gzip and base64


def pack_command(folder: str, remove: bool) -> list[str]:
    """Prints the folder packed (tar, gzip, base64) on one line, then `sha256 HEX` of that line's
    text; removes the folder after with `remove`."""
    packed = f"tar czf /tmp/packed.tgz -C '/results/{folder}' . && base64 -w0 /tmp/packed.tgz > /tmp/packed.b64"
    printed = "cat /tmp/packed.b64 && echo && echo \"sha256 $(sha256sum < /tmp/packed.b64 | cut -d' ' -f1)\""
    return ["sh", "-c", " && ".join([packed, printed] + ([f"rm -rf '/results/{folder}'"] if remove else []))]


def reader_pod(name: str, claim: str, image: str, folder: str, remove: bool) -> dict:
    """A pod that packs the volume's folder to its log and ends (read-only unless its files are to
    be removed)."""
    pod = pods.restricted_pod(
        name,
        {"app.kubernetes.io/component": "results-reader"},
        image,
        pack_command(folder, remove),
        volumes=[{"name": "results", "persistentVolumeClaim": {"claimName": claim, "readOnly": not remove}}],
        mounts=[{"name": "results", "mountPath": "/results", "readOnly": not remove}],
    )
    # /tmp for the packed copy (the root filesystem is read-only).
    pod["spec"]["volumes"].append({"name": "tmp", "emptyDir": {"sizeLimit": "256Mi"}})
    pod["spec"]["containers"][0]["volumeMounts"].append({"name": "tmp", "mountPath": "/tmp"})
    pods.bound_disk(pod["spec"])
    return pod


def unpacked(log: str) -> bytes:
    """The packed folder a reader printed, checked against the SHA-256 it printed after it."""
    lines = log.strip().splitlines()
    if len(lines) < 2 or not lines[-1].startswith("sha256 "):
        raise LabError("the reader pod's log does not end with its checksum (its output was cut?)")
    text, said = lines[-2].strip(), lines[-1].split()[1]
    if hashlib.sha256(text.encode()).hexdigest() != said:
        raise LabError("the reader pod's log does not match its checksum (a log rotated past the kubelet's size?)")
    return base64.b64decode(text)


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
    kube.apply([reader_pod(name, claim, image, folder, remove)])
    try:
        if not proc.wait_until(lambda: kube.pod(name)["status"].get("phase") in ("Succeeded", "Failed"), 180, 0.5):
            raise LabError(f"the reader pod {name} did not finish (kubectl -n {kube.ns} describe pod {name})")
        log = kube.pod_log(name, timeout=120)
        if kube.pod(name)["status"].get("phase") != "Succeeded":
            raise LabError(f"the reader pod {name} failed: {log[-500:]}")
        packed = unpacked(log)
    finally:
        kube.delete("v1", "Pod", name)
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        tar.extractall(out, members=members, filter="data")
    return sorted(m.name.removeprefix("./") for m in members)
