"""Unit tests of the bench's ingest summary: the chunk-size sweep names the fastest size of each
(writes, mode), and the ratios compare like with like."""

import unittest

from loomlab import LabError
from loomlab.bench.measuring.figures import k6_figures
from loomlab.bench.planning import loads, profiles
from loomlab.bench.planning.lane import REACTIVE, RX, VIRTUAL, WORKER, Lane
from loomlab.bench.planning.plan import modes_named, suite_lanes
from loomlab.bench.reporting import compare, summaries, tables
from loomlab.bench.reporting.loadfigures import LoadFigures
from loomlab.bench.workloads import db, ingest, sleep


def suite_modes(suite, modes: set) -> list[str]:
    """The suite's columns' names in the rounds' order."""
    return [lane.key for lane in suite_lanes(suite, modes)]


def section(domain, writes, chunk, rates, variant=""):
    runs = [{"records_per_s": r, "p50": 10.0, "p99": 20.0, "error_rate": 0.0} for r in rates]
    return {
        "workload": domain,
        "variant": variant,
        "env": {"WRITES": writes, "CHUNK": str(chunk)},
        "results": {"virtual": {"runs": runs}},
    }


class IngestSummaryTest(unittest.TestCase):
    def rows(self, sections):
        t = summaries.ingest_summary(sections)
        h = t.headers
        return [dict(zip(h, row, strict=False)) for row in t.rows]

    def test_best_chunk_is_the_fastest_median_per_writes_and_mode(self):
        rows = self.rows(
            [
                section("recruits", "parallel", 100, [900, 1000, 1100]),
                section("recruits", "parallel", 200, [1500, 1400, 1600]),
                section("recruits", "parallel", 500, [1200, 1300, 1250]),
                section("recruits", "sequential", 200, [700, 800, 750]),
            ]
        )
        best = {(r["writes"], r["chunk"]): r["best chunk"] for r in rows}
        self.assertEqual(best[("parallel", "200")], "best")
        self.assertEqual(best[("parallel", "100")], "")
        self.assertEqual(best[("parallel", "500")], "")
        # One size only: no verdict to give.
        self.assertEqual(best[("sequential", "200")], "")

    def test_parallel_is_compared_with_sequential_of_the_same_chunk_size(self):
        rows = self.rows(
            [
                section("candidates", "sequential", 100, [500]),
                section("candidates", "sequential", 300, [1000]),
                section("candidates", "parallel", 300, [1500]),
            ]
        )
        parallel = next(r for r in rows if r["writes"] == "parallel")
        self.assertEqual(parallel["vs sequential"], "1.50x")

    def test_domains_and_setups_are_kept_apart(self):
        rows = self.rows(
            [
                section("recruits", "parallel", 100, [1000]),
                section("recruits", "parallel", 200, [2000], variant="rtt"),
                section("candidates", "parallel", 100, [3000]),
            ]
        )
        self.assertEqual(
            [(r["domain"], r["setup"]) for r in rows],
            [("recruits", "local"), ("recruits", "rtt"), ("candidates", "local")],
        )


class GrpcTransportTest(unittest.TestCase):
    def test_grpc_suite_streams_the_same_records_through_its_own_script(self):
        http = ingest.ingest_suite("candidates", 3_000, "", {}, 1, strategies=("parallel",))
        grpc = ingest.ingest_suite("candidates", 3_000, "", {}, 1, strategies=("parallel",), transport="grpc")
        self.assertEqual(grpc.loads[0].script, "k6/ingest-grpc.js")
        self.assertEqual(grpc.loads[0].scenario, "candidates_grpc")
        self.assertEqual(grpc.loads[0].env, {**http.loads[0].env, "DOMAIN": "candidates"})
        self.assertEqual(grpc.variant, "gRPC stream")
        self.assertEqual(grpc.workload, http.workload)

    def test_a_stream_reads_its_chunks_as_requests(self):
        summary = {
            "metrics": {
                "http_reqs": {"values": {"count": 1, "rate": 0.1}},  # setup()'s readiness probe
                "loomlab_chunks{scenario:recruits_grpc}": {"values": {"count": 30, "rate": 15.0}},
                "loomlab_chunk_duration{scenario:recruits_grpc}": {"values": {"avg": 60.0, "med": 58.0, "p(99)": 90.0}},
                "loomlab_chunk_failed{scenario:recruits_grpc}": {"values": {"rate": 0.0}},
            }
        }
        f = k6_figures(summary, "recruits_grpc")
        self.assertEqual((f["requests"], f["throughput"], f["p50"], f["p99"]), (30, 15.0, 58.0, 90.0))


