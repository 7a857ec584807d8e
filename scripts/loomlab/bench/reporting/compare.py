"""`./lab bench --compare A B`: two reports' results.json side by side, figure by figure and answer
by answer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from loomlab import stats
from loomlab.table import Table, fmt

from ..deciding.answer import winners
from ..measuring.records import read_results
from ..planning.settings import LOCAL


def key(s: Mapping) -> tuple:
    """A section's identity across two reports."""
    return (s["workload"], s.get("variant", ""), s["load"], s.get("environment", LOCAL))


def compare(a: Path, b: Path):
    """Two bench reports side by side: every (workload, load, mode) both measured, B against A. Long
    because the table has a column per figure of both reports."""
    ra, rb = read_results(a), read_results(b)

    sa = {key(s): s for s in ra["sections"]}
    t = Table(
        [
            "workload",
            "load",
            "mode",
            "req/s A",
            "req/s B",
            "change",
            "p95 A",
            "p95 B",
            "change",
            "errors A %",
            "errors B %",
        ]
    )
    for s in rb["sections"]:
        other = sa.get(key(s))
        if not other:
            continue
        for mode, r in s["results"].items():
            if mode not in other["results"]:
                continue
            x, y = stats.aggregate(other["results"][mode]["runs"]), stats.aggregate(r["runs"])

            def ch(k, x=x, y=y):
                return fmt((stats.ratio(y[k].median, x[k].median) - 1) * 100, 1, " %")

            t.add(
                s["workload"] + (f" / {s['variant']}" if s.get("variant") else ""),
                s["load"],
                mode,
                fmt(x["throughput"].median),
                fmt(y["throughput"].median),
                ch("throughput"),
                fmt(x["p95"].median),
                fmt(y["p95"].median),
                ch("p95"),
                fmt(x["error_rate"].median * 100, 2),
                fmt(y["error_rate"].median * 100, 2),
            )
    print(f"A: {a} ({ra['meta']['date']}, {ra['meta']['info'].get('imageKind')}, {ra['meta']['machine']})")
    print(f"B: {b} ({rb['meta']['date']}, {rb['meta']['info'].get('imageKind')}, {rb['meta']['machine']})")
    print(t.text() if t.rows else "no (workload, load, mode) in common")
    verdicts = compare_verdicts(ra["sections"], rb["sections"])
    print("\nthe answers, load by load:\n" + verdicts.text())
    flips = [r for r in verdicts.rows if r[-1] == "FLIP"]
    print(f"{len(flips)} of {len(verdicts.rows)} answers flipped" if verdicts.rows else "no load in common")


def compare_verdicts(sections_a: Sequence[Mapping], sections_b: Sequence[Mapping]) -> Table:
    """Whether two reports agree on each load's answer: the same winner(s), both a tie of the same
    modes, or at least one that cannot tell ('unsettled'); a different winner is a FLIP."""

    by_key = {key(s): s for s in sections_a}
    t = Table(["workload", "load", "answer A", "answer B", "agree"])
    for s in sections_b:
        other = by_key.get(key(s))
        if not other:
            continue
        wa, wb = winners(other), winners(s)
        if "-" in (wa, wb):
            continue
        t.add(s["workload"] + (f" / {s['variant']}" if s.get("variant") else ""), s["load"], wa, wb, agreement(wa, wb))
    return t


def agreement(wa: str, wb: str) -> str:
    """'yes' where two answers name the same winners or tie (however many rounds each took),
    'unsettled' where either cannot tell (or cannot order its leaders), else 'FLIP'."""
    na, nb = (re.sub(r" at \d+ rounds", "", w) for w in (wa, wb))
    if na == nb and not na.startswith("cannot tell"):
        return "yes"
    return "unsettled" if "cannot tell" in na + nb else "FLIP"
