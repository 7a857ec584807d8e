"""results.json as a typed record with a schema version, and the chart drawn from it."""

import json
import tempfile
import unittest
from pathlib import Path

from loomlab import LabError
from loomlab.bench.measuring import records
from loomlab.bench.reporting import chart
from loomlab.table import Table
from tests import test_bench


def sections():
    answered = test_bench.AnswerTest.section(
        "sleep",
        {"worker": [(480, 1000), (490, 1100), (485, 1050)], "virtual": [(3900, 180), (3800, 190), (3950, 170)]},
        {"worker": 500, "virtual": 5000},
    )
    answered["load"] = "closed <500 VUs>"
    answered["table"] = Table(["mode"])
    alone = test_bench.AnswerTest.section("tasks", {"virtual": [(3, 200)]}, {"virtual": 5000})
    return [answered, alone]


class ResultsTest(unittest.TestCase):
    def write(self, data) -> Path:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory()))
        (folder / "results.json").write_text(json.dumps(data))
        return folder

    def test_results_carry_the_schema_and_no_table(self):
        data = records.results_of({"date": "d"}, sections())
        self.assertEqual(data["schema"], records.SCHEMA_VERSION)
        self.assertNotIn("table", data["sections"][0])
        self.assertEqual(records.read_results(self.write(data))["sections"][0]["workload"], "sleep")

    def test_a_results_json_of_another_schema_is_refused(self):
        folder = self.write({"meta": {}, "sections": []})  # before the schema: version 1
        with self.assertRaises(LabError) as e:
            records.read_results(folder)
        self.assertIn("schema 1, this harness reads 2", str(e.exception))

    def test_another_command_s_results_json_is_refused_with_what_it_is(self):
        for other in ([{"variant": "jvm", "launches": []}], {"variants": {}}):
            with self.assertRaisesRegex(LabError, "not a bench run's results"):
                records.read_results(self.write(other))

    def test_a_folder_without_results_is_refused_in_words(self):
        with tempfile.TemporaryDirectory() as d, self.assertRaisesRegex(LabError, "results.json: no such file"):
            records.read_results(Path(d))


class ChartTest(unittest.TestCase):
    def test_one_group_per_answered_load_its_text_escaped(self):
        data = records.results_of({"date": "2026-11-24", "profile": "quick"}, sections())
        svg = chart.chart_svg(data)
        self.assertIn("closed &lt;500 VUs&gt;", svg)
        self.assertNotIn("tasks", svg)  # one mode: no answer, no group
        self.assertEqual(svg.count('fill-opacity="0.55"'), 2)  # a p99 bar per mode
        self.assertIn(">3,900.0<", svg)  # virtual's median req/s beside its bar