class IngestSetupTest(unittest.TestCase):
    def test_the_setup_column_says_where_a_chunk_stream_ran(self):
        self.assertEqual(summaries.ingest_setup({"variant": "", "environment": "local JVM"}), "local")
        self.assertEqual(summaries.ingest_setup({"variant": ""}), "local")
        self.assertEqual(summaries.ingest_setup({"variant": "", "environment": "in-cluster JVM"}), "in-cluster JVM")
        self.assertEqual(summaries.ingest_setup({"variant": "gRPC stream", "environment": "local JVM"}), "gRPC stream")


class ReactiveModeTest(unittest.TestCase):
    def suites(self, profile):
        return {(s.workload, s.variant): s for s in profiles.suites(profile)}

    def test_the_reactive_mode_runs_where_the_workload_has_an_event_loop_form(self):
        for profile in ("smoke", "quick", "seeds"):
            suites = self.suites(profile)
            self.assertEqual(
                suite_modes(suites[("sleep", "")], set()), ["worker", "virtual", "virtual-loop", "reactive"]
            )
            # db and product also measure virtual threads awaiting the reactive clients.
            for workload in ("product", "db"):
                self.assertEqual(
                    suite_modes(suites[(workload, "")], set()),
                    ["worker", "virtual", "virtual-loop", "reactive", "virtual+rx"],
                )
        for profile in ("smoke", "rest", "seeds"):
            suites = self.suites(profile)
            for workload in ("tasks", "pinning"):
                self.assertNotIn("reactive", suite_modes(suites[(workload, "")], set()), workload)
            # The chunk writers over HTTP: three modes for sequential and parallel, COPY on threads.
            for workload in ("recruits", "candidates"):
                for load in suites[(workload, "")].loads:
                    writes = load.env["WRITES"]
                    self.assertEqual(
                        load.columns,
                        ("virtual",) if writes == "copy" else ("worker", "virtual", "virtual-loop", "reactive"),
                        writes,
                    )
            # The gRPC stream runs on threads only.
            for load in suites[("recruits", "gRPC stream")].loads:
                self.assertNotIn("reactive", load.columns)
        # --mode reactive runs only the suites that have it.
        self.assertEqual(suite_modes(self.suites("rest")[("tasks", "")], modes_named("reactive")), [])
        with self.assertRaisesRegex(LabError, "no mode virtual-rx"):
            modes_named("virtual,virtual-rx")

    def test_quick_answers_the_three_way_question_and_rest_runs_the_rest(self):
        quick, rest, seeds = (set(self.suites(p)) for p in ("quick", "rest", "seeds"))
        self.assertEqual(quick, {("sleep", ""), ("product", ""), ("db", "")})
        self.assertEqual(quick & rest, set())
        self.assertEqual(quick | rest, seeds)

    def test_the_virtual_variant_runs_k6_in_the_virtual_mode_with_the_reactive_clients(self):
        self.assertEqual(Lane(VIRTUAL, RX).k6_env(), {"MODE": "virtual", "CLIENTS": "reactive"})
        self.assertEqual(Lane(REACTIVE).k6_env(), {"MODE": "reactive"})
        pools = {"datasource.max-size": 20, "reactive.pool-max-size": 10}
        self.assertAlmostEqual(db.pool_bound(0.2)(Lane(VIRTUAL, RX), pools), 50.0)

    def test_bounds_of_the_reactive_mode(self):
        pools = {"worker.max-threads": 50, "datasource.max-size": 20, "reactive.pool-max-size": 10}
        # A timer per user: no thread bounds the event loop's sleeps.
        self.assertAlmostEqual(sleep.sleep_bound(500, 100)(Lane(REACTIVE), pools), 5000.0)
        self.assertAlmostEqual(sleep.sleep_bound(500, 100)(Lane(WORKER), pools), 500.0)
        # Its own pool's connections bound the pool-bound query.
        self.assertAlmostEqual(db.pool_bound(0.2)(Lane(REACTIVE), pools), 50.0)
        self.assertAlmostEqual(db.pool_bound(0.2)(Lane(VIRTUAL), pools), 100.0)

    def test_ratio_line_compares_every_mode_with_the_worker_pool(self):
        def runs(throughput):
            return {"runs": [{"throughput": throughput, "mean": 100.0, "p99": 200.0, "dropped": 0, "error_rate": 0.0}]}

        load = loads.Load("closed", "k6/sleep.js", "sleep", {}, lanes=loads.modes_of("sleep"))
        results = {"worker": runs(400.0), "virtual": runs(1200.0), "reactive": runs(1000.0)}
        line = tables.ratio_line(LoadFigures.of(load, results, {}))
        self.assertEqual(line, "virtual/worker throughput: 3.00x; reactive/worker throughput: 2.50x")


