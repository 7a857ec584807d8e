"""What a cluster command measures, set up: deploy/k8s/local's database and the variants' Deployments
and Services rendered with kustomize (the pushed images, the CPU limit asked for) and applied, the
schema migrated by each variant's Job, the rollouts awaited, the Jobs' own objects applied and their
templates made, and whether the NetworkPolicies hold, measured."""

from __future__ import annotations

import copy
import functools
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from loomlab import ROOT, LabError, proc
from loomlab.bench import api as bench
from loomlab.incluster.core import jobs, jobwaits, lanes, target
from loomlab.incluster.core.plan import ClusterPlan
from loomlab.kube import Kube


@dataclass(frozen=True)
class Services:
    """The applied services (`docs`), the workloads' Job templates, and what the report says of the
    set-up: the schema's migration and the policy probe."""

    docs: list[dict]
    templates: dict
    setup: list[str]

    @classmethod
    def up(cls, kube: Kube, plan: ClusterPlan, images: dict[str, str], cpus: float | None) -> Services:
        """The plan's variants' services up on the pushed images (target.pushed; `cpus`: their
        containers' CPU limit, with_cpu_limit; None: the manifests'); interleaved, each variant's
        shared Deployment scaled to 0: every mode gets pods of its own."""
        print(
            f"== applying {' '.join(('deploy/k8s/local', *plan.beside))} (db, {', '.join(plan.variants)}) and the"
            " Jobs' objects",
            flush=True,
        )
        docs, job_docs, migrated = apply_local(kube, images, plan.names, plan.beside, cpus)
        templates = jobs.job_templates(job_docs, images)
        policies = policy_probe(kube, templates)
        print(f"== {policies}", flush=True)
        if plan.settings.interleave:
            for name in plan.names:
                kube.scale_deployment(name, 0)
        migration = (
            "schema migrated before the service's pods were Ready, by a Job each (Flyway off in the service): "
            + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in migrated.items())
        )
        return cls(docs, templates, [migration, policies])


def policy_probe(kube: Kube, templates: dict) -> str:
    """Whether the NetworkPolicies are enforced, measured: a pod that postgres-from-service-only
    does not admit (a loadgen pod) opens a TCP connection to the database."""
    job = copy.deepcopy(next(iter(templates.values())))
    name = jobs.job_id("netpol-probe")
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
    pod = jobwaits.wait_job(kube, name, 90)
    log = jobwaits.pod_log(kube, pod, 10).strip()
    kube.delete("batch/v1", "Job", name)
    if log == "reached":
        return (
            "NetworkPolicies (deploy/k8s/base) are applied but not enforced, measured: a loadgen pod opened a TCP"
            " connection to postgres:5432, which postgres-from-service-only forbids. The cluster runs no policy"
            " engine (on the lab's cluster: the CNI bridge plugin has none)"
        )
    return f"NetworkPolicies enforced, measured: a loadgen pod's connection to postgres:5432 was {log or 'not made'}"


def render(directory: str, images: dict[str, str]) -> list[dict]:
    """A kustomization rendered as `kubectl kustomize` does, its images replaced by the pushed ones."""
    p = subprocess.run(["kubectl", "kustomize", str(ROOT / directory)], capture_output=True, text=True, check=True)
    return with_images([d for d in yaml.safe_load_all(p.stdout) if d], images)


def apply_local(
    kube: Kube, images: dict[str, str], names: list[str], beside: tuple[str, ...] = (), cpus: float | None = None
) -> tuple[list[dict], list[dict], dict[str, float]]:
    """deploy/k8s/local's database and the named variants' Deployments and Services applied (with
    the kustomizations `beside` it, for variants it leaves out), their schema migrated by their
    Jobs, with the results volume (the Jobs' own object), and rolled out: (the local documents, the
    Jobs' documents, each migration Job's seconds)."""
    # Prometheus (components/monitoring) is the namespace's, installed with it (./lab k8s up, or
    # the admin: deploy/k8s/monitoring): a run writes to it and reads from it, never applies it.
    service_docs = [d for k in ("deploy/k8s/local", *beside) for d in render(k, images) if not monitoring(d)]
    if cpus is not None:
        service_docs = with_cpu_limit(service_docs, cpus)
    ours = {*names, "postgres"}
    kube.apply(
        [d for d in service_docs if d["kind"] not in ("Deployment", "Service", "Job") or d["metadata"]["name"] in ours]
    )
    variants = {variant(d) for d in service_docs if d["kind"] == "Deployment" and d["metadata"]["name"] in names}
    migrated = migrate(kube, [d for d in migration_jobs(service_docs) if variant(d) in variants])
    for name, seconds in migrated.items():
        print(f"== {name}: the schema migrated in {seconds:.0f} s (the Job's start to its completion)", flush=True)
    job_docs = render("deploy/k8s/local/jobs", images)
    kube.apply([d for d in job_docs if d["kind"] != "Job"])
    wait_rollouts(kube, ["statefulset/postgres"] + [f"deployment/{n}" for n in names])
    return service_docs, job_docs, migrated


