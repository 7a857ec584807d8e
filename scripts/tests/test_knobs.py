"""The knob columns (workloads/knobs.py, bench/reporting/knobs.py): a mode with one setting changed, started
with that setting, run in the same rounds as its default column, its bound from the pools the
setting changes, and a table saying what each setting changes beyond the verdict's margins."""

from __future__ import annotations

import unittest
import unittest.mock

from loomlab.bench.planning.lane import REFERENCE, VIRTUAL, Lane
from loomlab.bench.planning.loads import Scale, mode_bound, with_reference
from loomlab.bench.planning.plan import modes_named, suite_lanes
from loomlab.bench.reporting.knobs import change, knobs_table
from loomlab.bench.reporting.loadfigures import LoadFigures
from loomlab.bench.running.engines import Engines
from loomlab.bench.workloads import knobs
from tests.markdown import cells

# The engines a local start hands its services (none runs here).
ENGINES = Engines("auto", "loadgen", k6="k6")


def knob_of(suite, column: str):
    """The setting of a column of the suite's first load that has it."""
    return next(ld.lane(column).knob for ld in suite.loads if column in ld.columns)


def with_settings(load) -> list[str]:
    """The load's knob columns' names."""
    return [lane.key for lane in load.lanes if lane.setting]


def suite_modes(suite, modes: set) -> list[str]:
    return [lane.key for lane in suite_lanes(suite, modes)]


def runs(rate: float, p99: float, cpu: float, rss: float, n: int = 5, wobble: float = 0.0) -> list[dict]:
    return [
        {
            "throughput": rate * (1 + wobble * (-1) ** i),
            "p99": p99,
            "cpu_ms_per_req": cpu,
            "peak_rss_bytes": rss,
        }
        for i in range(n)
    ]


class KnobColumnsTest(unittest.TestCase):
    def setUp(self):
        self.sleep, self.product = knobs.suites(Scale("quick"))

    def test_a_column_runs_its_mode_in_k6_and_its_setting_in_the_service(self):
        carriers = self.sleep.loads[0].lane("virtual[carriers=1]")
        self.assertEqual((carriers.mode, carriers.setting, carriers.default), ("virtual", "carriers=1", Lane(VIRTUAL)))
        self.assertEqual(self.sleep.loads[0].lane("reactive[loops=1]").k6_env(), {"MODE": "reactive"})
        self.assertEqual(
            knob_of(self.sleep, "virtual[carriers=1]").jvm_flags, ("-Djdk.virtualThreadScheduler.parallelism=1",)
        )
        self.assertEqual(knob_of(self.sleep, "worker[threads=200]").env, {"QUARKUS_THREAD_POOL_MAX_THREADS": "200"})
        self.assertEqual(knob_of(self.sleep, "virtual"), knobs.Knob())

    def test_the_worker_pool_sizes_are_sleeps_alone_and_every_mode_has_a_gc_column(self):
        self.assertIn("worker[threads=500]", with_settings(self.sleep.loads[0]))
        self.assertNotIn("worker[threads=500]", with_settings(self.product.loads[0]))
        for m in knobs.MODES:
            self.assertIn(f"{m.key}[gc=serial]", with_settings(self.product.loads[0]))

    def test_a_columns_bound_is_its_own_pools(self):
        a3 = self.sleep.loads[0]
        pools = {"worker.max-threads": 50}
        self.assertAlmostEqual(mode_bound(a3, "worker", pools), 500)
        self.assertAlmostEqual(mode_bound(a3, "worker[threads=200]", pools), 2000)
        self.assertAlmostEqual(mode_bound(a3, "worker[gc=serial]", pools), 500)

    def test_the_columns_run_after_their_modes_and_mode_keeps_a_modes_knobs(self):
        (sleep,) = with_reference([self.sleep])
        columns = suite_modes(sleep, set())
        self.assertEqual(columns[:4], ["worker", "virtual", "virtual-loop", "reactive"])
        self.assertEqual(columns[-1], REFERENCE)
        self.assertEqual(len(columns), 4 + len(with_settings(sleep.loads[0])) + 1)
        kept = suite_lanes(self.sleep, modes_named("virtual"))
        self.assertTrue(all(lane.default == Lane(VIRTUAL) for lane in kept[:-1]), kept)


