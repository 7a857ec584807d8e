"""`./lab k8s monitoring`: is the namespace's Prometheus (components/monitoring) what the in-cluster
reports and the queue autoscaler read? It fails unless every pod of the namespace annotated
prometheus.io/scrape and Ready is among Prometheus' active targets and up, a loom-lab metric (the
service's threads, the worker queue) answers a PromQL query, and, with --job NAME, that k6 Job's
remote-written samples are queryable (its testid is the Job's name). Prints each query and answer.

The PromQL behind each figure the reports give is in docs/kubernetes.md (Prometheus in the cluster).
"""

from __future__ import annotations

import sys

from loomlab import command
from loomlab.incluster import cli
from loomlab.incluster.core import target
from loomlab.incluster.core.promql import Prometheus
from loomlab.podstatus import condition
from loomlab.table import Table, fmt

QUERIES = (
    ("the service's live JVM threads, per pod", 'jvm_threads_live_threads{app="loom-lab"}'),
    ("requests queued for a worker thread, per pod", 'executor_queued_tasks{app="loom-lab",name="quarkus-worker"}'),
)


def check(prom: Prometheus, scraped: list[str], job: str) -> tuple[Table, bool]:
    t = Table(["what", "PromQL or target", "answer", "ok"])
    up = {tg["labels"].get("pod"): tg["health"] for tg in prom.targets()}
    ok = True
    for pod in scraped:
        t.add("a target", pod, up.get(pod, "not a target"), "yes" if up.get(pod) == "up" else "NO")
        ok &= up.get(pod) == "up"
    queries = QUERIES + (
        (("k6's requests of the Job, by status", f'k6_http_reqs_total{{testid="{job}"}}'),) if job else ()
    )
    for what, expr in queries:
        found = prom.vector(expr)
        answer = ", ".join(f"{s.get('pod') or s.get('status', '')}: {fmt(v, 0)}" for s, v in found) or "nothing"
        t.add(what, f"`{expr}`", answer, "yes" if found else "NO")
        ok &= bool(found)
    return t, ok


def main(argv: list[str]):
    args = cli.monitoring(argv)
    kube = target.connect(args)
    pods = [
        p["metadata"]["name"]
        for p in kube.json(kube.ns_path("pods"), 10)["items"]
        if p["metadata"].get("annotations", {}).get("prometheus.io/scrape") == "true" and condition(p, "Ready")
    ]
    table, ok = check(Prometheus(kube), pods, args.job)
    print(table.text(), flush=True)
    if not ok:
        sys.exit(f"k8s monitoring: Prometheus in namespace {kube.ns} misses a target or a figure (rows marked NO)")
    print(f"k8s monitoring: Prometheus scrapes all {len(pods)} pods and answers every query", flush=True)


if __name__ == "__main__":
    command(main, sys.argv[1:])
