"""The cluster side of a run: manifests rendered with kustomize and applied, the schema migrated by
its Job (migration.py), rollouts awaited, the workload's Job of deploy/k8s/jobs made for one run on loadgen,
started, awaited and read back."""

from __future__ import annotations

import copy
import functools
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from loomlab import ROOT, LabError, proc
from loomlab.bench import api as bench
from loomlab.incluster.core import migration, target
from loomlab.incluster.core.jobs import job_id, set_env
from loomlab.kube import Kube
from loomlab.podstatus import pod_said


def render(directory: str, images: dict[str, str]) -> list[dict]:
    """A kustomization rendered as `kubectl kustomize` does, its images replaced by the pushed ones."""
    p = subprocess.run(["kubectl", "kustomize", str(ROOT / directory)], capture_output=True, text=True, check=True)
    return target.with_images([d for d in yaml.safe_load_all(p.stdout) if d], images)


def apply_local(
    kube: Kube, images: dict[str, str], names: list[str], beside: tuple[str, ...] = (), cpus: float | None = None
) -> tuple[list[dict], list[dict], dict[str, float]]:
    """deploy/k8s/local's database and the named variants' Deployments and Services applied (with
    the kustomizations `beside` it, for variants it leaves out), their schema migrated by their
    Jobs, with the results volume (the Jobs' own object), and rolled out: (the local documents, the
    Jobs' documents, each migration Job's seconds).
    `cpus`: the service's containers' CPU limit (0: none; None: the manifests'; target.with_cpu_limit)."""
    # Prometheus (components/monitoring) is the namespace's, installed with it (./lab k8s up, or
    # the admin: deploy/k8s/monitoring): a run writes to it and reads from it, never applies it.
    service_docs = [d for k in ("deploy/k8s/local", *beside) for d in render(k, images) if not monitoring(d)]
    if cpus is not None:
        service_docs = target.with_cpu_limit(service_docs, cpus)
    ours = {*names, "postgres"}
    kube.apply(
        [d for d in service_docs if d["kind"] not in ("Deployment", "Service", "Job") or d["metadata"]["name"] in ours]
    )
    variants = {variant(d) for d in service_docs if d["kind"] == "Deployment" and d["metadata"]["name"] in names}
    migrated = migration.migrate(kube, [d for d in migration.jobs(service_docs) if variant(d) in variants])
    for name, seconds in migrated.items():
        print(f"== {name}: the schema migrated in {seconds:.0f} s (the Job's start to its completion)", flush=True)
    job_docs = render("deploy/k8s/local/jobs", images)
    kube.apply([d for d in job_docs if d["kind"] != "Job"])
    wait_rollouts(kube, ["statefulset/postgres"] + [f"deployment/{n}" for n in names])
    return service_docs, job_docs, migrated


def variant(doc: dict) -> str:
    return str(doc["metadata"].get("labels", {}).get("app.kubernetes.io/variant", ""))


def monitoring(doc: dict) -> bool:
    return doc["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "monitoring"


@dataclass
class OneVariant:
    """What autoscale and failover start from: their report folder, the cluster, the pushed images,
    and one variant applied (apply_local) with its Jobs' documents and its container."""

    out: Path
    kube: Kube
    images: dict[str, str]
    name: str
    job_docs: list[dict]
    container: dict

    @classmethod
    def start(cls, args, name: str) -> OneVariant:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        kube = target.connect(args)
        images = target.pushed(args.registry)
        _, job_docs, container = one_variant(kube, images, name)
        return cls(out, kube, images, name, job_docs, container)


def one_variant(kube: Kube, images: dict[str, str], name: str) -> tuple[list[dict], list[dict], dict]:
    """apply_local for one variant: (the local documents, the Jobs' documents, its container)."""
    service_docs, job_docs, _ = apply_local(kube, images, [name])
    deployment = next(d for d in service_docs if d["kind"] == "Deployment" and d["metadata"]["name"] == name)
    return service_docs, job_docs, deployment["spec"]["template"]["spec"]["containers"][0]


def wait_rollouts(kube: Kube, names: list[str], timeout_s: int = 300):
    """Each kind/name rolled out (as `kubectl rollout status` waits), or the run fails."""
    for kind_name in names:
        kind, name = kind_name.split("/")
        if not proc.wait_until(functools.partial(kube.rolled_out, kind, name), timeout_s, 1):
            raise LabError(
                f"{kind_name} not rolled out within {timeout_s} s (kubectl -n {kube.ns} describe {kind_name})"
            )


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


# A runner's exits that leave it figures (bench.figures_from says whether its thresholds held).
OK_EXITS = (0, bench.THRESHOLDS_CROSSED)


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


def results_claim(job: dict) -> str:
    """The results volume's claim a Job mounts."""
    volumes = job["spec"]["template"]["spec"]["volumes"]
    return next(v["persistentVolumeClaim"]["claimName"] for v in volumes if v["name"] == "results")


def wait_job(kube: Kube, name: str, timeout_s: float) -> dict:
    """The Job's pod once its container has terminated (succeeded or not)."""

    def done():
        for p in kube.job_pods(name):
            statuses = p["status"].get("containerStatuses") or []
            if statuses and statuses[0]["state"].get("terminated"):
                return p
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


def policy_probe(kube: Kube, templates: dict) -> str:
    """Whether the NetworkPolicies are enforced, measured: a pod that postgres-from-service-only
    does not admit (a loadgen pod) opens a TCP connection to the database."""
    job = copy.deepcopy(next(iter(templates.values())))
    name = job_id("netpol-probe")
    job["metadata"]["name"] = name
    job["spec"]["activeDeadlineSeconds"] = 60
    container = job["spec"]["template"]["spec"]["containers"][0]
    container["command"] = [
        "bash",
        "-c",
        # bash's own complaint of a refused connection (stderr) is not the answer: only the last word is.
        "if timeout 5 bash -c 'exec 3<>/dev/tcp/postgres/5432' 2>/dev/null; then echo reached; else echo refused; fi",
    ]
    container["env"] = []
    kube.apply([job])
    pod = wait_job(kube, name, 90)
    log = pod_log(kube, pod, 10).strip()
    kube.delete_job(name)
    if log == "reached":
        return (
            "NetworkPolicies (deploy/k8s/base) are applied but not enforced, measured: a loadgen pod opened a TCP"
            " connection to postgres:5432, which postgres-from-service-only forbids. The cluster runs no policy"
            " engine (on the lab's cluster: the CNI bridge plugin has none)"
        )
    return f"NetworkPolicies enforced, measured: a loadgen pod's connection to postgres:5432 was {log or 'not made'}"