class KnobsTableTest(unittest.TestCase):
    def test_a_setting_changes_a_figure_only_where_its_interval_clears_the_margin(self):
        default = runs(1000.0, 200.0, 0.10, 4e8)
        self.assertEqual(change(runs(1000.0, 200.0, 0.10, 4e8), default), "nothing beyond the margins")
        self.assertEqual(change(runs(1200.0, 100.0, 0.08, 4e8), default), "more req/s; lower p99; less CPU/req")
        self.assertIn("cannot tell: req/s", change(runs(1000.0, 200.0, 0.10, 4e8, wobble=0.2), default))
        self.assertIn("cannot tell", change(runs(1000.0, 200.0, 0.10, 4e8, n=2), runs(1000.0, 200.0, 0.10, 4e8, n=2)))

    def test_the_table_has_a_row_per_measured_knob_over_its_modes_default(self):
        sleep = knobs.suites(Scale("quick"))[0]
        a3 = sleep.loads[0]
        results = {
            "virtual": {"runs": runs(4000.0, 150.0, 0.10, 4e8)},
            "virtual[carriers=1]": {"runs": runs(3000.0, 150.0, 0.08, 4e8)},
            "reactive[loops=1]": {"runs": runs(4000.0, 150.0, 0.06, 4e8)},  # its default did not run
        }
        table = knobs_table(LoadFigures.of(a3, results, {}))
        assert table is not None
        self.assertEqual([r[0] for r in table.rows], ["virtual[carriers=1]"])
        self.assertEqual(table.rows[0][1], "0.75x (0.75-0.75)")
        self.assertEqual(table.rows[0][-1], "fewer req/s; less CPU/req")
        self.assertIsNone(knobs_table(LoadFigures.of(a3, {"virtual": {"runs": runs(1.0, 1.0, 1.0, 1.0)}}, {})))


if __name__ == "__main__":
    unittest.main()


