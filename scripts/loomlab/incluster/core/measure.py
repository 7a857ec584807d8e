"""A variant's Deployments as where the bench's lanes run (ClusterWhere, the bench's Where) and each
lane's service there (ClusterService, its ServiceUnderTest), so the bench's rounds (bench.measure)
drive them unchanged."""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from loomlab import LabError, metrics, proc, samples
from loomlab.bench import api as bench
from loomlab.incluster.core import lanes, nodecpu
from loomlab.incluster.core.jobs import FIRST, job_id, make_job, read_loadgen, split_loadgen, started_line
from loomlab.incluster.core.jobwaits import (
    distribute,
    fetch_results,
    pod_log,
    terminated,
    wait_job,
    wait_runners_done,
)
from loomlab.incluster.core.plan import VARIANTS
from loomlab.incluster.core.promql import Prometheus, pods_matcher, pods_window
from loomlab.kube import Kube
from loomlab.podstatus import condition, pod_said, running


def pod_requests(figures: dict, samples: list[dict]) -> dict:
    """The figures with each pod's requests during the run (by pod name: the Service's spread)."""
    scraped = [s["pod_requests"] for s in samples if "pod_requests" in s]
    if len(scraped) >= 2:
        figures["pod_requests"] = [scraped[-1][p] - scraped[0].get(p, 0.0) for p in sorted(scraped[-1])]
    return figures


@dataclass(frozen=True)
class ClusterWhere:
    """A variant's Deployment (of the applied `docs`) with `pods` replicas: each start sets a lane's
    configuration on it, or, interleaved, on a Deployment (and Service) of the lane's own."""

    kube: Kube
    docs: list[dict]  # the services' applied Deployments and Services
    jobs: dict  # the workloads' Job templates
    startups: list  # every start's record, appended
    interleave: bool
    variant: str
    environment: str
    pods: int = 1

    def start(self, suite: bench.Suite, lane: bench.Lane, tag: str, settings, out: Path, slot: int = 0):
        named = {d["kind"]: d for d in self.docs if d["metadata"]["name"] == VARIANTS[self.variant].name}
        env = named["Deployment"]["spec"]["template"]["spec"]["containers"][0].get("env", [])
        own = (named["Deployment"], named["Service"]) if self.interleave else None
        return ClusterService(
            self.kube, self.variant, suite, lane, tag, env, self.jobs, out, self.startups, self.pods, own
        )


