"""Unit tests of `./lab startup`'s pure parts (loomlab.startup): the launches' interleaving, the
memory split it reads from the OS, the phases and counters it reads off a launch, the training
run's loads and the profiled launch's summary."""

import math
import os
import tempfile
import unittest
from datetime import datetime
from pathlib import Path
from unittest import mock

from loomlab import LabError
from loomlab.bench.planning.lane import Lane
from loomlab.startup import __main__ as startup
from loomlab.startup import cli as startup_cli
from loomlab.startup import flame, phases, tables, training
from loomlab.startup.launches import memory_mb
from loomlab.stats import rotated


class Interleaving(unittest.TestCase):
    def test_every_variant_leads_in_turn_and_each_launch_runs_every_variant_once(self):
        names = ["jvm", "jvm-aot", "jvm-aot-quarkus"]
        orders = [rotated(names, i) for i in range(5)]
        self.assertEqual([o[0] for o in orders], ["jvm", "jvm-aot", "jvm-aot-quarkus", "jvm", "jvm-aot"])
        for o in orders:
            self.assertEqual(sorted(o), sorted(names))
        self.assertEqual(rotated([], 3), [])


class Arguments(unittest.TestCase):
    def test_no_launch_is_refused(self):
        base = ["--java", "java", "--loadgen", "loadgen", "--out", "out"]
        self.assertEqual(startup.parse(base).launches, 5)
        for n in ("0", "-3"):
            with self.assertRaisesRegex(LabError, "--launches must be 1 or more"):
                startup.parse([*base, "--launches", n])

    def test_a_variant_is_a_name_and_flags(self):
        base = ["--java", "java", "--loadgen", "loadgen", "--out", "out"]
        args = startup.parse([*base, "--variant", "no-migrate=-Da=1 -Db=2"])
        self.assertEqual(args.variant, [("no-migrate", ["-Da=1", "-Db=2"])])
        for bad in ("no-migrate", "=-Da=1", "x= ", "../../etc/x=-Da=1", "a/b=-Da=1", f"{'n' * 41}=-Da=1", ".x=-Da=1"):
            with self.assertRaisesRegex(LabError, "--variant .*NAME=FLAGS"):
                startup.parse([*base, "--variant", bad])
        with self.assertRaisesRegex(LabError, "each starting with '-'"):
            startup.parse([*base, "--variant", "x=Da=1"])
        with self.assertRaisesRegex(LabError, "each NAME once"):
            startup.parse([*base, "--variant", "a=-Da=1", "--variant", "a=-Db=2"])

    def test_a_cold_run_without_root_is_refused_before_the_training_run(self):
        base = ["--java", "java", "--loadgen", "loadgen", "--out", "out", "--cold"]
        with mock.patch.object(startup_cli.os, "geteuid", lambda: 1000):
            with self.assertRaisesRegex(LabError, "needs root"):
                startup.parse(base)
        with mock.patch.object(startup_cli.os, "geteuid", lambda: 0):
            self.assertTrue(startup.parse(base).cold)


class Memory(unittest.TestCase):
    def test_the_resident_set_and_its_anonymous_and_file_backed_parts(self):
        m = memory_mb(os.getpid())
        self.assertGreater(m["anon"], 0)
        self.assertGreater(m["file"], 0)
        # VmRSS = RssAnon + RssFile + RssShmem (the kernel's own sum, rounded per field)
        self.assertLessEqual(m["anon"] + m["file"], m["rss"] + 0.01)

    def test_a_process_that_is_gone_gives_no_figure(self):
        m = memory_mb(2**22 + 1)  # above the kernel's pid_max ceiling: never a process
        self.assertTrue(all(v != v for v in m.values()), m)  # NaN


def stamp(epoch: float) -> str:
    """StepTiming's stamp of an instant (local time, milliseconds)."""
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]


class Phases(unittest.TestCase):
    launched = 1_800_000_000.0  # a whole second: the stamps below are exact

    def log(self) -> str:
        at = self.launched
        return "\n".join(
            [
                "[0.071s][info][startuptime] Create VM, 0.0700000 secs",
                f"{stamp(at + 0.900)} Build step LoggingResourceProcessor.setupLoggingStaticInit completed in: 100ms",
                "2026-11-27 00:00:00,000 INFO  [io.quarkus] a line of the application's own",
                f"{stamp(at + 2.200)} Build step FlywayProcessor.startActions completed in: 1300ms",
                f"{stamp(at + 2.210)} Build step VertxHttpProcessor.openSocket completed in: 10ms",
            ]
        )

    def test_the_steps_and_what_lies_before_and_after_them_add_up_to_the_first_answer(self):
        found = phases.phases(self.log(), self.launched, ttfr_ms=2300.0)
        self.assertEqual(list(found)[:2], [phases.BEFORE, phases.VM])
        self.assertAlmostEqual(found[phases.BEFORE], 800.0, places=3)  # the first step started at 0.8 s
        self.assertAlmostEqual(found[phases.VM], 70.0)
        self.assertEqual(found["FlywayProcessor.startActions"], 1300.0)
        self.assertAlmostEqual(found[phases.AFTER], 90.0, places=3)  # the last step ended at 2.21 s
        parts = sum(v for k, v in found.items() if k != phases.VM)
        self.assertAlmostEqual(parts, 2300.0, places=3)

    def test_a_launch_that_printed_no_step_has_no_phases(self):
        self.assertEqual(phases.phases("[0.07s][info][startuptime] Create VM, 0.07 secs", self.launched, 900.0), {})

    def test_a_step_is_named_without_its_package(self):
        self.assertEqual(phases.short("io.quarkus.flyway.FlywayProcessor#startActions"), "FlywayProcessor.startActions")
        self.assertEqual(phases.short("FlywayProcessor.startActions"), "FlywayProcessor.startActions")