class BuildColumnsTest(unittest.TestCase):
    def test_another_build_is_a_column_per_mode_on_its_jar_planned_as_its_mode(self):
        from loomlab.bench.planning.loads import Knob, with_column
        from loomlab.bench.running import runner
        from loomlab.bench.workloads import sleep

        (suite,) = with_reference(sleep.suites(Scale())[:1])
        est = dict(suite.loads[0].est_s) if isinstance(suite.loads[0].est_s, dict) else None
        (suite,) = with_column([suite], "build=d509d67", Knob(jar="/builds/d509d67/quarkus-run.jar"))
        a3 = suite.loads[0]
        self.assertEqual(a3.columns[-1], REFERENCE)  # the rounds' order: modes, columns, the reference server
        built = with_settings(a3)
        self.assertEqual(
            built,
            [
                "worker[build=d509d67]",
                "virtual[build=d509d67]",
                "virtual-loop[build=d509d67]",
                "reactive[build=d509d67]",
            ],
        )
        self.assertNotIn(f"{REFERENCE}[build=d509d67]", a3.columns)
        self.assertEqual(knob_of(suite, "virtual[build=d509d67]").jar, "/builds/d509d67/quarkus-run.jar")
        self.assertEqual(knob_of(suite, "virtual").jar, "")
        if est is not None:
            assert isinstance(a3.est_s, dict)
            self.assertEqual(a3.est_s["virtual[build=d509d67]"], est["virtual"])
        self.assertEqual(suite_modes(suite, modes_named("virtual")), ["virtual", "virtual[build=d509d67]", REFERENCE])

        # The column's JVM runs that jar; the mode's own runs the lab's.
        local = runner.LocalJvm("java", ENGINES, runner.Path("target/quarkus-app/quarkus-run.jar"), 8090, "")
        with (
            unittest.mock.patch.object(runner, "Service") as service,
            unittest.mock.patch.object(runner.schema, "migrate", return_value=7.0) as migrate,
        ):
            local.start(suite, suite.loads[0].lane("virtual[build=d509d67]"), "t", mock_settings(), runner.Path("/tmp"))
            local.start(suite, suite.loads[0].lane("virtual"), "t", mock_settings(), runner.Path("/tmp"))
            local.start(suite, suite.loads[0].lane("worker"), "t", mock_settings(), runner.Path("/tmp"))
        jars = [call.args[0][call.args[0].index("-jar") + 1] for call in service.call_args_list]
        self.assertEqual(jars, ["/builds/d509d67/quarkus-run.jar", *["target/quarkus-app/quarkus-run.jar"] * 2])
        # Each jar migrates the schema once, before its first launch; every launch runs without Flyway.
        self.assertEqual([c.args[1] for c in migrate.call_args_list], jars[:2])
        for call in service.call_args_list:
            self.assertEqual(call.args[3]["QUARKUS_FLYWAY_ACTIVE"], "false")

    def test_a_build_needs_a_name_and_a_jar_that_exists(self):
        from loomlab import LabError
        from loomlab.bench.planning.columns import build_of

        self.assertEqual(build_of(f"abc123={__file__}"), ("abc123", __file__))
        for bad in (f"={__file__}", f"../x={__file__}", "abc=/nonexistent.jar", "abc"):
            with self.assertRaisesRegex(LabError, "NAME=JAR"):
                build_of(bad)


def mock_settings():
    from unittest import mock

    return mock.Mock(flames=False)


class AotColumnsTest(unittest.TestCase):
    def test_a_cache_is_a_column_per_mode_that_must_map_it(self):
        from loomlab import LabError
        from loomlab.bench.cli import parser
        from loomlab.bench.planning.columns import columns
        from loomlab.bench.planning.profiles import chosen_suites

        args = parser().parse_args(["--workload", "sleep", "--loads", "A3", "--no-reference", "--aot-cache", __file__])
        chosen = columns(args, chosen_suites(args))
        a3 = chosen[0].loads[0]
        self.assertEqual(with_settings(a3), ["worker[aot]", "virtual[aot]", "virtual-loop[aot]", "reactive[aot]"])
        self.assertEqual(knob_of(chosen[0], "virtual[aot]").jvm_flags, (f"-XX:AOTCache={__file__}", "-XX:AOTMode=on"))
        args.aot_cache = "/nonexistent/jvm-aot.aot"
        with self.assertRaisesRegex(LabError, "no such file"):
            columns(args, chosen_suites(args))


class JvmColumnTest(unittest.TestCase):
    def test_flags_are_a_column_per_mode_and_must_be_options(self):
        from loomlab import LabError
        from loomlab.bench.cli import parser
        from loomlab.bench.planning.columns import columns
        from loomlab.bench.planning.profiles import chosen_suites

        pod = ["--jvm-column", "heap1g=-XX:MaxRAM=1g -XX:MaxRAMPercentage=75"]
        args = parser().parse_args(["--workload", "sleep", "--loads", "A3", "--no-reference", *pod])
        chosen = columns(args, chosen_suites(args))
        a3 = chosen[0].loads[0]
        self.assertEqual(
            with_settings(a3), ["worker[heap1g]", "virtual[heap1g]", "virtual-loop[heap1g]", "reactive[heap1g]"]
        )
        self.assertEqual(knob_of(chosen[0], "virtual[heap1g]").jvm_flags, ("-XX:MaxRAM=1g", "-XX:MaxRAMPercentage=75"))
        for bad in ("heap1g=", "=-Xmx1g", "heap 1g=-Xmx1g", "heap1g=Xmx1g", "heap1g=-Xmx1g ; rm"):
            args.jvm_column = [bad]
            with self.assertRaisesRegex(LabError, "--jvm-column"):
                columns(args, chosen_suites(args))


