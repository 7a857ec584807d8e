"""The answer a k6 Job prints after its rounds (loomlab.bench.reporting.jobanswer): the bench's verdict from
the raw summaries run.sh wrote, and the bounds check that keeps a Job on its answer's pools."""

import copy
import json
import tempfile
import unittest
from pathlib import Path

from loomlab.bench.planning.lane import Lane
from loomlab.bench.reporting import jobanswer

FIXTURE = json.loads((Path(__file__).resolve().parent / "testdata" / "k6-runner" / "summary.json").read_text())


def summary(rate: float, p99: float) -> dict:
    """The real fixture summary with its request rate and latency set (scenario 'main')."""
    s = copy.deepcopy(FIXTURE)
    for name in ("http_reqs", "http_reqs{scenario:main}"):
        s["metrics"][name]["values"]["rate"] = rate
    for name in ("http_req_duration", "http_req_duration{scenario:main}"):
        s["metrics"][name]["values"]["p(99)"] = p99
    return s


class JobAnswer(unittest.TestCase):
    def write(self, folder: Path, rates: dict[str, list[float]]):
        for mode, per_round in rates.items():
            for r, rate in enumerate(per_round, 1):
                (folder / f"sleep-loom-lab-jvm-{mode}-r{r}.json").write_text(json.dumps(summary(rate, 200.0)))

    def test_a_clear_win_over_interleaved_rounds_is_named_with_its_interval(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(Path(d), {"worker": [480, 470, 490, 485, 475], "virtual": [3900, 3800, 3950, 3700, 3850]})
            section, text = jobanswer.answer_of(
                Path(d),
                "sleep.js",
                "loom-lab-jvm",
                [Lane("worker"), Lane("virtual")],
                5,
                {"VUS": "500", "ITERATIONS": "10", "SLEEP_MS": "100"},
                {"worker.max-threads": 50},
            )
        self.assertEqual(section["load"], "closed 500 VUs x 10 (A3)")
        self.assertEqual([len(section["results"][m]["runs"]) for m in ("worker", "virtual")], [5, 5])
        self.assertIn("virtual", text.split("answer:")[1])
        self.assertRegex(text, r"\d+\.\d\dx req/s \(\d+\.\d\d-\d+\.\d\d\) vs worker")
        self.assertAlmostEqual(section["bounds"]["worker"], 500.0)

    def test_one_round_names_no_winner(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(Path(d), {"worker": [480], "virtual": [3900]})
            _, text = jobanswer.answer_of(
                Path(d),
                "sleep.js",
                "loom-lab-jvm",
                [Lane("worker"), Lane("virtual")],
                1,
                {"VUS": "500", "ITERATIONS": "10", "SLEEP_MS": "100"},
                {"worker.max-threads": 50},
            )
        self.assertIn("cannot tell", text.split("answer:")[1])

    def test_pools_that_differ_from_the_answers_are_refused(self):
        self.assertEqual(
            jobanswer.expected("worker.max-threads=50,datasource.max-size=20"),
            {"worker.max-threads": "50", "datasource.max-size": "20"},
        )
