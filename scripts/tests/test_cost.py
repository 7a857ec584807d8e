"""The cost page (docs/results/2026-11-28-cost.md, `./lab bench --profile cost`): its tables are its
report's, the report is its record's, and the README says what the page says."""

from __future__ import annotations

import unittest

from tests.markdown import cells


class CostPageTest(unittest.TestCase):
    """docs/results/2026-11-28-cost.md: its tables are the report's, the report is its record's, and
    the goals table quotes the reference tables."""

    @staticmethod
    def rows(text: str, start: str, end: str) -> list[list[str]]:
        part = text[text.index(start) :]
        part = part[: part.index(end)] if end in part else part
        return [cells(line) for line in part.splitlines() if line.startswith("| ")]

    def test_the_page_quotes_its_report_and_the_report_its_record(self):
        import contextlib
        import io
        import tempfile
        from pathlib import Path

        from loomlab import ROOT
        from loomlab.bench import report

        docs = ROOT / "docs" / "results"
        run = docs / "2026-11-28-cost"
        page = (docs / "2026-11-28-cost.md").read_text()
        text = (run / "report.md").read_text()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(report.rebuild(run, Path(tmp, "again")).read_text(), text)
        reference = "Against the reference server"
        even_report = self.rows(text[text.index("(0.8x the worker bound) (local JVM)") :], reference, "## ")
        burst_report = self.rows(text[text.index("every 100 ms (local JVM)") :], reference, "## ")
        even_page = self.rows(page, "## Evenly spaced arrivals", "## The same rate")
        burst_page = self.rows(page, "## The same rate in bursts", "## What the pattern")
        self.assertEqual(even_page, even_report)
        self.assertEqual(burst_page, burst_report)
        cpu_ratio = {"virtual": {}, "worker": {}, "reactive": {}}
        for pattern, rows in (("even", even_report), ("bursts", burst_report)):
            for row in rows:
                if row[0] in cpu_ratio:
                    cpu_ratio[row[0]][pattern] = row[4]
        for goal in self.rows(page, "## Against the issue's goals", "A3's best mode")[1:]:
            mode = goal[0].split()[0]
            self.assertEqual(goal[1:3], [cpu_ratio[mode]["even"], cpu_ratio[mode]["bursts"]], mode)
        readme = (ROOT / "README.md").read_text().replace("\n", " ")
        said = readme[readme.index("**What a virtual thread costs a request**") :][:700]
        for mode in ("virtual", "reactive"):
            for pattern in ("even", "bursts"):
                self.assertIn(cpu_ratio[mode][pattern], said, f"README: {mode}, {pattern}")