class ClusterService:
    """Starting it sets the suite's configuration and the replicas on the variant's Deployment (or,
    with `own`, on a Deployment and Service of the mode's own: interleaved rounds) and rolls fresh
    pods (Recreate), whose start-up is measured; runs are loadgen Jobs through the Service; each scrape
    reads every pod's /q/metrics and adds them up (and keeps each pod's requests: its share)."""

    def __init__(
        self,
        kube: Kube,
        variant: str,
        suite: bench.Suite,
        mode: bench.Lane,
        tag: str,
        base_env: list[dict],
        jobs: dict,
        out: Path,
        startups: list,
        replicas: int = 1,
        own: tuple[dict, dict] | None = None,
    ):
        self.kube, self.variant, self.mode, self.out, self.jobs = kube, variant, mode, out, jobs
        self.replicas = replicas
        self.pods: list[str] = []
        self.uids: list[str] = []
        self._on_host: bool | None = None  # whether this host is the pods' node (nodecpu)
        self.name, self.environment = VARIANTS[variant].name, VARIANTS[variant].environment
        self.token = f"{tag}-{mode.key}-{time.time_ns()}"
        self.startup = {"variant": variant, "suite": tag, "mode": mode.key, "replicas": replicas}
        startups.append(self.startup)
        env = lanes.with_setting(base_env + [{"name": k, "value": v} for k, v in suite.server_env.items()], mode)
        if mode.setting and not own:
            raise LabError(f"{mode.key}: a knob column runs on a Deployment of its own (interleaved rounds)")
        self.own = lanes.own_copy(*own, mode) if own else None
        if self.own:
            dep, svc = self.own
            self.name = dep["metadata"]["name"]
            pod = dep["spec"]["template"]
            pod["spec"]["containers"][0]["env"] = env
            pod["metadata"].setdefault("annotations", {})["loom-lab.dev/run"] = self.token
            dep["spec"]["replicas"] = replicas
            kube.apply([dep, svc])
        else:
            patch: list[dict] = [
                {"op": "replace", "path": "/spec/template/spec/containers/0/env", "value": env},
                {"op": "replace", "path": "/spec/replicas", "value": replicas},
                {"op": "add", "path": "/spec/template/metadata/annotations/loom-lab.dev~1run", "value": self.token},
            ]
            kube.patch_deployment(self.name, patch)
        self.url = f"http://{self.name}:8080"  # as the Jobs' pods reach it (cluster DNS)

    def _pods(self) -> list[dict]:
        """This start's pods (the run token on their template), not yet terminating."""
        pods = self.kube.pods(f"app.kubernetes.io/component=service,app.kubernetes.io/variant={self.variant}")
        return [
            p
            for p in pods
            if p["metadata"].get("annotations", {}).get("loom-lab.dev/run") == self.token
            and not p["metadata"].get("deletionTimestamp")
        ]

    def _where(self) -> str:
        """Where this start's pods stood, for a message (the timeout stays the message if they
        cannot be read)."""
        try:
            return "; ".join(map(pod_said, self._pods())) or "no pod"
        except Exception as e:  # noqa: BLE001 - the timeout is the message; where the pods stood is extra
            return f"its pods not read ({str(e)[:200]})"

    def wait_ready(self, timeout_s: float = 180):
        """Until every new pod is Ready, then its first answer through the Service: the start-up from
        the first pod seen (polled every 0.1 s), phase by phase (see startup_phases)."""
        if not proc.wait_until(self._pods, timeout_s, 0.1):
            raise LabError(f"{self.name}: no new pod within {timeout_s} s")
        created, created_at = time.monotonic(), time.time()
        seen: dict[str, float] = {}

        def all_ready():
            pods = self._pods()
            if "running_s" not in seen and pods and all(map(running, pods)):
                seen["running_s"] = time.monotonic() - created
            return pods if len(pods) == self.replicas and all(condition(p, "Ready") for p in pods) else None

        pods = proc.wait_until(all_ready, timeout_s, 0.1)
        if not pods:
            raise LabError(
                f"{self.name}: not all of {self.replicas} pod(s) Ready within {timeout_s} s "
                f"(kubectl -n {self.kube.ns} describe pod -l app.kubernetes.io/variant={self.variant}): "
                f"{self._where()}"
            )
        self.startup["ready_s"] = time.monotonic() - created
        if not proc.wait_until(lambda: self.get(FIRST, 5), 30, 0.1):
            raise LabError(f"{self.name}: no answer to {FIRST} through the Service within 30 s of Ready")
        self.startup["answered_s"] = time.monotonic() - created
        self.pods = sorted(p["metadata"]["name"] for p in pods)
        self.uids = [p["metadata"]["uid"] for p in pods]
        pod = pods[0]
        # Where it ran and what it runs, as the node resolved the image (its digest).
        status = pod["status"]["containerStatuses"][0]
        self.startup.update(node=pod["spec"].get("nodeName"), image=status["image"], image_id=status.get("imageID"))
        self.startup["running_s"] = seen.get("running_s", math.nan)
        log = self.kube.pod_log(pod["metadata"]["name"], 10, timestamps=True)
        self.startup.update(started_line(log, created_at))
        self.startup["rss_ready_mb"] = self._rss()
        self.startup["health"] = json.loads(self.get("/q/health")).get("status")
        if not proc.wait_until(lambda: json.loads(self.get("/q/health/ready")).get("status") == "UP", 30):
            raise LabError(f"{self.name}: /q/health/ready not UP through the Service")

    def _rss(self) -> float:
        return self.sample()["rss_bytes"] / 1e6

    def sample(self) -> dict:
        """One scrape of every pod (through the API server's pod proxy): their figures added up
        (samples.combined_sample), and each pod's answered requests under "pod_requests"."""
        texts = {}
        for pod in self.pods:
            try:
                texts[pod] = self.kube.pod_proxy(pod, 8080, "/q/metrics").decode()
            except Exception as e:  # noqa: BLE001 - the Sampler skips a failed scrape (OSError)
                raise OSError(f"{pod}: {e}") from e
        sample = samples.combined_sample([metrics.scrape_sample(t) for t in texts.values()])
        sample["pod_requests"] = {pod: metrics.api_requests(t) for pod, t in texts.items()}
        return sample

    def info(self) -> dict:
        """/api/info of one pod, its pools marked with the pods there are (the bench reads them per pod)."""
        info = json.loads(self.get("/api/info"))
        info.setdefault("pools", {})["replicas"] = self.replicas
        return info

    def get(self, path: str, timeout: float = 10) -> str:
        try:
            return self.kube.service_proxy(self.name, "http", path, timeout).decode()
        except Exception as e:  # noqa: BLE001 - the Sampler skips a failed scrape (OSError)
            raise OSError(str(e)) from e

    def run(
        self,
        load: bench.Load,
        mode: bench.Lane,
        out: Path,
        label: str,
        settings: bench.RunSettings,
        warmup: bool = False,
    ) -> dict:
        """One run as a loadgen Job; with settings.runners > 1, as an Indexed Job of N runners, which
        start together once every one may (jobrun.wait_for_start), merged from the results each wrote:
        exact merged percentiles. Only an unsplit run reads the node's CPU, and skips Prometheus when
        it is a warm-up; a split run asks Prometheus always."""
        out.parent.mkdir(parents=True, exist_ok=True)
        job = make_job(self.jobs, load, job_id(out.stem), self.url, mode.key, label, warmup)
        name, split = job["metadata"]["name"], settings.runners > 1
        if split:
            distribute(job, settings.runners)
        wall, node = time.time(), None if split else self.node_reading()

        def generate() -> list[dict]:
            """The Job's pods once done (a split's runners, by index)."""
            self.kube.apply([job])
            if split:
                return wait_runners_done(self.kube, name, settings.runners, bench.RUNNERS_SET_S + load.timeout_s + 120)
            return [wait_job(self.kube, name, load.timeout_s + 120)]

        run = bench.sampled(self, settings.sample_period, out, generate)
        node_cpu = self.node_split(node)
        from_prometheus = {} if warmup and not split else self.from_prometheus(wall, time.time())
        logs = [pod_log(self.kube, pod) for pod in run.result]
        if split:
            # What the runners wrote, in a folder of this Job's own on the results volume: read back
            # (and removed) through a reader pod, on any cluster.
            files = out.parent / f"{out.stem}-files"
            fetch_results(self.kube, job, files)
            exits = [(terminated(pod) or {}).get("exitCode", -1) for pod in run.result]
            try:
                figures = split_loadgen(load, mode, warmup, out, label, files, logs, exits, run.samples, run.took)
            finally:
                shutil.rmtree(files, ignore_errors=True)
                self.kube.delete("batch/v1", "Job", name)
        else:
            self.kube.delete("batch/v1", "Job", name)
            figures = read_loadgen(load, out, logs[0], run.samples, run.took, name, label)
        return pod_requests(figures | from_prometheus | node_cpu, run.samples)

    def node_reading(self) -> nodecpu.Reading | None:
        """The node's CPU now, where this host is the pods' node (checked once); else None."""
        if self._on_host is None:
            self._on_host = nodecpu.on_this_host(self.uids)
        return nodecpu.Reading.now() if self._on_host else None

    def node_split(self, before: nodecpu.Reading | None) -> dict:
        """{"node_cpu_s": each group's CPU seconds since `before`, "node_kernel_s": of which the
        kernel's}, or nothing without a reading."""
        if before is None:
            return {}
        after, groups = nodecpu.Reading.now(), nodecpu.groups_of(self.kube)
        return {
            "node_cpu_s": nodecpu.split(before, after, groups),
            "node_kernel_s": nodecpu.split(before, after, groups, kernel=True),
        }

    def from_prometheus(self, start: float, end: float) -> dict:
        """The same pods' figures over the run, as the namespace's Prometheus has them (PromQL),
        beside the lab's own scrapes: the report shows both (report.prometheus_table). Nothing
        where there is no Prometheus (a namespace without components/monitoring)."""
        try:
            # The window holds the scrapes within the run (every 5 s): rates and peaks over them.
            return {"prometheus": pods_window(Prometheus(self.kube), pods_matcher(self.pods), start, end)}
        except Exception as e:  # noqa: BLE001 - the run stands on the lab's own scrapes
            print(f"  (Prometheus: no figures: {str(e)[:160]})", flush=True)
            return {}

    def stop(self):
        self.startup["rss_after_mb"] = self._rss()
        if self.own:
            self.kube.delete("apps/v1", "Deployment", self.name)
            self.kube.delete("v1", "Service", self.name)
