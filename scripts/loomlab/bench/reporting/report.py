"""What a run says: report.md, report.html and results.json from its sections, and --strict; and the
same report rebuilt from a results.json (`python -m loomlab.bench.reporting.report DIR [--out OUT]`)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from loomlab import command
from loomlab.render import render

from .. import workloads
from ..deciding import verdict
from ..deciding.answer import AT_BOUND, answer_table
from ..measuring.records import read_results, results_of
from ..planning.loads import service_pools
from ..planning.settings import LOCAL, RunSettings
from . import flames, html, jdks, reportcli
from .capacity import capacity_tables
from .chart import chart_svg
from .loadfigures import LoadFigures
from .sections import section_tables
from .summaries import SUMMARIES


def latest_startup(out: Path) -> dict | None:
    """The latest `./lab startup` beside the run's folder: its report's text and folder name."""
    startups = sorted(out.parent.glob("startup-*/report.md"))
    return {"text": startups[-1].read_text().split("\n", 2)[-1], "name": startups[-1].parent.name} if startups else None


def write_report(out: Path, meta: dict, sections: list[dict], appendix: Sequence[str] = (), lead: Sequence[str] = ()):
    """report.md: the run's setup, the answer, `lead`, every section's tables, the `./lab startup`
    the run kept in its meta (start-up and memory belong beside throughput; a results.json written
    before the meta kept it: the latest beside `out`), then `appendix`. A run on several JDKs leads
    with each mode's JDK against JDK (jdks.comparison)."""
    startup = meta["startup"] if "startup" in meta else latest_startup(out)
    lead = [*jdks.comparison(sections), *lead]
    text = render(
        "report.md.j2",
        meta=meta,
        sections=sections,
        answer=answer_table(sections, LOCAL),
        searched=bool(sections) and all("capacity" in s for s in sections),
        lead=lead,
        appendix=appendix,
        startup=startup,
        local=LOCAL,
        tie=verdict.TIE,
        tie_p99=verdict.TIE_P99,
        confidence=verdict.CONFIDENCE,
        at_bound=AT_BOUND,
        pct=lambda f: f"{f * 100:.0f}",
        flames_sampling=flames.SAMPLING,
    )
    (out / "report.md").write_text(text)


def run_meta(settings: RunSettings, info: dict, command: str, engines: Sequence[str], **extra: object) -> dict:
    """What every report says of its run, the same for the bench and the in-cluster runner: when,
    on what, with which load generators (as each names its version), and the rounds' settings as
    the command line left them; `extra` adds or overrides (title, where the generator and the JVMs
    ran, the setup lines)."""
    uname = os.uname()
    memory_gib = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "command": command,
        "machine": f"{os.cpu_count()} CPUs, {memory_gib} GiB, {uname.sysname} {uname.release}",
        "info": info,
        "engines": "; ".join(engines),
        "profile": settings.profile,
        "warmups": settings.warmups,
        "warmup_seconds": settings.warmup_seconds,
        "warmup_tolerance": settings.warmup_tolerance,
        "repeats": settings.repeats,
        "max_rounds": settings.max_rounds,
        "interleave": settings.interleave,
        "sample_period": settings.sample_period,
        "dashboards": settings.dashboards,
        "runners": settings.runners,
        **extra,
    }


def finish(
    out: Path,
    meta: dict,
    sections: list[dict],
    appendix: Sequence[str] = (),
    lead: Sequence[str] = (),
    *,
    chartjs: str = "",
    strict: bool = False,
):
    """report.md (`lead`, then the sections, then `appendix`: markdown lines), report.html (with the
    Chart.js bundle at `chartjs`, if any) and results.json; `strict`: exit 1 on a failed run."""
    # The start-up block goes into results.json with the run: a report rebuilt elsewhere keeps it.
    meta = {**meta, "startup": latest_startup(out)}
    results = results_of(meta, sections)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    (out / "chart.svg").write_text(chart_svg(results))
    write_report(out, meta, sections, appendix, lead)
    html.write(out, meta, sections, Path(chartjs) if chartjs else None, answer_table(sections, LOCAL))
    print(f"report: {out / 'report.md'}")
    crossed = [
        f"{s['workload']} {s['load']} {mode} ({s['environment']})"
        for s in sections
        if "capacity" not in s  # a search's steps cross them by design
        for mode, r in s["results"].items()
        for run in r["runs"]
        if run.get("k6_exit")
    ]
    if crossed:
        print(f"generator thresholds crossed in: {', '.join(crossed)} (see the runs' .log files)")
    failed = [f"{s['workload']} {s['load']} {mode} ({s['environment']})" for s in sections for mode in s["failed"]]
    if failed:
        print(
            f"failed (a closed run crossed a threshold, or an open run dropped or failed below its bound): "
            f"{', '.join(failed)}"
        )
        if strict:
            sys.exit(1)
    elif crossed:
        print("every crossing above is an open run past its mode's bound: the overload it was made to show")


def rebuild(folder: Path, out: Path, chartjs: str = "") -> Path:
    """report.md, report.html and chart.svg of a run again, from its results.json alone: each
    section's tables from its load (the bench's own, found by script, parameters and name) and its
    figures, the verdict it carries, the suites' summaries after their last section. A run's
    results.json is its record; the report is a view of it. Returns report.md."""
    data = read_results(folder)
    native = data["meta"].get("info", {}).get("imageKind") == "native"
    sections: list[dict] = []
    last: dict[str, int] = {}
    for s in data["sections"]:
        if "capacity" in s:  # a search's section: its tables are its own
            sections.append({**s, **capacity_tables(dict(s))})
            continue
        suite, load = workloads.of_section(s)
        measured = LoadFigures.of(load, s["results"], service_pools(s.get("pools", {})))
        sections.append({**s, **section_tables(measured, native)})
        if suite is not None and suite.summary:
            last[suite.summary] = len(sections) - 1
    for name, i in last.items():
        sections[i]["summary"] = SUMMARIES[name](sections[: i + 1])
    out.mkdir(parents=True, exist_ok=True)
    (out / "chart.svg").write_text(chart_svg(data))
    write_report(out, data["meta"], sections)
    html.write(out, data["meta"], sections, Path(chartjs) if chartjs else None, answer_table(sections, LOCAL))
    return out / "report.md"


def main(argv: list[str]) -> None:
    args = reportcli.parse(argv)
    print(f"report: {rebuild(args.folder, args.out or args.folder, args.chartjs)}")


if __name__ == "__main__":
    command(main, sys.argv[1:])
