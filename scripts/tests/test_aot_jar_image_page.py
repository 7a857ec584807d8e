"""The aot-jar image's page (docs/results/2026-11-30-aot-jar-image.md, `./lab k8s starts`): its
tables are its report's, and the report's figures are its record's."""

from __future__ import annotations

import json
import statistics
import unittest

from loomlab import ROOT

DOCS = ROOT / "docs" / "results"
RUN = DOCS / "2026-11-30-aot-jar-image"
# The queue autoscaler's four runs, in their ABBA order.
AUTOSCALE = ("1-jvm", "2-jvm-aot", "3-jvm-aot", "4-jvm")


def between(text: str, name: str) -> str:
    return text.split(f"<!-- {name} -->\n", 1)[1].split(f"\n<!-- /{name} -->", 1)[0]


class AotJarImagePageTest(unittest.TestCase):
    def test_the_pages_tables_are_the_reports(self):
        page = (DOCS / "2026-11-30-aot-jar-image.md").read_text()
        report = (RUN / "starts.md").read_text()
        for name in ("starts", "paired"):
            with self.subTest(name):
                table = between(page, name)
                self.assertIn(table, report)

    def test_the_autoscale_tables_are_the_runs(self):
        from loomlab.incluster.experiments.autoscaletable import table

        page = (DOCS / "2026-11-30-aot-jar-image.md").read_text()
        runs = [json.loads((RUN / "autoscale" / f"{name}.json").read_text()) for name in AUTOSCALE]
        self.assertEqual(between(page, "autoscale"), table(runs).markdown())
        shed = [f"{round(r['figures']['error_rate'] * r['figures']['requests']):,}" for r in runs]
        self.assertIn(f"| JVM (runs 1 and 4) | {shed[0]}, {shed[3]} |", page)
        self.assertIn(f"| JVM + AOT cache on the aot-jar (runs 2 and 3) | {shed[1]}, {shed[2]} |", page)

    def test_the_reports_first_answers_are_the_records(self):
        record = json.loads((RUN / "starts.json").read_text())
        report = (RUN / "starts.md").read_text()
        self.assertEqual(record["rounds"], 6)
        by_variant: dict[str, list[float]] = {}
        for start in record["starts"]:
            by_variant.setdefault(start["variant"], []).append(start["answered_s"])
        for variant, label in (("jvm", "in-cluster JVM |"), ("jvm-aot", "in-cluster JVM+AOT |")):
            row = next(x for x in report.splitlines() if x.startswith(f"| {label}") and " x 1 " in x)
            self.assertIn(f"{statistics.median(by_variant[variant]):.2f} (", row, variant)
