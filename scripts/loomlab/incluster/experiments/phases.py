"""The phases of an autoscaled run: the stretches between two changes of the number of Ready pods
(and the load's end), each with the load's figures from every request loadgen wrote (answers per
second, 503 share, p99) and its pods' (CPU, threads, RSS, queue, longest wait for a thread) from
Prometheus: what each step of the autoscaler changed, before and after."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.incluster.core.promql import Prometheus, pods_window
from loomlab.table import Table, fmt

# A phase shorter than this has too few samples to give a rate or a p99 (Prometheus scrapes every 5 s).
SHORTEST_S = 10.0


def bounds(looks: list[dict], started: float, ended: float) -> list[tuple[float, float, int, bool]]:
    """(start, end, Ready pods, under load) of each phase: a new phase where the Ready pods change,
    and one where the load ends; a phase shorter than SHORTEST_S takes the state that ends it."""
    cuts: list[tuple[float, int, bool]] = []
    for lk in looks:
        state = (sum(p["ready"] for p in lk["pods"]), lk["at"] < ended)
        if not cuts:
            cuts.append((started, *state))
        elif state != cuts[-1][1:]:
            if lk["at"] - cuts[-1][0] < SHORTEST_S:
                cuts[-1] = (cuts[-1][0], *state)
                if len(cuts) > 1 and cuts[-2][1:] == state:
                    cuts.pop()  # the short phase was a blip: the one before goes on
            else:
                cuts.append((lk["at"], *state))
    stop = looks[-1]["at"] if looks else ended
    ends = [c[0] for c in cuts[1:]] + [stop]
    # The last look may be where the load ended: a phase of no length says nothing.
    return [(a, b, n, loaded) for (a, n, loaded), b in zip(cuts, ends, strict=True) if b - a >= 1]


def window(requests: list[tuple[float, float, int]], start: float, end: float) -> dict:
    """The requests sent in [start, end): answers per second, the share answered 503, and the p99
    latency (ms, nearest rank over every one of them)."""
    sent = [(ms, status) for at, ms, status in requests if start <= at < end]
    if not sent:
        return {"rate": 0.0, "shed_pct": math.nan, "p99_ms": math.nan}
    return {
        "rate": len(sent) / max(end - start, 1e-9),
        "shed_pct": 100 * sum(status == 503 for _, status in sent) / len(sent),
        "p99_ms": stats.nearest_rank([ms for ms, _ in sent], 99),
    }


def of(
    prom: Prometheus,
    looks: list[dict],
    requests: list[tuple[float, float, int]],
    variant: str,
    started: float,
    ended: float,
) -> list[dict]:
    out = []
    for a, b, ready, loaded in bounds(looks, started, ended):
        row = {"from_s": a - started, "to_s": b - started, "ready": ready, "loaded": loaded}
        row |= pods_window(prom, f'variant="{variant}"', a, b)
        if loaded:
            row |= window(requests, a, min(b, ended))
        out.append(row)
    return out


def table(rows: list[dict]) -> Table:
    t = Table(
        [
            "phase s",
            "pods Ready",
            "load",
            "answers/s",
            "503 %",
            "p99 ms",
            "CPU cores (all pods)",
            "threads (max of a pod)",
            "RSS MiB (max of a pod)",
            "queued (max)",
            "longest thread wait ms",
        ]
    )
    for r in rows:
        t.add(
            f"{r['from_s']:.0f}-{r['to_s']:.0f}",
            str(r["ready"]),
            "on" if r["loaded"] else "off",
            fmt(r.get("rate", float("nan")), 0),
            fmt(r.get("shed_pct", float("nan")), 1),
            fmt(r.get("p99_ms", float("nan")), 0),
            fmt(r["cpu_cores"], 2),
            fmt(r["threads_max"], 0),
            fmt(r["rss_mib_max"], 0),
            fmt(r["queued_max"], 0),
            fmt(r["thread_wait_ms_max"], 0),
        )
    return t
