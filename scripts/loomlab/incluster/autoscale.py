"""`./lab k8s autoscale`: can a CPU autoscaler see a worker pool that is bound by its threads?

The JVM variant gets the HorizontalPodAutoscaler of deploy/k8s/overlays/jvm-autoscaled (1-4
pods, CPU from metrics-server) and the sleep suite's configuration (a worker pool of 50: a bound
of 500 req/s at 100 ms), then one k6 Job holds the worker mode at a multiple of that bound for a
few minutes. Every few seconds the run records what the autoscaler saw and decided (its CPU
figure against its target, current and desired replicas, its conditions) beside what the pods
saw (each pod's CPU from the metrics API, worker threads busy, requests queued for a thread, the
longest wait): when it scaled and why, or why not. Writes autoscale.md and autoscale.json.
"""

from __future__ import annotations

import json
import math
import time
import urllib.parse
from pathlib import Path

from loomlab import labreport as lr
from loomlab import metrics
from loomlab.bench import api as bench
from loomlab.kube import ApiException, Kube
from loomlab.kube import ready as kube_ready
from loomlab.render import render

from . import cli, deploy
from .measure import ClusterService
from .plan import VARIANTS

VARIANT = "jvm"


def hpa_status(kube: Kube, name: str) -> dict:
    hpa = kube.json(kube.ns_path(f"horizontalpodautoscalers/{name}", "apis/autoscaling/v2"), 5)
    status, target = hpa.get("status", {}), hpa["spec"]["metrics"][0]["resource"]["target"]
    current: dict = next(
        (m["resource"]["current"] for m in status.get("currentMetrics") or [] if m.get("resource")), {}
    )
    return {
        "replicas": status.get("currentReplicas"),
        "desired": status.get("desiredReplicas"),
        "cpu": cpu_cores(current.get("averageValue")),
        "utilisation_pct": current.get("averageUtilization"),
        "target": target,
        "conditions": {
            c["type"]: f"{c['status']} {c.get('reason', '')}: {c.get('message', '')}"
            for c in status.get("conditions", [])
        },
    }


def cpu_cores(quantity: str | None) -> float:
    """A CPU quantity ("250m", "1", "1500u", "12345n") in cores."""
    if not quantity:
        return math.nan
    units = {"n": 1e-9, "u": 1e-6, "m": 1e-3}
    return float(quantity[:-1]) * units[quantity[-1]] if quantity[-1] in units else float(quantity)


def pods_now(kube: Kube) -> list[dict]:
    """Every running pod of the variant: its CPU (metrics API) and its worker pool (/q/metrics)."""
    selector = f"app.kubernetes.io/component=service,app.kubernetes.io/variant={VARIANT}"
    pods = kube.pods(selector)
    usage = {}
    try:
        for m in kube.json(
            kube.ns_path(f"pods?labelSelector={urllib.parse.quote(selector)}", "apis/metrics.k8s.io/v1beta1"), 5
        )["items"]:
            usage[m["metadata"]["name"]] = sum(cpu_cores(c["usage"]["cpu"]) for c in m["containers"])
    except Exception:  # noqa: BLE001 - no figure yet for a new pod: shown as '-'
        pass
    out = []
    for p in pods:
        name = p["metadata"]["name"]
        row = {"pod": name, "ready": kube_ready(p), "cpu": usage.get(name, math.nan)}
        if p["status"].get("phase") == "Running":
            try:
                s = metrics.scrape_sample(kube.pod_proxy(name, 8080, "/q/metrics").decode())
                row.update(busy=s["worker_active"], queued=s["worker_queued"], wait_max_s=s["thread_wait_max_s"])
            except Exception:  # noqa: BLE001 - a pod going away between the list and the scrape
                pass
        out.append(row)
    return out


def look(kube: Kube, hpa: str, t0: float) -> dict:
    pods = pods_now(kube)
    return {"t": round(time.monotonic() - t0, 1), "hpa": hpa_status(kube, hpa), "pods": pods}


def timeline_table(looks: list[dict]) -> lr.Table:
    t = lr.Table(
        [
            "t s",
            "pods (ready)",
            "HPA: CPU per pod",
            "HPA: replicas -> desired",
            "pods' CPU (metrics API)",
            "worker threads busy",
            "queued for a thread",
            "longest thread wait ms",
        ]
    )
    for lk in looks:
        h, pods = lk["hpa"], lk["pods"]

        def each(key, digits=0, scale=1, pods=pods):
            return " / ".join(lr.fmt(p.get(key, math.nan) * scale, digits) for p in pods)

        # '-': no status yet, or no figure to decide on.
        t.add(
            f"{lk['t']:.0f}",
            f"{len(pods)} ({sum(p['ready'] for p in pods)})",
            lr.fmt(h["cpu"], 2),
            f"{h['replicas'] or '-'} -> {h['desired'] or '-'}",
            each("cpu", 2),
            each("busy"),
            each("queued"),
            each("wait_max_s", 0, 1000),
        )
    return t