class Counters(unittest.TestCase):
    def test_ticks_become_seconds_and_a_missing_counter_no_figure(self):
        text = (
            "sun.os.hrt.frequency=1000000000\njava.cls.loadedClasses=14000\njava.cls.sharedLoadedClasses=9000\n"
            "sun.cls.time=1500000000\nsun.ci.totalCompiles=3000\n"
        )
        found = phases.read_counters(text)
        self.assertEqual(found["classes loaded"], 14000)
        self.assertEqual(found["of which from the CDS archive or AOT cache"], 9000)
        self.assertAlmostEqual(found["class loading (s)"], 1.5)
        self.assertTrue(math.isnan(found["JIT (s, compiler threads)"]))
        self.assertTrue(all(math.isnan(v) for v in phases.read_counters("").values()))


class Training(unittest.TestCase):
    def test_every_workload_is_trained_in_each_of_its_modes(self):
        runs = list(training.training_runs())
        trained = {(load.script, lane.key) for load, lane in runs}
        for script, modes in [("sleep", "worker virtual reactive"), ("recruits", "worker virtual reactive")]:
            for mode in modes.split():
                self.assertIn((f"k6/{script}.js", mode), trained)
        for script in ("tasks", "product", "candidates", "ingest-grpc", "db", "pinning", "mixed", "buffers"):
            self.assertTrue(any(s == f"k6/{script}.js" for s, _ in trained), script)
        locks = {load.env.get("LOCK") for load, _ in runs if load.script == "k6/pinning.js"}
        self.assertEqual(locks, {"synchronized", "reentrant", "native"})
        self.assertEqual(
            len(runs), len({(ld.script, m, tuple(ld.env.get(k) for k in training.SELECTS)) for ld, m in runs})
        )


class Flame(unittest.TestCase):
    def test_a_step_s_cpu_counts_each_stack_once_and_categories_sum_to_the_whole(self):
        step = "FlywayProcessor$startActions1937256567.deploy_0_[j]"
        stacks = [
            (["Thread.run", "ApplicationImpl.doStart", step, "Flyway.migrate", step], 3),
            (["[class_load]", "ClassLoader.loadClass"], 2),
            (["Thread.run", "futex_wait_[k]"], 1),
        ]
        found = flame.summarise(stacks)
        self.assertEqual(found["steps"], {"FlywayProcessor.startActions": 3.0})
        self.assertEqual(found["cpu_ms"], 6.0)
        self.assertEqual(found["categories"], {"Java": 3.0, "classes": 2.0, "kernel": 1.0})
        self.assertEqual(
            flame.step_of("ArcProcessor$initializeContainer123.deploy"), "ArcProcessor.initializeContainer"
        )
        self.assertEqual(flame.step_of("Flyway.migrate_[j]"), "")


class PhaseTable(unittest.TestCase):
    def test_big_steps_get_rows_and_the_rest_is_summed(self):
        def launch(ttfr, flyway):
            return {
                "ttfr_ms": ttfr,
                "phases": {phases.BEFORE: 500.0, "FlywayProcessor.startActions": flyway, "Tiny.step": 5.0},
            }

        runs = {"jvm": [launch(2000, 1200.0), launch(2100, 1300.0)], "jvm-aot": [launch(1200, 600.0)]}
        t = tables.phase_table(runs, {})
        assert t is not None
        rows = {r[0]: r[1:] for r in t.rows}
        self.assertEqual(rows["FlywayProcessor.startActions"], ["1,250 (1,200-1,300)", "600"])
        self.assertNotIn("Tiny.step", rows)
        self.assertEqual(rows["the other steps (each under 20 ms)"], ["5", "5"])
        self.assertEqual(rows["time to the first answer"], ["2,050 (2,000-2,100)", "1,200"])
        self.assertIsNone(tables.phase_table({"jvm": [{"ttfr_ms": 1.0, "phases": {}}]}, {}))


class FixedLoadTest(unittest.TestCase):
    def test_the_fixed_loads_are_loadgen_s_and_a_failed_run_is_refused_with_what_it_said(self):
        from loomlab import LabError
        from loomlab.bench.running.engines.loadgen import run_env, shape_flags
        from loomlab.startup import launches

        sleep, product = launches.FIXED_LOADS
        env = run_env(sleep, Lane("virtual"), False)
        self.assertEqual(
            shape_flags(env, sleep.request(env)), ["-model", "closed", "-users", "200", "-iterations", "20"]
        )
        env = run_env(product, Lane("virtual"), False)
        self.assertEqual(shape_flags(env, product.request(env)), ["-model", "closed", "-stages", "3s:100,6s:100,1s:0"])
        with tempfile.TemporaryDirectory() as tmp:
            loadgen = Path(tmp, "loadgen")
            loadgen.write_text("#!/bin/sh\necho 'dial tcp: connection refused' >&2\nexit 107\n")
            loadgen.chmod(0o755)
            settings = launches.Settings(str(loadgen), 8095, Path(tmp, "jcmd"))
            with self.assertRaisesRegex(LabError, r"failed \(exit 107\):\ndial tcp: connection refused"):
                launches.rate(settings, sleep, Path(tmp, "summary.json"))
