"""The report's arithmetic on fixed inputs: `python3 -m unittest discover -s scripts`."""

import math
import time
import unittest
from pathlib import Path

from loomlab import metrics, samples, stats
from loomlab.bench.measuring.figures import k6_figures, open_kept_up, open_verdict
from loomlab.bench.planning.bounds import efficiency, expected_max, littles_bound, max_quantile, stages_bound
from loomlab.bench.running.rounds import settled
from loomlab.table import Table, fmt_duration, fmt_spread


def summary(count=5000, rate=4000.0, avg=105.0, sq=None, scenario="sleep", dropped=None):
    d = {
        "avg": avg,
        "min": 100.0,
        "med": 102.0,
        "max": 177.0,
        "p(90)": 110.0,
        "p(95)": 120.0,
        "p(99)": 150.0,
        "count": count,
    }
    metrics = {
        "http_req_duration": {"values": {**d, "min": 1.0, "count": count + 2}},  # includes setup()
        f"http_req_duration{{scenario:{scenario}}}": {"values": d},
        f"http_reqs{{scenario:{scenario}}}": {"values": {"count": count, "rate": rate}},
        "http_reqs": {"values": {"count": count + 2, "rate": rate}},
        f"http_req_failed{{scenario:{scenario}}}": {"values": {"rate": 0.0}},
    }
    if sq is not None:
        metrics["loomlab_req_duration_sq"] = {"values": {"count": sq}}
    if dropped is not None:
        metrics["dropped_iterations"] = {"values": {"count": dropped}}
    return {"metrics": metrics, "state": {"testRunDurationMs": 1250.0}}


class LittlesLaw(unittest.TestCase):
    def test_seed_a3_worker_bound_is_500_per_second(self):
        self.assertEqual(littles_bound(50, 0.1), 500)

    def test_efficiency_of_the_seed_platform_run(self):
        self.assertAlmostEqual(efficiency(479.1, 500), 0.9582)

    def test_efficiency_without_bound_is_nan(self):
        self.assertTrue(math.isnan(efficiency(100, math.inf)))
        self.assertTrue(math.isnan(efficiency(100, 0)))

    def test_ratio(self):
        self.assertAlmostEqual(stats.ratio(3921.6, 479.1), 8.1854, places=3)
        self.assertTrue(math.isnan(stats.ratio(1, 0)))


class SlowestOfFour(unittest.TestCase):
    SEED_C = [(100, 300), (150, 400), (50, 200), (100, 250)]

    def test_expected_max_of_the_seed_c_delays(self):
        self.assertAlmostEqual(expected_max(self.SEED_C), 288.58, places=1)

    def test_p95_of_the_seed_c_delays(self):
        self.assertAlmostEqual(max_quantile(self.SEED_C, 0.95), 387.5, places=3)

    def test_one_range_is_its_mean(self):
        self.assertAlmostEqual(expected_max([(100, 300)]), 200.0, places=3)

    def test_fixed_latency(self):
        self.assertAlmostEqual(expected_max([(100, 100)]), 100.0, places=3)


class RampingBound(unittest.TestCase):
    def test_constant_users_give_users_over_latency(self):
        self.assertAlmostEqual(stages_bound([(10, 50)], 1 / 0.1, start_vus=50), 500.0)

    def test_linear_ramp_averages_half_the_peak(self):
        self.assertAlmostEqual(stages_bound([(10, 100)], 1.0), 50.0, places=6)

    def test_cap_limits_the_bound(self):
        self.assertAlmostEqual(stages_bound([(10, 100)], 1.0, cap=20.0, start_vus=100), 20.0)

    def test_seed_c_shape_averages_twenty_users(self):
        shape = [(60, 5), (60, 10), (60, 20), (60, 35), (120, 35), (60, 0)]
        self.assertAlmostEqual(stages_bound(shape, 1.0), 20.0, places=6)


class Spreads(unittest.TestCase):
    def test_median_and_range_of_three_runs(self):
        s = stats.Spread.of([4153.0, 4239.0, 4195.4])
        self.assertEqual((s.median, s.low, s.high, s.n), (4195.4, 4153.0, 4239.0, 3))

    def test_median_of_even_count_is_the_mean_of_the_middle_two(self):
        self.assertEqual(stats.Spread.of([1, 2, 3, 10]).median, 2.5)

    def test_nan_is_ignored(self):
        s = stats.Spread.of([math.nan, 2.0])
        self.assertEqual((s.median, s.n), (2.0, 1))

    def test_formatting_shows_the_range_only_when_runs_differ(self):
        self.assertEqual(fmt_spread(stats.Spread.of([1.0, 1.0])), "1.0")
        self.assertEqual(fmt_spread(stats.Spread.of([1.0, 2.0, 3.0])), "2.0 (1.0-3.0)")

    def test_aggregate_keeps_numeric_figures(self):
        agg = stats.aggregate([{"throughput": 1.0, "label": "x"}, {"throughput": 3.0, "label": "y"}])
        self.assertEqual(list(agg), ["throughput"])
        self.assertEqual(agg["throughput"].median, 2.0)

    def test_warm_up_settles_within_tolerance(self):
        self.assertFalse(settled(math.nan, 4000, 0.03))
        self.assertFalse(settled(3500, 3900, 0.03))
        self.assertTrue(settled(4000, 4100, 0.03))


