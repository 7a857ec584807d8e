"""One look at an autoscaled variant during `./lab k8s autoscale`: what its autoscaler saw and
decided (experiments.autoscalers) beside what each pod saw (its CPU from the metrics API, its worker
pool from its /q/metrics), the timeline of every look as a table, and the run's answer."""

from __future__ import annotations

import contextlib
import math
import time
import urllib.parse

from loomlab import metrics, stats
from loomlab.incluster.experiments.autoscalers import Autoscaler, quantity
from loomlab.kube import Kube
from loomlab.podstatus import condition
from loomlab.table import Table, fmt


def pods_now(kube: Kube, variant: str) -> list[dict]:
    """Every running pod of the variant: its CPU (metrics API) and its worker pool (/q/metrics)."""
    selector = f"app.kubernetes.io/component=service,app.kubernetes.io/variant={variant}"
    pods = kube.pods(selector)
    usage = {}
    with contextlib.suppress(Exception):  # no figure yet for a new pod: shown as '-'
        path = kube.ns_path(f"pods?labelSelector={urllib.parse.quote(selector)}", "apis/metrics.k8s.io/v1beta1")
        for m in kube.json(path, 5)["items"]:
            usage[m["metadata"]["name"]] = sum(quantity(c["usage"]["cpu"]) for c in m["containers"])
    out = []
    for p in pods:
        name = p["metadata"]["name"]
        row = {"pod": name, "ready": condition(p, "Ready"), "cpu": usage.get(name, math.nan)}
        if p["status"].get("phase") == "Running":
            with contextlib.suppress(Exception):  # a pod going away between the list and the scrape
                s = metrics.scrape_sample(kube.pod_proxy(name, 8080, "/q/metrics").decode())
                row.update(busy=s["worker_active"], queued=s["worker_queued"], wait_max_s=s["thread_wait_max_s"])
        out.append(row)
    return out


def look(kube: Kube, scaler: Autoscaler, variant: str, t0: float) -> dict:
    pods = pods_now(kube, variant)
    return {"t": round(time.monotonic() - t0, 1), "at": time.time(), "hpa": scaler.status(kube), "pods": pods}


def timeline_table(looks: list[dict]) -> Table:
    t = Table(
        [
            "t s",
            "pods (ready)",
            "autoscaler: its figure per pod",
            "replicas -> desired",
            "pods' CPU (metrics API)",
            "worker threads busy",
            "queued for a thread",
            "longest thread wait ms",
        ]
    )
    for lk in looks:
        h, pods = lk["hpa"], lk["pods"]

        def each(key, digits=0, scale=1, pods=pods):
            return " / ".join(fmt(p.get(key, math.nan) * scale, digits) for p in pods)

        # '-': no status yet, or no figure to decide on.
        t.add(
            f"{lk['t']:.0f}",
            f"{len(pods)} ({sum(p['ready'] for p in pods)})",
            fmt(h.get("seen", math.nan), 2),
            f"{h.get('replicas') or '-'} -> {h.get('desired') or '-'}",
            each("cpu", 2),
            each("busy"),
            each("queued"),
            each("wait_max_s", 0, 1000),
        )
    return t


def verdict(looks: list[dict], scaler: Autoscaler) -> str:
    """When the autoscaler first asked for more pods and on what figure, and how many it ran; or
    why it never did."""
    if scaler.doc is None:
        return f"one pod throughout, {max((len(lk['pods']) for lk in looks), default=0)} at most"
    scaled = next((lk for lk in looks if (lk["hpa"].get("desired") or 1) > 1), None)
    target: dict = next((lk["hpa"]["target"] for lk in reversed(looks) if lk["hpa"]), {})
    goal = target.get("averageValue") or f"{target.get('averageUtilization')} % of the request"
    if scaled:
        return (
            f"the autoscaler asked for {scaled['hpa']['desired']} pods at t = {scaled['t']:.0f} s (its figure per pod"
            f" {fmt(scaled['hpa']['seen'], 2)} against its target {goal}) and ran"
            f" {max(lk['hpa'].get('replicas') or 0 for lk in looks)} at most"
        )
    peak = stats.nanmax(*(lk["hpa"].get("seen", math.nan) for lk in looks))
    queued = max(
        (p.get("queued", 0) for lk in looks for p in lk["pods"] if not math.isnan(p.get("queued", 0))), default=0
    )
    return (
        f"the autoscaler never scaled: its figure per pod peaked at {fmt(peak, 2)} against its target"
        f" {goal}, while up to {fmt(queued, 0)} requests queued for a worker thread"
    )