def rounds(per_mode: dict, dropped: float = 0) -> dict:
    """results of a load: mode -> its runs, one per round, from (throughput, p99) pairs."""
    return {
        m: {
            "runs": [
                {"throughput": t, "p99": p, "dropped": dropped, "error_rate": 0.0, "requests": t * 10, "cpu_s": 1.0}
                for t, p in runs
            ]
        }
        for m, runs in per_mode.items()
    }


class CommandLineTest(unittest.TestCase):
    def test_help_prints_every_option(self):
        from loomlab.bench.__main__ import parser

        text = parser().format_help()
        for option in ("--profile", "--repeats", "--max-rounds", "--compare"):
            self.assertIn(option, text)
        self.assertIn("% confidence", text)

    def test_loads_keeps_the_matching_loads_and_drops_suites_left_empty(self):
        from loomlab.bench.__main__ import parser
        from loomlab.bench.planning.profiles import chosen_suites

        chosen = chosen_suites(parser().parse_args(["--profile", "cpu", "--loads", "mixed C=(0|5) ms"]))
        self.assertEqual([s.workload for s in chosen], ["mixed"])
        self.assertEqual([ld.name.split(",")[0] for ld in chosen[0].loads], ["C=0 ms", "C=5 ms"])
        with self.assertRaises(LabError):
            chosen_suites(parser().parse_args(["--profile", "quick", "--loads", "no such load"]))


class VerdictTest(unittest.TestCase):
    """The verdict on synthetic rounds: a clear win, a tie, too few rounds, and drift."""

    def decide(self, per_mode):
        from loomlab.bench.deciding import verdict

        return verdict.decide(rounds(per_mode), list(per_mode))

    def test_a_clear_win_names_the_winner_and_the_interval_behind_it(self):
        v = self.decide(
            {
                "worker": [(480, 1000), (490, 1100), (485, 1050), (470, 990)],
                "virtual": [(3900, 180), (3800, 190), (3950, 170), (3700, 200)],
            }
        )
        self.assertEqual((v.kind, v.winners, v.metric, v.rounds), ("win", ["virtual"], "req/s", 4))
        self.assertGreater(v.against.low, 1.05)
        self.assertAlmostEqual(v.against.coverage, 0.875)

    def test_modes_within_the_margin_in_every_round_tie(self):
        v = self.decide(
            {
                "worker": [(98.0, 1010), (97.5, 1015), (98.2, 1012), (98.1, 1011)],
                "virtual": [(98.3, 1012), (97.9, 1013), (98.0, 1015), (98.4, 1010)],
                "reactive": [(98.1, 1011), (98.0, 1011), (98.5, 1014), (97.8, 1012)],
            }
        )
        self.assertEqual((v.kind, v.text()), ("tie", "tie: worker, virtual, reactive"))

    def test_one_run_per_mode_cannot_tell(self):
        v = self.decide({"worker": [(480, 1000)], "virtual": [(3900, 180)]})
        self.assertEqual(v.text(), "cannot tell at 1 rounds")

    def test_ratios_that_straddle_the_margin_cannot_tell(self):
        v = self.decide(
            {
                "virtual": [(3400, 220), (3200, 240), (3600, 210), (3300, 230)],
                "reactive": [(4100, 150), (2900, 260), (3900, 160), (3000, 250)],
            }
        )
        self.assertEqual(v.kind, "cannot tell")

    def test_leaders_the_rounds_cannot_order_win_together_over_the_rest(self):
        # Product at 350 users: virtual and reactive 3x the worker pool, 3-9 % apart round by round.
        v = self.decide(
            {
                "worker": [(230, 3000), (229, 3100), (231, 2950), (228, 3050)],
                "virtual": [(700, 800), (740, 760), (690, 820), (735, 770)],
                "reactive": [(742, 700), (722, 720), (744, 690), (716, 730)],
            }
        )
        self.assertEqual((v.kind, v.winners), ("ahead", ["virtual", "reactive"]))
        self.assertEqual(v.text(), "virtual, reactive (between them: cannot tell at 4 rounds)")
        self.assertEqual(v.against.b, "worker")
        self.assertGreater(v.against.low, 2.9)
        # A leader not ahead of every other mode: the rounds cannot tell.
        v = self.decide(
            {
                "worker": [(700, 3000), (600, 3100), (731, 2950), (628, 3050)],
                "virtual": [(700, 800), (740, 760), (690, 820), (735, 770)],
                "reactive": [(742, 700), (722, 720), (744, 690), (716, 730)],
            }
        )
        self.assertEqual(v.kind, "cannot tell")

    def test_drift_that_a_block_design_calls_a_win_is_no_win_interleaved(self):
        # Two equal modes on a machine that slows down 4 % per run slot (a second process starting).
        def run(slot):
            speed = 1000 * (1 - 0.04 * slot)
            return (speed, 100_000 / speed)

        # Blocks: the first mode's four runs in slots 0-3, the second's in 4-7.
        block = self.decide({"worker": [run(s) for s in range(4)], "virtual": [run(s) for s in range(4, 8)]})
        self.assertEqual((block.kind, block.winners), ("win", ["worker"]))
        # Interleaved, the order rotated: round r runs (worker, virtual), then (virtual, worker).
        order = [("worker", "virtual"), ("virtual", "worker")] * 2
        slots = {"worker": [], "virtual": []}
        for r, pair in enumerate(order):
            for i, mode in enumerate(pair):
                slots[mode].append(run(2 * r + i))
        interleaved = self.decide(slots)
        self.assertNotEqual(interleaved.kind, "win")


