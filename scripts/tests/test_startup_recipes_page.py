"""The page on both applications under Quarkus' AOT recipe and the open first minute
(docs/results/2026-11-30-startup-recipes.md): its tables are its `./lab startup` report's and what
the current code makes of the run's record, each ratio is the run's per-round median (min-max), its
arithmetic adds up from the report's phases, and docs/findings.md quotes it."""

from __future__ import annotations

import json
import unittest

from loomlab import ROOT
from loomlab.startup import firstminute, tables
from tests.markdown import block, body_rows, cells
from tests.test_quarkus_aot_page import per_round
from tests.test_startup_page import table

PAGE = ROOT / "docs/results/2026-11-30-startup-recipes.md"
RUN = PAGE.with_suffix("")
# Each variant's JVM, the ratio's denominator.
BASE = {"jvm": "jvm", "jvm-aot": "jvm", "jvm-aot-quarkus": "jvm"}
BASE |= {"minimal": "minimal", "minimal-aot": "minimal", "minimal-aot-quarkus": "minimal"}
SERVICE_ONLY = (
    "HibernateValidatorProcessor.init",
    "LifecycleEventsBuildStep.startupEvent",
    "SmallRyeOpenApiProcessor.prepareDocuments",
    "MicrometerProcessor.configureRegistry",
    "MicrometerProcessor.createRootRegistry",
)


def median_of(cell: str) -> float:
    return float(cell.split(" ")[0].replace(",", ""))


class StartupRecipesPageTest(unittest.TestCase):
    def setUp(self):
        self.report = (RUN / "report.md").read_text()
        self.record = json.loads((RUN / "results.json").read_text())
        self.page = PAGE.read_text()
        self.said = " ".join(self.page.split())

    def test_every_launch_cell_is_the_reports_and_each_ratio_the_rounds(self):
        main = table(self.report, "| variant | first request ms")
        counters = table(self.report, "| variant | classes loaded")
        cpu = table(self.report, "| variant | CPU ms (all threads)")
        rows = block(self.page, "launches")
        self.assertEqual([r[0].split(" (")[0] for r in rows], list(BASE))
        for row in rows:
            variant = row[0].split(" (")[0]
            with self.subTest(variant=variant):
                self.assertEqual(row[1], main[variant][1])
                ratio = "1" if BASE[variant] == variant else per_round(self.record["runs"], variant, BASE[variant])
                self.assertEqual(row[2], ratio)
                self.assertEqual(row[3], main[variant][2])
                self.assertEqual(row[4], counters[variant][2])
                self.assertEqual(row[5], cpu[variant][1])

    def test_the_service_against_the_minimal_application_is_the_code_s_table(self):
        made = tables.minimal_table(self.record["runs"])
        assert made is not None
        self.assertEqual(block(self.page, "minimal"), [[str(c) for c in r] for r in made.rows])

    def test_the_four_steps_and_what_is_left_add_up_from_the_phases(self):
        phases = table(self.report, "| phase |")
        lines = self.report.splitlines()
        header = cells(lines[next(i for i, x in enumerate(lines) if x.startswith("| phase |"))])
        service, floor = header.index("jvm-aot-quarkus ms"), header.index("minimal-aot-quarkus ms")
        first = phases["time to the first answer"]
        gap = median_of(first[service]) - median_of(first[floor])
        steps = sum(median_of(phases[p][service]) for p in SERVICE_ONLY)
        self.assertIn(f"the {gap:.0f} ms between the two", self.said)
        self.assertIn(f"has none of, {steps:.0f} ms", self.said)
        left = median_of(first[service]) - steps
        self.assertIn(f"about {left:.0f} ms, {left / median_of(first[floor]):.2f}x", self.said)

    def test_the_open_minute_is_what_the_code_makes_of_the_record(self):
        self.assertEqual(self.record["first_minute_load"], "open")
        made = firstminute.tables(self.record["first_minute"], "open")
        self.assertIn("\n\n".join(made), self.report)
        summary, latency = body_rows(made[2]), body_rows(made[6])
        for row in block(self.page, "open-minute"):
            with self.subTest(variant=row[0], mode=row[1]):
                full = next(r for r in summary if r[:2] == row[:2])
                self.assertEqual(row[2:5], full[3:6])
                self.assertEqual(row[5], next(r for r in latency if r[:2] == row[:2])[-1])

    def test_the_findings_quote_the_page(self):
        findings = " ".join((ROOT / "docs" / "findings.md").read_text().split())
        launches = {r[0].split(" (")[0]: r for r in block(self.page, "launches")}
        quarkus = launches["jvm-aot-quarkus"]
        self.assertIn(f"after {launches['jvm'][1].split(' ')[0]} ms on the JVM", findings)
        self.assertIn(f"at {quarkus[2].split(' ')[0]} of that time {quarkus[2].split(' ')[1]}", findings)
        rss = quarkus[3].split(" ")[0], launches["jvm"][3].split(" ")[0]
        self.assertIn(f"with {rss[0]} MB at the first answer against the JVM's {rss[1]};", findings)
        self.assertIn(f"the lab's cache on the fast-jar {launches['jvm-aot'][2].split(' ')[0]}.", findings)
        self.assertIn(f"gets {launches['minimal-aot-quarkus'][2]} of its own JVM time", findings)
        pairs = {r[0]: r for r in block(self.page, "minimal")}
        self.assertIn(f"stays {pairs['jvm-aot-quarkus / minimal-aot-quarkus'][3].split(' ')[0]} its time", findings)
        self.assertIn(f"({pairs['jvm / minimal'][3].split(' ')[0]} on the JVM)", findings)
        settled = {r[1]: r[5].split(" ")[0] for r in block(self.page, "open-minute") if r[0] == "jvm"}
        self.assertIn(
            f"after worker {settled['worker']} s, virtual {settled['virtual']} s, reactive {settled['reactive']} s",
            findings,
        )


if __name__ == "__main__":
    unittest.main()
