"""Unit tests of the bench's ingest summary: the chunk-size sweep names the fastest size of each
(writes, mode), and the ratios compare like with like."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import loads  # noqa: E402


def section(domain, writes, chunk, rates, variant=""):
    runs = [{"records_per_s": r, "p50": 10.0, "p99": 20.0, "error_rate": 0.0} for r in rates]
    return {"workload": domain, "variant": variant, "env": {"WRITES": writes, "CHUNK": str(chunk)},
            "results": {"virtual": {"runs": runs}}}


class IngestSummaryTest(unittest.TestCase):

    def rows(self, sections):
        t = loads.ingest_summary(sections)
        h = t.headers
        return [dict(zip(h, row)) for row in t.rows]

    def test_best_chunk_is_the_fastest_median_per_writes_and_mode(self):
        rows = self.rows([section("recruits", "parallel", 100, [900, 1000, 1100]),
                          section("recruits", "parallel", 200, [1500, 1400, 1600]),
                          section("recruits", "parallel", 500, [1200, 1300, 1250]),
                          section("recruits", "sequential", 200, [700, 800, 750])])
        best = {(r["writes"], r["chunk"]): r["best chunk"] for r in rows}
        self.assertEqual(best[("parallel", "200")], "best")
        self.assertEqual(best[("parallel", "100")], "")
        self.assertEqual(best[("parallel", "500")], "")
        # One size only: no verdict to give.
        self.assertEqual(best[("sequential", "200")], "")

    def test_parallel_is_compared_with_sequential_of_the_same_chunk_size(self):
        rows = self.rows([section("candidates", "sequential", 100, [500]),
                          section("candidates", "sequential", 300, [1000]),
                          section("candidates", "parallel", 300, [1500])])
        parallel = next(r for r in rows if r["writes"] == "parallel")
        self.assertEqual(parallel["vs sequential"], "1.50x")

    def test_domains_and_setups_are_kept_apart(self):
        rows = self.rows([section("recruits", "parallel", 100, [1000]),
                          section("recruits", "parallel", 200, [2000], variant="rtt"),
                          section("candidates", "parallel", 100, [3000])])
        self.assertEqual([(r["domain"], r["setup"]) for r in rows],
                         [("recruits", "local"), ("recruits", "rtt"), ("candidates", "local")])


if __name__ == "__main__":
    unittest.main()
