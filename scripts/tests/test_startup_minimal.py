"""The start-up floor: the service against the minimal application (scripts/minimal), paired by
launch, on the JVM, the lab's cache and Quarkus' recipe, and the 2026-11-27 page that quotes those runs."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock
from xml.etree import ElementTree

from loomlab import ROOT
from loomlab.bench.reporting import report
from loomlab.startup import __main__ as startup
from loomlab.startup import tables
from tests.markdown import cells


class AgainstTheMinimalApplication(unittest.TestCase):
    @staticmethod
    def launches(*ms: float) -> list[dict]:
        return [{"ttfr_ms": t, "rss_first_mb": 100.0} for t in ms]

    def test_the_ratio_pairs_launch_i_of_the_service_with_launch_i_of_the_minimal(self):
        runs = {"jvm": self.launches(2000, 3000, 1800), "minimal": self.launches(1000, 1000, 1200)}
        t = tables.minimal_table(runs)
        self.assertIsNotNone(t)
        assert t is not None
        self.assertEqual(len(t.rows), 1)  # no AOT pair ran
        row = t.rows[0]
        self.assertEqual(row[0], "jvm / minimal")
        # 2.0, 3.0 and 1.5: the median of the pairs, not 2000 / 1000 of the medians.
        self.assertEqual(row[3], "2.00x (1.50-3.00)")
        self.assertIn("missed", row[4])
        runs["jvm-aot"] = self.launches(700, 800)
        runs["minimal-aot"] = self.launches(500, 600)
        aot = tables.minimal_table(runs)
        assert aot is not None
        self.assertEqual(aot.rows[1][3], "1.37x (1.33-1.40)")
        self.assertIn("met", aot.rows[1][4])

    def test_quarkus_recipe_pairs_the_service_s_aot_jar_with_the_minimal_application_s(self):
        runs = {"jvm-aot-quarkus": self.launches(1300, 1400), "minimal-aot-quarkus": self.launches(400, 500)}
        t = tables.minimal_table(runs)
        assert t is not None
        self.assertEqual([r[0] for r in t.rows], ["jvm-aot-quarkus / minimal-aot-quarkus"])
        self.assertEqual(t.rows[0][3], "3.02x (2.80-3.25)")

    def test_a_recipe_not_built_is_a_note_and_a_built_one_a_variant_on_its_own_jar_and_cache(self):
        notes: list[str] = []

        def jvm(*more: str, app: Path) -> list[str]:
            return ["java", *more, "-jar", str(app)]

        with tempfile.TemporaryDirectory() as d, mock.patch.object(startup, "ROOT", Path(d)):
            app = Path(d) / "target/aot/minimal/target/quarkus-app"
            app.mkdir(parents=True)
            self.assertEqual(startup.quarkus_recipe("minimal-aot-quarkus", app, notes, jvm, loaded=False), {})
            self.assertIn("build it with ./lab aot", notes[-1])
            (app / "app.aot").write_bytes(b"")
            found = startup.quarkus_recipe("minimal-aot-quarkus", app, notes, jvm, loaded=False)
        variant = found["minimal-aot-quarkus"]
        self.assertEqual(variant.cmd, ["java", f"-XX:AOTCache={app / 'app.aot'}", "-jar", str(app / "quarkus-run.jar")])
        self.assertFalse(variant.loaded)

    def test_without_a_pair_there_is_no_table(self):
        self.assertIsNone(tables.minimal_table({"jvm": self.launches(2000)}))
        self.assertIsNone(tables.minimal_table({"minimal": self.launches(500), "jvm-aot": self.launches(900)}))

    def test_no_jar_no_minimal_variant_and_a_note_that_says_so(self):
        argv = ["--java", "java", "--loadgen", "loadgen", "--out", "out", "--minimal", "/nonexistent/run.jar"]
        args = startup.parse(argv)
        notes: list[str] = []
        with mock.patch.object(startup, "train") as train:
            self.assertEqual(startup.minimal(args, mock.Mock(), Path("out"), notes, lambda *a, **k: []), {})
        train.assert_not_called()
        self.assertTrue(any(n.startswith("minimal: no minimal application") for n in notes))

    def test_the_minimal_application_builds_on_the_service_s_quarkus_and_java_release(self):
        def properties(pom: Path) -> dict[str, str]:
            ns = {"m": "http://maven.apache.org/POM/4.0.0"}
            props = ElementTree.parse(pom).getroot().find("m:properties", ns)
            assert props is not None
            return {p.tag.split("}")[1]: (p.text or "") for p in props}

        service, floor = properties(ROOT / "pom.xml"), properties(ROOT / "scripts/minimal/pom.xml")
        for key in ("quarkus.platform.version", "maven.compiler.release", "compiler-plugin.version"):
            self.assertEqual(floor[key], service[key], key)

    def test_the_results_page_quotes_its_runs(self):
        # docs/results/2026-11-27-start-up-floor.md: the service over the minimal application, paired by launch.
        docs = ROOT / "docs" / "results"
        page = " ".join((docs / "2026-11-27-start-up-floor.md").read_text().split())
        runs = json.loads((docs / "2026-11-27-start-up-floor" / "minimal" / "results.json").read_text())["runs"]
        t = tables.minimal_table(runs)
        assert t is not None
        for row in t.rows:
            self.assertIn(f"| {row[1]} | {row[2]} | {row[3]} |", page)

    def test_the_aot_throughput_table_is_its_run(self):
        # Each row of the page's table: the run's knobs table row for that load's <mode>[aot] column.
        docs = ROOT / "docs" / "results"
        run = docs / "2026-11-27-start-up-floor" / "aot-throughput"
        page = (docs / "2026-11-27-start-up-floor.md").read_text()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(run, Path(tmp, "again")).read_text()
        self.assertEqual(text, (run / "report.md").read_text())
        rows = [line for line in text.splitlines() if line.startswith("| ") and "[aot] |" in line and "x (" in line]
        self.assertEqual(len(rows), 7)
        for line in rows:
            row = cells(line)
            self.assertIn(f"| {row[0].split('[')[0]} | {' | '.join(row[1:5])} |", page)


if __name__ == "__main__":
    unittest.main()
