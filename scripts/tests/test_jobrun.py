"""An in-cluster run's own step (bench.jobrun, what the loadgen image runs in a Job): the bench's load
found by its script, name and parameters, sent by the real loadgen against a small HTTP server on
loopback, its figures printed between the markers the driver reads."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

from loomlab import ROOT, LabError
from loomlab.bench import jobrun
from tests.test_engines import Answering

A3_SMOKE = {"SCRIPT": "sleep.js", "LOAD": "closed 50 VUs x 4", "VUS": "50", "ITERATIONS": "4", "SLEEP_MS": "100"}


class LoadOfTest(unittest.TestCase):
    def test_the_bench_s_own_load_is_found_by_script_name_and_parameters(self):
        load = jobrun.load_of("sleep.js", "closed 50 VUs x 4", A3_SMOKE)
        self.assertEqual((load.script, load.env["VUS"]), ("k6/sleep.js", "50"))
        self.assertIsNotNone(load.request)

    def test_parameters_no_load_of_the_bench_has_are_refused(self):
        with self.assertRaises(LabError):
            jobrun.load_of("sleep.js", "made up", {"VUS": "7", "ITERATIONS": "3"})

    def test_the_printed_run_reads_back_and_a_log_without_one_reads_as_none(self):
        result = {"figures": {"requests": 3, "p99": float("nan")}, "exit": 0}
        log = "loadgen says hi\n" + jobrun.printed(result) + "bye\n"
        got = jobrun.read(log)
        assert got is not None
        self.assertEqual((got["figures"]["requests"], got["exit"]), (3, 0))
        self.assertIsNone(jobrun.read("no run here\n"))


@unittest.skipUnless(shutil.which("go"), "loadgen is built with Go")
class JobRunTest(unittest.TestCase):
    def test_a_job_s_environment_runs_the_bench_s_load_and_prints_its_figures(self):
        built = subprocess.run(["bash", str(ROOT / "scripts/gotool.sh"), "loadgen"], capture_output=True, text=True)
        self.assertEqual(built.returncode, 0, built.stderr)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answering)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        results = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, results, True)
        env = {
            **os.environ,
            **A3_SMOKE,
            "TARGETS": f"http://127.0.0.1:{server.server_address[1]}",
            "LANE": "virtual",
            "RESULTS": results,
            "LOADGEN": built.stdout.strip(),
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


if __name__ == "__main__":
    unittest.main()
