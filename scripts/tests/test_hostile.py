"""The hostile suite's bodies are what their names say (the service's answers are the suite's own
run, in ./lab test and CI), and its table keeps every row."""

from __future__ import annotations

import json
import math
import unittest
from pathlib import Path

from loomlab.hostile import bodies
from loomlab.hostile.__main__ import table
from loomlab.hostile.cases import Row, bodies_to_send
from loomlab.hostile.watch import Cost

LIMIT = 10 << 20  # quarkus.http.limits.max-body-size
PAGE = Path(__file__).resolve().parents[2] / "docs/results/2026-11-28-hostile.md"


class BodiesTest(unittest.TestCase):
    def test_every_body_but_the_over_the_limit_one_fits_the_limit(self) -> None:
        for case in bodies_to_send(at_once=1):
            size = len(case.make())
            if case.allowed == frozenset({413}):
                self.assertGreater(size, LIMIT, case.name)
            else:
                self.assertLessEqual(size, LIMIT, case.name)

    def test_a_key_given_twice_is_valid_json_whose_last_key_empties_the_skills(self) -> None:
        body = bodies.key_twice()
        self.assertEqual(body.count(b'"skills"'), 2)
        self.assertEqual(json.loads(body)[0]["skills"], [])

    def test_half_a_surrogate_pair_is_sent_escaped(self) -> None:
        self.assertIn(b'"a\\ud800b"', bodies.lone_surrogate())
        self.assertEqual(json.loads(bodies.lone_surrogate())[0]["company"], "a\ud800b")

    def test_a_time_as_a_number_and_a_violation_per_element(self) -> None:
        self.assertEqual(json.loads(bodies.time_as_number())[0]["postedAt"], 1e64)
        records = json.loads(bodies.violation_per_element({}))
        self.assertEqual((len(records), {len(r["skills"]) for r in records}), (1_000, {50}))


class TableTest(unittest.TestCase):
    def test_one_line_a_row_and_a_failed_row_said(self) -> None:
        cost = Cost(0.25, 180.4, 7, 7)
        rows = [
            Row("cost", "a", "1 bytes x1 to worker", "400", 0.5, cost, True),
            Row("liveness", "b", "64 clients", "live 5 probes 200", 0.3, Cost(1, 200, 7, 7), False),
        ]
        lines = table(rows).splitlines()
        self.assertEqual(len(lines), 4)
        self.assertIn("| 0.25 | 180 | 7 -> 7 | yes |", lines[2])
        self.assertTrue(lines[3].endswith("| NO |"))
        self.assertFalse(math.isnan(cost.cpu_s))


class PageTest(unittest.TestCase):
    def test_the_page_shows_the_rows_its_run_wrote(self) -> None:
        rows = json.loads(PAGE.with_suffix("").joinpath("hostile.json").read_text())
        built = table([Row(**{**r, "cost": Cost(**r["cost"])}) for r in rows])
        self.assertIn(built, PAGE.read_text())


if __name__ == "__main__":
    unittest.main()
