"""Tables across the loads of one suite (a suite's `summary` names one): the ingest suites' records/s
beside the COPY anchor, the buffers workload's allocation per request, and the mixed workload's
tables (crossover.py)."""

from __future__ import annotations

import functools
import math

from loomlab import stats
from loomlab.table import Table, fmt, fmt_spread

from ..deciding.crossover import mixed_summary, tail_summary
from ..planning.lane import WORKER
from ..planning.settings import LOCAL
from ..workloads.ingest import INGEST_DOMAINS, INGEST_TRENDS, SEED_D


def ingest_setup(section: dict) -> str:
    """Where a chunk stream ran: its variant, else its environment ("local" on this machine's JVM,
    "in-cluster JVM", ...)."""
    environment = section.get("environment", LOCAL)
    return section.get("variant") or ("local" if environment == LOCAL else environment)


def ingest_summary(sections: list[dict]) -> Table:
    """records/s of every (domain, writes, mode) of the ingest suites beside the COPY anchor. Long
    because the table has a row per (domain, writes, mode, chunk) and a column per figure."""
    rows = []
    for sec in sections:
        if sec["workload"] not in INGEST_DOMAINS:
            continue
        writes = sec["env"].get("WRITES", "?")
        for mode, r in sec["results"].items():
            agg = stats.aggregate(r["runs"])
            rows.append((sec["workload"], ingest_setup(sec), writes, mode, agg, int(sec["env"].get("CHUNK", 100))))
    t = Table(
        [
            "domain",
            "setup",
            "writes",
            "chunk",
            "mode",
            "records/s",
            "best chunk",
            "vs COPY",
            "vs sequential",
            "chunk p50 ms",
            "chunk p99 ms",
            "parent ms",
            "skill ms",
            "text ms",
            "embedding ms",
            "CPU ms/1k rec",
            "errors %",
            "seed rec/s",
        ]
    )

    def rate(r):
        return r[4]["records_per_s"].median

    for key in dict.fromkeys(r[:2] for r in rows):
        ours = [r for r in rows if r[:2] == key]
        copy_rate = next((rate(r) for r in ours if r[2] == "copy"), math.nan)
        seq = {(r[3], r[5]): rate(r) for r in ours if r[2] == "sequential"}
        # The fastest chunk size of each (writes, mode), where more than one was run.
        groups = {r[2:4]: [x for x in ours if x[2:4] == r[2:4]] for r in ours}
        best = {k: max(group, key=rate)[5] for k, group in groups.items() if len({x[5] for x in group}) > 1}
        for domain, setup, writes, mode, agg, chunk in ours:
            med = functools.partial(stats.median_of, agg)
            seed = SEED_D.get(writes, {}).get(WORKER, {}).get("records_per_s") if chunk == 100 else None
            is_best = best.get((writes, mode)) == chunk
            t.add(
                domain,
                setup,
                writes,
                chunk,
                mode,
                fmt_spread(agg["records_per_s"], 0),
                "best" if is_best else "",
                fmt(stats.ratio(med("records_per_s"), copy_rate), 2, "x"),
                fmt(stats.ratio(med("records_per_s"), seq.get((mode, chunk), math.nan)), 2, "x"),
                fmt(med("p50")),
                fmt(med("p99")),
                *(fmt(med(metric)) for metric, _, _ in INGEST_TRENDS),
                fmt(med("cpu_ms_per_1k_records"), 0),
                fmt(med("error_rate") * 100, 2),
                fmt(seed) if setup == "local" and domain == "recruits" else "-",
            )
    return t


def buffers_summary(sections: list[dict]) -> Table:
    """Per cache and mode: what a request allocated (bytes, and scratch buffers it found none to
    reuse), the GC it caused, the peak RSS, and its req/s and p99."""
    t = Table(
        [
            "cache",
            "mode",
            "req/s",
            "p99 ms",
            "alloc KiB/req",
            "new buffers/req",
            "GC pauses",
            "GC ms",
            "CPU ms/req",
            "peak RSS MB",
        ]
    )
    for sec in sections:
        if sec["workload"] != "buffers":
            continue
        for mode, r in sec["results"].items():
            agg = stats.aggregate(r["runs"])
            med = functools.partial(stats.median_of, agg)
            t.add(
                sec["env"].get("CACHE", "?"),
                mode,
                fmt_spread(agg["throughput"], 0),
                fmt(med("p99"), 0),
                fmt(stats.ratio(med("delta_alloc_bytes") / 1024, med("requests")), 1),
                fmt(stats.ratio(med("delta_buffers_allocated"), med("requests")), 3),
                fmt(med("delta_gc_pauses"), 0),
                fmt(med("delta_gc_pause_s") * 1000, 0),
                fmt(stats.ratio(med("cpu_s") * 1000, med("requests")), 3),
                fmt(med("peak_rss_bytes") / 2**20, 0),
            )
    return t


# A suite's table across its loads, by the name its Suite gives (loads.Suite.summary).
SUMMARIES = {"ingest": ingest_summary, "mixed": mixed_summary, "tail": tail_summary, "buffers": buffers_summary}
