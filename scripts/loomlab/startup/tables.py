"""The startup report's tables: the variants side by side, where their start-up goes (phases),
what the JVM loaded and compiled by the first answer, and the profiled launch's CPU."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.bench import api
from loomlab.table import Table, fmt, fmt_spread

from . import phases as ph

# quarkusio/benchmarks, January 2026, 4 CPUs, Hibernate + PostgreSQL (a published anchor, not ours).
ANCHOR = {
    "jvm": {"ttfr_ms": 2853, "rss_first_mb": 273, "rss_load_mb": 718, "tps": 19_300},
    "native": {"ttfr_ms": 69, "rss_first_mb": 76, "rss_load_mb": 147, "tps": 10_200},
}
# A step is a row of its own where its median reaches this in some variant; the rest are summed.
STEP_ROW_MS = 20.0


def table(results: dict[str, dict[str, stats.Spread]]) -> Table:
    t = Table(
        [
            "variant",
            "first request ms",
            "RSS first MB",
            "anonymous / file-backed MB",
            "RSS idle MB",
            "RSS after load MB",
            "sleep req/s",
            "product req/s",
            "anchor: TTFR ms",
            "anchor: RSS first/load MB",
            "anchor: tps",
        ]
    )
    for name, agg in results.items():
        a = ANCHOR.get(name, {})
        t.add(
            name,
            fmt_spread(agg["ttfr_ms"], 0),
            fmt_spread(agg["rss_first_mb"], 0),
            f"{fmt(agg['anon_first_mb'].median, 0)} / {fmt(agg['file_first_mb'].median, 0)}",
            fmt_spread(agg["rss_idle_mb"], 0),
            fmt_spread(agg["rss_load_mb"], 0),
            fmt_spread(agg["sleep_rps"], 0),
            fmt_spread(agg["product_rps"], 0),
            fmt(a.get("ttfr_ms"), 0),
            f"{a['rss_first_mb']} / {a['rss_load_mb']}" if a else "-",
            fmt(a.get("tps"), 0),
        )
    return t


def phase_rows(per_variant: dict[str, dict[str, stats.Spread]]) -> list[str]:
    """The phases to show, in order: before the first step (the JVM's creation within it), the steps
    of STEP_ROW_MS or more in some variant (longest first in the first variant), after the last."""
    fixed = (ph.BEFORE, ph.VM, ph.AFTER)
    steps = {k for spreads in per_variant.values() for k, s in spreads.items() if k not in fixed and s.n}
    first = next(iter(per_variant.values()), {})
    big = [k for k in steps if any(s[k].median >= STEP_ROW_MS for s in per_variant.values() if k in s)]
    big.sort(key=lambda k: -(first[k].median if k in first and first[k].n else 0.0))
    return [ph.BEFORE, ph.VM, *big, ph.AFTER]


def phase_table(runs: dict[str, list[dict]], flames: dict[str, dict]) -> Table | None:
    """Each variant's time to the first answer by phase (medians (min-max) of its launches), with the
    CPU its profiled launch spent in each step where one ran. None where no launch printed phases."""
    phases = {n: [r["phases"] for r in rs if r["phases"]] for n, rs in runs.items()}
    per_variant = {n: stats.aggregate(p) for n, p in phases.items() if p}
    if not per_variant:
        return None
    headers = ["phase"]
    for name in per_variant:
        headers += [f"{name} ms"] + ([f"{name} CPU ms (profiled)"] if name in flames else [])
    t = Table(headers)
    shown = phase_rows(per_variant)
    for row in shown:
        cells = [row]
        for name, spreads in per_variant.items():
            cells.append(fmt_spread(spreads[row], 0) if row in spreads else "-")
            if name in flames:
                cells.append(fmt(flames[name]["steps"].get(row), 0))
        t.add(*cells)
    rest = ["the other steps (each under 20 ms)"]
    total = ["time to the first answer"]
    for name in per_variant:
        sums = [sum(v for k, v in p.items() if k not in shown) for p in phases[name]]
        rest.append(fmt_spread(stats.Spread.of(sums), 0))
        total.append(fmt_spread(stats.Spread.of([r["ttfr_ms"] for r in runs[name]]), 0))
        if name in flames:
            rest.append("")
            total.append(fmt(flames[name]["cpu_ms"], 0) + " (all threads)")
    t.add(*rest)
    t.add(*total)
    t.note = (
        "Each step's time runs from the previous step's end to its own (Quarkus' StepTiming), so the steps"
        " tile the span between the first step's start and the last one's end; the JVM's creation is a"
        " part of the time before the first step."
    )
    return t


def counter_table(runs: dict[str, list[dict]]) -> Table:
    """Classes loaded (and from the CDS archive or AOT cache) and JIT work by the first answer."""
    t = Table(["variant", *ph.COUNTERS])
    for name, rs in runs.items():
        agg = stats.aggregate([r["counters"] for r in rs])
        digits = {label: 2 if "(s" in label else 0 for label in ph.COUNTERS}
        t.add(name, *(fmt_spread(agg[label], digits[label]) if label in agg else "-" for label in ph.COUNTERS))
    return t


def cpu_table(flames: dict[str, dict]) -> Table | None:
    """The profiled launch's CPU to the first answer by category, per variant."""
    if not flames:
        return None
    t = Table(["variant", "CPU ms (all threads)", *api.COLUMNS, "flame graph"])
    for name, f in flames.items():
        cats = f["categories"]
        t.add(name, fmt(f["cpu_ms"], 0), *(fmt(cats.get(c, math.nan), 0) for c in api.COLUMNS), f["html"])
    return t


# The service's variants against the minimal application's: (service, minimal) on the JVM, with the
# lab's cache on the fast-jar, and on Quarkus' recipe (./lab aot: the aot-jar, trained by the ITs).
PAIRS = (("jvm", "minimal"), ("jvm-aot", "minimal-aot"), ("jvm-aot-quarkus", "minimal-aot-quarkus"))
MINIMAL_GOAL = 1.5


def minimal_table(runs: dict[str, list[dict]]) -> Table | None:
    """Each pair of PAIRS that ran: both first answers and RSS at them, and the service's over the
    minimal's as the median (min-max) of launch i's ratios (launch i of both ran in the same
    rotation). None where no pair ran."""
    t = Table(["", "service ms", "minimal ms", "service / minimal", "goal", "RSS first MB service / minimal"])
    for service, floor in PAIRS:
        if not runs.get(service) or not runs.get(floor):
            continue
        ratios = stats.Spread.of(
            [s["ttfr_ms"] / m["ttfr_ms"] for s, m in zip(runs[service], runs[floor], strict=False)]
        )
        agg = {n: stats.aggregate(runs[n]) for n in (service, floor)}
        t.add(
            f"{service} / {floor}",
            fmt_spread(agg[service]["ttfr_ms"], 0),
            fmt_spread(agg[floor]["ttfr_ms"], 0),
            fmt_spread(ratios, 2, "x"),
            f"<= {MINIMAL_GOAL}x: {'met' if ratios.median <= MINIMAL_GOAL else 'missed'}",
            f"{fmt(agg[service]['rss_first_mb'].median, 0)} / {fmt(agg[floor]['rss_first_mb'].median, 0)}",
        )
    if not t.rows:
        return None
    t.note = (
        "The minimal application (scripts/minimal) is one endpoint on the service's Quarkus, built by the same"
        " ./mvnw and launched with the same JDK and flags; the phase table above says where the difference goes."
    )
    return t
