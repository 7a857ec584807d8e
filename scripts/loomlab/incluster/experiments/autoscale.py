"""`./lab k8s autoscale --on cpu|queue|none`: which signal lets an autoscaler see a worker pool
bound by its threads, and what scaling it costs next to one virtual pod.

The JVM variant gets the sleep suite's configuration (a worker pool of 50: a bound of 500 req/s at
100 ms) and one autoscaler (experiments.autoscalers): the CPU HorizontalPodAutoscaler, KEDA on the
worker pool's demand from Prometheus, or none. One loadgen Job holds the mode (worker, or --mode
virtual) at a multiple of that bound, then the load stops and the run watches the scale-down (up to
--after s). Every few seconds it records what the autoscaler saw and decided beside what the pods
saw (CPU from the metrics API, worker threads busy, queued, the longest wait). Each phase between
two changes of the pod count then gets the load's figures from every request loadgen wrote
(answers, 503 share, p99) and its pods' from Prometheus (threads, RSS, CPU). Writes autoscale-<on>-<mode>.md and .json.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

from loomlab import LabError
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import jobs, jobwaits, services
from loomlab.incluster.core.measure import ClusterService
from loomlab.incluster.core.node import LabNode, on_lab_cluster
from loomlab.incluster.core.plan import VARIANTS
from loomlab.incluster.core.promql import Prometheus
from loomlab.incluster.experiments import autoscalers, phases
from loomlab.incluster.experiments.autoscalers import Autoscaler
from loomlab.incluster.experiments.looks import look, timeline_table, verdict
from loomlab.kube import ApiException, Kube
from loomlab.render import render
from loomlab.table import fmt


def watch(
    kube: Kube, scaler: Autoscaler, variant: str, job: str, t0: float, period: float, deadline: float, after: float
):
    """A look every `period` s while the load Job runs, then after it until the autoscaler is back at
    one pod (or `after` s have passed): (the looks, when the load ended)."""
    looks: list[dict] = []
    ended = None
    while time.monotonic() < deadline:
        looks.append(look(kube, scaler, variant, t0))
        print("  " + timeline_table(looks[-1:]).text().splitlines()[-1], flush=True)
        if ended is None:
            pods = kube.job_pods(job)
            if pods and jobwaits.terminated(pods[0]):
                ended = time.time()
                deadline = min(deadline, time.monotonic() + (after if scaler.doc else 0))
        elif len(looks[-1]["pods"]) <= 1 and (looks[-1]["hpa"].get("desired") or 1) <= 1:
            break
        time.sleep(period)
    return looks, ended


def load_job(service: ClusterService, load: bench.Load, name: str, mode: str, keep_alive: bool) -> dict:
    """The load's Job, every request written to the Job's folder of the results volume (the phases'
    figures). Without `keep_alive`, a new connection per request, as many distinct clients would open:
    kube-proxy spreads connections, not requests, so the users would otherwise stay on the pods they
    first reached and a new pod would get none of the load (docs/results/2026-11-25-queue-autoscaler.md)."""
    job = jobs.make_job(service.jobs, load, name, service.url, mode, "autoscale", False)
    container = job["spec"]["template"]["spec"]["containers"][0]
    jobs.set_env(container, SAMPLES="1", RESULTS=f"/results/{name}", NEW_CONNECTIONS=str(not keep_alive).lower())
    return job


def need_keda(kube: Kube, args, node: LabNode | None):
    """KEDA: installed once on the lab's own cluster (by its node); on any other, installed by its owner."""
    if lab := on_lab_cluster(node, args.kubeconfig):
        lab.install_keda()
        return
    try:
        kube.json("/apis/keda.sh/v1alpha1", 5)
    except ApiException as e:
        raise LabError(
            "--on queue needs KEDA in the cluster (its ScaledObject API is not served here): install KEDA's"
            " release (docs/kubernetes.md, the queue autoscaler)"
        ) from e


def autoscaler_for(kube: Kube, args, images: dict[str, str], node: LabNode | None) -> Autoscaler:
    """The run's autoscaler, none other left on the Deployment (KEDA first, for --on queue)."""
    if args.on == "queue":
        need_keda(kube, args, node)
    autoscalers.clear(kube, images, args.variant)
    return Autoscaler.render(args.on, images, kube.ns, args.variant)


