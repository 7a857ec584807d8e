"""report.html: the bench's tables as charts a person reads at a glance, drawn by Chart.js (inlined,
so the file works offline), plus the server-side samples over time and links to k6's own
web-dashboard exports where they were made."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

from loomlab import labreport as lr

COLORS = {"worker": "#d9534f", "virtual": "#337ab7", "reactive": "#5cb85c", "virtual+rx": "#9b59b6"}


def _num(v):
    return None if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))) else round(v, 2)


def _samples(out: Path, run_json: str) -> list[dict]:
    p = out / Path(run_json).with_suffix(".metrics.jsonl")
    if not p.exists():
        return []
    return [json.loads(ld) for ld in p.read_text().splitlines() if ld.strip()]


def write(out: Path, meta: dict, sections: list[dict], chartjs: Path | None, answer=None):
    """`answer`: the table that opens the report (bench/answer.py), if any."""
    charts: list[dict[str, object]] = []
    blocks: list[str] = []
    for n, s in enumerate(sections):
        modes = list(s["results"].keys())
        aggs = {m: lr.aggregate(s["results"][m]["runs"]) for m in modes}

        def med(m, k, aggs=aggs):
            return _num(aggs[m].get(k, lr.Spread.of([])).median)

        variant = " / " + s["variant"] if s.get("variant") else ""
        title = f"{s['workload']}{variant}: {s['load']} ({s.get('environment', 'local JVM')})"
        blocks.append(
            f"<section><h2>{html.escape(title)}</h2><p>{html.escape(s['description'])}</p>"
            f"<div class='row'><canvas id='t{n}'></canvas><canvas id='l{n}'></canvas>"
            f"<canvas id='s{n}'></canvas></div>{_table_html(s)}</section>"
        )
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
            if samples:
                t0 = samples[0]["t"]
                series.append(
                    {
                        "label": f"{m}: live threads",
                        "borderColor": COLORS.get(m, "#777"),
                        "data": [{"x": round(x["t"] - t0, 2), "y": _num(x.get("live_threads"))} for x in samples],
                    }
                )
                series.append(
                    {
                        "label": f"{m}: requests in flight",
                        "borderColor": COLORS.get(m, "#777"),
                        "borderDash": [4, 4],
                        "data": [{"x": round(x["t"] - t0, 2), "y": _num(x.get("in_flight"))} for x in samples],
                    }
                )
        charts.append(
            {"id": f"s{n}", "type": "line", "title": "server over time (first run, s)", "datasets": series, "xy": True}
        )
    dashboards = sorted(p.name for p in (out / "runs").glob("*.html")) if (out / "runs").exists() else []
    links = "".join(f"<li><a href='runs/{d}'>{d}</a></li>" for d in dashboards)
    script = chartjs.read_text() if chartjs and chartjs.exists() else ""
    title = html.escape(meta.get("title", "loom-lab bench report"))
    jvm_where = html.escape(meta.get("jvm_where", ""))
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}}.row{{display:flex;gap:1em}}
.row canvas{{flex:1;max-width:33%;max-height:320px}}table{{border-collapse:collapse;font-size:12px;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}section{{margin-bottom:3em}}</style>
<script>{script}</script></head><body>
<h1>{title}</h1><p>{html.escape(meta['date'])} · {html.escape(meta['machine'])} · JDK
{html.escape(str(meta['info'].get('jdk')))} · Quarkus {html.escape(str(meta['info'].get('quarkus')))} ·
profile {html.escape(meta['profile'])} · <code>{html.escape(meta['command'])}</code></p>
<p>Medians of {meta['repeats']} measured runs per mode after warm-up; each mode ran in a JVM of its own{jvm_where}.
The grey bar is the Little's-law bound (concurrency / latency).</p>
{_answer_html(answer)}
{''.join(blocks)}
<h2>k6 web dashboards</h2><ul>{links or '<li>none exported (the run had --dashboards none)</li>'}</ul>
<script>
const charts = {json.dumps(charts)};
for (const c of charts) {{
  const ctx = document.getElementById(c.id);
  if (!ctx || typeof Chart === 'undefined') continue;
  new Chart(ctx, {{type: c.type, data: {{labels: c.labels, datasets: c.datasets}},
    options: {{animation: false, plugins: {{title: {{display: true, text: c.title}}}},
      scales: c.xy ? {{x: {{type: 'linear'}}}} : {{}}, parsing: c.xy ? false : undefined}}}});
}}
</script></body></html>"""
    (out / "report.html").write_text(page)


def _answer_html(answer) -> str:
    if answer is None or not answer.rows:
        return ""
    # Every column of the answer reads as prose but the rounds: left-aligned.
    prose = [h != "rounds" for h in answer.headers]
    return (
        "<section><h2>The answer</h2><p>Per load, from paired rounds: the mode(s) that won (ties are"
        " called ties, and what the rounds cannot tell is said so), by how much with the interval behind it,"
        " and the bound that binds.</p>" + _table_html({"table": answer}, prose) + "</section>"
    )


def _table_html(s: dict, left: list[bool] | None = None) -> str:
    """A table; `left` marks the columns that read as text (left-aligned), the rest are figures."""
    t = s["table"]
    left = left or [False] * len(t.headers)

    def align(i):
        return " style='text-align:left'" if left[i] else ""

    head = "".join(f"<th{align(i)}>{html.escape(h)}</th>" for i, h in enumerate(t.headers))
    rows = "".join(
        "<tr>" + "".join(f"<td{align(i)}>{html.escape(c)}</td>" for i, c in enumerate(r)) + "</tr>" for r in t.rows
    )
    return f"<table><tr>{head}</tr>{rows}</table>"
