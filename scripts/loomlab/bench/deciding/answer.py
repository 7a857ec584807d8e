"""The answer first: one row per measured load, the winning mode(s) by paired rounds (verdict.py),
by how much with the interval behind it, and the bound that binds, named from the figures and the
workload's own bounds. Ties are called ties, and what the rounds cannot tell is said so."""

from __future__ import annotations

import math
from collections.abc import Mapping

from loomlab import stats
from loomlab.table import Table, fmt

from ..measuring.figures import open_kept_up
from ..planning.bounds import efficiency
from ..planning.lane import MODE_COLUMNS
from ..workloads import MODULES
from . import verdict
from .capacity import capacity_answer

# A mode at this fraction of its Little's-law bound has reached it: the bound binds.
AT_BOUND = 0.85
# workload -> (mode -> what its bound is made of, what every mode shares besides the pools)
WORKLOADS = {m.__name__.rsplit(".", 1)[1]: (m.BOUND_NAMES, m.USES) for m in MODULES if hasattr(m, "USES")}
WORKLOADS.update({d: WORKLOADS["ingest"] for d in ("recruits", "candidates")})


def bound_name(workload: str, mode: str, rate) -> str | None:
    """What a mode's bound is made of; in an open load the users of the closed model are not there:
    a mode with no pool of its own is bound by the arrival rate."""
    name = WORKLOADS.get(workload, ({}, ""))[0].get(mode)
    if name and name.startswith("users"):
        return "the arrival rate" if rate is not None else name + " (the closed model)"
    return name


def cause(section: Mapping, agg: dict, losers: list[str]) -> str:
    """The bound that binds, from each mode's efficiency against its own bound."""
    workload, bounds, rate = section["workload"], section.get("bounds", {}), section.get("rate")
    uses = WORKLOADS.get(workload, ({}, "CPU"))[1]
    eff = {m: efficiency(agg[m]["throughput"].median, bounds.get(m, math.nan)) for m in agg}
    cpu = {m: stats.ratio(stats.median_of(agg[m], "cpu_s") * 1000, stats.median_of(agg[m], "requests")) for m in agg}
    if not losers:
        if rate is not None and all(open_kept_up(agg[m]["dropped"].median, agg[m]["error_rate"].median) for m in agg):
            return f"none binds: every mode takes the {rate:,.0f} req/s offered"
        names = {bound_name(workload, m, rate) for m in agg}
        if all(e >= AT_BOUND for e in eff.values() if not math.isnan(e)) and len(names) == 1 and None not in names:
            return f"every mode at its bound: {names.pop()}"
        return "the same figures within the rounds' spread"
    parts = []
    for m in losers:
        name = bound_name(workload, m, rate)
        bound = bounds.get(m, math.nan)
        if not math.isnan(eff[m]) and eff[m] >= AT_BOUND and name:
            parts.append(f"{m}: {name} ({bound:,.0f} req/s) binds")
        elif rate is not None and not math.isnan(bound) and bound < rate and name:
            parts.append(f"{m}: {name} ({bound:,.0f} req/s) below the {rate:,.0f} req/s offered")
        else:
            winner_cpu = min((cpu[w] for w in agg if w not in losers and not math.isnan(cpu[w])), default=math.nan)
            more_cpu = (
                f", {fmt(cpu[m], 2)} CPU ms/req against {fmt(winner_cpu, 2)}"
                if not math.isnan(cpu[m]) and not math.isnan(winner_cpu) and cpu[m] > winner_cpu * 1.2
                else ""
            )
            reached = f" ({fmt(eff[m] * 100, 0, ' %')} of it)" if not math.isnan(eff[m]) else ""
            parts.append(f"{m}: no pool bound reached{reached}: {uses}{more_cpu}")
    return "; ".join(parts)


def by_how_much(v: verdict.Verdict) -> str:
    """The winner against its closest contender: the median ratio and its interval."""
    p = v.against
    if p is None:
        return "-"
    what = "req/s" if v.metric == "req/s" else "lower p99"
    return f"{p.median:.2f}x {what} ({p.low:.2f}-{p.high:.2f}) vs {p.b}"


def verdict_of(section: Mapping) -> tuple[str, str, str, str] | None:
    """(winner, by how much, rounds, cause) of one section, or None where fewer than two modes ran
    (or it is a capacity search's: its answer is capacity_answer's)."""
    if "capacity" in section:
        return None
    results = section["results"]
    modes = [m for m in MODE_COLUMNS if m in results and results[m]["runs"]]
    # The verdict the rounds decided and the section carries; a section without one (a Job's answer
    # read off its volume, results.json written before sections carried it) is decided from its runs.
    carried = section.get("verdict")
    v = verdict.Verdict.of_record(carried) if carried else verdict.decide(results, modes)
    if v is None:
        return None
    agg = {m: stats.aggregate(results[m]["runs"]) for m in modes}
    if any("throughput" not in a for a in agg.values()):
        return None
    losers = [m for m in modes if m not in v.winners] if v.kind in ("win", "ahead") else []
    rounds = f"{v.rounds}" + (f" ({v.against.coverage:.0%})" if v.against else "")
    bound = "-" if v.kind == "cannot tell" else cause(section, agg, losers)
    return v.text(), by_how_much(v), rounds, bound


def figures_per_mode(section: Mapping) -> str:
    """Each mode's median req/s and p99 (ms) over its rounds: "worker 490 (1,012 ms), ..."."""
    results = section["results"]
    parts = []
    for m in MODE_COLUMNS:
        if m in results and results[m]["runs"]:
            agg = stats.aggregate(results[m]["runs"])
            parts.append(f"{m} {fmt(agg['throughput'].median, 0)} ({fmt(stats.median_of(agg, 'p99'), 0)} ms)")
    return ", ".join(parts)


def answer_table(sections: list[dict], local: str) -> Table:
    t = Table(
        [
            "workload",
            "load",
            "req/s (p99) per mode",
            "winner",
            "by how much (interval)",
            "rounds",
            "the bound that binds",
        ]
    )
    for s in sections:
        name = s["workload"] + (f" / {s['variant']}" if s.get("variant") else "")
        where = f" ({s['environment']})" if s.get("environment", local) != local else ""
        if "capacity" in s:  # a search's answer: the brackets'
            t.add(name + where, s["load"], *capacity_answer(s, s.get("bounds", {})))
        elif (v := verdict_of(s)) is not None:
            t.add(name + where, s["load"], figures_per_mode(s), *v)
    return t


def winners(section: Mapping) -> str:
    """The verdict's words for one section (for --compare): the winner(s), a tie, or cannot tell."""
    found = verdict_of(section)
    return found[0] if found else "-"
