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
from dataclasses import replace
from pathlib import Path
from unittest import mock

from loomlab import ROOT, LabError
from loomlab.bench.planning.arrivals import Bodies, Request
from loomlab.bench.planning.lane import Lane
from loomlab.bench.planning.loads import Load
from loomlab.bench.planning.profiles import suites
from loomlab.bench.planning.settings import RunSettings
from loomlab.bench.running.engines import THRESHOLDS_CROSSED, Engines
from loomlab.bench.running.engines.loadgen import BodyFiles, Loadgen, counted, crossed, run_env, shape_flags, trends
from loomlab.bench.workloads.db import db_request
from loomlab.bench.workloads.ingest import chunk_request
from loomlab.bench.workloads.mixed import mixed_request, tail_load
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
        # Every workload of the lab, seed D's gRPC stream included: the lab needs no k6.
        self.assertEqual(on_loadgen, set(by_workload))
        self.assertTrue({"sleep", "tasks", "product", "recruits", "candidates", "db", "mixed"} <= on_loadgen)

    def test_k6_alone_sends_every_load_and_loadgen_alone_refuses_what_it_cannot_send(self):
        undeclared = Load("a user's own", "k6/custom.js", "custom", {})
        self.assertEqual(Engines("k6", "", k6="/bin/k6").of(a3()).name, "k6")
        with self.assertRaisesRegex(LabError, "loadgen cannot send this load yet; --engine k6"):
            Engines("loadgen", "/bin/loadgen").check([a3(), undeclared])

    def test_the_lab_never_builds_k6_it_takes_the_user_s_own_from_path(self):
        with mock.patch.dict("os.environ", {"PATH": "/nonexistent"}):
            with self.assertRaisesRegex(LabError, "runs your own k6, and none is on PATH"):
                Engines("k6", "/bin/loadgen").of(a3())
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "k6").write_text("#!/bin/sh\necho 'k6 v1.8.1 (go1.26)'\n")
            Path(tmp, "k6").chmod(0o755)
            with mock.patch.dict("os.environ", {"PATH": tmp}):
                self.assertEqual(Engines("k6", "/bin/loadgen").of(a3()).path, f"{tmp}/k6")  # type: ignore[attr-defined]

    def test_every_load_on_loadgen_declares_a_source_for_each_of_its_counters_and_trends(self):
        for s in suites("smoke"):
            for load in (ld for ld in s.loads if ld.request is not None):
                for mode in load.lanes:
                    env = run_env(load, mode, warmup=False)
                    request = load.request(env)
                    self.assertTrue(set(load.counters) <= set(dict(request.counts)), f"{s.workload} {load.name}")
                    sources = {m for m, _ in request.fields + request.latency_of}
                    wanted = {m for m, _, _ in load.extra + load.extra_report}
                    self.assertEqual(wanted - sources, set(), f"{s.workload} {load.name}")
                    self.assertTrue(shape_flags(env, request), f"{s.workload} {load.name}")


