"""Unit tests of the autoscale experiment's pure parts: the autoscalers' objects, their phases and
bounds, the timeline and the verdict on how fast each one followed the load."""

import unittest


class Autoscaler(unittest.TestCase):
    TARGET = {"type": "AverageValue", "averageValue": "1"}

    def look(self, t, seen, replicas, desired, queued, ready=1):
        pod = {"pod": "a", "ready": True, "cpu": seen, "busy": 50.0, "queued": queued, "wait_max_s": 1.9}
        return {
            "t": t,
            "at": 1000.0 + t,
            "hpa": {"seen": seen, "replicas": replicas, "desired": desired, "target": self.TARGET},
            "pods": [pod] * ready,
        }

    def cpu(self):
        from loomlab.incluster.experiments.autoscalers import Autoscaler as Scaler

        return Scaler.render("cpu", {}, "loom-lab")

    def test_quantities(self):
        from loomlab.incluster.experiments.autoscalers import quantity

        self.assertEqual(
            [quantity(q) for q in ("250m", "1", "1500u", "2000000000n", "48500m")], [0.25, 1.0, 0.0015, 2.0, 48.5]
        )
        self.assertTrue(quantity(None) != quantity(None), "no figure: NaN")

    def test_the_answer_says_when_it_scaled_and_on_what(self):
        from loomlab.incluster.experiments.looks import verdict

        looks = [self.look(0, 0.1, 1, 1, 0), self.look(30, 1.4, 1, 2, 200), self.look(60, 0.8, 2, 2, 0, 2)]
        self.assertEqual(
            verdict(looks, self.cpu()),
            "the autoscaler asked for 2 pods at t = 30 s (its figure per pod 1.40 against its target 1)"
            " and ran 2 at most",
        )

    def test_the_answer_says_why_it_did_not_scale(self):
        from loomlab.incluster.experiments.looks import timeline_table, verdict

        looks = [self.look(0, 0.1, 1, 1, 0), self.look(30, 0.45, 1, 1, 320)]
        self.assertEqual(
            verdict(looks, self.cpu()),
            "the autoscaler never scaled: its figure per pod peaked at 0.45 against its"
            " target 1, while up to 320 requests queued for a worker thread",
        )
        self.assertEqual(timeline_table(looks).rows[1], ["30", "1 (1)", "0.45", "1 -> 1", "0.45", "50", "320", "1,900"])

    def test_the_queue_autoscaler_is_keda_on_the_worker_demand_in_the_runs_namespace(self):
        from loomlab.incluster.experiments.autoscalers import Autoscaler as Scaler

        scaler = Scaler.render("queue", {}, "team-a")
        self.assertEqual(scaler.doc["kind"], "ScaledObject")
        self.assertEqual(scaler.hpa, "keda-hpa-loom-lab-jvm")
        trigger = scaler.doc["spec"]["triggers"][0]
        self.assertIn('namespace="team-a"', trigger["metadata"]["query"])
        self.assertNotIn("loom-lab", trigger["metadata"]["query"])
        self.assertEqual(trigger["metadata"]["serverAddress"], "http://prometheus.team-a.svc.cluster.local:9090")
        self.assertIn("KEDA, 1-4 pods", scaler.describe())
        self.assertIsNone(Scaler.render("none", {}, "loom-lab").hpa)

    def test_either_autoscaler_retargets_to_the_aot_image_s_deployment_and_pods(self):
        from loomlab.incluster.experiments.autoscalers import Autoscaler as Scaler

        queue = Scaler.render("queue", {}, "loom-lab", "jvm-aot")
        self.assertEqual(queue.doc["spec"]["scaleTargetRef"]["name"], "loom-lab-jvm-aot")
        self.assertEqual(queue.hpa, "keda-hpa-loom-lab-jvm-aot")
        query = queue.doc["spec"]["triggers"][0]["metadata"]["query"]
        self.assertEqual(query.count('variant="jvm-aot"'), 2)
        self.assertNotIn('variant="jvm"', query)
        cpu = Scaler.render("cpu", {}, "loom-lab", "jvm-aot")
        self.assertEqual((cpu.hpa, cpu.doc["spec"]["scaleTargetRef"]["name"]), ("loom-lab-jvm-aot", "loom-lab-jvm-aot"))

    def test_phases_cut_where_the_ready_pods_change_and_where_the_load_ends(self):
        from loomlab.incluster.experiments.phases import bounds

        looks = [self.look(t, 0.1, 1, 1, 0, 1) for t in (0, 5, 10, 15, 20)]
        looks += [self.look(t, 0.1, 2, 2, 0, 2) for t in (25, 30, 35, 40)]
        looks += [self.look(t, 0.1, 2, 2, 0, 3) for t in (45,)]  # 3 Ready for under 10 s: merged
        looks += [self.look(t, 0.1, 2, 2, 0, 2) for t in (50, 55, 60, 65, 70)]
        self.assertEqual(
            bounds(looks, 1000.0, 1062.0),
            [(1000.0, 1025.0, 1, True), (1025.0, 1065.0, 2, True), (1065.0, 1070.0, 2, False)],
        )

    def test_a_phase_s_load_figures_come_from_the_requests_sent_in_it(self):
        from loomlab.bench.api import requests_of
        from loomlab.incluster.experiments import phases

        samples = "timestamp_us,latency_us,status,error\n" + "".join(
            f"{10_000_000 + i * 100_000},{(i + 1) * 1000},{503 if i % 4 == 0 else 200},\n" for i in range(100)
        )
        requests = requests_of(samples)
        first = phases.window(requests, 10.0, 15.0)  # 50 requests sent in 5 s, 13 of them 503
        self.assertEqual((first["rate"], round(first["shed_pct"], 1), first["p99_ms"]), (10.0, 26.0, 50.0))
        self.assertEqual(phases.window(requests, 30.0, 40.0)["rate"], 0.0)

    def test_an_experiment_s_own_load_is_carried_by_the_bench_s_load_of_its_model(self):
        from loomlab.bench import api as bench
        from loomlab.incluster.core import jobs

        suite = bench.sleep.suites(bench.Scale())[0]
        own = bench.sleep.open_sleep_load(1.5, 500.0, 240)
        carried = jobs.carried(own, suite)
        self.assertIn(carried.name, {ld.name for ld in suite.loads})
        self.assertEqual((carried.env, carried.rate), (own.env, own.rate))

    def test_the_runs_side_by_side(self):
        from loomlab.incluster.experiments.autoscaletable import table

        looks = [self.look(0, 0.1, 1, 1, 0), self.look(20, 300, 1, 4, 900), self.look(32, 20, 4, 4, 0, 4)]
        looks += [self.look(300, 1, 4, 1, 0, 1)]
        phases = [
            {
                "from_s": 0,
                "to_s": 32,
                "ready": 1,
                "loaded": True,
                "cpu_cores": 0.2,
                "rss_mib_max": 300,
                "threads_max": 70,
            },
            {
                "from_s": 32,
                "to_s": 240,
                "ready": 4,
                "loaded": True,
                "cpu_cores": 0.4,
                "rss_mib_max": 250,
                "threads_max": 50,
            },
            {
                "from_s": 240,
                "to_s": 300,
                "ready": 4,
                "loaded": False,
                "cpu_cores": 0.0,
                "rss_mib_max": 250,
                "threads_max": 50,
            },
            {
                "from_s": 300,
                "to_s": 320,
                "ready": 1,
                "loaded": False,
                "cpu_cores": 0.0,
                "rss_mib_max": 250,
                "threads_max": 50,
            },
        ]
        figures = {"throughput": 140.0, "error_rate": 0.05, "p99": 2100.0}
        report = {"on": "queue", "mode": "worker", "looks": looks, "phases": phases, "figures": figures}
        report |= {"load": "open 150 req/s (1.5x the worker bound)", "sleep_ms": 500, "keep_alive": False}
        self.assertEqual(
            table([report]).rows[0],
            [
                "worker, queue autoscaler (KEDA), open 150 req/s (1.5x the worker bound) at 500 ms",
                "4",
                "20",
                "32",
                "140",
                "5.0",
                "2,100",
                "0.37",
                "200",
                "1,000",
                "300",
            ],
        )


if __name__ == "__main__":
    unittest.main()


class ResultsPageTest(unittest.TestCase):
    def test_the_start_up_page_gives_the_aot_runs_table(self):
        import json

        from loomlab import ROOT
        from loomlab.incluster.experiments import autoscaletable

        docs = ROOT / "docs" / "results"
        runs = sorted((docs / "2026-11-27-start-up-floor" / "autoscale").glob("*.json"))
        self.assertEqual(len(runs), 4)
        t = autoscaletable.table([json.loads(r.read_text()) for r in runs])
        self.assertIn(t.markdown(), (docs / "2026-11-27-start-up-floor.md").read_text())
