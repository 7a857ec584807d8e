"""The start-up page of 2026-11-29 (docs/results/2026-11-29-startup-off-the-path.md): its launches
table is its `./lab startup` report's, its first-minute tables are those the current code makes of
the run's record, and docs/findings.md quotes the page."""

from __future__ import annotations

import json
import unittest

from loomlab import ROOT
from loomlab.startup import firstminute
from loomlab.stats import Spread
from tests.markdown import block, cells

PAGE = ROOT / "docs/results/2026-11-29-startup-off-the-path.md"
RUNS = PAGE.with_suffix("")


def table(report: str, header: str) -> dict[str, list[str]]:
    """The report's table whose header row starts with `header`, by its first cell."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        row = cells(line)
        rows[row[0]] = row
    return rows


class LaunchesTest(unittest.TestCase):
    def test_every_cell_of_the_launches_table_is_the_reports(self):
        report = (RUNS / "launches/report.md").read_text()
        main = table(report, "| variant | first request ms")
        phases = table(report, "| phase |")
        header = cells(
            report.splitlines()[next(i for i, x in enumerate(report.splitlines()) if x.startswith("| phase |"))]
        )
        counters = table(report, "| variant | classes loaded")
        cpu = table(report, "| variant | CPU ms (all threads)")
        rows = block(PAGE.read_text(), "launches")
        self.assertEqual(len(rows), 3)
        for row in rows:
            variant = row[0].split(" (")[0]
            column = header.index(f"{variant} ms")
            self.assertEqual(row[1], main[variant][1], variant)
            self.assertEqual(row[2], phases["FlywayProcessor.startActions"][column], variant)
            self.assertEqual(row[3], phases["LifecycleEventsBuildStep.startupEvent"][column], variant)
            self.assertEqual(row[4], cpu[variant][1], variant)
            self.assertEqual(row[5], counters[variant][1], variant)
            self.assertEqual(row[6], main[variant][2], variant)


class FirstMinuteTest(unittest.TestCase):
    def test_the_reports_first_minute_is_what_the_code_makes_of_the_record_and_the_page_quotes_it(self):
        record = json.loads((RUNS / "first-minute/results.json").read_text())
        made = "\n\n".join(firstminute.tables(record["first_minute"]))
        report = (RUNS / "first-minute/report.md").read_text()
        self.assertIn(made, report)
        page = PAGE.read_text()
        for name in ("first-minute", "per-second"):
            for row in block(page, name):
                self.assertIn("| " + " | ".join(row) + " |", made, row)

    def test_the_findings_give_time_to_peak_beside_start_up(self):
        record = json.loads((RUNS / "first-minute/results.json").read_text())["first_minute"]
        findings = " ".join((ROOT / "docs" / "findings.md").read_text().split())
        for variant, said in (("jvm", "on the JVM"), ("jvm-aot", "with the cache")):
            peaks = {mode: Spread.of([x["to_peak_s"] for x in runs]).median for mode, runs in record[variant].items()}
            quoted = ", ".join(f"{mode.key} {peaks[mode.key]:.0f} s" for mode in firstminute.MODES)
            self.assertIn(f"{quoted} {said}", findings)


if __name__ == "__main__":
    unittest.main()
