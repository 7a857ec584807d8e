"""The page on the knobs' sleep loads on loadgen (docs/results/2026-11-29-knobs-sleep-loadgen.md):
its figures against the reference server are its run's report's, section by section, and its
verdicts the report's answer."""

from __future__ import annotations

import unittest

from loomlab import ROOT
from tests.test_startup_page import block, table

PAGE = ROOT / "docs/results/2026-11-29-knobs-sleep-loadgen.md"
REPORT = PAGE.with_suffix("") / "report.md"
SECTIONS = {"A3": "## sleep: closed 500 VUs x 10 (A3)", "open 1,500 req/s": "## sleep: open 1500 req/s"}
COLUMNS = {
    "virtual": "virtual",
    "reactive": "reactive",
    "worker, 500 threads": "worker[threads=500]",
    "worker, 200 threads": "worker[threads=200]",
    "reactive, 1 loop": "reactive[loops=1]",
}


def section(report: str, heading: str) -> str:
    start = report.index(heading)
    end = report.find("\n## ", start + 1)
    return report[start : end if end > 0 else None]


class KnobsSleepPageTest(unittest.TestCase):
    def setUp(self):
        self.report = REPORT.read_text()

    def test_every_figure_against_the_reference_is_the_reports(self):
        rows = block(PAGE.read_text(), "reference")
        self.assertEqual(len(rows), 7)
        for load, mode, reqs, cpu, switches, _k6 in rows:
            with self.subTest(load=load, mode=mode):
                of_reference = table(section(self.report, SECTIONS[load]), "| mode | req/s | of the reference's")
                row = of_reference[COLUMNS[mode]]
                self.assertEqual(reqs.split(" (")[0], row[2].split(" (")[0])
                self.assertEqual(cpu.strip("*"), row[4])
                self.assertEqual(switches, row[6].split(" (")[0])

    def test_the_verdicts_are_the_reports_answer(self):
        answer = self.report[self.report.index("## The answer") :].splitlines()
        text = " ".join(PAGE.read_text().split())
        for load, said, on_page in (
            ("(A3)", "9.31x req/s (9.26-9.37)", "**9.31x (9.26-9.37)** vs worker"),
            ("open 600 req/s", "8.79x lower p99 (8.73-8.82)", "8.79x lower p99 (8.73-8.82)"),
            ("open 1500 req/s", "2.31x req/s (2.30-2.31)", "2.31x (2.30-2.31): the worker pool"),
        ):
            with self.subTest(load=load):
                row = next(line for line in answer if line.startswith("| sleep") and load in line)
                self.assertIn(said, row)
                self.assertIn(on_page, text)


if __name__ == "__main__":
    unittest.main()
