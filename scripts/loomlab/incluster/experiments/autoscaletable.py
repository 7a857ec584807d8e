"""The runs of `./lab k8s autoscale` side by side, one row each, from their autoscale-*.json:
`python -m loomlab.incluster.experiments.autoscaletable FILE...` prints the table the results page gives
(what each autoscaler did and when, what the load got, and what the pods cost)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from loomlab.table import Table, fmt

ON = {"cpu": "CPU autoscaler", "queue": "queue autoscaler (KEDA)", "none": "no autoscaler"}


def first(looks: list[dict], test) -> float:
    return next((lk["t"] for lk in looks if test(lk)), math.nan)


def row(r: dict) -> list[str]:
    looks, f = r["looks"], r["figures"]
    most = max(len(lk["pods"]) for lk in looks)
    asked = first(looks, lambda lk: (lk["hpa"].get("desired") or 1) > 1)
    all_ready = first(looks, lambda lk: most > 1 and sum(p["ready"] for p in lk["pods"]) == most)
    loaded = [p for p in r["phases"] if p["loaded"]]
    span = sum(p["to_s"] - p["from_s"] for p in loaded) or math.nan
    cpu = sum(p["cpu_cores"] * (p["to_s"] - p["from_s"]) for p in loaded) / span
    rss = max((p["ready"] * p["rss_mib_max"] for p in loaded), default=math.nan)
    threads = max((p["ready"] * p["threads_max"] for p in loaded), default=math.nan)
    ended = next((p["from_s"] for p in r["phases"] if not p["loaded"]), math.inf)
    down = first(looks, lambda lk: most > 1 and lk["t"] >= ended and len(lk["pods"]) == 1)
    return [
        f"{r['mode']}, {ON[r['on']]}, {r['load']} at {r.get('sleep_ms', 100)} ms"
        + (", the users keeping their connections" if r.get("keep_alive") else "")
        + (f", the {r['variant']} image" if r.get("variant", "jvm") != "jvm" else ""),
        str(most),
        fmt(asked, 0),
        fmt(all_ready, 0),
        fmt(f["throughput"], 0),
        fmt(f["error_rate"] * 100, 1),
        fmt(f["p99"], 0),
        fmt(cpu, 2),
        fmt(threads, 0),
        fmt(rss, 0),
        fmt(down, 0),
    ]


def table(reports: list[dict]) -> Table:
    t = Table(
        [
            "run",
            "pods (most)",
            "asked for more at t s",
            "all Ready at t s",
            "answers/s",
            "503 %",
            "p99 ms",
            "CPU cores under load",
            "threads (all pods, most)",
            "RSS MiB (all pods, most)",
            "back to 1 pod at t s",
        ]
    )
    for r in reports:
        t.add(*row(r))
    return t


if __name__ == "__main__":
    print(table([json.loads(Path(a).read_text()) for a in sys.argv[1:]]).markdown())