class ShapeTest(unittest.TestCase):
    def test_a3_is_users_times_iterations_in_the_column_s_mode(self):
        env = run_env(a3("500", "10", "100"), Lane.parse("virtual[minimal]"), warmup=False)
        self.assertEqual(
            shape_flags(env, sleep_request(env)), ["-model", "closed", "-users", "500", "-iterations", "10"]
        )
        request = sleep_request(env)
        self.assertEqual(
            (request.paths, request.expect, request.floor_ms),
            (("/api/virtual/sleep?ms=100",), ('"mode":"virtual"',), 100.0),
        )

    def test_open_and_steady_loads_read_the_variables_k6_reads(self):
        open_env = {"MODEL": "open", "RATE": "1500", "DURATION": "4s", "MAX_VUS": "1500"}
        get = Request(("/",))
        self.assertEqual(
            shape_flags(open_env, get),
            ["-model", "open", "-rate", "1500", "-duration", "4s", "-max-workers", "1500"],
        )
        self.assertEqual(
            shape_flags({"VUS": "50", "DURATION": "10s"}, get),
            ["-model", "closed", "-users", "50", "-duration", "10s"],
        )
        with self.assertRaisesRegex(LabError, "MODEL must be closed or open"):
            shape_flags({"MODEL": "ramping"}, get)

    def test_the_cost_profile_sends_the_same_rate_in_three_patterns_and_k6_refuses_two(self):
        from loomlab.bench.running.engines.k6 import K6

        sleep, socket = suites("cost")
        even, grouped, connections = sleep.loads
        self.assertEqual({(ld.rate, ld.open_s) for ld in sleep.loads}, {(1500, 10)})
        self.assertEqual(
            [(ld.script, ld.rate, ld.env.get("ARRIVALS")) for ld in socket.loads],
            [("k6/db.js", 1500, None), ("k6/db.js", 1500, "bursts"), ("k6/db.js", 1500, "paced")],
        )
        even_env = run_env(even, Lane("virtual"), warmup=False)
        base = shape_flags(even_env, even.request(even_env))
        for load, tail in (
            (grouped, ["-arrivals", "bursts", "-burst-period", "100ms"]),
            # 150 connections at 1,500 req/s: each every 100 ms (hey -c 150 -q 10)
            (connections, ["-arrivals", "paced", "-connections", "150"]),
        ):
            env = run_env(load, Lane("virtual"), warmup=False)
            flags = shape_flags(env, load.request(env))
            self.assertEqual((flags[:8], flags[8:]), (base, tail))
        self.assertIn("in bursts of 150 every 100 ms", grouped.name)
        self.assertIn("paced over 150 connections each every 100 ms", connections.name)
        self.assertIn("paced over 150 connections", socket.loads[2].name)
        K6("k6").prepare(even, Lane("virtual"), warmup=False)
        for load in (grouped, connections):
            with self.assertRaisesRegex(LabError, "pace arrivals only evenly"):
                K6("k6").prepare(load, Lane("virtual"), warmup=False)

    def test_a_stream_of_chunks_is_one_user_posting_each_once(self):
        env = {"MODE": "virtual", "WRITES": "parallel", "RECORDS": "250", "CHUNK": "100", "ID_BASE": "1"}
        request = chunk_request("recruits")(env)
        self.assertEqual(shape_flags(env, request), ["-model", "closed", "-users", "1", "-iterations", "3"])
        self.assertEqual(request.paths, ("/api/virtual/recruits/batch?writes=parallel",))
        assert request.bodies is not None
        chunks = [json.loads(line) for line in request.bodies.lines()]
        self.assertEqual([len(c) for c in chunks], [100, 100, 50])
        self.assertEqual((chunks[0][0]["id"], chunks[2][-1]["id"]), (1, 250))
        self.assertEqual(len(chunks[1][0]["embedding"]), 384)
        self.assertEqual(dict(request.fields)["loomlab_table_embedding_ms"], "tableMs.recruit_skill_embedding")

    def test_seed_d_s_grpc_stream_sends_the_same_records_as_messages_with_the_mode_in_its_metadata(self):
        env = {"MODE": "worker", "WRITES": "sequential", "RECORDS": "150", "CHUNK": "100", "ID_BASE": "1"}
        request = chunk_request("candidates", grpc=True)(env)
        assert request.stream is not None and request.bodies is not None
        self.assertEqual(request.stream.method, "loomlab.ingest.v1.Ingest/WriteCandidates")
        self.assertEqual(dict(request.stream.metadata), {"loomlab-mode": "worker", "loomlab-writes": "sequential"})
        messages = [json.loads(line) for line in request.bodies.lines()]
        http = [json.loads(line) for line in chunk_request("candidates")(env).bodies.lines()]  # type: ignore[union-attr]
        self.assertEqual([m["sequence"] for m in messages], [0, 1])
        self.assertEqual([m["candidates"] for m in messages], http)
        self.assertEqual(dict(request.fields)["loomlab_table_parent_ms"], "tables.role=PARENT.ms")

    def test_the_tail_mix_spreads_its_long_requests_at_their_share_and_times_the_short_ones_apart(self):
        env = run_env(tail_load(4, 200), Lane.parse("reactive+offload"), warmup=False)
        request = mixed_request(env)
        self.assertEqual(len(request.paths), 20)
        self.assertEqual(request.paths.count("/api/reactive/mixed?cpu-ms=50&wait-ms=0&offload=true"), 1)
        self.assertEqual(request.latency_of, (("loomlab_short_duration", "?cpu-ms=0&wait-ms=100"),))
        with self.assertRaisesRegex(LabError, "no whole N"):
            mixed_request({**env, "LONG_SHARE": "0.3"})

    def test_a_warm_up_s_overrides_shape_it(self):
        load = replace(a3(), warmup_env={"ITERATIONS": "1"})
        self.assertEqual(run_env(load, Lane("worker"), warmup=True)["ITERATIONS"], "1")
        self.assertEqual(run_env(load, Lane("worker"), warmup=False)["ITERATIONS"], "4")


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


