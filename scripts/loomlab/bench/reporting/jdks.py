"""`./lab bench --jdk 21,25`: the same jar on several JDKs in the same rounds. Each (JDK, mode) gets a
JVM of its own and a round runs every one of them once, in a rotated order, so drift hits every JDK
alike; each JDK's runs make a section of their own (its environment names the JDK, its verdict is
between its modes), and the report leads with one table per load: each mode on the newer JDK
against the older, round by round (the same paired ratios and interval as a verdict), with the
pins per 1,000 requests, where they came from, and the CPU per request on each."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.table import Table, fmt, fmt_spread

from ..deciding import verdict

SITES_SHOWN = 3  # the busiest pin sites a table names per mode
# A pair's state as the table says it.
STATES = {"ahead": "{new} ahead", "behind": "{old} ahead", "tie": "tie", "unclear": "cannot tell"}


def environment(base: str, jdk: int | None) -> str:
    return base if jdk is None else f"{base}, JDK {jdk}"


def _per_request(runs: list[dict], key: str, scale: float) -> float:
    """`key` per request as the sections' server table gives it: the rounds' median over their median."""
    figures = stats.aggregate(runs)
    return stats.ratio(figures[key].median * scale, figures["requests"].median) if key in figures else math.nan


def _sites(mode_results: dict) -> str:
    sites = sorted(mode_results.get("pin_sites", {}).items(), key=lambda kv: -kv[1])[:SITES_SHOWN]
    # Class.method of a site; a site without a class ("other", "unknown", "jdk") as it is.
    return "; ".join(f"{'.'.join(name.split('.')[-2:])} {v:,.0f}" for name, v in sites) or "none"


def comparison(sections: list[dict]) -> list[str]:
    """Markdown lines: per load run on several JDKs, each mode on the newest against the oldest."""
    by_load: dict[tuple, dict[int, dict]] = {}
    for s in sections:
        if s.get("jdk") is not None:
            by_load.setdefault((s["workload"], s.get("variant", ""), s["load"]), {})[s["jdk"]] = s
    lines: list[str] = []
    for (workload, variant, load), per_jdk in by_load.items():
        if len(per_jdk) < 2:
            continue
        old, new = min(per_jdk), max(per_jdk)
        env = per_jdk[old]["environment"].rsplit(", JDK", 1)[0]
        title = f"### JDK {new} against JDK {old}: {workload}{' / ' + variant if variant else ''}, {load} ({env})"
        lines += [title, "", table(per_jdk[old]["results"], per_jdk[new]["results"], old, new).markdown(), ""]
    if not lines:
        return []
    return [
        "## JDK against JDK",
        "",
        "The same jar on each JDK, in the same rounds. The ratio is each round's req/s on the newer JDK"
        f" over the older's, its median and interval as a verdict's (a tie within {verdict.TIE:.0%}); pins"
        " are JFR's jdk.VirtualThreadPinned events of any duration over the rounds' requests; 'pinned at'"
        " is the first frame outside the JDK, counted since the JVM started.",
        "",
        *lines,
    ]


def table(a: dict, b: dict, old: int, new: int) -> Table:
    """Each mode of one load on JDK `new` (results `b`) against JDK `old` (results `a`)."""
    out = Table(
        ["mode", f"req/s {old}", f"req/s {new}", f"{new} / {old} req/s (interval)"]
        + [f"p99 ms {old}", f"p99 ms {new}", f"pins /1k req {old}", f"pins /1k req {new}"]
        + [f"CPU ms/req {old}", f"CPU ms/req {new}", f"pinned at, {old}", f"pinned at, {new}"]
    )
    for mode in [m for m in a if m in b]:
        ra, rb = a[mode]["runs"], b[mode]["runs"]
        pair = verdict.compare(f"{mode} {new}", f"{mode} {old}", rb, ra, "throughput", True, verdict.TIE)
        said = f"{pair.text()}, {STATES[pair.state].format(new=new, old=old)}" if pair else "too few rounds"
        out.add(
            mode,
            *(fmt_spread(stats.Spread.of([r["throughput"] for r in rs]), 0) for rs in (ra, rb)),
            said,
            *(fmt(stats.Spread.of([r.get("p99", math.nan) for r in rs]).median) for rs in (ra, rb)),
            *(fmt(_per_request(rs, "delta_pinned_events", 1000), 1) for rs in (ra, rb)),
            *(fmt(_per_request(rs, "cpu_s", 1000), 2) for rs in (ra, rb)),
            *(_sites(results[mode]) for results in (a, b)),
        )
    return out
