"""The engines a run is driven by (bench.engines): which engine sends which load, how loadgen reads a
load's environment as k6's scripts do, the thresholds it holds a run to, and a real loadgen run (the
binary scripts/gotool.sh builds) against a small HTTP server on loopback."""

from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

from loomlab import ROOT, LabError
from loomlab.bench.engines import THRESHOLDS_CROSSED, Engines
from loomlab.bench.engines.loadgen import Loadgen, counted, crossed, run_env, shape_flags
from loomlab.bench.loads import Load, Request
from loomlab.bench.profiles import suites
from loomlab.bench.settings import RunSettings
from loomlab.bench.workloads.db import db_request
from loomlab.bench.workloads.sleep import sleep_request

SUMMARY = {
    "requests": 100,
    "error_rate": 0.0,
    "checks_failed": 0,
    "overflow": 0,
    "dropped": 0,
    "latency_ms": {"min": 100.2, "p90": 120.0, "p95": 130.0, "max": 180.0},
}


def a3(vus: str = "5", iterations: str = "4", sleep_ms: str = "20") -> Load:
    env = {"VUS": vus, "ITERATIONS": iterations, "SLEEP_MS": sleep_ms}
    return Load("closed", "k6/sleep.js", "sleep", env, request=sleep_request, timeout_s=60)


class EngineChoiceTest(unittest.TestCase):
    def test_auto_sends_by_loadgen_every_load_that_declares_its_request_and_the_others_by_k6(self):
        engines = Engines("auto", "/bin/loadgen", k6="/bin/k6")
        by_workload: dict[str, set[str]] = {}
        for s in suites("smoke"):
            by_workload.setdefault(s.workload, set()).update(engines.of(ld).name for ld in s.loads)
        on_loadgen = {w for w, names in by_workload.items() if names == {"loadgen"}}
        self.assertEqual(on_loadgen, {"sleep", "db", "pinning", "buffers", "product"})
        self.assertEqual(by_workload["tasks"], {"k6"})

    def test_k6_alone_sends_every_load_and_loadgen_alone_refuses_what_it_cannot_send(self):
        tasks = next(s for s in suites("smoke") if s.workload == "tasks").loads[0]
        self.assertEqual(Engines("k6", "", k6="/bin/k6").of(a3()).name, "k6")
        with self.assertRaisesRegex(LabError, "loadgen cannot send this load yet; --engine k6"):
            Engines("loadgen", "/bin/loadgen").check([a3(), tasks])

    def test_every_load_on_loadgen_declares_a_status_for_each_of_its_counters(self):
        for s in suites("smoke"):
            for load in (ld for ld in s.loads if ld.request is not None):
                env = run_env(load, load.modes[0], warmup=False)
                counts = dict(load.request(env).counts)
                self.assertTrue(set(load.counters) <= set(counts), f"{s.workload} {load.name}")
                self.assertTrue(shape_flags(env), f"{s.workload} {load.name}")


class ShapeTest(unittest.TestCase):
    def test_a3_is_users_times_iterations_in_the_column_s_mode(self):
        env = run_env(a3("500", "10", "100"), "virtual[minimal]", warmup=False)
        self.assertEqual(shape_flags(env), ["-model", "closed", "-users", "500", "-iterations", "10"])
        request = sleep_request(env)
        self.assertEqual(
            (request.paths, request.expect, request.floor_ms),
            (("/api/virtual/sleep?ms=100",), ('"mode":"virtual"',), 100.0),
        )

    def test_open_and_steady_loads_read_the_variables_k6_reads(self):
        open_env = {"MODEL": "open", "RATE": "1500", "DURATION": "4s", "MAX_VUS": "1500"}
        self.assertEqual(
            shape_flags(open_env),
            ["-model", "open", "-rate", "1500", "-duration", "4s", "-max-workers", "1500"],
        )
        self.assertEqual(
            shape_flags({"VUS": "50", "DURATION": "10s"}), ["-model", "closed", "-users", "50", "-duration", "10s"]
        )
        with self.assertRaisesRegex(LabError, "MODEL must be closed or open"):
            shape_flags({"MODEL": "ramping"})

    def test_a_warm_up_s_overrides_shape_it(self):
        load = a3()
        load.warmup_env = {"ITERATIONS": "1"}
        self.assertEqual(run_env(load, "worker", warmup=True)["ITERATIONS"], "1")
        self.assertEqual(run_env(load, "worker", warmup=False)["ITERATIONS"], "4")


