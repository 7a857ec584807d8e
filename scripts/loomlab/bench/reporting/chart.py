"""chart.svg: req/s and p99 per mode for every answered load of a run, drawn from its results.json
(what a reader looks at before the tables). `./lab bench` writes it beside report.md; for a
published run: `python -m loomlab.bench.reporting.chart REPORT_DIR [OUT.svg]`."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

from loomlab import stats
from loomlab.render import render
from loomlab.table import fmt

from ..deciding.answer import verdict_of
from ..measuring.records import Results, Section, read_results
from ..planning.lane import MODE_COLUMNS
from .html import COLORS

LABEL_W, PANEL_W, BAR_H, GAP = 330, 250, 13, 18
TOP = 58.0  # the title, the legend's row and the panels' headings above the first group


@dataclass
class Bar:
    mode: str
    color: str
    y: float
    rps: float
    rps_w: float
    p99: float
    p99_w: float


@dataclass
class Group:
    title: str
    verdict: str
    y: float
    bars: list[Bar]


def groups(sections: list[Section]) -> list[Group]:
    """One group per answered load: its modes' median req/s and p99, each bar scaled to the load's
    largest (loads differ by orders of magnitude)."""
    out: list[Group] = []
    y = TOP
    for s in sections:
        verdict = verdict_of(s)
        if verdict is None:
            continue
        results = s["results"]
        modes = [m for m in MODE_COLUMNS if m in results and results[m]["runs"]]
        agg = {m: stats.aggregate(results[m]["runs"]) for m in modes}
        rps = {m: agg[m]["throughput"].median for m in modes}
        p99 = {m: stats.median_of(agg[m], "p99") for m in modes}
        top_rps = max((v for v in rps.values() if not math.isnan(v)), default=1.0) or 1.0
        top_p99 = max((v for v in p99.values() if not math.isnan(v)), default=1.0) or 1.0
        bars = [
            Bar(
                m,
                COLORS.get(m, "#777"),
                y + 18 + i * (BAR_H + 2),
                rps[m],
                0.0 if math.isnan(rps[m]) else PANEL_W * rps[m] / top_rps,
                p99[m],
                0.0 if math.isnan(p99[m]) else PANEL_W * p99[m] / top_p99,
            )
            for i, m in enumerate(modes)
        ]
        title = s["workload"] + (f" / {s['variant']}" if s.get("variant") else "") + f": {s['load']}"
        out.append(Group(title, verdict[0], y, bars))
        y += 18 + len(modes) * (BAR_H + 2) + GAP
    return out


def chart_svg(results: Results) -> str:
    drawn = groups(results["sections"])
    height = (drawn[-1].bars[-1].y + BAR_H + GAP) if drawn else 60
    meta = results["meta"]
    return render(
        "chart.svg.j2",
        groups=drawn,
        width=LABEL_W + 2 * PANEL_W + 140,
        height=height,
        label_w=LABEL_W,
        panel_w=PANEL_W,
        bar_h=BAR_H,
        title=f"{meta.get('title', 'loom-lab bench report')}, {meta.get('date', '')}, profile {meta.get('profile')}",
        fmt=fmt,
        legend=legend([b.mode for g in drawn for b in g.bars]),
    )


def legend(drawn: list[str]) -> list[tuple[str, str, float]]:
    """(mode, colour, x) of each mode drawn, in report order, spaced by the length of its name."""
    out, x = [], 4.0
    for m in (m for m in MODE_COLUMNS if m in drawn):
        out.append((m, COLORS[m], x))
        x += 24 + 6.5 * len(m)
    return out


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else folder / "chart.svg"
    target.write_text(chart_svg(read_results(folder)))
    print(target)
