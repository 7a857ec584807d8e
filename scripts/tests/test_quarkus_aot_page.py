"""The page on Quarkus' AOT recipe (docs/results/2026-11-29-quarkus-aot.md): its launches table is
its `./lab startup` report's, and each ratio against the JVM is the per-round median (min-max) of
the run's record."""

from __future__ import annotations

import json
import statistics
import unittest

from loomlab import ROOT
from tests.test_startup_page import block, table

PAGE = ROOT / "docs/results/2026-11-29-quarkus-aot.md"
RUN = PAGE.with_suffix("")


def per_round(runs: dict, variant: str, against: str) -> str:
    """The variant's time to the first answer over the other's, launch by launch: median (min-max)."""
    ratios = [a["ttfr_ms"] / b["ttfr_ms"] for a, b in zip(runs[variant], runs[against], strict=True)]
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


class QuarkusAotPageTest(unittest.TestCase):
    def setUp(self):
        self.report = (RUN / "report.md").read_text()
        self.runs = json.loads((RUN / "results.json").read_text())["runs"]
        self.rows = block(PAGE.read_text(), "launches")

    def test_every_cell_is_the_reports(self):
        main = table(self.report, "| variant | first request ms")
        counters = table(self.report, "| variant | classes loaded")
        cpu = table(self.report, "| variant | CPU ms (all threads)")
        self.assertEqual([r[0].split(" (")[0] for r in self.rows], ["jvm", "jvm-aot", "jvm-aot-quarkus"])
        for row in self.rows:
            variant = row[0].split(" (")[0]
            with self.subTest(variant=variant):
                self.assertEqual(row[1], main[variant][1])
                self.assertEqual(row[3], main[variant][2])
                self.assertEqual(row[4], counters[variant][2])
                self.assertEqual(row[5], cpu[variant][1])
                self.assertEqual(row[6], main[variant][6])

    def test_each_ratio_is_the_rounds(self):
        for row in self.rows[1:]:
            variant = row[0].split(" (")[0]
            self.assertEqual(row[2], per_round(self.runs, variant, "jvm"), variant)
        text = PAGE.read_text()
        median, spread = per_round(self.runs, "jvm-aot-quarkus", "jvm-aot").split(" ")
        self.assertIn(f"{median} of the lab's cache's time {spread}", text)

    def test_the_findings_quote_the_page(self):
        quarkus, aot = self.rows[2], self.rows[1]
        findings = (ROOT / "docs" / "findings.md").read_text()
        median, spread = quarkus[2].split(" ")
        said = " ".join(findings.split())
        self.assertIn(f"Quarkus' recipe at {median} of the JVM's time {spread[:-1]} over 5 rounds)", said)
        self.assertIn(f"against the lab's cache's {aot[2].split(' ')[0]}", said)
        rss = quarkus[3].split(" ")[0]
        self.assertIn(f"with {rss} MB at the first answer against the JVM's {self.rows[0][3].split(' ')[0]}", said)

    def test_the_report_ran_quarkus_recipe(self):
        self.assertIn("jvm-aot-quarkus: Quarkus' own recipe (./lab aot): the aot-jar packaging", self.report)


if __name__ == "__main__":
    unittest.main()
