"""report.html: the bench's tables as charts a person reads at a glance, drawn by Chart.js (inlined,
so the file works offline), plus the server-side samples over time and links to k6's own
web-dashboard exports where they were made."""

from __future__ import annotations

import json
import math
from pathlib import Path

from loomlab import stats
from loomlab.render import render

from ..planning.lane import OFFLOAD, REACTIVE, RX, VIRTUAL, VIRTUAL_LOOP, WORKER, Lane

# Each mode's colour in every chart (the bench's chart.svg too), by its column's name.
COLORS = {
    WORKER: "#d9534f",
    VIRTUAL: "#337ab7",
    VIRTUAL_LOOP: "#17a2b8",
    REACTIVE: "#5cb85c",
    Lane(REACTIVE, OFFLOAD).key: "#f0ad4e",
    Lane(VIRTUAL, RX).key: "#9b59b6",
}

# The server-over-time chart's lines per mode: (what, the sample's key, its style).
TIMELINE: tuple[tuple[str, str, dict], ...] = (
    ("live threads", "live_threads", {}),
    ("requests in flight", "in_flight", {"borderDash": [4, 4]}),
)


def _num(v):
    return None if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))) else round(v, 2)


def _samples(out: Path, run_json: str) -> list[dict]:
    p = out / Path(run_json).with_suffix(".metrics.jsonl")
    if not p.exists():
        return []
    return [json.loads(ld) for ld in p.read_text().splitlines() if ld.strip()]


def capacity_chart(n: int, s: dict) -> dict[str, object]:
    """A capacity search's chart (bench/reporting/capacity.py): p99 against the offered rate per
    mode, the median of each step's rounds, and the SLA."""
    datasets: list[dict[str, object]] = []
    for m, r in s["results"].items():
        steps = [x for x in r["runs"] if x.get("step", "").startswith("step")]
        rates = sorted({x["offered"] for x in steps})
        p99 = [stats.Spread.of([x["p99"] for x in steps if x["offered"] == rate]).median for rate in rates]
        data = [{"x": rate, "y": _num(y)} for rate, y in zip(rates, p99, strict=True)]
        datasets.append({"label": m, "borderColor": COLORS.get(m, "#777"), "data": data})
    top = max((x["offered"] for r in s["results"].values() for x in r["runs"] if "offered" in x), default=1)
    sla = s["capacity"]["sla_ms"]
    datasets.append(
        {
            "label": "SLA",
            "borderColor": "#000",
            "borderDash": [4, 4],
            "data": [{"x": 0, "y": sla}, {"x": top, "y": sla}],
        }
    )
    return {
        "id": f"t{n}",
        "type": "line",
        "title": "p99 (ms) against the offered rate (req/s)",
        "datasets": datasets,
        "xy": True,
    }


def section_charts(n: int, s: dict, out: Path) -> list[dict[str, object]]:
    """The three charts of section `n`: throughput against the bound, latency percentiles, and the
    server over time (live threads, requests in flight) in each mode's first measured run (a
    capacity search's: its own). Long because it declares three Chart.js charts as data."""
    if "capacity" in s:
        return [capacity_chart(n, s)]
    charts: list[dict[str, object]] = []
    modes = list(s["results"].keys())
    aggs = {m: stats.aggregate(s["results"][m]["runs"]) for m in modes}

    def med(m, k, aggs=aggs):
        return _num(stats.median_of(aggs[m], k))

    charts.append(
        {
            "id": f"t{n}",
            "type": "bar",
            "title": "throughput (req/s): median, bound",
            "labels": modes,
            "datasets": [
                {
                    "label": "measured",
                    "data": [med(m, "throughput") for m in modes],
                    "backgroundColor": [COLORS.get(m, "#777") for m in modes],
                },
                {
                    "label": "Little's-law bound",
                    "data": [_num(s["bounds"].get(m)) for m in modes],
                    "backgroundColor": "#bbbbbb",
                },
            ],
        }
    )
    charts.append(
        {
            "id": f"l{n}",
            "type": "bar",
            "title": "latency percentiles (ms)",
            "labels": ["p50", "p90", "p95", "p99", "max"],
            "datasets": [
                {
                    "label": m,
                    "backgroundColor": COLORS.get(m, "#777"),
                    "data": [med(m, k) for k in ("p50", "p90", "p95", "p99", "max")],
                }
                for m in modes
            ],
        }
    )
    # Server side over time, first measured run of each mode: live threads and worker queue.
    series: list[dict[str, object]] = []
    for m in modes:
        samples = _samples(out, s["results"][m].get("first_run", "")) if s["results"][m].get("first_run") else []
        for what, key, dash in TIMELINE if samples else ():
            points = [{"x": round(x["t"] - samples[0]["t"], 2), "y": _num(x.get(key))} for x in samples]
            series.append({"label": f"{m}: {what}", "borderColor": COLORS.get(m, "#777"), **dash, "data": points})
    # Without the runs' samples (a folder copied without runs/) there is nothing to draw: no chart,
    # and the section says so (write: "timeline").
    if series:
        charts.append(
            {"id": f"s{n}", "type": "line", "title": "server over time (first run, s)", "datasets": series, "xy": True}
        )
    return charts


def write(out: Path, meta: dict, sections: list[dict], chartjs: Path | None, answer=None):
    """`answer`: the table that opens the report (bench/deciding/answer.py), if any."""
    charts: list[dict[str, object]] = []
    blocks: list[dict] = []
    for n, s in enumerate(sections):
        variant = " / " + s["variant"] if s.get("variant") else ""
        title = f"{s['workload']}{variant}: {s['load']} ({s.get('environment', 'local JVM')})"
        drawn = section_charts(n, s, out)
        charts += drawn
        timeline = any(c["id"] == f"s{n}" for c in drawn)
        block = {"title": title, "description": s["description"], "table": s["table"], "timeline": timeline}
        blocks.append({**block, "searched": "capacity" in s})
    dashboards = sorted(p.name for p in (out / "runs").glob("*.html")) if (out / "runs").exists() else []
    page = render(
        "report.html.j2",
        title=meta.get("title", "loom-lab bench report"),
        meta=meta,
        answer=answer,
        # Every column of the answer reads as prose but the rounds: left-aligned.
        answer_left=[h != "rounds" for h in answer.headers] if answer else [],
        sections=blocks,
        charts=charts,
        dashboards=dashboards,
        chartjs=chartjs.read_text() if chartjs and chartjs.exists() else "",
    )
    (out / "report.html").write_text(page)
