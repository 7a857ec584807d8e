"""Unit tests of the cluster's experiments (loomlab.incluster.experiments): failover's failures,
scale-out's table, and the pages that quote their runs (the cluster's share, the cgroup's cost)."""

import unittest

from tests.markdown import cells


class Failover(unittest.TestCase):
    def test_failed_requests_and_their_window_from_k6s_csv(self):
        from loomlab.incluster.experiments.failover import failures, summary_line

        # loadgen's -samples: sent at 10 s, 10.5 s, 11 s, 12 s; a 503 and no answer among them.
        samples = (
            "timestamp_us,latency_us,status,error\n10000000,100000,200,\n10500000,3000,503,\n"
            '11000000,5000,0,"dial tcp: connection refused"\n12000000,101000,200,\n'
        )
        total, failed = failures(samples)
        self.assertEqual((total, [t for t, _ in failed]), (4, [10.5, 11.0]))
        self.assertEqual(
            summary_line(total, failed, killed_at=10.0),
            "2 of 4 requests failed (1 HTTP 503, 1 no answer), from +0.5 s to +1.0 s after the kill",
        )
        self.assertEqual(summary_line(4, [], 10.0), "none of 4 requests failed")


class ScaleOut(unittest.TestCase):
    @staticmethod
    def section(mode, pods, rps, p99, rss_mb=400, threads=60):
        run = {
            "throughput": rps,
            "p99": p99,
            "error_rate": 0.0,
            "dropped": 0,
            "peak_rss_bytes": rss_mb * 1e6,
            "cpu_s": 2.0,
            "requests": 4000,
            "peak_live_threads": threads,
        }
        return {
            "workload": "sleep",
            "load": "open 750 req/s",
            "environment": f"in-cluster JVM, {pods} pod",
            "results": {mode: {"runs": [run, run]}},
        }

    def test_the_fewest_worker_pods_that_match_the_virtual_pod(self):
        from loomlab.incluster.experiments import scale

        sections = [
            self.section("worker", 1, 500, 2000, 400, 120),
            self.section("worker", 2, 745, 130, 800, 240),
            self.section("worker", 4, 750, 110, 1600, 480),
            self.section("virtual", 1, 750, 120, 400, 40),
        ]
        md = "\n".join(scale.tables(sections))
        self.assertIn(
            "**2 worker pods matched one virtual pod (req/s 745.0 against 750.0, p99 130.0 against 120.0 ms),"
            " at 2.0x its RSS and 6.0x its threads**",
            md,
        )
        self.assertIn("| worker x 4 | 750.0 | 110.0 | 0.00 | 0 | 1,600 | 0.500 | 480 |", md)

    def test_or_that_the_most_tried_did_not(self):
        from loomlab.incluster.experiments import scale

        sections = [self.section("worker", r, 500 * r / 4, 900) for r in (1, 2, 4)] + [
            self.section("virtual", 1, 750, 120)
        ]
        self.assertIn(
            "**none of 1, 2, 4 worker pods matched one virtual pod; the closest, 4 pods: req/s 500.0 against"
            " 750.0, p99 900.0 against 120.0 ms**",
            "\n".join(scale.tables(sections)),
        )


class ClusterSharePage(unittest.TestCase):
    def test_the_node_cpu_table_is_the_runs(self):
        from loomlab import ROOT
        from loomlab.bench.measuring import records
        from loomlab.incluster.core import nodecpu

        docs = ROOT / "docs" / "results"
        data = records.read_results(docs / "2026-11-27-cluster-share" / "cluster")
        t = nodecpu.table(data["sections"])
        assert t is not None
        self.assertIn(t.markdown(), (docs / "2026-11-27-cluster-share.md").read_text())


class CgroupPageTest(unittest.TestCase):
    def test_the_page_quotes_each_columns_cpu_ratio(self):
        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = " ".join((docs / "2026-11-27-cluster-share.md").read_text().split())
        for run, columns in (
            ("pod-heap", ("pod-heap",)),
            ("quota", ("quota2",)),
            ("cgroup", ("cgroup", "quota2")),
            ("cgroup-carriers", ("carriers1", "cgroup")),
            ("cgroup-one-carrier", ("cgroup",)),
        ):
            text = (docs / "2026-11-27-cluster-share" / run / "report.md").read_text()
            for column in columns:
                for mode in ("virtual", "reactive"):
                    rows = [line for line in text.splitlines() if line.startswith(f"| {mode}[{column}] |")]
                    knobs = [line for line in rows if line.count("x (") >= 4]
                    for line in knobs:
                        cpu = cells(line)[3]
                        self.assertIn(cpu, page, f"{run}: {mode}[{column}]")

    def test_the_page_quotes_each_pair_of_runs(self):
        import json
        import statistics

        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = " ".join((docs / "2026-11-27-cluster-share.md").read_text().split())

        def a3(run: str, mode: str) -> float:
            data = json.loads((docs / "2026-11-27-cluster-share" / run / "results.json").read_text())
            section = next(s for s in data["sections"] if "A3" in s["load"])
            return statistics.median(r["throughput"] for r in section["results"][mode]["runs"])

        for local, cluster in (
            ("local", "cluster"),
            ("kernel-local", "kernel-cluster"),
            ("kernel-local", "no-cpu-limit"),
            ("third-local", "third-cluster"),
        ):
            for mode in ("virtual", "reactive"):
                here, there = a3(local, mode), a3(cluster, mode)
                self.assertIn(f"{here:,.0f} / {there:,.0f} ({there / here:.2f})", page, f"{cluster} {mode}")


if __name__ == "__main__":
    unittest.main()
