"""The namespace's Prometheus (components/monitoring), asked with PromQL through the API server's
service proxy (services/proxy: what a namespaced Role may do): instant queries at a time, and the
figures of a window [start, end] that the in-cluster reports read from it."""

from __future__ import annotations

import json
import math
import urllib.parse

from loomlab.kube import Kube

SERVICE, PORT = "prometheus", "9090"


class Prometheus:
    def __init__(self, kube: Kube):
        self.kube = kube

    def vector(self, expr: str, at: float | None = None) -> list[tuple[dict, float]]:
        """An instant query (at a Unix time, else now): each series' labels and value."""
        params = {"query": expr} | ({"time": f"{at:.3f}"} if at is not None else {})
        body = self.kube.service_proxy(SERVICE, PORT, "/api/v1/query?" + urllib.parse.urlencode(params))
        reply = json.loads(body)
        if reply.get("status") != "success":
            raise RuntimeError(f"Prometheus refused {expr!r}: {reply.get('error')}")
        return [(r["metric"], float(r["value"][1])) for r in reply["data"]["result"]]

    def scalar(self, expr: str, at: float | None = None) -> float:
        """The query's one value (the sum where it gave several series); NaN where it gave none."""
        found = self.vector(expr, at)
        return sum(v for _, v in found) if found else math.nan

    def targets(self, timeout: float = 10) -> list[dict]:
        body = self.kube.service_proxy(SERVICE, PORT, "/api/v1/targets?state=active", timeout)
        return json.loads(body)["data"]["activeTargets"]


def pods_window(prom: Prometheus, sel: str, start: float, end: float) -> dict:
    """The pods that `sel` selects (PromQL label matchers: 'variant="jvm"', 'pod=~"a|b"') over
    [start, end], from the service's own metrics as Prometheus scraped them: the most JVM threads
    and resident memory any one pod had, their CPU (cores, summed), the most requests queued for a
    worker thread and the longest wait for one (ms)."""
    w = f"{max(1, round(end - start))}s"  # a range selector's duration covering [start, end], at least 1 s

    def peak(metric: str, labels: str = "") -> float:
        return prom.scalar(f"max(max_over_time({metric}{{{sel}{labels}}}[{w}]))", end)

    return {
        "threads_max": peak("jvm_threads_live_threads"),
        "threads_total_max": prom.scalar(f"max_over_time(sum(jvm_threads_live_threads{{{sel}}})[{w}:5s])", end),
        "rss_mib_max": peak("process_resident_memory_bytes") / 2**20,
        "cpu_cores": prom.scalar(f"sum(rate(process_cpu_time_ns_total{{{sel}}}[{w}]))", end) / 1e9,
        "queued_max": peak("executor_queued_tasks", ',name="quarkus-worker"'),
        "thread_wait_ms_max": peak("loomlab_execution_wait_seconds_max", ',queue="thread"') * 1000,
    }


def pods_matcher(pods: list[str]) -> str:
    return 'pod=~"' + "|".join(pods) + '"'
