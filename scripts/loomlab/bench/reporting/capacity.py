"""A capacity search's report section (running/capacity.py measured it): per mode the bracket
[held, failed] with its outcome and the p99 of the rounds at each edge, the Little's-law bound beside
it, and what a rate costs: the server's CPU per request and RSS at fractions of the held rate, as
cores per 1,000 req/s, beside the generator's own CPU per request. (Its chart, p99 against the offered rate
per mode: html.capacity_chart.) Said once, for the run and for a report rebuilt from results.json."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.table import Table, fmt, fmt_spread

from ..planning.loads import Load, Suite, mode_bound, service_pools
from ..planning.settings import LOCAL, RunSettings
from . import jdks
from .sections import section_head

MIB = 2**20
# A bound this high is no pool's: the open load's users, which an open model does not have.
NO_POOL = 10**6
# The rate a cluster's table sizes pods for.
TARGET = 10_000


def at(runs: list[dict], step: str, rate: float | None = None) -> list[dict]:
    """The runs of one step of the search (at `rate`), or of one cost fraction ("cost 0.5")."""
    return [r for r in runs if r.get("step", "").startswith(step) and (rate is None or r.get("offered") == rate)]


def p99_of(runs: list[dict], rate: float | None) -> str:
    """The p99 of the rounds at a rate: their median and range (ms)."""
    if rate is None:
        return "-"
    return fmt_spread(stats.Spread.of([r["p99"] for r in at(runs, "step", rate)]))


def capacity_tables(section: dict) -> dict:
    """The section's table (the brackets) and server table (the costs); no ratio line."""
    cap, bounds = section["capacity"], section.get("bounds", {})
    # A pod's held rate says how many pods a rate needs (a local JVM shares its cores with the generator).
    pods, replicas = section.get("environment", LOCAL) != LOCAL, section.get("pools", {}).get("replicas", 1)
    headers = ["mode", "held req/s", "failed req/s", "outcome", "p99 ms at held", "p99 ms at failed", "bound"]
    brackets = Table(headers + ([f"pods for {TARGET:,} req/s"] if pods else []))
    # Cores per 1,000 req/s: CPU seconds a second at 1,000 req/s, numerically the CPU ms per request.
    # RSS: the peak of the run's scrapes, after the search's steps (a JVM keeps the heap an overload grew).
    costs = Table(["mode", "at", "req/s", "cores per 1,000 req/s", "RSS MiB", "generator CPU ms/req"])
    for mode, r in section["results"].items():
        search = r.get("search", {})
        held, failed = search.get("held"), search.get("failed")
        brackets.add(
            mode,
            fmt(held),
            fmt(failed),
            search.get("outcome", "-"),
            p99_of(r["runs"], held),
            p99_of(r["runs"], failed),
            fmt(bound if (bound := bounds.get(mode, math.nan)) < NO_POOL else math.nan),
            *([f"{math.ceil(TARGET * replicas / held):,}" if held else "-"] if pods else []),
        )
        for fraction in cap["costs"]:
            runs = at(r["runs"], f"cost {fraction:g}")
            if not runs:
                continue
            cpu = stats.Spread.of([x.get("cpu_ms_per_req", math.nan) for x in runs]).median
            gen = stats.Spread.of(
                [stats.ratio(x.get("gen_cpu_s", math.nan) * 1000, x["requests"]) for x in runs]
            ).median
            rss = stats.nanmax(*(x.get("peak_rss_bytes", math.nan) for x in runs)) / MIB
            at_rate = fmt(runs[0]["offered"], 0)
            costs.add(mode, f"{fraction:.0%} of held", at_rate, fmt(cpu, 3), fmt(rss, 0), fmt(gen, 3))
    return {"table": brackets, "server": costs, "ratio": ""}


def capacity_section(
    suite: Suite, load: Load, results: dict, info: dict, settings: RunSettings, environment: str, sla_ms: float
) -> dict:
    """The section of one suite's search: the keys every section has (records.Section), the search's
    options and SLA under "capacity", and its tables."""
    cap = settings.capacity
    assert cap is not None
    pools = service_pools(info.get("pools", {}))
    rounds = (
        f"1 at a new rate that held, else {settings.repeats}, a rate held where every round held"
        f" ({settings.max_rounds} where the generator lagged in half)"
    )
    name = (
        f"capacity: p99 <= {sla_ms:g} ms, no errors, no dropped arrivals; from {cap.start or load.rate:g} req/s"
        f" up by x{cap.factor:g} (at most x{cap.top_x:g}, or x{cap.factor:g} a pool's bound), then bisection to"
        f" {cap.step:.0%}; rounds: {rounds}"
    )
    section = {
        **section_head(suite, load, name, jdks.environment(environment, None), info, True),
        "results": results,
        "bounds": {m: mode_bound(load, m, pools) for m in results},
        "rate": None,
        "failed": [],
        "capacity": {
            "sla_ms": sla_ms,
            "costs": list(cap.costs),
            "step": cap.step,
            "factor": cap.factor,
            "rounds": rounds,
        },
    }
    return {**section, **capacity_tables(section)}
