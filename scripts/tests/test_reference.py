"""The reference server's column (bench.reference, loads.with_reference): it joins the loads whose
script it serves, runs in the same rotated rounds as the modes, takes no part in the verdict nor in
the service's /api/info, and its table gives each mode's req/s and CPU per request over its own,
paired round by round."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from loomlab.bench.measuring.procstat import ChildrenCpu
from loomlab.bench.planning.lane import REFERENCE, REFERENCE_LANE, THREADED, Lane
from loomlab.bench.planning.loads import Load, Suite, modes_of, with_reference
from loomlab.bench.planning.plan import modes_named, suite_lanes
from loomlab.bench.planning.profiles import suites
from loomlab.bench.reporting.loadfigures import LoadFigures
from loomlab.bench.reporting.reference import reference_table
from loomlab.bench.running import rounds
from loomlab.bench.running.progress import Progress
from loomlab.bench.running.runner import reference_launch
from tests.test_rounds import FakeService, settings

RATES = {"worker": 50.0, "virtual": 200.0, "virtual-loop": 190.0, "reactive": 180.0, REFERENCE: 400.0}


class Reference(FakeService):
    def info(self) -> dict:
        return {"server": "Go net/http", "go": "go1.26"}


def sleep_suite() -> Suite:
    return Suite(
        "sleep",
        "fake",
        {},
        [
            Load("closed", "k6/sleep.js", "closed", {}, lanes=modes_of("sleep"), est_s={"worker": 9.0}),
            Load("product", "k6/product.js", "closed", {}, lanes=THREADED),
        ],
        warmup_seconds=0,
    )


def runs(rate: float, cpu_s: float, n: int = 5) -> dict:
    per_request = cpu_s * 1000 / (rate * 10)
    return {"runs": [{"throughput": rate, "requests": rate * 10, "cpu_ms_per_req": per_request} for _ in range(n)]}


class WithReferenceTest(unittest.TestCase):
    def test_only_the_loads_whose_script_it_serves_get_the_column_once(self):
        (suite,) = with_reference(with_reference([sleep_suite()]))
        self.assertEqual(suite.loads[0].columns, ("worker", "virtual", "virtual-loop", "reactive", REFERENCE))
        self.assertEqual(suite.loads[1].columns, ("worker", "virtual", "virtual-loop"))
        self.assertEqual(suite.loads[0].est_s, {"worker": 9.0, REFERENCE: 9.0})

    def test_the_db_twin_gets_it_only_where_a_load_asks(self):
        suite = Suite(
            "db", "fake", {}, [Load("db", "k6/db.js", "db", {}), Load("db", "k6/db.js", "db", {}, referenced=True)]
        )
        (suite,) = with_reference([suite])
        self.assertEqual([REFERENCE in load.columns for load in suite.loads], [False, True])
        (cost,) = [s for s in suites("cost") if s.workload == "db"]
        self.assertTrue(all(load.referenced and load.syscalls for load in cost.loads))

    def test_it_runs_beside_whichever_modes_mode_keeps(self):
        (suite,) = with_reference([sleep_suite()])
        self.assertEqual([lane.key for lane in suite_lanes(suite, modes_named("virtual"))], ["virtual", REFERENCE])


def a3_with_reference(calls: list[tuple[str, bool]]):
    """A3 alone with the reference column, and how its columns start: fakes that book their runs in
    `calls` at RATES."""
    planned = sleep_suite()
    (suite,) = with_reference([dataclasses.replace(planned, loads=planned.loads[:1])])

    def start(suite_, lane, tag, settings_, out, slot=0):
        kind = Reference if lane == REFERENCE_LANE else FakeService
        return kind(lane.key, lambda m, n: RATES[m], calls)

    return suite, start


class LaunchTest(unittest.TestCase):
    def test_on_the_lab_s_database_as_the_service_s_role_with_the_suite_s_pool_and_no_password_in_argv(self):
        env = {
            "QUARKUS_DATASOURCE_JDBC_URL": "jdbc:postgresql://127.0.0.1:54329/loomlab",
            "QUARKUS_DATASOURCE_USERNAME": "owner",
            "QUARKUS_DATASOURCE_PASSWORD": "owner-secret",
            "LOOMLAB_DB_SERVICE_USERNAME": "service",
            "LOOMLAB_DB_SERVICE_PASSWORD": "service-secret",
        }
        suite = Suite("db", "fake", {"QUARKUS_DATASOURCE_JDBC_MAX_SIZE": "50", "LOOMLAB_EXECUTION_MAX_WAIT": "3s"}, [])
        with mock.patch.dict(os.environ, env, clear=True):
            cmd, child = reference_launch("ref", 8095, suite)
        self.assertEqual(
            cmd,
            [
                "ref",
                "-addr",
                "127.0.0.1:8095",
                "-db",
                "postgresql://127.0.0.1:54329/loomlab",
                "-db-pool",
                "50",
                "-db-wait",
                "3s",
            ],
        )
        self.assertEqual(child, {"PGUSER": "service", "PGPASSWORD": "service-secret"})

    def test_without_the_lab_s_database_only_the_sleep(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(reference_launch("ref", 1, sleep_suite()), (["ref", "-addr", "127.0.0.1:1"], {}))


class RoundsWithReferenceTest(unittest.TestCase):
    def test_it_rotates_with_the_modes_and_is_no_part_of_the_verdict_or_the_info(self):
        calls: list[tuple[str, bool]] = []
        suite, start = a3_with_reference(calls)
        where = SimpleNamespace(environment="fake", start=start)
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
            (ran,) = rounds.run_suite(suite, settings(5, 5), Path(out), set(), Progress(1, 1.0), where, "t")
        results, found, info = ran.results, ran.verdict, ran.info
        measured = [m for m, warmup in calls if not warmup]
        self.assertEqual(measured[:5], ["worker", "virtual", "virtual-loop", "reactive", REFERENCE])
        self.assertEqual(measured[5:10], ["virtual", "virtual-loop", "reactive", REFERENCE, "worker"])
        self.assertEqual(len(results[REFERENCE]["runs"]), 5)
        assert found is not None
        self.assertEqual(found.winners, ["virtual"])  # the reference's 400 req/s is no mode's
        self.assertEqual(info["jdk"], "fake")

    def test_run_last_in_blocks_it_leaves_the_services_info(self):
        suite, start = a3_with_reference([])
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
            blocks = dataclasses.replace(settings(4, 4), interleave=False)
            where = SimpleNamespace(environment="fake", start=start)
            (ran,) = rounds.run_suite(suite, blocks, Path(out), set(), Progress(1, 1.0), where, "t")
        self.assertEqual(ran.info["jdk"], "fake")
        self.assertEqual(len(ran.results[REFERENCE]["runs"]), 4)


class ReferenceTableTest(unittest.TestCase):
    def test_each_mode_over_the_reference_round_by_round(self):
        load = Load("closed", "k6/sleep.js", "closed", {}, lanes=(*THREADED, REFERENCE_LANE))
        results = {"worker": runs(50.0, 1.0), "virtual": runs(300.0, 9.0), REFERENCE: runs(400.0, 8.0)}
        table = reference_table(LoadFigures.of(load, results, {}))
        assert table is not None
        rows = {r[0]: r for r in table.rows}
        # virtual: 300 / 400 req/s; 3 ms per request (9 s over 3,000) against 2 ms (8 s over 4,000).
        self.assertEqual(rows["virtual"][2], "0.75x (0.75-0.75)")
        self.assertEqual(rows["virtual"][4], "1.50x (1.50-1.50)")
        self.assertEqual(rows["worker"][2], "0.12x (0.12-0.12)")
        self.assertEqual(rows[REFERENCE][2], "1x")

    def test_the_connections_the_generator_opened_where_it_counted_them(self):
        load = Load("open", "k6/sleep.js", "open", {}, lanes=(Lane("virtual"), REFERENCE_LANE))
        results = {"virtual": runs(300.0, 9.0), REFERENCE: runs(400.0, 8.0)}
        before = reference_table(LoadFigures.of(load, results, {}))
        assert before is not None
        self.assertNotIn("connections", before.headers)
        for column, opened in (("virtual", 160), (REFERENCE, 150)):
            for run in results[column]["runs"]:
                run["connections"] = opened
        table = reference_table(LoadFigures.of(load, results, {}))
        assert table is not None
        at = table.headers.index("connections")
        self.assertEqual([r[at] for r in table.rows], ["160", "150"])

    def test_too_few_rounds_give_the_ratio_of_the_medians_and_no_reference_no_table(self):
        load = Load("closed", "k6/sleep.js", "closed", {}, lanes=(Lane("virtual"), REFERENCE_LANE))
        table = reference_table(
            LoadFigures.of(load, {"virtual": runs(300.0, 9.0, 2), REFERENCE: runs(400.0, 8.0, 2)}, {})
        )
        assert table is not None
        self.assertEqual(table.rows[0][2], "0.75x (medians)")
        self.assertIsNone(reference_table(LoadFigures.of(load, {"virtual": runs(300.0, 9.0)}, {})))


class K6CpuTest(unittest.TestCase):
    def test_a_waited_childs_cpu_is_counted_and_a_running_ones_is_not(self):
        running = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            cpu = ChildrenCpu()
            subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
            waited = cpu.seconds()
        finally:
            running.kill()
            running.wait()
        self.assertGreater(waited, 0.0)
        # The spinning child ran all along; it is counted only once waited for, after `waited`.
        self.assertGreater(cpu.seconds(), waited)


if __name__ == "__main__":
    unittest.main()
