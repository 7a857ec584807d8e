"""The cpu and cores profiles' workloads: the mixed predictions (Little's law on threads and on cores)
and the crossover the sweep's table reads from the rounds, the tail and buffers tables, the CPU sets."""

import math
import unittest

from loomlab.bench.deciding import crossover
from loomlab.bench.planning.lane import OFFLOAD, REACTIVE, Lane
from loomlab.bench.planning.loads import Scale, on_cpus
from loomlab.bench.reporting import summaries
from loomlab.bench.workloads import cores, mixed

POOLS = {"worker.max-threads": 50, "cpus": 2}


def sweep_section(cpu_ms: int, worker: list[float], virtual: list[float]) -> dict:
    return {
        "workload": "mixed",
        "env": {"CPU_MS": str(cpu_ms), "WAIT_MS": "100"},
        "pools": POOLS,
        "results": {
            "worker": {"runs": [{"throughput": x, "p99": 1000.0} for x in worker]},
            "virtual": {"runs": [{"throughput": x, "p99": 200.0} for x in virtual]},
        },
    }


class MixedBoundTest(unittest.TestCase):
    def test_threads_bind_the_worker_pool_below_the_crossover_and_cores_above(self):
        at_1ms = mixed.mixed_bound(500, 1, 100)
        self.assertAlmostEqual(at_1ms(Lane("worker"), POOLS), 50 / 0.101)
        self.assertAlmostEqual(at_1ms(Lane("virtual"), POOLS), 2 / 0.001)
        at_20ms = mixed.mixed_bound(500, 20, 100)
        self.assertAlmostEqual(at_20ms(Lane("worker"), POOLS), 2 / 0.020)
        self.assertAlmostEqual(at_20ms(Lane("virtual"), POOLS), 2 / 0.020)

    def test_no_cpu_leaves_the_requests_in_flight_to_bind(self):
        self.assertAlmostEqual(mixed.mixed_bound(500, 0, 100)(Lane("virtual"), POOLS), 500 / 0.1)

    def test_predicted_crossover_is_where_the_two_worker_bounds_meet(self):
        c = mixed.crossover_ms(50, 2, 100)
        self.assertAlmostEqual(c, 200 / 48)
        self.assertAlmostEqual(50 / ((100 + c) / 1000), 2 / (c / 1000))
        self.assertEqual(mixed.crossover_ms(2, 2, 100), math.inf)

    def test_the_offloaded_column_is_the_reactive_mode_with_offload(self):
        self.assertEqual(Lane(REACTIVE, OFFLOAD).k6_env(), {"MODE": "reactive", "OFFLOAD": "true"})
        self.assertIn(Lane(REACTIVE, OFFLOAD), mixed.MODES)


class CrossoverTest(unittest.TestCase):
    def test_caught_up_from_the_first_c_after_which_virtual_is_never_ahead(self):
        rounds = 6
        sections = [
            sweep_section(0, [480] * rounds, [3900] * rounds),
            sweep_section(2, [470] * rounds, [900] * rounds),
            sweep_section(5, [300, 305, 310, 300, 302, 301], [301, 304, 309, 300, 303, 300]),
            sweep_section(10, [150] * rounds, [150] * rounds),
        ]
        self.assertEqual(crossover.caught_up(sections), 5)
        table = crossover.mixed_summary(sections)
        self.assertEqual([r[0] for r in table.rows], ["0", "2", "5", "10"])
        self.assertIn("C* = N W / (T - N) = 4.2 ms", table.note)
        self.assertIn("no longer behind from C = 5 ms", table.note)

    def test_never_caught_up_is_said(self):
        sections = [sweep_section(1, [480] * 6, [1900] * 6)]
        self.assertTrue(math.isnan(crossover.caught_up(sections)))
        self.assertIn("stayed behind over the whole sweep", crossover.mixed_summary(sections).note)


class TailTest(unittest.TestCase):
    def test_short_p99_of_each_mode_against_the_best(self):
        def runs(short_p99):
            return {"runs": [{"throughput": 300.0, "p99": 400.0, mixed.SHORT_P99: x} for x in short_p99]}

        section = {
            "workload": "mixed",
            "variant": "tail",
            "env": {"LONG_SHARE": "0.05"},
            "pools": {"virtual.carriers": 2},
            "results": {
                "worker": runs([119, 118, 121, 120, 119, 122]),
                "virtual": runs([348, 340, 351, 330, 349, 345]),
            },
        }
        rows = {r[1]: r for r in crossover.tail_summary([section]).rows}
        self.assertEqual(rows["worker"][5], "best")
        self.assertTrue(rows["virtual"][5].startswith("2.8"), rows["virtual"])
        self.assertEqual(rows["virtual"][6], "2")


class CoresTest(unittest.TestCase):
    def test_one_core_keeps_k6_off_the_services_cpu_and_two_share_both(self):
        chosen = cores.suites(Scale("quick"))
        one = [s for s in chosen if s.variant.startswith("1 core")]
        two = [s for s in chosen if s.variant.startswith("2 cores")]
        self.assertEqual({s.workload for s in one}, {"sleep", "product"})
        for s in one:
            self.assertEqual((s.service_cpus, s.loads[0].k6_cpus), ("1", "0"))
        for s in two:
            self.assertEqual((s.service_cpus, s.loads[0].k6_cpus), ("", ""))
        self.assertIn("350", next(s for s in one if s.workload == "product").loads[0].name)

    def test_a_cpu_list_becomes_taskset_and_none_leaves_the_command(self):
        self.assertEqual(on_cpus(["java", "-jar", "x"], "1"), ["taskset", "-c", "1", "java", "-jar", "x"])
        self.assertEqual(on_cpus(["k6", "run"], ""), ["k6", "run"])


class BuffersTableTest(unittest.TestCase):
    def test_allocation_per_request_and_new_buffers_per_request(self):
        run = {
            "throughput": 800.0,
            "p99": 110.0,
            "requests": 6400.0,
            "delta_alloc_bytes": 6400 * 70 * 1024.0,
            "delta_buffers_allocated": 6400.0,
            "delta_gc_pauses": 12.0,
            "delta_gc_pause_s": 0.05,
            "peak_rss_bytes": 300 * 2**20,
            "cpu_s": 6400 * 0.0004,
        }
        section = {"workload": "buffers", "env": {"CACHE": "thread"}, "results": {"virtual": {"runs": [run] * 4}}}
        row = summaries.buffers_summary([section]).rows[0]
        self.assertEqual(row[:2], ["thread", "virtual"])
        self.assertEqual(row[4:7], ["70.0", "1.000", "12"])
        self.assertEqual(row[8:], ["0.400", "300"])


if __name__ == "__main__":
    unittest.main()
