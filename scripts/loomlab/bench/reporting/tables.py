"""The tables of one load, read from its figures (LoadFigures): its figures per mode (load_table),
the server side (server_table), the runners and the service's pods, the ratio line. Standard library
only: the k6 image's answer Job (jobanswer) prints the same tables."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.table import Table, fmt, fmt_spread

from ..measuring.figures import open_verdict
from ..planning.bounds import efficiency
from ..planning.lane import MODES, WORKER
from .loadfigures import LoadFigures

# A run's latency figures (ms) as the load table's columns name them, in order.
LATENCY = ("min", "p50", "p90", "p95", "p99", "max")


def load_table(f: LoadFigures) -> Table:
    """Long because the table has a column per figure of a load (req/s, bound, latency percentiles,
    errors, the load's own trends, the seed)."""
    load, expected = f.load, f.expected
    if load.extra:
        headers = ["mode", *(label for _, label, _ in load.extra), "seed elapsed ms", "requests", "errors %"]
        t = Table(headers)
        for m in f.modes.values():
            cells = [fmt_spread(m.agg.get(k, stats.Spread.of([])), 0) for k, _, _ in load.extra]
            t.add(
                m.key,
                *cells,
                fmt(m.seed.get("elapsed"), 0),
                fmt(m.get("requests"), 0),
                fmt(m.get("error_rate") * 100, 2),
            )
        return t

    extra = ["E[max] ms", "mean excess"] if expected else []
    verdict = ["verdict"] if load.rate is not None else []
    t = Table(
        [
            "mode",
            "requests",
            "req/s",
            "bound",
            "eff.",
            "mean ms",
            "sd",
            *LATENCY,
            "errors %",
            "dropped",
            *verdict,
            *extra,
            "last warm-up req/s",
            "seed req/s",
            "seed mean",
        ]
    )
    for m in f.modes.values():
        agg, bound, thr, seed = m.agg, f.bounds[m.key], m.agg["throughput"], m.seed
        t.add(
            m.key,
            fmt(agg["requests"].median, 0),
            fmt_spread(thr, 1),
            fmt(bound, 0),
            fmt(efficiency(thr.median, bound) * 100, 0, " %"),
            fmt_spread(agg["mean"]),
            fmt(agg["sd"].median),
            *(fmt(agg[k].median) for k in LATENCY),
            fmt(agg["error_rate"].median * 100, 2),
            fmt(agg["dropped"].median, 0),
            *(
                [open_verdict(load.rate, m.bound, m.get("dropped"), m.get("error_rate"))]
                if load.rate is not None
                else []
            ),
            *(
                [fmt(expected["mean"]), fmt((agg["mean"].median / expected["mean"] - 1) * 100, 1, " %")]
                if expected
                else []
            ),
            fmt(m.warmup.get("throughput"), 1),
            fmt(seed.get("throughput")),
            fmt(seed.get("mean"), 0),
        )
    return t


def server_table(f: LoadFigures, native: bool = False) -> Table:
    """Long because the table has a column per server-side figure. The load generator's CPU where the
    runs measured it (local runs: it shares the cores; k6's alone before 2026-11-28, then any engine's
    with its CPU per request), and the kernel's share of the server's CPU where /proc was read beside
    the scrapes (local runs since 2026-11-27)."""
    runs = [run for r in f.results.values() for run in r.get("runs", [])]
    gen = any("gen_cpu_s" in run for run in runs)
    k6 = not gen and any("k6_cpu_s" in run for run in runs)
    kernel = any(not math.isnan(run.get("kernel_ms_per_req", math.nan)) for run in runs)
    t = Table(
        [
            "mode",
            "CPU s",
            "CPU ms/req",
            *(["of which kernel"] if kernel else []),
            *(["k6 CPU s"] if k6 else []),
            *(["generator CPU s", "generator ms/req"] if gen else []),
            "peak in-flight",
            "peak threads",
            "peak RSS MB",
            "peak worker active",
            "peak worker queue",
            "thread wait max ms",
            "peak db awaiting",
            "db wait max ms",
            "body read max ms",
            "503s",
            "GC pauses",
            "pinned",
        ]
    )
    for m in f.modes.values():
        get = m.get
        cpu_per_req = stats.ratio(get("cpu_s") * 1000, get("requests"))
        # The reactive clients wait in their own bulkhead; threaded requests for a permit, then
        # Agroal (Agroal alone with the bulkhead off): each request's wait for a connection.
        rx = m.lane.reactive_clients
        awaiting = (
            get("peak_rx_db_awaiting") if rx else stats.nansum(get("peak_db_awaiting"), get("peak_bulkhead_waiting"))
        )
        max_wait_ms = 1000 * (get("peak_bulkhead_wait_max_s") if rx else get("peak_permit_wait_max_s"))
        t.add(
            m.key,
            fmt(get("cpu_s"), 2),
            fmt(cpu_per_req, 3),
            *([fmt(get("kernel_ms_per_req"), 3)] if kernel else []),
            *([fmt(get("k6_cpu_s"), 2)] if k6 else []),
            *([fmt(get("gen_cpu_s"), 2), fmt(stats.ratio(get("gen_cpu_s") * 1000, get("requests")), 3)] if gen else []),
            fmt(get("peak_in_flight"), 0),
            fmt(get("peak_live_threads"), 0),
            fmt(get("peak_rss_bytes") / 1e6, 0),
            fmt(get("peak_worker_active"), 0),
            fmt(get("peak_worker_queued"), 0),
            fmt(get("peak_thread_wait_max_s") * 1000, 0),
            fmt(awaiting, 0),
            fmt(max_wait_ms, 0),
            fmt(get("peak_body_read_max_s") * 1000, 0),
            fmt(get("loomlab_refused_503_count"), 0) if "loomlab_refused_503" in f.load.counters else "-",
            fmt(get("delta_gc_pauses"), 0),
            # micrometer-java21's virtual-thread meters are incomplete in native images.
            "n/a (native)" if native else fmt(get("delta_pinned"), 0),
        )
    return t


def runners_table(f: LoadFigures) -> Table | None:
    """Where a load ran on several runners: each mode's merged figures (medians over the rounds)
    beside each runner's own (its summary of its segment), and how far apart the runners started."""
    t = Table(["mode", "runner", "requests", "req/s", "p50", "p99", "max", "errors %", "dropped", "start skew ms"])

    def row(mode: str, runner: str, runs: list[dict], skew: str) -> None:
        agg = stats.aggregate(runs)
        figures = [fmt(agg["requests"].median, 0), fmt_spread(agg["throughput"], 1)]
        figures += [fmt(agg[k].median) for k in ("p50", "p99", "max")]
        t.add(mode, runner, *figures, fmt(agg["error_rate"].median * 100, 2), fmt(agg["dropped"].median, 0), skew)

    for m in f.modes.values():
        runs = [run for run in m.runs if run.get("runner_figures")]
        if not runs:
            continue
        runners = len(runs[0]["runner_figures"])
        row(
            m.key, f"merged ({runners})", runs, fmt_spread(stats.Spread.of([r["start_skew_s"] * 1000 for r in runs]), 0)
        )
        for i in range(runners):
            row(m.key, str(i), [run["runner_figures"][i] for run in runs], "")
    return t if t.rows else None


def replicas_table(f: LoadFigures) -> Table | None:
    """Where a mode ran on several pods: each pod's share of the requests (read from its own
    /q/metrics; medians over the rounds), the spread the Service gave the load."""
    t = Table(["mode", "pod", "requests", "share %"])
    for m in f.modes.values():
        runs = [run["pod_requests"] for run in m.runs if len(run.get("pod_requests", [])) > 1]
        if not runs:
            continue
        for i in range(len(runs[0])):
            share = stats.Spread.of([100 * r[i] / sum(r) for r in runs if sum(r)])
            t.add(m.key, str(i + 1), fmt(stats.Spread.of([r[i] for r in runs]).median, 0), fmt_spread(share, 1))
    return t if t.rows else None


def ratio_line(f: LoadFigures) -> str:
    """Each mode against the worker pool, the baseline of every comparison."""
    load = f.load
    others = [m.key for m in MODES if m.mode != WORKER and m.key in f.modes]
    if WORKER not in f.modes or not others or load.extra:
        return ""
    agg = {m: f.modes[m].agg for m in [WORKER, *others]}
    if load.rate is not None:
        # Every mode is offered the same rate: the difference is in latency and drops.
        w = agg[WORKER]
        parts = [
            f"worker/{m} mean latency {fmt(stats.ratio(w['mean'].median, agg[m]['mean'].median), 2)}x, "
            f"p99 {fmt(stats.ratio(w['p99'].median, agg[m]['p99'].median), 2)}x"
            for m in others
        ]
        dropped = ", ".join(f"{m} {fmt(agg[m]['dropped'].median, 0)}" for m in agg)
        return f"same arrivals in every mode: {'; '.join(parts)}; dropped {dropped}"
    worker_rate = agg[WORKER]["throughput"].median
    parts = []
    for m in others:
        sw, sm = load.seed.get(WORKER, {}).get("throughput"), load.seed.get(m, {}).get("throughput")
        seed = f" (seed {fmt(stats.ratio(sm, sw), 1)}x)" if sw and sm else ""
        parts.append(f"{m}/worker throughput: {fmt(stats.ratio(agg[m]['throughput'].median, worker_rate), 2)}x{seed}")
    return "; ".join(parts)