class AnswerTest(unittest.TestCase):
    @staticmethod
    def section(workload, per_mode, bounds, rate=None):
        return {
            "workload": workload,
            "variant": "",
            "load": "closed",
            "environment": "local JVM",
            "results": rounds(per_mode),
            "bounds": bounds,
            "rate": rate,
        }

    def verdict(self, section):
        from loomlab.bench.deciding import answer

        return answer.verdict_of(section)

    def test_the_mode_held_by_its_pool_loses_and_its_bound_is_named(self):
        s = self.section(
            "sleep",
            {
                "worker": [(480, 1000), (490, 1100), (485, 1050), (482, 1040)],
                "virtual": [(3900, 180), (3800, 190), (3950, 170), (3880, 182)],
                "reactive": [(3850, 175), (3790, 200), (3900, 180), (3870, 178)],
            },
            {"worker": 500, "virtual": 5000, "reactive": 5000},
        )
        winner, by, rounds_, cause = self.verdict(s)
        self.assertEqual(winner, "virtual, reactive")
        self.assertEqual(by, "8.09x req/s (7.76-8.14) vs worker")
        self.assertEqual(rounds_, "4 (88%)")
        self.assertEqual(cause, "worker: worker threads (500 req/s) binds")

    def test_the_answer_gives_each_modes_req_s_and_p99(self):
        from loomlab.bench.deciding import answer

        s = self.section(
            "sleep",
            {
                "worker": [(480, 1000), (490, 1100), (485, 1050), (482, 1040)],
                "virtual": [(3900, 180), (3800, 190), (3950, 170), (3880, 182)],
            },
            {"worker": 500, "virtual": 5000},
        )
        self.assertEqual(answer.figures_per_mode(s), "worker 484 (1,045 ms), virtual 3,890 (181 ms)")

    def test_a_sleep_endpoint_never_blames_the_database(self):
        s = self.section(
            "sleep",
            {
                "worker": [(2000, 300), (2010, 290), (1990, 310), (2005, 300)],
                "virtual": [(3000, 150), (3010, 150), (2990, 152), (3005, 149)],
            },
            {"worker": 5000, "virtual": 5000},
        )
        _, _, _, cause = self.verdict(s)
        self.assertEqual(
            cause, "worker: no pool bound reached (40 % of it): CPU, shared with k6, 0.05 CPU ms/req against 0.03"
        )

    def test_equal_throughput_in_an_open_load_is_decided_by_latency_or_a_tie(self):
        kept_up = self.section(
            "db",
            {"worker": [(80, 210)] * 4, "virtual": [(80, 205)] * 4, "reactive": [(80, 208)] * 4},
            {"worker": 80, "virtual": 80, "reactive": 80},
            rate=80,
        )
        winner, _, _, cause = self.verdict(kept_up)
        self.assertEqual(winner, "tie: worker, virtual, reactive")
        self.assertEqual(cause, "none binds: every mode takes the 80 req/s offered")
        queued = self.section(
            "product",
            {"worker": [(206, 900)] * 4, "virtual": [(206, 400)] * 4},
            {"worker": 206, "virtual": 206},
            rate=206,
        )
        winner, by, _, _ = self.verdict(queued)
        self.assertEqual((winner, by), ("virtual", "2.25x lower p99 (2.25-2.25) vs worker"))

    def test_an_open_load_is_never_called_the_closed_model(self):
        s = self.section(
            "sleep",
            {"worker": [(488, 500)] * 4, "virtual": [(600, 102)] * 4},
            {"worker": 500, "virtual": 600},
            rate=600,
        )
        _, _, _, cause = self.verdict(s)
        self.assertNotIn("closed model", cause)
        self.assertEqual(cause, "worker: worker threads (500 req/s) binds")

    def test_every_mode_at_the_same_bound_is_a_tie_naming_it(self):
        s = self.section(
            "db",
            {
                "worker": [(95, 2000), (96, 2010), (95, 2005), (96, 2002)],
                "virtual": [(96, 2100), (95, 2050), (96, 2080), (95, 2090)],
                "reactive": [(97, 2050), (96, 2040), (96, 2030), (97, 2060)],
            },
            {"worker": 100, "virtual": 100, "reactive": 100},
        )
        winner, _, _, cause = self.verdict(s)
        self.assertEqual(winner, "tie: worker, virtual, reactive")
        self.assertEqual(cause, "every mode at its bound: connections")


