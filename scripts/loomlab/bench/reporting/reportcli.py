"""`./lab report`'s options, apart from the report's code (so `./lab report --help` reads them
without the harness's packages)."""

from __future__ import annotations

import argparse
from pathlib import Path

DESCRIPTION = (
    "A run's report.md, report.html and chart.svg written again from its results.json alone (a"
    " committed run's too): the same templates and verdicts as the run's own."
)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab report", description=DESCRIPTION)
    p.add_argument("folder", type=Path, help="a run's folder, or any folder with its results.json")
    p.add_argument("--out", type=Path, default=None, help="where the report goes (default: the folder)")
    p.add_argument("--chartjs", default="", help="the Chart.js bundle for report.html's charts (./lab passes it)")
    return p.parse_args(argv)
