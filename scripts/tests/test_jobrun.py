"""An in-cluster run's own step (bench.jobrun, what the loadgen image runs in a Job): the bench's load
found by its script, name and parameters, sent by the real loadgen against a small HTTP server on
loopback, its figures printed between the markers the driver reads."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from loomlab import ROOT, LabError, proc
from loomlab.bench import jobrun
from loomlab.bench.planning.lane import Lane
from tests.test_engines import Answering


class AnsweringAsEachMode(Answering):
    """The sleep answered in the mode its path names, and the service's pools (/api/info)."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path != "/api/info":
            mode, ms = self.path.split("/")[2], int(self.path.rsplit("=", 1)[1])
            time.sleep(ms / 1000)
            self.answer({"mode": mode})
        else:
            self.answer({"pools": {"worker.max-threads": 50}})

    def answer(self, doc: dict) -> None:
        body = json.dumps(doc, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


A3_SMOKE = {"SCRIPT": "sleep.js", "LOAD": "closed 50 VUs x 4", "VUS": "50", "ITERATIONS": "4", "SLEEP_MS": "100"}


class LoadOfTest(unittest.TestCase):
    def test_the_bench_s_own_load_is_found_by_script_name_and_parameters(self):
        load = jobrun.load_of("sleep.js", "closed 50 VUs x 4", A3_SMOKE)
        self.assertEqual((load.script, load.env["VUS"]), ("k6/sleep.js", "50"))
        self.assertIsNotNone(load.request)

    def test_a_name_the_bench_does_not_have_is_refused(self):
        with self.assertRaises(LabError):
            jobrun.load_of("sleep.js", "made up", {"VUS": "7", "ITERATIONS": "3"})

    def test_a_parameter_the_job_gives_replaces_the_load_s_own(self):
        load = jobrun.load_of("sleep.js", "closed 500 VUs x 10 (A3)", {"VUS": "20"})
        self.assertEqual((load.env["VUS"], load.env["ITERATIONS"]), ("20", "10"))
        assert load.request is not None
        self.assertIn("/api/worker/sleep?ms=100", load.request({**load.env, "MODE": "worker"}).paths[0])

    def test_a_lane_that_is_no_column_s_name_is_refused_in_words(self):
        for key in ("Virtual", "virtual+", "virtual[]", ""):
            with self.assertRaisesRegex(LabError, "not a column's name"):
                Lane.parse(key)

    def test_the_printed_run_reads_back_and_a_log_without_one_reads_as_none(self):
        result = {"figures": {"requests": 3, "p99": float("nan")}, "exit": 0}
        log = "loadgen says hi\n" + jobrun.printed(result) + "bye\n"
        got = jobrun.read(log)
        assert got is not None
        self.assertEqual((got["figures"]["requests"], got["exit"]), (3, 0))
        self.assertIsNone(jobrun.read("no run here\n"))


class ShareTest(unittest.TestCase):
    def test_each_runner_takes_its_share_of_users_and_rate_the_first_ones_the_remainder(self):
        a3 = jobrun.load_of("sleep.js", "closed 500 VUs x 10 (A3)", {})
        self.assertEqual([jobrun.share(a3, i, 3).env["VUS"] for i in range(3)], ["167", "167", "166"])
        self.assertEqual(jobrun.share(a3, 0, 3).env["ITERATIONS"], "10", "each user still sends its iterations")
        open_ = jobrun.load_of("sleep.js", "open 600 req/s (1.2x the worker bound)", {})
        self.assertEqual([jobrun.share(open_, i, 2).env["RATE"] for i in range(2)], ["300", "300"])

    def test_a_ramp_or_a_stream_of_bodies_is_not_split(self):
        product = jobrun.load_of("product.js", "ramp to 350 VUs in 42 s", {})
        recruits = jobrun.load_of("recruits.js", "87,488 records in chunks of 100, parallel (D)", {})
        for load in (product, recruits):
            with self.assertRaises(LabError):
                jobrun.share(load, 0, 2)

    def test_the_first_request_s_time_reads_vegeta_s_nanoseconds_and_zone(self):
        from loomlab.incluster.core.jobs import first_request_s

        a = first_request_s({"vegeta": {"earliest": "2026-11-28T08:14:48.977478923Z"}})
        b = first_request_s({"vegeta": {"earliest": "2026-11-28T09:14:49.5+01:00"}})
        self.assertAlmostEqual(b - a, 0.522521077, places=6)


@unittest.skipUnless(shutil.which("go"), "loadgen is built with Go")
class JobRunTest(unittest.TestCase):
    def setUp(self):
        """The service's stand-in on loopback, a results folder and the built loadgen, per test."""
        built = subprocess.run(["bash", str(ROOT / "scripts/gotool.sh"), "loadgen"], capture_output=True, text=True)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.loadgen = built.stdout.strip()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AnsweringAsEachMode)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self.results = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.results, True)

    def test_a_job_s_environment_runs_the_bench_s_load_and_prints_its_figures(self):
        env = {
            **os.environ,
            **A3_SMOKE,
            "TARGETS": self.url,
            "LANE": "virtual",
            "RESULTS": str(self.results),
            "LOADGEN": self.loadgen,
            "PYTHONPATH": str(ROOT / "scripts"),
        }
        # No taskset, no venv: the image's python3 with the standard library alone.
        run = subprocess.run(
            [sys.executable, "-I", "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
             "from loomlab import command; from loomlab.bench import jobrun; command(jobrun.main, [])",
             str(ROOT / "scripts")],
            env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        self.assertEqual(run.returncode, 0, run.stderr)
        got = jobrun.read(run.stdout)
        assert got is not None, run.stdout
        self.assertEqual((got["figures"]["requests"], got["exit"], got["engine"]), (200, 0, "loadgen"))
        self.assertGreaterEqual(got["figures"]["min"], 100.0)
        self.assertEqual(got["summary"]["requests"], 200)
        self.assertGreater(got["gen_cpu_s"], 0)

    def test_rounds_check_the_pools_run_every_mode_in_turn_and_end_with_the_answer(self):
        results = self.results
        # The smoke load made small: the parameters the Job gives replace the load's own.
        env = {**A3_SMOKE, "VUS": "5", "ITERATIONS": "2", "SLEEP_MS": "20"}
        env |= {"TARGETS": self.url, "ROUNDS": "2", "WARMUPS": "1", "RESULTS": str(results)}
        env |= {"LOADGEN": self.loadgen, "EXPECT_POOLS": "worker.max-threads=50"}
        log = io.StringIO()
        with contextlib.redirect_stdout(log):
            code = jobrun.main([], env)
        self.assertEqual(code, 0, log.getvalue())
        text = log.getvalue()
        rounds = [line for line in text.splitlines() if line.startswith("== round")]
        self.assertEqual(len(rounds), 8)
        self.assertTrue(rounds[0].endswith("mode worker") and rounds[4].endswith("mode virtual"), rounds)
        self.assertIn("answer:", text)
        self.assertTrue((results / "sleep-127.0.0.1-reactive-r2.json").exists())
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            wrong = jobrun.main([], {**env, "EXPECT_POOLS": "worker.max-threads=200"})
        self.assertEqual(wrong, 3, "a service at other pools is refused before any load")

    def test_a_split_s_runners_start_together_and_their_results_merge_into_one_run_of_the_whole_load(self):
        from loomlab.incluster.core.jobs import first_request_s, split_loadgen

        results = self.results
        env = {**A3_SMOKE, "VUS": "5", "ITERATIONS": "3", "SLEEP_MS": "20", "LANE": "virtual", "SEGMENTS": "2"}
        env |= {"TARGETS": self.url, "RESULTS": str(results), "LOADGEN": self.loadgen, "PAUSED": "1"}
        env |= {"PYTHONPATH": str(ROOT / "scripts"), "START_WAIT_S": "600"}

        def runner(i: int) -> subprocess.Popen:  # an Indexed Job's pod, a process of its own
            command = [sys.executable, "-m", "loomlab.bench.jobrun"]
            child = {**os.environ, **env, "JOB_COMPLETION_INDEX": str(i)}
            return subprocess.Popen(command, env=child, stdout=subprocess.PIPE, text=True)

        first = runner(0)
        self.assertTrue(proc.wait_until(lambda: (results / "ready-0").exists(), 600, 0.05), "runner 0 set")
        second = runner(1)  # set only after the first one waits: without the wait, it would have run alone
        logs = [first.communicate(timeout=600)[0], second.communicate(timeout=600)[0]]
        exits = [first.returncode, second.returncode]
        load = jobrun.load_of("sleep.js", A3_SMOKE["LOAD"], env)
        runs = [jobrun.read(log) for log in logs]
        set_at = max(float((results / f"ready-{i}").read_text()) for i in range(2))
        for i, run in enumerate(runs):
            self.assertIsNotNone(run, logs[i])
            self.assertGreaterEqual(first_request_s(run["summary"]), set_at, f"runner {i} began after both were set")
        out = results / "merged.json"
        figures = split_loadgen(load, Lane("virtual"), False, out, "split", results, logs, exits, [], 1.0)
        self.assertEqual((figures["requests"], figures["k6_exit"]), (15, 0), "5 users x 3, over 3 + 2")
        self.assertEqual([f["requests"] for f in figures["runner_figures"]], [9, 6])
        self.assertGreaterEqual(figures["min"], 20.0)
        self.assertGreaterEqual(figures["start_skew_s"], 0.0)

    def test_a_runner_whose_others_are_not_set_in_time_fails_naming_them(self):
        with self.assertRaises(LabError) as failed:
            jobrun.wait_for_start(self.results, 0, 3, 0)
        self.assertIn("ready-1, ready-2", str(failed.exception))
        self.assertTrue((self.results / "ready-0").exists(), "its own time is written for the others")

    def test_a_runner_that_sees_the_others_set_too_late_fails_rather_than_run_alone(self):
        from unittest import mock

        (self.results / "ready-1").write_text("1000.5")  # set half a second after runner 0, seen 9.5 s later
        with mock.patch("loomlab.bench.jobrun.time.time", side_effect=[1000.0, 1010.0]):
            with self.assertRaises(LabError) as late:
                jobrun.wait_for_start(self.results, 0, 2, 600)
        self.assertIn("8.5 s past the split's common start", str(late.exception))


if __name__ == "__main__":
    unittest.main()