class CompareTest(unittest.TestCase):
    def test_a_different_winner_is_a_flip_and_an_undecided_one_unsettled(self):
        def sec(load, per_mode):
            return {
                "workload": "sleep",
                "variant": "",
                "load": load,
                "environment": "local JVM",
                "results": rounds(per_mode),
                "bounds": {},
                "rate": None,
            }

        win_v = {"virtual": [(3900, 180)] * 4, "reactive": [(3000, 250)] * 4}
        win_r = {"virtual": [(3000, 250)] * 4, "reactive": [(3900, 180)] * 4}
        unclear = {
            "virtual": [(3400, 220), (3200, 240), (3600, 210), (3300, 230)],
            "reactive": [(4100, 150), (2900, 260), (3900, 160), (3000, 250)],
        }
        t = compare.compare_verdicts(
            [sec("a", win_v), sec("b", win_v), sec("c", win_v)], [sec("a", win_v), sec("b", win_r), sec("c", unclear)]
        )
        self.assertEqual([r[-1] for r in t.rows], ["yes", "FLIP", "unsettled"])

    def test_the_same_leaders_agree_however_many_rounds_each_took(self):
        self.assertEqual(
            compare.agreement(
                "virtual, reactive (between them: cannot tell at 6 rounds)",
                "virtual, reactive (between them: cannot tell at 5 rounds)",
            ),
            "yes",
        )
        self.assertEqual(
            compare.agreement("reactive", "virtual, reactive (between them: cannot tell at 6 rounds)"), "unsettled"
        )
        self.assertEqual(compare.agreement("cannot tell at 6 rounds", "cannot tell at 6 rounds"), "unsettled")
        self.assertEqual(compare.agreement("tie: worker, virtual", "virtual"), "FLIP")


if __name__ == "__main__":
    unittest.main()


class StrictGateTest(unittest.TestCase):
    """--strict on an open load: below a mode's bound a few drops (a stall of the shared node) pass
    the gate, more fail it, errors as before; above the bound nothing fails it."""

    LOAD = loads.Load("open", "sleep.js", "open", {}, bound=lambda mode, pools: 500.0, rate=400)

    def failed(self, requests: int, dropped: int, error_rate: float = 0.0, load=LOAD) -> bool:
        run = {"requests": requests, "dropped": dropped, "error_rate": error_rate}
        return LoadFigures.of(load, {"virtual": {"runs": [run]}}, {}).failed() == ["virtual"]

    def test_a_few_drops_below_the_bound_pass(self):
        self.assertFalse(self.failed(2394, 6))
        self.assertFalse(self.failed(2314, 86))

    def test_many_drops_or_errors_below_the_bound_fail(self):
        self.assertTrue(self.failed(2200, 200))
        self.assertTrue(self.failed(2400, 0, error_rate=0.02))

    def test_above_the_bound_nothing_fails(self):
        above = loads.Load("open", "sleep.js", "open", {}, bound=lambda mode, pools: 300.0, rate=400)
        self.assertFalse(self.failed(1800, 600, load=above))
