"""The mixed workload's table across its sweep: per C, each mode's req/s, virtual threads against the
worker pool with the interval of the rounds, the worker pool's two Little's-law bounds, and where it
caught up, measured beside the crossover Little's law predicts (C* = N W / (T - N)); and the
tail-latency mix's table: the short requests' p99 per mode against the best one's."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.table import Table, fmt, fmt_spread

from ..planning.bounds import littles_bound
from ..planning.lane import MODE_COLUMNS, VIRTUAL, WORKER
from ..workloads.mixed import SHORT_P99, cores, crossover_ms
from . import verdict


def cpu_ms_of(section: dict) -> float:
    return float(section["env"].get("CPU_MS", "nan"))


def versus_worker(section: dict, mode: str) -> verdict.Pair | None:
    """`mode`'s req/s over the worker pool's, round by round, with its interval."""
    results = section["results"]
    if mode not in results or WORKER not in results:
        return None
    return verdict.compare(
        mode, WORKER, results[mode]["runs"], results[WORKER]["runs"], "throughput", True, verdict.TIE
    )


def caught_up(sections: list[dict]) -> float:
    """The least C from which the worker pool is no longer behind virtual threads (a tie or better
    on every larger C), or NaN where it never caught up in the sweep."""
    states = [(cpu_ms_of(s), versus_worker(s, VIRTUAL)) for s in sections]
    found = math.nan
    for c, pair in reversed(states):
        if pair is None or pair.state == "ahead":
            break
        found = c
    return found


def mixed_summary(sections: list[dict]) -> Table:
    """One row per C of the sweep (the suite's closed loads). Long because each row puts the
    predicted bounds, the measured rates and the ratio with its interval side by side."""
    sweep = [s for s in sections if s["workload"] == "mixed" and "CPU_MS" in s["env"] and "LONG_SHARE" not in s["env"]]
    modes = [m for m in MODE_COLUMNS if any(m in s["results"] for s in sweep)]
    t = Table(["C ms", *[f"{m} req/s" for m in modes], "virtual / worker", "state", "worker: T/(W+C)", "cores: N/C"])
    threads, n = math.nan, math.nan
    for s in sweep:
        pools = s.get("pools", {})
        threads = float(pools.get("worker.max-threads", math.nan))
        n = cores(pools)
        c, w = cpu_ms_of(s), float(s["env"].get("WAIT_MS", 100))
        rates = []
        for m in modes:
            runs = s["results"].get(m, {}).get("runs", [])
            rates.append(fmt_spread(stats.aggregate(runs)["throughput"], 0) if runs else "-")
        pair = versus_worker(s, VIRTUAL)
        ratio = pair.text() if pair else "cannot tell"
        t.add(
            f"{c:g}",
            *rates,
            ratio,
            pair.state if pair else "-",
            fmt(littles_bound(threads, (c + w) / 1000.0), 0),
            fmt(littles_bound(n, c / 1000.0), 0) if c > 0 else "-",
        )
    w = float(sweep[0]["env"].get("WAIT_MS", 100)) if sweep else math.nan
    predicted = crossover_ms(int(threads), n, w) if sweep and not math.isnan(threads + n) else math.nan
    measured = caught_up(sweep)
    t.note = (
        f"predicted crossover C* = N W / (T - N) = {fmt(predicted, 1)} ms (N = {fmt(n, 0)} cores, "
        f"T = {fmt(threads, 0)} threads, W = {fmt(w, 0)} ms); measured: "
        + (
            "the worker pool stayed behind over the whole sweep"
            if math.isnan(measured)
            else f"the worker pool is no longer behind from C = {measured:g} ms"
        )
    )
    return t


def tail_summary(sections: list[dict]) -> Table:
    """The short requests' p99 per mode (long CPU requests among them), each against the mode with
    the lowest, round by round with the interval; the carriers the virtual mode had beside it."""
    t = Table(["setup", "mode", "short p99 ms", "all p99 ms", "req/s", "vs best short p99", "carriers"])
    for s in sections:
        if "LONG_SHARE" not in s["env"]:
            continue
        runs = {m: r["runs"] for m, r in s["results"].items() if r["runs"]}
        aggs = {m: stats.aggregate(rs) for m, rs in runs.items()}
        med = {m: stats.median_of(agg, SHORT_P99) for m, agg in aggs.items()}
        best = min(med, key=lambda m: med[m] if not math.isnan(med[m]) else math.inf)
        for m, rs in runs.items():
            agg = aggs[m]
            pair = None if m == best else verdict.compare(best, m, runs[best], rs, SHORT_P99, False, verdict.TIE_P99)
            t.add(
                s.get("variant") or "-",
                m,
                fmt_spread(agg.get(SHORT_P99, stats.Spread.of([])), 0),
                fmt(agg["p99"].median, 0),
                fmt(agg["throughput"].median, 0),
                "best" if m == best else (pair.text() if pair else "cannot tell"),
                s.get("pools", {}).get("virtual.carriers", "-") if m == VIRTUAL else "-",
            )
    return t