class K6Summaries(unittest.TestCase):
    def test_figures_come_from_the_scenario_not_setup(self):
        f = k6_figures(summary(), "sleep")
        self.assertEqual(f["requests"], 5000)
        self.assertEqual(f["min"], 100.0)
        self.assertEqual(f["throughput"], 4000.0)
        self.assertEqual(f["duration_s"], 1.25)

    def test_the_load_is_rated_without_the_setup_the_script_measured(self):
        # 5,000 requests in a 2.25 s run whose setup waited 1 s (two refused readiness probes): the
        # load ran 1.25 s, 4,000 req/s; k6's own rate (over the whole run) would say 2,222.
        data = summary()
        data["state"]["testRunDurationMs"] = 2250.0
        data["setup_data"] = {"pools": {}, "setup": {"ms": 1000.0, "probes": 3}}
        f = k6_figures(data, "sleep")
        self.assertAlmostEqual(f["throughput"], 4000.0)
        self.assertEqual((f["setup_s"], f["setup_probes"]), (1.0, 3))

    def test_standard_deviation_from_the_sum_of_squares(self):
        # Two samples 100 and 110: mean 105, population sd 5; sum of squares 22100.
        self.assertAlmostEqual(stats.std_dev(22100, 105.0, 2), 5.0)
        f = k6_figures(summary(count=2, avg=105.0, sq=22100), "sleep")
        self.assertAlmostEqual(f["sd"], 5.0)

    def test_missing_figures_are_nan_or_zero(self):
        f = k6_figures({"metrics": {}}, "sleep")
        self.assertEqual(f["requests"], 0)
        self.assertTrue(math.isnan(f["mean"]))
        self.assertTrue(math.isnan(f["sd"]))
        self.assertEqual(f["dropped"], 0)

    def test_dropped_iterations(self):
        self.assertEqual(k6_figures(summary(dropped=17), "sleep")["dropped"], 17)


PROM = """# HELP jvm_threads_live_threads x
# TYPE jvm_threads_live_threads gauge
jvm_threads_live_threads 70.0
executor_queued_tasks{name="quarkus-worker"} 451.0
executor_queued_tasks{name="other"} 3.0
jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 100.0
jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 50.0
jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 1000.0
process_cpu_time_ns_total 2.5E9
agroal_awaiting_count NaN
"""


class WaitFigures(unittest.TestCase):
    """A threaded request's wait for the database: the bulkhead's, then Agroal's; one is missing when
    the bulkhead is off or the workload has none."""

    def test_waiters_add_up_and_the_longest_wait_wins_over_missing_figures(self):
        self.assertEqual(stats.nansum(80.0, 0.0), 80.0)
        self.assertEqual(stats.nansum(math.nan, 3.0), 3.0)
        self.assertTrue(math.isnan(stats.nansum(math.nan, math.nan)))
        self.assertEqual(stats.nanmax(222.0, 982.0), 982.0)
        self.assertEqual(stats.nanmax(math.nan, 165.0), 165.0)


class Prometheus(unittest.TestCase):
    def test_value_by_labels(self):
        self.assertEqual(metrics.value(metrics.parse(PROM), "executor_queued_tasks", {"name": "quarkus-worker"}), 451.0)

    def test_samples_are_summed_across_other_labels(self):
        self.assertEqual(metrics.value(metrics.parse(PROM), "jvm_memory_used_bytes", {"area": "heap"}), 150.0)

    def test_a_label_matches_by_name_not_as_a_substring_of_another(self):
        # thread_name="quarkus-worker" holds the text name="quarkus-worker": it is another label.
        text = 'executor_queued_tasks{name="other",thread_name="quarkus-worker"} 5.0\n'
        self.assertTrue(
            math.isnan(metrics.value(metrics.parse(text), "executor_queued_tasks", {"name": "quarkus-worker"}))
        )

    def test_a_real_scrape_gives_each_figure(self):
        # A reactive-mode pod's /q/metrics in the lab's cluster, 2026-11-24 (testdata/q-metrics.txt).
        text = (Path(__file__).resolve().parent / "testdata" / "q-metrics.txt").read_text()
        sample = metrics.scrape_sample(text)
        self.assertEqual((sample["live_threads"], sample["rss_bytes"], sample["cpu_ns"]), (20.0, 216944640.0, 9.82e9))
        self.assertEqual((sample["gc_pauses"], sample["submit_failed"], sample["pinned"]), (9.0, 0.0, 0.0))
        self.assertTrue(math.isnan(sample["bulkhead_waiting"]))  # the threaded bulkhead's gauge is not there
        self.assertEqual(metrics.api_requests(text), 2005.0)

    def test_absent_or_nan_is_nan(self):
        self.assertTrue(math.isnan(metrics.value(metrics.parse(PROM), "nope")))
        self.assertTrue(math.isnan(metrics.value(metrics.parse(PROM), "agroal_awaiting_count")))

    def test_server_figures_are_peaks_and_deltas(self):
        a = metrics.scrape_sample(PROM)
        b = metrics.scrape_sample(PROM.replace("70.0", "90.0").replace("2.5E9", "4.0E9"))
        c = metrics.scrape_sample(PROM.replace("2.5E9", "4.5E9"))
        f = samples.server_figures([a, b, c])
        self.assertEqual(f["peak_live_threads"], 90.0)
        self.assertAlmostEqual(f["cpu_s"], 2.0)
        self.assertEqual(samples.server_figures([a]), {})