def variant(doc: dict) -> str:
    return str(doc["metadata"].get("labels", {}).get("app.kubernetes.io/variant", ""))


def component(doc: dict) -> str:
    return str(doc["metadata"].get("labels", {}).get("app.kubernetes.io/component", ""))


def monitoring(doc: dict) -> bool:
    return component(doc) == "monitoring"


@dataclass
class OneVariant:
    """What autoscale, failover and netpol --cost start from: their report folder, the cluster, the
    pushed images, one variant applied (apply_local) with its Jobs' templates and its container, and
    the sleep suite (its server configuration: the A3 seed's worker pool). Each makes its own
    ClusterService: their modes, tags and pod counts differ."""

    out: Path
    kube: Kube
    images: dict[str, str]
    name: str
    templates: dict
    container: dict
    suite: bench.Suite

    @classmethod
    def start(cls, args, name: str) -> OneVariant:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        kube = target.connect(args)
        images = target.pushed(args.registry)
        service_docs, job_docs, _ = apply_local(kube, images, [name])
        deployment = next(d for d in service_docs if d["kind"] == "Deployment" and d["metadata"]["name"] == name)
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        suite = bench.sleep.suites(bench.Scale())[0]
        return cls(out, kube, images, name, jobs.job_templates(job_docs, images), container, suite)


def wait_rollouts(kube: Kube, names: list[str], timeout_s: int = 300):
    """Each kind/name rolled out (as `kubectl rollout status` waits), or the run fails."""
    for kind_name in names:
        kind, name = kind_name.split("/")
        if not proc.wait_until(functools.partial(kube.rolled_out, kind, name), timeout_s, 1):
            raise LabError(
                f"{kind_name} not rolled out within {timeout_s} s (kubectl -n {kube.ns} describe {kind_name})"
            )


def with_images(docs: list[dict], images: dict[str, str]) -> list[dict]:
    """The manifests with every container image that was pushed replaced by its pushed digest."""
    docs = copy.deepcopy(docs)
    for d in docs:
        pod = d.get("spec", {}).get("template", {}).get("spec") or {}
        for c in pod.get("containers", []) + pod.get("initContainers", []):
            if c.get("image") in images:
                c["image"] = images[c["image"]]
    return docs


def with_cpu_limit(docs: list[dict], cpus: float) -> list[dict]:
    """The Deployments' containers with `cpus` as their CPU limit (0: none, so no CFS quota: what the
    quota costs each mode in the cluster, docs/results/2026-11-27-cluster-share.md: nothing the runs
    could tell; the pod's cgroup itself costs virtual threads kernel time)."""
    out = copy.deepcopy(docs)
    for d in out:
        if d["kind"] == "Deployment":
            for c in d["spec"]["template"]["spec"]["containers"]:
                lanes.limit_cpu(c.setdefault("resources", {}), cpus)
    return out


def migration_jobs(docs: list[dict]) -> list[dict]:
    """The schema's migration Jobs among rendered documents (deploy/k8s/app/migration-job.yaml)."""
    return [d for d in docs if d["kind"] == "Job" and component(d) == "migration"]


def migrate(kube: Kube, migrations: list[dict], timeout_s: float = 600) -> dict[str, float]:
    """Each migration Job (deploy/k8s/app/migration-job.yaml) run afresh (a finished one deleted first:
    a Job's pod template cannot change and a new image is a new template), its pods starting beside
    the service's, which stay unready until it is done: name -> seconds from the Job's start to its
    completion, as its status says."""
    names = [j["metadata"]["name"] for j in migrations]
    for name in names:
        kube.delete("batch/v1", "Job", name)
    for name in names:
        if not proc.wait_until(functools.partial(job_gone, kube, name), 60, 0.5):
            raise LabError(f"Job {name}: still there a minute after its deletion")
    kube.apply(migrations)
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
