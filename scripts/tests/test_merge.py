"""Unit tests of the distributed runs' merge (bench/measuring/merge.py): one runner's samples give k6's own
summary back; samples split over runners give the figures of the same samples in one run;
percentiles come from the union (never a mean of the runners'); thresholds are evaluated again on
the merged values; a missing or broken runner is an error, never a partial result."""

import copy
import gzip
import json
import tempfile
import unittest
from pathlib import Path

from loomlab import LabError, labreport
from loomlab.bench.measuring import k6csv, merge
from loomlab.bench.planning import loads
from loomlab.bench.running import runners

FIXTURE = Path(__file__).resolve().parent / "testdata" / "k6-runner"
STATS = ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"]
WANTED = {"http_req_duration", "http_reqs", "http_req_failed", "dropped_iterations"}
row, write = k6csv.row, k6csv.write


def requests(*args, **kw):
    return list(k6csv.requests(*args, **kw))


def summary(duration_s, p99_under=None):
    """A runner's summary as the lab's scripts declare it: what the merge reads is the metrics'
    names, types, trend statistics and thresholds, and the run's duration."""
    trend = {"type": "trend", "contains": "time", "values": {s: 0 for s in STATS}}
    if p99_under is not None:
        trend["thresholds"] = {f"p(99)<{p99_under}": {"ok": True}}
    return {
        "metrics": {
            "http_req_duration": copy.deepcopy(trend) | {"thresholds": {}},
            "http_req_duration{scenario:main}": trend,
            "http_reqs{scenario:main}": {
                "type": "counter",
                "values": {"count": 0, "rate": 0},
                "thresholds": {"count>0": {"ok": True}},
            },
            "http_req_failed{scenario:main}": {
                "type": "rate",
                "values": {"rate": 0},
                "thresholds": {"rate<0.05": {"ok": True}},
            },
            "dropped_iterations": {
                "type": "counter",
                "values": {"count": 0, "rate": 0},
                "thresholds": {"count<=0": {"ok": True}},
            },
            "vus": {"type": "gauge", "values": {"value": 1}},
        },
        "state": {"testRunDurationMs": duration_s * 1000},
    }


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(self.enterContext(tempfile.TemporaryDirectory(prefix="merge-test-")))

    def files(self, parts, **kw):
        paths = []
        for i, part in enumerate(parts):
            paths.append(self.dir / f"runner-{i}.csv.gz")
            write(paths[-1], part, **kw)
        return paths

    def merged(self, parts, duration_s=15.0, **kw):
        return merge.merge(self.files(parts, **kw), [summary(duration_s, **kw.pop("summary", {}))] * len(parts), WANTED)

    def test_one_runners_samples_give_k6s_own_summary_back(self):
        # A real k6 v1.8.1 run: its CSV and the summary k6 printed for it (testdata/k6-runner).
        own = json.loads((FIXTURE / "summary.json").read_text())
        merged = merge.merge([FIXTURE / "samples.csv.gz"], [own], WANTED)
        for key in (
            "http_req_duration",
            "http_req_duration{scenario:main}",
            "http_reqs{scenario:main}",
            "http_req_failed{scenario:main}",
            "dropped_iterations",
        ):
            for stat, value in own["metrics"][key]["values"].items():
                # k6's CSV writes values to the microsecond: the statistics agree to that.
                self.assertAlmostEqual(merged["metrics"][key]["values"][stat], value, places=5, msg=f"{key} {stat}")
            self.assertEqual(merged["metrics"][key].get("thresholds"), own["metrics"][key].get("thresholds"), key)
        # The setup's request (no scenario) is in the metric, not in the scenario's sub-metric.
        self.assertEqual(
            merged["metrics"]["http_req_duration"]["values"]["count"],
            merged["metrics"]["http_req_duration{scenario:main}"]["values"]["count"] + 1,
        )
        self.assertEqual(merge.crossed(merged), ["http_req_duration{scenario:main}: p(99.9)<1"])
        figures = labreport.k6_figures(merged, "main")
        self.assertAlmostEqual(figures["throughput"], labreport.k6_figures(own, "main")["throughput"], delta=0.05)

    def test_percentile_is_k6s_linear_interpolation(self):
        self.assertEqual(merge.percentile([10.0], 0.99), 10.0)
        self.assertAlmostEqual(merge.percentile([1.0, 2.0, 3.0, 4.0], 0.5), 2.5)
        self.assertAlmostEqual(merge.percentile([float(v) for v in range(1, 101)], 0.99), 99.01)

    def test_samples_split_over_runners_give_the_figures_of_one_run(self):
        samples = requests(3000, seed=1)
        one = labreport.k6_figures(self.merged([samples]), "main")
        for n in (2, 4):
            with self.subTest(runners=n):
                # k6's execution segments hand out arrivals in turn.
                split = self.merged([samples[i::n] for i in range(n)])
                figures = labreport.k6_figures(split, "main")
                for key, value in one.items():
                    if key not in ("throughput", "duration_s", "sd"):
                        self.assertAlmostEqual(figures[key], value, places=9, msg=key)
                # Each runner's window starts at its first request: the later runners' first
                # arrivals come a fraction of an interval later, and the union is that much longer.
                skew = split["start_skew_s"]
                self.assertLess(skew, n / 200.0)
                self.assertAlmostEqual(figures["duration_s"], one["duration_s"] + skew, places=6)
                self.assertEqual(split["runners"], n)

    def test_a_skewed_split_is_merged_from_the_union_not_from_the_runners_percentiles(self):
        fast = requests(9000, seed=2, rate=900.0)
        slow = requests(1000, seed=3, rate=100.0, slow=lambda rnd: rnd.uniform(400.0, 900.0))
        union = sorted(ms for _, ms, _ in fast + slow)
        exact = merge.percentile(union, 0.99)
        merged = self.merged([fast, slow], 10.0)["metrics"]["http_req_duration{scenario:main}"]["values"]
        self.assertAlmostEqual(merged["p(99)"], exact, places=5)
        each = [
            self.merged([part], 10.0)["metrics"]["http_req_duration{scenario:main}"]["values"]["p(99)"]
            for part in (fast, slow)
        ]
        self.assertGreater(
            abs(sum(each) / 2 - exact) / exact,
            0.20,
            "the split must be skewed enough that averaging the runners' p99 is wrong",
        )
        self.assertEqual(merged["count"], 10000)

    def test_counts_are_summed_and_the_rate_spans_the_union_of_windows(self):
        a = requests(100, seed=4, start=1_000_000, rate=10.0)
        b = requests(100, seed=5, start=1_500_000, rate=10.0)  # started half a second later
        merged = self.merged([a, b], 10.0, dropped=3)
        figures = labreport.k6_figures(merged, "main")
        self.assertEqual(figures["requests"], 200)
        self.assertEqual(figures["dropped"], 6)
        first_a = min(t - int(ms * 1000) for t, ms, _ in a)
        first_b = min(t - int(ms * 1000) for t, ms, _ in b)
        self.assertAlmostEqual(merged["start_skew_s"], (first_b - first_a) / 1e6, places=6)
        self.assertAlmostEqual(figures["duration_s"], 10.0 + (first_b - first_a) / 1e6, places=6)
        self.assertAlmostEqual(figures["throughput"], 200 / figures["duration_s"], places=9)
        self.assertAlmostEqual(figures["error_rate"], sum(f for _, _, f in a + b) / 200, places=12)
        # dropped_iterations' count<=0 held in each runner's summary and is crossed by the merge.
        self.assertIn("dropped_iterations: count<=0", merge.crossed(merged))

    def test_thresholds_are_evaluated_on_the_merged_values(self):
        fast = requests(980, seed=11, rate=980.0, slow=lambda rnd: 10.0)
        slow = requests(20, seed=12, rate=20.0, slow=lambda rnd: 1000.0)
        paths = self.files([fast, slow])
        # The fast runner alone holds p(99)<500 (its summary says ok); the union's p99 is rank
        # 989.01 of 1,000, among the slow runner's 20 requests of 1,000 ms: crossed.
        merged = merge.merge(paths, [summary(1.0, p99_under=500)] * 2, WANTED)
        self.assertIn("http_req_duration{scenario:main}: p(99)<500", merge.crossed(merged))
        alone = merge.merge(paths[:1], [summary(1.0, p99_under=500)], WANTED)
        self.assertEqual(merge.crossed(alone), [])

    def test_extra_tags_select_sub_metrics(self):
        tagged = [
            row("loomlab_chunk_duration", 2_000_000, 7.0, extra="transport=grpc"),
            row("loomlab_chunk_duration", 2_000_001, 9.0, extra="transport=http"),
        ]
        declared = summary(1.0)
        declared["metrics"]["loomlab_chunk_duration{transport:grpc}"] = {
            "type": "trend",
            "values": {"max": 0, "count": 0},
        }
        merged = merge.merge(
            self.files([requests(5, seed=13)], extra=tagged), [declared], WANTED | {"loomlab_chunk_duration"}
        )
        self.assertEqual(
            merged["metrics"]["loomlab_chunk_duration{transport:grpc}"]["values"], {"max": 7.0, "count": 1}
        )

    def test_other_scenarios_are_left_out(self):
        other = [
            row("http_req_duration", 2_000_000, 5000.0, scenario="warmup"),
            row("http_reqs", 2_000_000, 1, scenario="warmup"),
        ]
        plain = self.merged([requests(50, seed=6)])["metrics"]["http_req_duration{scenario:main}"]
        mixed = self.merged([requests(50, seed=6)], extra=other)["metrics"]["http_req_duration{scenario:main}"]
        self.assertEqual(plain, mixed)

    def test_a_missing_runner_is_an_error_not_a_partial_merge(self):
        paths = self.files([requests(10, seed=7), requests(10, seed=8)])
        paths[1].unlink()
        with self.assertRaisesRegex(merge.MergeError, "runner 1: no samples"):
            merge.merge(paths, [summary(1.0)] * 2, WANTED)
        with self.assertRaisesRegex(merge.MergeError, "1 sample files for 2 runner summaries"):
            merge.merge(paths[:1], [summary(1.0)] * 2, WANTED)

    def test_a_truncated_runner_file_is_an_error(self):
        paths = self.files([requests(2000, seed=9)])
        data = paths[0].read_bytes()
        paths[0].write_bytes(data[: len(data) // 2])
        with self.assertRaisesRegex(merge.MergeError, "truncated"):
            merge.merge(paths, [summary(1.0)], WANTED)

    def test_times_in_seconds_are_refused(self):
        path = self.dir / "seconds.csv.gz"
        with gzip.open(path, "wt") as f:
            f.write(
                k6csv.HEADER
                + "\n"
                + row("http_req_duration", 1795470137, 3.0).replace(",1795470137,", ",2026-11-23T21:00:00Z,")
            )
        with self.assertRaisesRegex(merge.MergeError, "K6_CSV_TIME_FORMAT=unix_micro"):
            merge.merge([path], [summary(1.0)], WANTED)

    def test_a_gauge_is_refused(self):
        with self.assertRaisesRegex(merge.MergeError, "vus is a gauge"):
            merge.merge(self.files([requests(5, seed=10)]), [summary(1.0)], WANTED | {"vus"})


class RunnersTest(unittest.TestCase):
    """The split (runners.py) around the merge: k6's segments, and a runner that failed."""

    def test_segments_cover_the_run_once(self):
        self.assertEqual(runners.segments(1), (["0:1"], "0,1"))
        self.assertEqual(runners.segments(4), (["0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"], "0,1/4,1/2,3/4,1"))
        self.assertEqual(runners.segment_flags(0, 1), [])
        self.assertEqual(
            runners.segment_flags(2, 3), ["--execution-segment", "2/3:1", "--execution-segment-sequence", "0,1/3,2/3,1"]
        )

    def run_dir(self, parts):
        out = Path(self.enterContext(tempfile.TemporaryDirectory(prefix="runners-test-"))) / "sleep-virtual-1.json"
        for i, part in enumerate(parts):
            write(runners.runner_file(out, i, "csv.gz"), part)
            runners.runner_file(out, i, "json").write_text(json.dumps(summary(5.0)))
        return out

    def test_a_runner_that_failed_fails_the_run(self):
        load = loads.Load(name="closed", script="k6/sleep.js", env={}, scenario="main")
        out = self.run_dir([requests(20, seed=14), requests(20, seed=15)])
        summary_, code = runners.merged_run(load, out, "sleep virtual", [0, 0], ["", ""])
        self.assertEqual(code, 0)
        self.assertEqual(len(summary_["runner_figures"]), 2)
        self.assertEqual(labreport.k6_figures(summary_, "main")["requests"], 40)
        with self.assertRaisesRegex(LabError, "runner 1 of 2 .* failed \\(exit 107\\).*\\n.*GoError"):
            runners.merged_run(load, out, "sleep virtual", [0, 107], ["", "GoError: boom"])
        runners.runner_file(out, 0, "json").unlink()
        with self.assertRaisesRegex(LabError, "runner 0 of 2 .* wrote no summary"):
            runners.merged_run(load, out, "sleep virtual", [0, 0], ["", ""])


if __name__ == "__main__":
    unittest.main()
