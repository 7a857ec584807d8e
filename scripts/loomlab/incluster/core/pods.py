"""The lab's own helper pods (a results reader, the policy probes) as Pod Security 'restricted'
admits them: non-root, no privilege escalation, every capability dropped, the runtime's seccomp
profile, a read-only root, small requests."""

from __future__ import annotations

from collections.abc import Sequence

from kubernetes.utils import parse_quantity

# What a helper pod runs while the lab works through pods/exec: nothing, for at most ten minutes,
# leaving at once when deleted (PID 1 ignores a TERM it has no handler for).
IDLE = ["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]

# A container's disk beyond its scratch volumes: its logs (the kubelet keeps 5 x 10 MiB by default).
# Every pod of the lab states a limit of its scratch volumes' bounds plus this, so that the pod's
# own limit never evicts it before a volume's bound is reached.
LOGS_DISK = "128Mi"


def restricted_pod(
    name: str, labels: dict, image: str, command: list[str], volumes: Sequence[dict] = (), mounts: Sequence[dict] = ()
) -> dict:
    """A pod that runs `command` once (restartPolicy Never), for at most ten minutes."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "loom-lab", **labels}},
        "spec": {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "activeDeadlineSeconds": 600,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 12345,
                "runAsGroup": 12345,
                "fsGroup": 12345,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": "main",
                    "image": image,
                    "command": command,
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                    "resources": {
                        "requests": {"cpu": "50m", "memory": "64Mi", "ephemeral-storage": "16Mi"},
                        "limits": {"cpu": "1", "memory": "256Mi", "ephemeral-storage": LOGS_DISK},
                    },
                    "volumeMounts": list(mounts),
                }
            ],
            "volumes": list(volumes),
        },
    }


def bound_disk(pod_spec: dict) -> None:
    """The first container's disk limit: the pod's scratch volumes' bounds plus its logs."""
    scratch = sum(parse_quantity(v["emptyDir"]["sizeLimit"]) for v in pod_spec["volumes"] if "emptyDir" in v)
    mib = (scratch + parse_quantity(LOGS_DISK)) / 2**20
    limits = pod_spec["containers"][0].setdefault("resources", {}).setdefault("limits", {})
    limits["ephemeral-storage"] = f"{mib:.0f}Mi"