class ThresholdTest(unittest.TestCase):
    SLEEP = Request(("/api/worker/sleep?ms=100",), floor_ms=100)

    def test_a_clean_run_crosses_nothing(self):
        self.assertEqual(crossed({}, self.SLEEP, SUMMARY), [])

    def test_each_threshold_of_the_scripts_is_held(self):
        db = db_request({"MODE": "worker", "DB_MS": "200", "MAX_WAIT_MS": "7000"})
        product = Request(("/p",), limits=(("p95", 5000.0),), max_errors=0.10)
        slow = {"latency_ms": {"min": 100.2, "max": 7000.0, "p95": 5000.0}}
        cases = {
            "error rate 0.0100": ({}, self.SLEEP, {"error_rate": 0.01}),
            "3 answers failed their check": ({}, self.SLEEP, {"checks_failed": 3}),
            "an answer sooner than 150 ms": ({}, Request(("/",), floor_ms=150), {}),
            "2 arrivals dropped": ({"MODEL": "open"}, self.SLEEP, {"dropped": 2}),
            "no request was answered": ({}, self.SLEEP, {"requests": 0}),
            "4 answers past the samples a run keeps (stopped at its bound)": ({}, self.SLEEP, {"overflow": 4}),
            "max 7000 ms or more": ({}, db, slow),
            "p95 5000 ms or more": ({}, product, slow),
            "error rate 0.1000": ({}, product, {"error_rate": 0.1}),
        }
        for what, (env, request, change) in cases.items():
            self.assertEqual(crossed(env, request, {**SUMMARY, **change}), [what], what)
        # A load that tolerates errors or drops says so, as k6's MAX_ERRORS and MAX_DROPPED do.
        tolerant = {"MODEL": "open", "MAX_ERRORS": "0.5", "MAX_DROPPED": "5"}
        self.assertEqual(crossed(tolerant, self.SLEEP, {**SUMMARY, "error_rate": 0.4, "dropped": 5}), [])


class CounterTest(unittest.TestCase):
    def test_a_counter_is_the_count_and_rate_of_its_status(self):
        env = {"MODE": "worker", "DB_MS": "200"}
        summary = {"status_codes": {"200": 30, "503": 10}, "duration_s": 2.0}
        got = counted(("loomlab_refused_503", "loomlab_served_200"), db_request(env), summary)
        self.assertEqual(
            got,
            {
                "loomlab_refused_503_count": 10,
                "loomlab_refused_503_rate": 5.0,
                "loomlab_served_200_count": 30,
                "loomlab_served_200_rate": 15.0,
            },
        )
        self.assertEqual(
            db_request({**env, "MODE": "virtual", "CLIENTS": "reactive"}).paths,
            ("/api/virtual/db/slow?ms=200&clients=reactive",),
        )


class Answering(http.server.BaseHTTPRequestHandler):
    """GET /api/<mode>/sleep?ms=N: sleeps N ms and names the mode, as the service does."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        mode, ms = self.path.split("/")[2], int(self.path.rsplit("=", 1)[1])
        time.sleep(ms / 1000)
        body = json.dumps({"mode": "virtual" if mode != "broken" else "worker"}, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@unittest.skipUnless(shutil.which("go"), "loadgen is built with Go")
class LoadgenRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        built = subprocess.run(["bash", str(ROOT / "scripts/gotool.sh"), "loadgen"], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
        cls.engine = Loadgen(built.stdout.strip())
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answering)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.url = f"http://127.0.0.1:{cls.server.server_address[1]}"
        cls.out = Path(tempfile.mkdtemp())

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def test_a_closed_run_sends_users_times_iterations_and_reads_as_k6_figures(self):
        got = self.engine.generate(a3(), "virtual", self.url, self.out / "ok.json", "ok", RunSettings(), False)
        self.assertEqual(got.exit, 0, (self.out / "ok.log").read_text())
        f = got.figures
        self.assertEqual((f["requests"], f["error_rate"], f["dropped"]), (20, 0.0, 0))
        self.assertGreaterEqual(f["min"], 20.0)
        self.assertTrue(f["min"] <= f["p50"] <= f["p90"] <= f["p95"] <= f["p99"] <= f["max"])
        self.assertGreater(f["throughput"], 0)

    def test_an_answer_from_the_wrong_mode_crosses_a_threshold(self):
        got = self.engine.generate(a3(), "broken", self.url, self.out / "bad.json", "bad", RunSettings(), False)
        self.assertEqual(got.exit, THRESHOLDS_CROSSED)
        self.assertIn("threshold crossed: 20 answers failed their check", (self.out / "bad.log").read_text())


if __name__ == "__main__":
    unittest.main()
