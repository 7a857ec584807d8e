"""The lab's own helper pods (a results reader, the policy probes) as Pod Security 'restricted'
admits them: non-root, no privilege escalation, every capability dropped, the runtime's seccomp
profile, a read-only root, small requests."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import yaml
from kubernetes.utils import parse_quantity

# What a helper pod runs while the lab works through pods/exec: nothing, for at most ten minutes,
# leaving at once when deleted (PID 1 ignores a TERM it has no handler for).
IDLE = ["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]

# A container's disk beyond its scratch volumes: its logs (the kubelet keeps 5 x 10 MiB by default).
# Every pod of the lab states a limit of its scratch volumes' bounds plus this, so that the pod's
# own limit never evicts it before a volume's bound is reached.
LOGS_DISK = "128Mi"

# The pod itself, all but what each call fills in; a package file, so the installed harness has it.
TEMPLATE = resources.files("loomlab") / "templates" / "restricted-pod.yaml"


def restricted_pod(
    name: str, labels: dict, image: str, command: list[str], volumes: Sequence[dict] = (), mounts: Sequence[dict] = ()
) -> dict:
    """A pod that runs `command` once (restartPolicy Never), for at most ten minutes: the fixed part
    read afresh from its template at each call, since callers add to the pod they get."""
    pod = yaml.safe_load(TEMPLATE.read_text())
    pod["metadata"]["name"] = name
    pod["metadata"]["labels"].update(labels)
    container = pod["spec"]["containers"][0]
    container.update(image=image, command=command, volumeMounts=list(mounts))
    container["resources"]["limits"]["ephemeral-storage"] = LOGS_DISK
    pod["spec"]["volumes"] = list(volumes)
    return pod


def bound_disk(pod_spec: dict) -> None:
    """The first container's disk limit: the pod's scratch volumes' bounds plus its logs."""
    scratch = sum(parse_quantity(v["emptyDir"]["sizeLimit"]) for v in pod_spec["volumes"] if "emptyDir" in v)
    mib = (scratch + parse_quantity(LOGS_DISK)) / 2**20
    limits = pod_spec["containers"][0].setdefault("resources", {}).setdefault("limits", {})
    limits["ephemeral-storage"] = f"{mib:.0f}Mi"