def main(argv, node: LabNode | None = None):
    """One run from its setup to its report. Long because its cleanup (the Job, the autoscaler, back
    to one pod) must wrap every step between the load's start and its figures."""
    args = cli.autoscale(argv)
    # Stopped (SIGTERM, a timeout), the run still deletes its Job and autoscaler and sets one pod.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    run = services.OneVariant.start(args, VARIANTS[args.variant].name)
    out, kube, name, container = run.out, run.kube, run.name, run.container
    scaler = autoscaler_for(kube, args, run.images, node)
    bound = bench.littles_bound(bench.sleep.WORKER_THREADS, args.sleep_ms / 1000)
    own = bench.sleep.open_sleep_load(args.fraction, bound, args.seconds, args.sleep_ms)
    load = jobs.carried(own, run.suite)
    env = container.get("env", [])
    mode = bench.Lane(args.mode)  # the measured service's lane (the report keeps its name, args.mode)
    service = ClusterService(kube, args.variant, run.suite, mode, "autoscale", env, run.templates, out, [])
    service.wait_ready()
    scaler.apply(kube)
    job_name = jobs.job_id(f"autoscale-{args.on}")
    t0, started = time.monotonic(), time.time()
    print(f"== {own.name}, {args.mode} mode, on {name}; {scaler.describe()}; a look every {args.period:.0f} s")
    try:
        job = load_job(service, load, job_name, mode.key, args.keep_alive)
        kube.apply([job])
        deadline = t0 + load.timeout_s + 60 + args.after
        looks, ended = watch(kube, scaler, args.variant, job_name, t0, args.period, deadline, args.after)
        log = jobwaits.pod_log(kube, jobwaits.wait_job(kube, job_name, 60))
        events = scaler.events(kube, started)
        jobwaits.fetch_results(kube, job, out / "samples")
    finally:
        kube.delete("batch/v1", "Job", job_name)
        scaler.delete(kube)
        # An autoscaler removed leaves the replicas it set: the next run starts from one pod.
        kube.scale_deployment(name, 1)
    printed = bench.loadgen_run(log)
    took = time.monotonic() - t0
    figures = bench.figures_from(load, printed["figures"], [], printed["exit"], took) if printed else {}
    requests = bench.requests_of((out / "samples" / "run.samples.csv").read_text())
    prom = Prometheus(kube)
    report = {
        **{k: getattr(args, k) for k in ("on", "mode", "variant", "fraction", "seconds", "sleep_ms", "keep_alive")},
        "startup": service.startup,
        "load": own.name,
        "engine": "loadgen",
        "autoscaler": scaler.describe(),
        "figures": figures,
        "looks": looks,
        "phases": phases.of(prom, looks, requests, args.variant, started, ended or time.time()),
        "verdict": verdict(looks, scaler),
        "events": events,
    }
    (out / f"{stem(report)}.json").write_text(json.dumps(report, indent=1, default=str))
    write_report(out, report, load, container["resources"])


def stem(report: dict) -> str:
    """The report's file name: autoscale-<on>-<mode>, and -<variant> for another image than the JVM's."""
    variant = report.get("variant", "jvm")
    return f"autoscale-{report['on']}-{report['mode']}" + ("" if variant == "jvm" else f"-{variant}")


def write_report(out: Path, report: dict, load: bench.Load, resources: dict):
    """autoscale-<on>-<mode>.md: the setup, the answer, the generator's figures, the phases, every
    look and the autoscaler's events."""
    threads = bench.sleep.WORKER_THREADS
    text = render(
        "autoscale.md.j2",
        r=report,
        f=report["figures"],
        date=time.strftime("%Y-%m-%d %H:%M %Z"),
        threads=threads,
        bound=bench.littles_bound(threads, report["sleep_ms"] / 1000),
        rate=load.rate,
        resources=resources,
        timeline=timeline_table(report["looks"]),
        phases=phases.table(report["phases"]),
        fmt=fmt,
    )
    path = out / f"{stem(report)}.md"
    path.write_text(text)
    print("\n" + report["verdict"], flush=True)
    print(f"report: {path}", flush=True)
