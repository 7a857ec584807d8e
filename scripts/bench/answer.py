"""The answer first: one row per measured load, the winning mode(s), by how much, and the bound
that binds, named from the figures; ties are called ties."""

from __future__ import annotations

import math

import labreport as lr

from .loads import MODES

# Within this fraction of each other, or with overlapping run ranges, two medians are a tie.
TIE = 0.05
# p99 is noisier than throughput: the tolerance of a latency verdict.
TIE_P99 = 0.20
# A mode at this fraction of its Little's-law bound has reached it: the bound binds.
AT_BOUND = 0.85

# What each mode's bound is made of, per workload (the bound itself: loads.py).
BOUND_NAMES = {
    ("sleep", "worker"): "worker threads",
    ("sleep", "virtual"): "users / sleep (the closed model)",
    ("sleep", "reactive"): "users / sleep (the closed model)",
    ("product", "worker"): "the fan-out pool and worker threads",
    ("product", "virtual"): "users / E[max] (the closed model)",
    ("product", "reactive"): "users / E[max] (the closed model)",
    ("product", "virtual+rx"): "users / E[max] (the closed model)",
    ("db", "worker"): "connections",
    ("db", "virtual"): "connections",
    ("db", "reactive"): "connections",
    ("db", "virtual+rx"): "connections",
    ("pinning", "worker"): "worker threads",
    ("pinning", "virtual"): "carriers, when a pin holds one",
}


def tied(a: lr.Spread, b: lr.Spread, tolerance: float) -> bool:
    """Two medians within `tolerance` of the larger, or whose run ranges overlap."""
    if math.isnan(a.median) or math.isnan(b.median):
        return False
    if a.n > 1 and b.n > 1 and a.low <= b.high and b.low <= a.high:
        return True
    top = max(abs(a.median), abs(b.median))
    return top == 0 or abs(a.median - b.median) / top <= tolerance


def best(agg: dict, key: str, tolerance: float, higher: bool) -> list[str]:
    """The modes tied with the best median of `key`."""
    pick = max if higher else min
    top = pick(agg, key=lambda m: agg[m][key].median)
    return [m for m in agg if tied(agg[m][key], agg[top][key], tolerance)]


def cause(section: dict, agg: dict, losers: list[str]) -> str:
    """The bound that binds, from each mode's efficiency against its own bound."""
    workload, bounds, rate = section["workload"], section.get("bounds", {}), section.get("rate")
    eff = {m: lr.efficiency(agg[m]["throughput"].median, bounds.get(m, math.nan)) for m in agg}
    cpu = {m: lr.ratio(agg[m].get("cpu_s", lr.Spread.of([])).median * 1000,
                       agg[m].get("requests", lr.Spread.of([])).median) for m in agg}
    if not losers:
        if rate is not None and all(lr.open_kept_up(agg[m]["dropped"].median, agg[m]["error_rate"].median)
                                    for m in agg):
            return f"none binds: every mode takes the {rate:,.0f} req/s offered"
        names = {BOUND_NAMES.get((workload, m)) for m in agg}
        if all(e >= AT_BOUND for e in eff.values() if not math.isnan(e)) and len(names) == 1 and None not in names:
            return f"every mode at its bound: {names.pop()}"
        return "the same figures within the runs' spread"
    parts = []
    for m in losers:
        name = BOUND_NAMES.get((workload, m))
        bound = bounds.get(m, math.nan)
        if not math.isnan(eff[m]) and eff[m] >= AT_BOUND and name:
            parts.append(f"{m}: {name} ({bound:,.0f} req/s) binds")
        elif rate is not None and not math.isnan(bound) and bound < rate and name:
            parts.append(f"{m}: {name} ({bound:,.0f} req/s) below the {rate:,.0f} req/s offered")
        else:
            winner_cpu = min((cpu[w] for w in agg if w not in losers and not math.isnan(cpu[w])), default=math.nan)
            more_cpu = (f", {lr.fmt(cpu[m], 2)} CPU ms/req against {lr.fmt(winner_cpu, 2)}"
                        if not math.isnan(cpu[m]) and not math.isnan(winner_cpu) and cpu[m] > winner_cpu * 1.2 else "")
            reached = f" ({lr.fmt(eff[m] * 100, 0, ' %')} of it)" if not math.isnan(eff[m]) else ""
            parts.append(f"{m}: no pool bound reached{reached}: CPU and the database, shared with k6{more_cpu}")
    return "; ".join(parts)


def verdict(section: dict) -> tuple[str, str, str, str] | None:
    """(winner, by req/s, by p99, cause) of one section, or None where fewer than two modes ran."""
    results = section["results"]
    modes = [m for m in MODES if m in results and results[m]["runs"]]
    if len(modes) < 2:
        return None
    agg = {m: lr.aggregate(results[m]["runs"]) for m in modes}
    if any("throughput" not in a or "p99" not in a for a in agg.values()):
        return None
    top = best(agg, "throughput", TIE, higher=True)
    if len(top) == len(modes):
        # The same throughput: latency decides, if anything does.
        top = best(agg, "p99", TIE_P99, higher=False)
    losers = [m for m in modes if m not in top]
    if not losers:
        return "tie: " + ", ".join(modes), "-", "-", cause(section, agg, [])
    worst_thr = min(agg[m]["throughput"].median for m in losers)
    best_thr = max(agg[m]["throughput"].median for m in top)
    worst_p99 = max(agg[m]["p99"].median for m in losers)
    best_p99 = min(agg[m]["p99"].median for m in top)
    r = lr.ratio(worst_p99, best_p99)
    p99 = "-" if math.isnan(r) else f"{r:.2f}x lower" if r >= 1 else f"{1 / r:.2f}x higher"
    return ", ".join(top), f"{lr.fmt(lr.ratio(best_thr, worst_thr), 2)}x", p99, cause(section, agg, losers)


def answer_table(sections: list[dict], local: str) -> lr.Table:
    t = lr.Table(["workload", "load", "modes", "winner", "req/s: winner / slowest", "winner's p99",
                  "the bound that binds"])
    for s in sections:
        v = verdict(s)
        if v is None:
            continue
        name = s["workload"] + (f" / {s['variant']}" if s.get("variant") else "")
        modes = ", ".join(m for m in MODES if m in s["results"])
        t.add(name + (f" ({s['environment']})" if s.get("environment", local) != local else ""), s["load"],
              modes, *v)
    return t