class AnswersTest(unittest.TestCase):
    def test_trends_read_the_answers_fields_and_subsets_as_k6_s_statistics(self):
        load = replace(tail_load(4, 200), extra=(("loomlab_x_ms", "x", "med"),))
        request = Request(("/",), fields=(("loomlab_x_ms", "x"),), latency_of=(("loomlab_short_duration", "?s"),))
        summary = {"fields": {"x": {"count": 3, "p50": 7.0}}, "latency_of": {"?s": {"count": 9, "p99": 120.0}}}
        self.assertEqual(trends(load, request, summary), {"loomlab_x_ms": 7.0, "loomlab_short_duration": 120.0})
        none = trends(load, request, {"fields": {"x": {"count": 0, "p50": 0.0}}})
        self.assertTrue(all(v != v for v in none.values()), none)  # NaN: no answer gave the figure
        with self.assertRaisesRegex(LabError, "no source for the load's trend loomlab_x_ms"):
            trends(load, Request(("/",)), summary)

    def test_a_counter_may_sum_a_field_of_the_answers(self):
        request = Request(("/",), counts=(("loomlab_records", "records"),))
        summary = {"fields": {"records": {"count": 3, "sum": 250.0}}, "duration_s": 5.0}
        self.assertEqual(
            counted(("loomlab_records",), request, summary),
            {"loomlab_records_count": 250.0, "loomlab_records_rate": 50.0},
        )

    def test_a_stream_s_bodies_are_written_once_and_one_stream_is_kept_at_a_time(self):
        made = []

        def lines(tag):
            made.append(tag)
            return [f"[{tag}]", f"[{tag}, 2]"]

        files = BodyFiles()
        first = files.path(Bodies("a", 2, lambda: lines("a")))
        self.assertEqual(files.path(Bodies("a", 2, lambda: lines("a"))), first)
        self.assertEqual(first.read_text(), "[a]\n[a, 2]\n")
        second = files.path(Bodies("b", 2, lambda: lines("b")))
        self.assertEqual((made, first.exists(), second.exists()), (["a", "b"], False, True))
        with self.assertRaisesRegex(LabError, "1 bodies made, 2 planned"):
            files.path(Bodies("c", 2, lambda: ["[c]"]))


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

    def do_POST(self):  # noqa: N802 (http.server's name)
        """POST .../batch: a chunk's answer, its records and per-table times, as the service gives."""
        records = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        tables = ("candidate", "candidate_skill", "candidate_description", "candidate_skills_embedding")
        answer = {"records": len(records), "tableMs": {t: 2 * (i + 1) for i, t in enumerate(tables)}}
        body = json.dumps(answer).encode()
        self.send_response(200 if self.headers["Content-Type"] == "application/json" else 415)
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
        cls.out = Path(cls.enterClassContext(tempfile.TemporaryDirectory()))

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def test_a_closed_run_sends_users_times_iterations_and_reads_as_k6_figures(self):
        got = self.engine.generate(a3(), Lane("virtual"), self.url, self.out / "ok.json", "ok", RunSettings(), False)
        self.assertEqual(got.exit, 0, (self.out / "ok.log").read_text())
        f = got.figures
        self.assertEqual((f["requests"], f["error_rate"], f["dropped"]), (20, 0.0, 0))
        self.assertGreaterEqual(f["min"], 20.0)
        self.assertTrue(f["min"] <= f["p50"] <= f["p90"] <= f["p95"] <= f["p99"] <= f["max"])
        self.assertGreater(f["throughput"], 0)

    def test_a_stream_posts_every_chunk_and_counts_the_records_and_tables_its_answers_give(self):
        load = next(
            ld
            for s in suites("smoke")
            if s.workload == "candidates"
            for ld in s.loads
            if ld.env["WRITES"] == "parallel"
        )
        load = replace(load, env={**load.env, "RECORDS": "250", "CHUNK": "100"})
        self.engine.prepare(load, Lane("virtual"), False)
        got = self.engine.generate(load, Lane("virtual"), self.url, self.out / "c.json", "c", RunSettings(), False)
        self.assertEqual(got.exit, 0, (self.out / "c.log").read_text())
        f = got.figures
        self.assertEqual((f["requests"], f["loomlab_records_count"]), (3, 250))
        self.assertEqual((f["loomlab_table_parent_ms"], f["loomlab_table_embedding_ms"]), (2, 8))

    def test_an_answer_from_the_wrong_mode_crosses_a_threshold(self):
        got = self.engine.generate(a3(), Lane("broken"), self.url, self.out / "bad.json", "bad", RunSettings(), False)
        self.assertEqual(got.exit, THRESHOLDS_CROSSED)
        self.assertIn("threshold crossed: 20 answers failed their check", (self.out / "bad.log").read_text())


if __name__ == "__main__":
    unittest.main()
