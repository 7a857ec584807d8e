"""Unit tests of the bench's ingest summary: the chunk-size sweep names the fastest size of each
(writes, mode), and the ratios compare like with like."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import loads  # noqa: E402
import labreport  # noqa: E402


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


class GrpcTransportTest(unittest.TestCase):

    def test_grpc_suite_streams_the_same_records_through_its_own_script(self):
        http = loads.ingest_suite("candidates", 3_000, "", {}, 1, strategies=("parallel",))
        grpc = loads.ingest_suite("candidates", 3_000, "", {}, 1, strategies=("parallel",), transport="grpc")
        self.assertEqual(grpc.loads[0].script, "k6/ingest-grpc.js")
        self.assertEqual(grpc.loads[0].scenario, "candidates_grpc")
        self.assertEqual(grpc.loads[0].env, {**http.loads[0].env, "DOMAIN": "candidates"})
        self.assertEqual(grpc.variant, "gRPC stream")
        self.assertEqual(grpc.workload, http.workload)

    def test_a_stream_reads_its_chunks_as_requests(self):
        summary = {"metrics": {
            "http_reqs": {"values": {"count": 1, "rate": 0.1}},  # setup()'s readiness probe
            "lab_chunks{scenario:recruits_grpc}": {"values": {"count": 30, "rate": 15.0}},
            "lab_chunk_duration{scenario:recruits_grpc}": {"values": {"avg": 60.0, "med": 58.0, "p(99)": 90.0}},
            "lab_chunk_failed{scenario:recruits_grpc}": {"values": {"rate": 0.0}}}}
        f = labreport.k6_figures(summary, "recruits_grpc")
        self.assertEqual((f["requests"], f["throughput"], f["p50"], f["p99"]), (30, 15.0, 58.0, 90.0))


if __name__ == "__main__":
    unittest.main()