def verdict(looks: list[dict]) -> str:
    scaled = next((lk for lk in looks if (lk["hpa"]["desired"] or 1) > 1), None)
    target = looks[-1]["hpa"]["target"] if looks else {}
    peak_cpu = max((lk["hpa"]["cpu"] for lk in looks if not math.isnan(lk["hpa"]["cpu"])), default=math.nan)
    peak_queue = max(
        (p.get("queued", 0) for lk in looks for p in lk["pods"] if not math.isnan(p.get("queued", 0))), default=0
    )
    goal = target.get("averageValue") or f"{target.get('averageUtilization')} % of the request"
    if scaled:
        return (
            f"the autoscaler asked for {scaled['hpa']['desired']} pods at t = {scaled['t']:.0f} s (CPU per pod"
            f" {lr.fmt(scaled['hpa']['cpu'], 2)} against its target {goal}) and ran"
            f" {max(lk['hpa']['replicas'] or 0 for lk in looks)} at most"
        )
    return (
        f"the autoscaler never scaled: CPU per pod peaked at {lr.fmt(peak_cpu, 2)} cores against its target"
        f" {goal}, while up to {lr.fmt(peak_queue, 0)} requests queued for a worker thread"
    )


def watch(kube: Kube, hpa: str, job: str, t0: float, period: float, deadline: float) -> list[dict]:
    """A look at the autoscaler and the pods every `period` s until the k6 Job ends (or the deadline)."""
    looks: list[dict] = []
    while time.monotonic() < deadline:
        looks.append(look(kube, hpa, t0))
        print("  " + timeline_table(looks[-1:]).text().splitlines()[-1], flush=True)
        pods = deploy.job_pods(kube, job)
        if pods and deploy.terminated(pods[0]):
            break
        time.sleep(period)
    return looks


def hpa_events(kube: Kube) -> list[str]:
    """The autoscalers' events in the namespace, one line each (when: reason: message)."""
    path = kube.ns_path("events?fieldSelector=involvedObject.kind%3DHorizontalPodAutoscaler")
    return [
        f"{e.get('lastTimestamp') or e.get('eventTime')}: {e['reason']}: {e['message']}"
        for e in kube.json(path, 5)["items"]
    ]


def delete_hpa(kube: Kube, name: str):
    try:
        kube.dynamic.resources.get(api_version="autoscaling/v2", kind="HorizontalPodAutoscaler").delete(
            name=name, namespace=kube.ns
        )
    except ApiException as e:
        if e.status != 404:
            raise


def main(argv):
    args = cli.autoscale(argv)
    run = deploy.OneVariant.start(args, VARIANTS[VARIANT][0])
    out, kube, name, container = run.out, run.kube, run.name, run.container
    overlay = deploy.render("deploy/k8s/overlays/jvm-autoscaled", run.images)
    hpa = next(d for d in overlay if d["kind"] == "HorizontalPodAutoscaler")
    suite = bench.sleep.suites(bench.Scale())[0]  # its server configuration: the worker pool of the A3 seed
    load = bench.sleep.open_sleep_load(args.fraction, lr.littles_bound(bench.sleep.WORKER_THREADS, 0.1), args.seconds)
    templates = deploy.job_templates(run.job_docs)
    service = ClusterService(kube, VARIANT, suite, "worker", "autoscale", container.get("env", []), templates, out, [])
    service.wait_ready()
    kube.apply([hpa])
    job_name = deploy.job_id("autoscale")
    t0 = time.monotonic()
    print(
        f"== {load.name}, worker mode, on {name} with {hpa['metadata']['name']} (1-4 pods, CPU); a look every"
        f" {args.period:.0f} s",
        flush=True,
    )
    try:
        kube.apply([deploy.make_job(service.jobs, load, job_name, service.url, "worker", "autoscale", False)])
        looks = watch(kube, hpa["metadata"]["name"], job_name, t0, args.period, t0 + load.timeout_s + 60)
        pod = deploy.wait_job(kube, job_name, 60)
        log = deploy.pod_log(kube, pod)
        events = hpa_events(kube)
    finally:
        kube.delete_job(job_name)
        delete_hpa(kube, hpa["metadata"]["name"])
    summary = deploy.summary_of(log)
    figures = bench.figures_of(load, json.loads(summary), [], 0, time.monotonic() - t0) if summary else {}
    report = {
        "load": load.name,
        "fraction": args.fraction,
        "seconds": args.seconds,
        "hpa": hpa["spec"],
        "figures": figures,
        "looks": looks,
        "verdict": verdict(looks),
        "events": events,
    }
    (out / "autoscale.json").write_text(json.dumps(report, indent=1, default=str))
    write_report(out, report, load, container["resources"])


def write_report(out: Path, report: dict, load: bench.Load, resources: dict):
    """autoscale.md: the setup, the answer, k6's figures, every look and the autoscaler's events."""
    threads = bench.sleep.WORKER_THREADS
    text = render(
        "autoscale.md.j2",
        r=report,
        f=report["figures"],
        date=time.strftime("%Y-%m-%d %H:%M %Z"),
        threads=threads,
        bound=lr.littles_bound(threads, 0.1),
        rate=load.rate,
        resources=resources,
        timeline=timeline_table(report["looks"]),
        fmt=lr.fmt,
    )
    (out / "autoscale.md").write_text(text)
    print("\n" + report["verdict"], flush=True)
    print(f"report: {out / 'autoscale.md'}", flush=True)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