class QuotaColumnTest(unittest.TestCase):
    def test_a_quota_is_a_cgroup_the_jvm_joins_and_the_bench_removes(self):
        import subprocess
        import tempfile
        from pathlib import Path

        from loomlab import LabError
        from loomlab.bench.cli import parser
        from loomlab.bench.planning.columns import columns
        from loomlab.bench.planning.profiles import chosen_suites
        from loomlab.bench.running import quota, runner

        args = parser().parse_args(["--workload", "sleep", "--loads", "A3", "--no-reference", "--quota-column", "q2=2"])
        chosen = columns(args, chosen_suites(args))
        self.assertEqual(knob_of(chosen[0], "virtual[q2]").quota_cpus, 2.0)
        for bad in ("q2=two", "q2=0.001", "q2=-1", "q2=1e9"):
            args.quota_column = [bad]
            with self.assertRaisesRegex(LabError, "--quota-column"):
                columns(args, chosen_suites(args))

        with tempfile.TemporaryDirectory() as tmp:
            v1 = Path(tmp, "v1")
            (v1 / "cpu").mkdir(parents=True)
            (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
            procs = quota.group("virtual[q2]", 1.5, v1)
            self.assertEqual(procs, v1 / "cpu" / quota.PARENT / "virtual-q2" / "cgroup.procs")
            self.assertEqual((procs.parent / "cpu.cfs_quota_us").read_text(), "150000")
            v2 = Path(tmp, "v2")
            v2.mkdir()
            (v2 / "cgroup.controllers").write_text("cpu memory\n")
            procs = quota.group("reactive[q2]", 2, v2)
            self.assertEqual((procs.parent / "cpu.max").read_text(), "200000 100000")
            quota.group("worker[q0]", 0, v2)
            self.assertEqual((v2 / quota.PARENT / "worker-q0" / "cpu.max").read_text(), "max 100000")
            quota.group("worker[q0]", 0, v1)
            self.assertEqual((v1 / "cpu" / quota.PARENT / "worker-q0" / "cpu.cfs_quota_us").read_text(), "-1")
            self.assertEqual((v2 / quota.PARENT / "cgroup.subtree_control").read_text(), "+cpu")
            # The shell joins the group and execs the command in place: its pid is the command's.
            cmd = quota.wrap(["sh", "-c", 'echo "$$"'], procs)
            shown = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            self.assertEqual(procs.read_text().split(), shown)
            # A real cgroup's control files go with it; here they are files, so a group stays until they go.
            self.assertIn(v2 / quota.PARENT, quota.remove(v2))
            for group in (v1 / "cpu" / quota.PARENT).iterdir():
                for f in group.iterdir():
                    f.unlink()
            self.assertEqual(quota.remove(v1), [])
            self.assertFalse((v1 / "cpu" / quota.PARENT).exists())

        local = runner.LocalJvm("java", ENGINES, runner.Path("target/quarkus-app/quarkus-run.jar"), 8090, "")
        args.quota_column = ["q2=2"]
        chosen = columns(args, chosen_suites(args))
        with (
            unittest.mock.patch.object(runner, "Service") as service,
            unittest.mock.patch.object(runner.schema, "migrate", return_value=7.0),
            unittest.mock.patch.object(quota, "group", return_value=Path("/cg/procs")),
        ):
            local.start(chosen[0], chosen[0].loads[0].lane("virtual[q2]"), "t", mock_settings(), runner.Path("/tmp"))
        self.assertEqual(service.call_args.args[0][:4], ["sh", "-c", 'echo $$ > "$0" && exec "$@"', "/cg/procs"])


class MinimalColumnTest(unittest.TestCase):
    def test_the_minimal_application_is_a_virtual_column_of_the_sleep_loads_alone(self):
        from loomlab import LabError
        from loomlab.bench.cli import parser
        from loomlab.bench.planning.columns import columns
        from loomlab.bench.planning.profiles import chosen_suites
        from loomlab.bench.running import runner

        args = parser().parse_args(["--profile", "knobs", "--no-reference", "--minimal", "--minimal-jar", __file__])
        chosen = columns(args, chosen_suites(args))
        for suite in chosen:
            for load in suite.loads:
                # Its one endpoint: the virtual sleep; the product loads get none.
                added = [c for c in load.columns if "[minimal]" in c]
                self.assertEqual(added, ["virtual[minimal]"] if suite.workload == "sleep" else [], load.name)
        sleep = next(s for s in chosen if s.workload == "sleep")
        self.assertTrue(knob_of(sleep, "virtual[minimal]").bare)

        local = runner.LocalJvm("java", ENGINES, runner.Path("target/quarkus-app/quarkus-run.jar"), 8090, "")
        with (
            unittest.mock.patch.object(runner, "BareService") as bare,
            unittest.mock.patch.object(runner.schema, "migrate") as migrate,
        ):
            local.start(sleep, sleep.loads[0].lane("virtual[minimal]"), "t", mock_settings(), runner.Path("/tmp"))
        self.assertEqual(bare.call_args.args[0][-1], __file__)
        migrate.assert_not_called()  # it has no schema

        args.minimal_jar = "/nonexistent/quarkus-run.jar"
        with self.assertRaisesRegex(LabError, "no jar"):
            columns(args, chosen_suites(args))

    def test_knobs_keeps_the_columns_it_names(self):
        from loomlab.bench.cli import parser
        from loomlab.bench.planning.profiles import chosen_suites

        def kept(*flags: str) -> tuple:
            args = parser().parse_args(["--profile", "knobs", "--workload", "sleep", "--loads", "A3", *flags])
            a3 = chosen_suites(args)[0].loads[0]
            return a3.columns

        self.assertEqual(kept("--knobs", "none"), ("worker", "virtual", "virtual-loop", "reactive"))
        carriers = tuple(f"virtual[carriers={n}]" for n in (1, 2 * knobs.CORES) if n != knobs.CORES)
        self.assertEqual(kept("--knobs", "carriers")[4:], carriers)
        self.assertIn("reactive[gc=serial]", kept())

    def test_its_figures_come_from_proc(self):
        import math
        import os
        import tempfile
        from pathlib import Path

        from loomlab.bench.measuring import procstat

        with tempfile.TemporaryDirectory() as root:
            pid = Path(root, "42")
            pid.mkdir()
            # A command with a space and a parenthesis: the fields are read after the last ')'.
            fields = ["S"] + ["0"] * 10 + ["150", "50"] + ["0"] * 10
            (pid / "stat").write_text(f"42 (java (x) y) {' '.join(fields)}\n")
            (pid / "statm").write_text("9000 2500 100 1 0 800 0\n")
            (pid / "status").write_text("Name:\tjava\nThreads:\t37\nVmRSS:\t10000 kB\n")
            for task, (vol, invol) in {"42": (100, 7), "43": (20, 3)}.items():
                (pid / "task" / task).mkdir(parents=True)
                (pid / "task" / task / "status").write_text(
                    f"Name:\tjava\nvoluntary_ctxt_switches:\t{vol}\nnonvoluntary_ctxt_switches:\t{invol}\n"
                )
            sample = procstat.sample(42, Path(root))
            kernel = procstat.kernel(42, Path(root))
        self.assertEqual(sample["cpu_ns"], 200 * 1e9 / os.sysconf("SC_CLK_TCK"))
        self.assertEqual(sample["cpu_system_ns"], 50 * 1e9 / os.sysconf("SC_CLK_TCK"))
        self.assertEqual(kernel, {"cpu_system_ns": sample["cpu_system_ns"], "ctx_switches": 130.0})
        self.assertEqual(sample["ctx_switches"], 130.0)
        self.assertEqual(sample["rss_bytes"], 2500 * os.sysconf("SC_PAGE_SIZE"))
        self.assertEqual(sample["live_threads"], 37)
        self.assertTrue(math.isnan(sample["worker_active"]))


class RebuiltBuildColumnsTest(unittest.TestCase):
    def test_a_rebuilt_ab_report_keeps_its_knobs_table(self):
        import contextlib
        import io
        import tempfile
        from pathlib import Path

        from loomlab import ROOT
        from loomlab.bench.reporting import report

        run = ROOT / "docs" / "results" / "2026-11-27-ab-d509d67" / "run-1"
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(run, Path(tmp, "again")).read_text()
        self.assertEqual(text, (run / "report.md").read_text())
        self.assertIn("| virtual[build=d509d67631d0] | 1.01x (0.92-1.04) |", text)

    def test_the_ab_page_quotes_both_runs(self):
        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = (docs / "2026-11-27-ab-d509d67.md").read_text()
        for run in ("1", "2"):
            text = (docs / "2026-11-27-ab-d509d67" / f"run-{run}" / "report.md").read_text()
            rows = [line for line in text.splitlines() if "[build=d509d67631d0] | " in line and "x (" in line]
            knobs = [line for line in rows if line.count("x (") >= 4]
            self.assertTrue(knobs)
            for line in knobs:
                row = cells(line)
                self.assertIn(f"| {run} | {row[0].split('[')[0]} | {' | '.join(row[1:5])} |", page)


class LabOverheadPageTest(unittest.TestCase):
    def test_the_page_quotes_its_run(self):
        from loomlab import ROOT
        from loomlab.bench.reporting.flames import frames_per_request

        docs = ROOT / "docs" / "results"
        page = (docs / "2026-11-27-lab-overhead.md").read_text()
        run = docs / "2026-11-27-lab-overhead"
        text = (run / "report.md").read_text()
        minimal = [line for line in text.splitlines() if line.startswith("| virtual[minimal] |") and "x (" in line]
        knobs = [cells(line) for line in minimal if line.count("x (") >= 4]
        self.assertEqual(len(knobs), 2)  # A3 and the open 1,500 req/s, in the report's order
        for load, row in zip(("A3 (500 VUs x 10, closed)", "open 1,500 req/s"), knobs, strict=True):
            self.assertIn(f"| {load} | {' | '.join(row[1:5])} |", page)
        patterns = [
            "PrometheusHandler",
            "WaitBudgetFilters|WaitMeters|BodyReadInterceptor",
            "HttpRequestMetric|PrometheusTimer|AbstractTimer",
            "ContextInternal.dispatch",
            "FixedEntityWriter|DynamicEntityWriter",
        ]
        self.assertIn(frames_per_request(run, patterns).markdown(), page)


class SocketWaitTest(unittest.TestCase):
    def test_the_knobs_page_quotes_each_modes_cpu_per_request(self):
        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = (docs / "2026-11-27-knobs.md").read_text()
        text = (docs / "2026-11-27-knobs" / "report.md").read_text()
        product = text[text.index("## product: ramp to 350 VUs") :]
        server = product[product.index("Server side") :]
        cpu = {}
        for line in server.splitlines():
            row = cells(line)
            if row[0] in ("worker", "virtual", "reactive") and row[0] not in cpu:
                cpu[row[0]] = row[2]
        ratio = float(cpu["virtual"]) / float(cpu["reactive"])
        row = (
            f"| product, 350 users (sockets) | {cpu['worker']} | {cpu['virtual']} | {cpu['reactive']} | {ratio:.2f}x |"
        )
        self.assertIn(row, page)
