"""`./lab k8s run --profile scale`: how many worker pods make one virtual pod? (its runs: core/plan.py)

Sleep offered 1.5x and 3x one worker pod's thread bound (open model) and product ramped to 350
users (closed): the worker mode on 1, 2 and 4 pods, the virtual and reactive modes on one. Per
load, a table of every configuration's req/s, p99 and price (RSS, CPU per request and live
threads of all its pods together), and how many worker pods it took to reach the virtual pod:
req/s within 5 % and p99 within 20 % of it (the verdict's margins), or that 4 did not.
"""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.incluster.core.plan import WORKER_REPLICAS
from loomlab.table import Table, fmt

REACH_THROUGHPUT, REACH_P99 = 0.95, 1.2  # the verdict's margins: 5 % on req/s, 20 % on p99


def configuration(section: dict, mode: str) -> dict:
    """One configuration's medians: req/s, p99, errors, drops, and the price of all its pods."""
    runs_ = section["results"][mode]["runs"]
    agg = stats.aggregate(runs_)
    cpu_ms = stats.Spread.of([r.get("cpu_s", math.nan) * 1000 / r["requests"] for r in runs_ if r.get("requests")])
    return {
        "throughput": stats.median_of(agg, "throughput"),
        "p99": stats.median_of(agg, "p99"),
        "errors": stats.median_of(agg, "error_rate"),
        "dropped": stats.median_of(agg, "dropped"),
        "rss_mb": stats.median_of(agg, "peak_rss_bytes") / 1e6,
        "cpu_ms": cpu_ms.median,
        "threads": stats.median_of(agg, "peak_live_threads"),
    }


def reach(configs: dict[str, dict]) -> str:
    """How many worker pods matched the virtual pod, or that the most tried did not."""
    virtual = configs.get("virtual x 1")
    if not virtual:
        return ""
    for r in WORKER_REPLICAS:
        w = configs.get(f"worker x {r}")
        if w and w["throughput"] >= REACH_THROUGHPUT * virtual["throughput"] and w["p99"] <= REACH_P99 * virtual["p99"]:
            return (
                f"{r} worker pod{'s' if r > 1 else ''} matched one virtual pod (req/s {fmt(w['throughput'])} against"
                f" {fmt(virtual['throughput'])}, p99 {fmt(w['p99'])} against {fmt(virtual['p99'])} ms),"
                f" at {fmt(w['rss_mb'] / virtual['rss_mb'], 1)}x its RSS and"
                f" {fmt(w['threads'] / virtual['threads'], 1)}x its threads"
            )
    tried = [(r, configs[f"worker x {r}"]) for r in WORKER_REPLICAS if f"worker x {r}" in configs]
    if not tried:
        return ""
    # The closest: the most req/s, then the lowest p99.
    r, best = max(tried, key=lambda rc: (round(rc[1]["throughput"] / virtual["throughput"], 2), -rc[1]["p99"]))
    return (
        f"none of {', '.join(str(r_) for r_, _ in tried)} worker pods matched one virtual pod; the closest, {r}"
        f" pod{'s' if r > 1 else ''}: req/s {fmt(best['throughput'])} against {fmt(virtual['throughput'])},"
        f" p99 {fmt(best['p99'])} against {fmt(virtual['p99'])} ms"
    )


def tables(sections: list[dict]) -> list[str]:
    """The report's scale-out section: a table per load and the answer under it."""
    by_load: dict[tuple, dict[str, dict]] = {}
    for s in sections:
        pods = int(s["environment"].rsplit(", ", 1)[1].split()[0])
        for mode in s["results"]:
            by_load.setdefault((s["workload"], s["load"]), {})[f"{mode} x {pods}"] = configuration(s, mode)
    md = [
        "## Scale-out: how many worker pods make one virtual pod?",
        "",
        "The worker mode on 1, 2 and 4 pods, virtual and reactive on one, behind the same Service (medians of"
        " the rounds; RSS, CPU and threads are all the configuration's pods together). A worker configuration"
        f" matches the virtual pod when its req/s is within {100 - REACH_THROUGHPUT * 100:.0f} % and its p99"
        f" within {REACH_P99 * 100 - 100:.0f} % of it.",
        "",
    ]
    for (workload, load), configs in by_load.items():
        t = Table(
            [
                "configuration",
                "req/s",
                "p99 ms",
                "errors %",
                "dropped",
                "RSS MB (all pods)",
                "CPU ms/req",
                "live threads (all pods)",
            ]
        )
        for name, c in configs.items():
            t.add(
                name,
                fmt(c["throughput"]),
                fmt(c["p99"]),
                fmt(c["errors"] * 100, 2),
                fmt(c["dropped"], 0),
                fmt(c["rss_mb"], 0),
                fmt(c["cpu_ms"], 3),
                fmt(c["threads"], 0),
            )
        md += [f"### {workload}: {load}", "", t.markdown(), "", f"**{reach(configs)}**" if reach(configs) else "", ""]
        print(f"\nscale-out, {workload}: {load}\n{t.text()}\n{reach(configs)}", flush=True)
    return md
