"""The generator spike (loomlab.spike): percentiles by nearest rank, each candidate's own output read
as the same figures, and the report's medians and ranges over the counted rounds only."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

from loomlab import ROOT
from loomlab.labreport import nearest_rank
from loomlab.spike.__main__ import report
from loomlab.spike.generators import hey, loadgen


class SpikeTest(unittest.TestCase):
    def test_nearest_rank_is_the_smallest_value_with_p_percent_at_or_below_it(self):
        values = [float(v) for v in range(100, 0, -1)]
        self.assertEqual([nearest_rank(values, p) for p in (50, 99, 100)], [50.0, 99.0, 100.0])

    def test_hey_s_csv_reads_as_requests_failures_and_latency(self):
        stem = Path(self.enterContext(tempfile.TemporaryDirectory())) / "r1-hey-A3"
        rows = ["response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"]
        rows += [f"{0.1 + i / 1000:.4f},0,0,0,0.1,0,{503 if i == 0 else 200},0.{i}" for i in range(10)]
        Path(str(stem) + ".stdout").write_text("\n".join(rows) + "\n")
        got = hey("hey").read("A3", stem)
        self.assertEqual((got.requests, got.failed), (10, 1))
        self.assertAlmostEqual(got.p50_ms, 104.0)
        self.assertAlmostEqual(got.p99_ms, 109.0)

    def test_each_candidate_sends_both_loads_but_vegeta_s_cli_only_the_open_one(self):
        stem = Path(self.enterContext(tempfile.TemporaryDirectory())) / "t"
        closed = loadgen("loadgen").command("A3", "http://127.0.0.1:1/x", stem)
        self.assertEqual(closed[closed.index("-users") + 1 : closed.index("-users") + 4], ["500", "-iterations", "10"])
        self.assertEqual(hey("hey").command("open", "http://h/x", stem)[:6], ["hey", "-z", "10s", "-c", "150", "-q"])

    def test_the_report_counts_the_rounds_not_the_warm_up(self):
        def t(r, cpu):
            return {
                "round": r,
                "generator": "hey",
                "load": "A3",
                "requests": 5000,
                "failed": 0,
                "req_per_s": 4000.0,
                "p50_ms": 101.0,
                "p99_ms": 120.0,
                "gen_cpu_ms_per_req": cpu,
                "server_cpu_ms_per_req": 0.05,
                "wall_s": 1.25,
            }

        md = report([t(0, 9.0), t(1, 0.05), t(2, 0.07), t(3, 0.06)], 3)
        self.assertIn("| A3 | hey | 0.060 (0.050-0.070) | 0.050 (0.050-0.050) | 4000 (4000-4000) |", md)


class SpikePageTest(unittest.TestCase):
    def test_the_page_s_table_is_its_run_s(self):
        run = ROOT / "docs/results/2026-11-28-load-generators"
        trials = json.loads((run / "results.json").read_text())
        table = [line for line in report(trials, 5).splitlines() if line.startswith("| ")]
        page = (run.parent / "2026-11-28-load-generators.md").read_text()
        for line in table:
            self.assertIn(line, page)
        self.assertEqual(len(table), 6)  # the header and five rows


if __name__ == "__main__":
    unittest.main()