class SeveralPods(unittest.TestCase):
    def test_a_deployment_scrape_adds_pods_up_but_keeps_the_longest_wait(self):
        a = {"live_threads": 40.0, "rss_bytes": 300e6, "thread_wait_max_s": 0.5, "cpu_ns": math.nan}
        b = {"live_threads": 60.0, "rss_bytes": 200e6, "thread_wait_max_s": 2.0, "cpu_ns": 3e9}
        c = samples.combined_sample([a, b])
        self.assertEqual((c["live_threads"], c["rss_bytes"], c["cpu_ns"]), (100.0, 500e6, 3e9))
        self.assertEqual(c["thread_wait_max_s"], 2.0)

    def test_a_pods_requests_are_its_api_answers_only(self):
        text = "\n".join(
            [
                "# TYPE http_server_requests_seconds summary",
                'http_server_requests_seconds_count{method="GET",status="200",uri="/api/worker/sleep"} 120.0',
                'http_server_requests_seconds_count{method="GET",status="503",uri="/api/worker/db/slow"} 3.0',
                'http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/q/metrics"} 40.0',
                'http_server_requests_seconds_sum{method="GET",status="200",uri="/api/worker/sleep"} 12.0',
            ]
        )
        self.assertEqual(metrics.api_requests(text), 123.0)
        self.assertEqual(metrics.api_requests(""), 0.0)


class OpenModel(unittest.TestCase):
    def test_below_the_bound_without_drops_holds(self):
        self.assertEqual(open_verdict(400, 500, 0, 0.0), "held")

    def test_drops_above_the_bound_are_the_expected_overload(self):
        self.assertEqual(open_verdict(600, 500, 474, 0.0), "overloaded (rate above its bound)")

    def test_drops_or_errors_below_the_bound_are_a_failure(self):
        self.assertEqual(open_verdict(400, 500, 3, 0.0), "FAILED below its bound")
        self.assertEqual(open_verdict(80, 100, 0, 0.02), "FAILED below its bound")

    def test_errors_under_the_tolerance_are_not_a_failure(self):
        self.assertEqual(open_verdict(80, 100, 0, 0.005), "held")

    def test_held_above_the_bound_is_said(self):
        self.assertEqual(open_verdict(600, 500, 0, 0.0), "held (above its bound)")

    def test_kept_up_means_no_drop_and_errors_under_the_tolerance(self):
        self.assertTrue(open_kept_up(0, 0.0099))
        self.assertFalse(open_kept_up(1, 0.0))
        self.assertFalse(open_kept_up(0, 0.01))

    def test_unknown_bound_is_never_above(self):
        self.assertEqual(open_verdict(600, math.nan, 1, 0.0), "FAILED below its bound")


class Progress(unittest.TestCase):
    def test_the_time_left_scales_the_plan_by_the_pace_so_far(self):
        from loomlab.bench.running.progress import Progress

        p = Progress(loads_total=4, planned_total=400, started=time.monotonic() - 150)
        # 100 planned seconds took 150: the 300 left will take about 450 (07:30).
        self.assertIn("about 07:30 left", p.tick(100))
        self.assertIn(" 25% of the plan", Progress(4, 400).tick(100))
        self.assertEqual(p.label(0), "[1/4]")

    def test_durations(self):
        self.assertEqual(fmt_duration(42.4), "42 s")
        self.assertEqual(fmt_duration(845), "14 min 05 s")


class Tables(unittest.TestCase):
    def test_markdown_and_text(self):
        t = Table(["mode", "req/s"])
        t.add("worker", "494.7")
        self.assertEqual(t.markdown(), "| mode | req/s |\n|---|---|\n| worker | 494.7 |")
        self.assertEqual(t.text(), "mode    req/s\n------  -----\nworker  494.7")


if __name__ == "__main__":
    unittest.main()
