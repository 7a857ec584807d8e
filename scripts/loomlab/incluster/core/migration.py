"""The schema's migration in the cluster: each variant's migration Job (deploy/k8s/app/migration-job.yaml)
run afresh before its service's pods may turn Ready, and timed by its own status."""

from __future__ import annotations

import functools
import time

from loomlab import LabError, proc
from loomlab.kube import Kube


def jobs(docs: list[dict]) -> list[dict]:
    """The schema's migration Jobs among rendered documents (deploy/k8s/app/migration-job.yaml)."""
    return [
        d
        for d in docs
        if d["kind"] == "Job" and d["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "migration"
    ]


def migrate(kube: Kube, jobs: list[dict], timeout_s: float = 600) -> dict[str, float]:
    """Each migration Job run afresh (a finished one deleted first: a Job's pod template cannot change
    and a new image is a new template), its pods starting beside the service's, which stay unready
    until it is done: name -> seconds from the Job's start to its completion, as its status says."""
    names = [j["metadata"]["name"] for j in jobs]
    for name in names:
        kube.delete_job(name)
    for name in names:
        if not proc.wait_until(functools.partial(job_gone, kube, name), 60, 0.5):
            raise LabError(f"Job {name}: still there a minute after its deletion")
    kube.apply(jobs)
    seconds = {}
    deadline = time.monotonic() + timeout_s
    for name in names:
        status = proc.wait_until(functools.partial(job_finished, kube, name), max(deadline - time.monotonic(), 1), 1)
        if not status:
            raise LabError(
                f"Job {name}: the schema not migrated within {timeout_s:.0f} s (kubectl -n {kube.ns} logs job/{name})"
            )
        if not status.succeeded:
            pods = kube.job_pods(name)
            log = kube.pod_log(pods[-1]["metadata"]["name"], 10)[-2000:] if pods else ""
            raise LabError(f"Job {name}: the schema's migration failed: {log}")
        seconds[name] = (status.completion_time - status.start_time).total_seconds()
    return seconds


def job_gone(kube: Kube, name: str) -> bool:
    return kube.job_status(name) is None


def job_finished(kube: Kube, name: str):
    """A Job's status once it has completed or failed for good, else None."""
    status = kube.job_status(name)
    if status is None:
        return None
    conditions = {c.type for c in status.conditions or [] if c.status == "True"}
    return status if conditions & {"Complete", "Failed"} else None
