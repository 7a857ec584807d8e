"""A run's Job in the cluster (made by jobs.py): split among runners, awaited (its pods' ends, what a
stuck one was doing) and read back (its log, its results volume)."""

from __future__ import annotations

from pathlib import Path

from loomlab import LabError, proc
from loomlab.bench import api as bench
from loomlab.incluster.core import volumes
from loomlab.incluster.core.jobs import OK_EXITS, set_env
from loomlab.kube import Kube
from loomlab.podstatus import pod_said


def distribute(job: dict, runners: int) -> dict:
    """The Job as `runners` runners: an Indexed Job whose pod i sends the i-th share of the load
    (jobrun.share), each starting once every one may (PAUSED: jobrun.wait_for_start, through files
    in a folder of the Job's own on the results volume, where they also write what the merge reads,
    loadgen's results). Nothing reaches into a runner: it has no port. No runner runs twice (a second
    start would write its ready file again, late)."""
    spec = job["spec"]
    spec.update(completionMode="Indexed", completions=runners, parallelism=runners, backoffLimit=0)
    if "activeDeadlineSeconds" in spec:  # the runners' wait for each other, then the run
        spec["activeDeadlineSeconds"] += bench.RUNNERS_SET_S
    container = spec["template"]["spec"]["containers"][0]
    set_env(container, SEGMENTS=str(runners), PAUSED="1", SAMPLES="1", RESULTS=f"/results/{job['metadata']['name']}")
    return job


def pod_index(pod: dict) -> int:
    return int(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"])


def terminated(pod: dict) -> dict | None:
    statuses = pod["status"].get("containerStatuses") or []
    return statuses[0]["state"].get("terminated") if statuses else None


def wait_runners_done(kube: Kube, name: str, runners: int, timeout_s: float) -> list[dict]:
    """The Job's runner pods, by index, once every runner's container has terminated; a runner that
    failed, or the Job (its deadline), fails the run at once (the others would wait until bench.RUNNERS_SET_S)."""

    def done():
        pods = {pod_index(p): p for p in kube.job_pods(name)}
        for i, p in pods.items():
            if (terminated(p) or {}).get("exitCode", 0) not in OK_EXITS:
                raise LabError(f"Job {name}: runner {i} failed: {pod_log(kube, p, 10)[-2000:]}")
        status = kube.job_status(name)
        failed = [c for c in (status and status.conditions) or [] if c.type == "Failed" and c.status == "True"]
        if failed:  # its deadline passed, say, with runners still waiting or not started
            raise LabError(f"Job {name} failed ({failed[0].reason}: {failed[0].message}); {stuck(kube, name)}")
        return (
            [pods[i] for i in range(runners)] if len(pods) == runners and all(map(terminated, pods.values())) else None
        )

    pods = proc.wait_until(done, timeout_s, 0.5)
    if not pods:
        where = stuck(kube, name)
        raise LabError(f"Job {name}: its runners did not finish within {timeout_s:.0f} s; where they stood:\n{where}")
    return pods


def fetch_results(kube: Kube, job: dict, into: Path) -> None:
    """What the Job's pods wrote to its folder of the results volume (the claim it mounts), copied
    into `into` through a reader pod (on any cluster) and removed from the volume."""
    pod = job["spec"]["template"]["spec"]
    claim = next(v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if v["name"] == "results")
    volumes.fetch(kube, claim, into, pod["containers"][0]["image"], folder=job["metadata"]["name"], remove=True)


def wait_job(kube: Kube, name: str, timeout_s: float) -> dict:
    """The Job's pod once its container has terminated (succeeded or not)."""

    def done():
        for p in kube.job_pods(name):
            if terminated(p):
                return p
            statuses = p["status"].get("containerStatuses") or []
            waiting = statuses[0]["state"].get("waiting", {}) if statuses else {}
            if waiting.get("reason") in (
                "ErrImagePull",
                "ImagePullBackOff",
                "CreateContainerConfigError",
                "InvalidImageName",
            ):
                raise LabError(f"Job {name}: {waiting['reason']}: {waiting.get('message', '')}")
        return None

    pod = proc.wait_until(done, timeout_s, 0.5)
    if not pod:
        raise LabError(f"Job {name} did not finish within {timeout_s:.0f} s; {stuck(kube, name)}")
    return pod


def stuck(kube: Kube, name: str) -> str:
    """What a Job's pods were doing when the wait gave up: where each stood, and its log's end."""

    def log_end(pod: dict) -> str:
        try:
            return pod_log(kube, pod, 10)[-1500:]
        except Exception as e:  # noqa: BLE001 - a container not started has no log: say so
            return f"(none: {str(e)[:200]})"

    try:
        pods = kube.job_pods(name)
    except Exception as e:  # noqa: BLE001 - the timeout is the message; what the pods did is extra
        return f"its pods not read ({str(e)[:200]})"
    return "\n".join(f"{pod_said(p)}; its log ends:\n{log_end(p)}" for p in pods) or "no pod"


def pod_log(kube: Kube, pod: dict, timeout: float = 30) -> str:
    return kube.pod_log(pod["metadata"]["name"], timeout)
