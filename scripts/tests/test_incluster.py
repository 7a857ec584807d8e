"""Unit tests of the in-cluster runner's pure parts (loomlab.incluster): the images a run deploys,
the Jobs `./lab k8s run` makes and the figures it reads back (summaries, replicas, Prometheus),
the failover and scale-out experiments, and which workloads run in the cluster."""

import copy
import re
import unittest
from pathlib import Path

from loomlab import LabError
from loomlab.incluster.core import deploy, jobs, plan
from tests.markdown import cells


class Images(unittest.TestCase):
    def test_pushed_images_replace_the_local_ones_in_every_pod_template(self):
        from loomlab.incluster.core import target

        docs = [
            {
                "kind": "Deployment",
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "a", "image": "127.0.0.1:5000/loom-lab/loom-lab-jvm:0.1.0"},
                                {"name": "b", "image": "other:1"},
                            ]
                        }
                    }
                },
            },
            {"kind": "Service", "spec": {"ports": []}},
        ]
        pushed = {
            "127.0.0.1:5000/loom-lab/loom-lab-jvm:0.1.0": "registry.example.com/t/loom-lab/loom-lab-jvm@sha256:ab"
        }
        out = target.with_images(docs, pushed)
        images = [c["image"] for c in out[0]["spec"]["template"]["spec"]["containers"]]
        self.assertEqual(images, ["registry.example.com/t/loom-lab/loom-lab-jvm@sha256:ab", "other:1"])
        self.assertEqual(
            docs[0]["spec"]["template"]["spec"]["containers"][0]["image"], "127.0.0.1:5000/loom-lab/loom-lab-jvm:0.1.0"
        )  # the rendered documents are left as they were


class Variants(unittest.TestCase):
    def test_each_variant_with_an_image_here_renders_where_a_run_applies_it(self):
        # deploy/k8s/local needs the gitignored credentials to render: its overlays are read here,
        # and the kustomizations beside it whole (they name no secret).
        for variant, (name, _, image) in plan.VARIANTS.items():
            if variant == "native":  # no image is built here (no GraalVM or Mandrel)
                continue
            beside = plan.BESIDE_LOCAL.get(variant)
            docs = deploy.render(beside or f"deploy/k8s/overlays/{variant}", {})
            kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
            self.assertLessEqual({("Deployment", name), ("Service", name)}, kinds, variant)
            dep = next(d for d in docs if d["kind"] == "Deployment")
            self.assertEqual(dep["spec"]["template"]["spec"]["containers"][0]["image"], image, variant)
            self.assertEqual(dep["metadata"]["labels"]["app.kubernetes.io/variant"], variant)
            if beside:  # sized as the stack beside it (components/two-cores)
                self.assertEqual(dep["spec"]["strategy"]["type"], "Recreate", variant)

    def test_deploy_k8s_local_starts_no_variant_kept_beside_it(self):
        local = (Path(deploy.ROOT) / "deploy/k8s/local/kustomization.yaml").read_text()
        for variant in plan.BESIDE_LOCAL:
            self.assertNotIn(f"overlays/{variant}\n", local)


class Jobs(unittest.TestCase):
    TEMPLATE = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "k6-sleep", "labels": {"a": "b"}},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "k6",
                            "env": [
                                {"name": "SCRIPT", "value": "sleep.js"},
                                {"name": "VUS", "value": "500"},
                                {"name": "K6_PROMETHEUS_RW_SERVER_URL", "value": "http://prometheus:9090/api/v1/write"},
                                {
                                    "name": "TESTID",
                                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['job-name']"}},
                                },
                            ],
                        }
                    ]
                }
            }
        },
    }

    def templates(self) -> dict:
        return {"sleep.js": jobs.on_loadgen(self.TEMPLATE, "registry/loadgen@sha")}

    def test_a_load_that_declares_its_request_runs_on_loadgen_with_the_bench_s_own_load(self):
        from loomlab.bench.profiles import suites

        load = next(ld for s in suites("smoke") if s.workload == "sleep" for ld in s.loads)
        job = jobs.make_job(self.templates(), load, "lg-x", "http://loom-lab-jvm:8080", "virtual+rx", "r1", warmup=True)
        pod = job["spec"]["template"]
        container = pod["spec"]["containers"][0]
        env = {e["name"]: e["value"] for e in container["env"]}
        self.assertEqual((container["name"], container["image"]), ("loadgen", "registry/loadgen@sha"))
        self.assertEqual(container["command"], ["python3", "-m", "loomlab.bench.jobrun"])
        self.assertEqual(
            (env["SCRIPT"], env["LOAD"], env["LANE"], env["WARMUP"]), ("sleep.js", load.name, "virtual+rx", "1")
        )
        self.assertEqual({k: env[k] for k in load.env}, load.env, "the load's own parameters, not a warm-up's")
        self.assertNotIn("K6_PROMETHEUS_RW_SERVER_URL", env, "loadgen writes nothing into Prometheus")
        self.assertEqual(pod["metadata"]["labels"]["app.kubernetes.io/name"], "loadgen", "its own NetworkPolicy")
        self.assertEqual([v["name"] for v in pod["spec"]["volumes"]], ["tmp"])
        self.assertEqual(self.TEMPLATE["spec"]["template"]["spec"]["containers"][0]["name"], "k6", "not modified")

    def test_a_split_is_an_indexed_job_of_paused_runners(self):
        job = deploy.distribute(copy.deepcopy(self.templates()["sleep.js"]), 3)
        container = job["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e.get("value") for e in container["env"]}
        self.assertEqual((job["spec"]["completionMode"], job["spec"]["completions"]), ("Indexed", 3))
        self.assertEqual((env["SEGMENTS"], env["PAUSED"], env["RESULTS"]), ("3", "1", "/results/k6-sleep"))
        self.assertEqual(container["readinessProbe"]["httpGet"]["path"], "/ready")

    def test_job_names_are_dns_labels_and_unique(self):
        a = jobs.job_id("jvm-aot-sleep-closed_500_VUs_x_10-virtual-3")
        b = jobs.job_id("jvm-aot-sleep-closed_500_VUs_x_10-virtual-3" * 3)
        self.assertRegex(a, r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        self.assertLessEqual(len(b), 63)

    def test_a_run_gets_one_target_one_mode_and_its_load(self):
        from loomlab.bench.profiles import suites

        load = next(ld for s in suites("smoke") if s.workload == "sleep" for ld in s.loads)
        job = jobs.make_job(
            self.templates(), load, "lg-x", "http://loom-lab-jvm:8080", "virtual", "run 1", warmup=False
        )
        env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
        self.assertEqual(env["TARGETS"], "http://loom-lab-jvm:8080")
        self.assertNotIn("500", env.values(), "the template's load is replaced")
        self.assertEqual((env["LANE"], env["WARMUP"], env["RUN_LABEL"]), ("virtual", "0", "run 1"))
        self.assertEqual(job["metadata"]["name"], "lg-x")
        self.assertEqual(job["spec"]["activeDeadlineSeconds"], load.timeout_s + 60)

    def test_a_load_without_a_request_is_refused_not_sent_by_k6(self):
        from loomlab.bench import loads

        load = loads.Load("closed", "k6/sleep.js", "sleep", {"VUS": "50"}, timeout_s=100)
        with self.assertRaisesRegex(LabError, "declares no request"):
            jobs.make_job(self.templates(), load, "lg-x", "http://x:8080", "virtual", "r1", warmup=False)


class Monitoring(unittest.TestCase):
    def test_a_run_leaves_out_prometheus_and_only_prometheus(self):
        # deploy/k8s/monitoring adds the component to the namespace, as deploy/k8s/local adds it to
        # the database and the services (local needs the gitignored credentials to render).
        docs = deploy.render("deploy/k8s/monitoring", {})
        left_out = sorted(d["metadata"]["name"] for d in docs if deploy.monitoring(d))
        self.assertTrue(all(n.startswith("prometheus") for n in left_out), left_out)
        # account, role, binding, config, Service, Deployment, its two policies (in, out)
        self.assertEqual(len(left_out), 8, left_out)
        self.assertEqual([d["kind"] for d in docs if not deploy.monitoring(d)], ["Namespace"])

    def test_the_report_sets_prometheus_beside_the_labs_own_scrapes(self):
        from loomlab.incluster.core.report import prometheus_table

        def run(threads, cpu_s, p_threads, p_cpu):
            prom = {"threads_total_max": p_threads, "cpu_cores": p_cpu}
            return {"peak_live_threads": threads, "cpu_s": cpu_s, "wall_s": 10.0, "prometheus": prom}

        sections = [
            {
                "load": "closed 50 VUs x 4",
                "results": {
                    "worker": {"runs": [run(60, 4.0, 60, 0.38), run(62, 5.0, 61, 0.52), run(61, 4.5, 61, 0.45)]},
                    "virtual": {"runs": [{"peak_live_threads": 30, "cpu_s": 1.0, "wall_s": 10.0}]},  # none from it
                },
            }
        ]
        table = prometheus_table(sections)
        self.assertEqual(
            table.rows, [["closed 50 VUs x 4", "worker", "3", "10.0", "61 / 61", "0.45 / 0.45", "1.00, 1.00"]]
        )
        self.assertIsNone(prometheus_table([{"load": "x", "results": {}}]), "no Prometheus figures: no table")


class Replicas(unittest.TestCase):
    def test_each_pods_requests_during_the_run_in_pod_order(self):
        from loomlab.incluster.core.measure import pod_requests

        samples = [{"pod_requests": {"b": 10.0, "a": 5.0}}, {"cpu_ns": 1.0}, {"pod_requests": {"b": 60.0, "a": 45.0}}]
        self.assertEqual(pod_requests({}, samples)["pod_requests"], [40.0, 50.0])
        self.assertNotIn("pod_requests", pod_requests({}, samples[:1]))

    def test_a_deployments_bounds_are_its_pods_pools_times_its_replicas(self):
        from loomlab.bench.loads import service_pools
        from loomlab.bench.workloads.sleep import sleep_bound

        pools = {"worker.max-threads": 50, "fan-out.worker-threads": 200, "execution.max-wait-ms": 2000}
        self.assertEqual(service_pools(pools), pools, "one pod")
        two = service_pools({**pools, "replicas": 2})
        self.assertEqual(
            (two["worker.max-threads"], two["fan-out.worker-threads"], two["execution.max-wait-ms"]), (100, 400, 2000)
        )
        self.assertEqual(sleep_bound(500, 100)("worker", two), 1000)

    def test_the_report_gives_each_pods_share(self):
        from loomlab.bench import loads
        from loomlab.bench.tables import replicas_table

        load = loads.Load("closed", "k6/sleep.js", "sleep", {}, modes=("worker",))
        one = replicas_table(load, {"worker": {"runs": [{"pod_requests": [100.0]}]}})
        self.assertIsNone(one, "one pod: no table")
        t = replicas_table(
            load,
            {
                "worker": {
                    "runs": [
                        {"pod_requests": [40.0, 60.0]},
                        {"pod_requests": [50.0, 50.0]},
                        {"pod_requests": [45.0, 55.0]},
                    ]
                }
            },
        )
        self.assertEqual(t.rows, [["worker", "1", "45", "45.0 (40.0-50.0)"], ["worker", "2", "55", "55.0 (50.0-60.0)"]])


class Failover(unittest.TestCase):
    def test_failed_requests_and_their_window_from_k6s_csv(self):
        from loomlab.incluster.experiments.failover import failures, summary_line

        # loadgen's -samples: sent at 10 s, 10.5 s, 11 s, 12 s; a 503 and no answer among them.
        samples = (
            "timestamp_us,latency_us,status,error\n10000000,100000,200,\n10500000,3000,503,\n"
            '11000000,5000,0,"dial tcp: connection refused"\n12000000,101000,200,\n'
        )
        total, failed = failures(samples)
        self.assertEqual((total, [t for t, _ in failed]), (4, [10.5, 11.0]))
        self.assertEqual(
            summary_line(total, failed, killed_at=10.0),
            "2 of 4 requests failed (1 HTTP 503, 1 no answer), from +0.5 s to +1.0 s after the kill",
        )
        self.assertEqual(summary_line(4, [], 10.0), "none of 4 requests failed")


class ScaleOut(unittest.TestCase):
    @staticmethod
    def section(mode, pods, rps, p99, rss_mb=400, threads=60):
        run = {
            "throughput": rps,
            "p99": p99,
            "error_rate": 0.0,
            "dropped": 0,
            "peak_rss_bytes": rss_mb * 1e6,
            "cpu_s": 2.0,
            "requests": 4000,
            "peak_live_threads": threads,
        }
        return {
            "workload": "sleep",
            "load": "open 750 req/s",
            "environment": f"in-cluster JVM, {pods} pod",
            "results": {mode: {"runs": [run, run]}},
        }

    def test_the_fewest_worker_pods_that_match_the_virtual_pod(self):
        from loomlab.incluster.experiments import scale

        sections = [
            self.section("worker", 1, 500, 2000, 400, 120),
            self.section("worker", 2, 745, 130, 800, 240),
            self.section("worker", 4, 750, 110, 1600, 480),
            self.section("virtual", 1, 750, 120, 400, 40),
        ]
        md = "\n".join(scale.tables(sections))
        self.assertIn(
            "**2 worker pods matched one virtual pod (req/s 745.0 against 750.0, p99 130.0 against 120.0 ms),"
            " at 2.0x its RSS and 6.0x its threads**",
            md,
        )
        self.assertIn("| worker x 4 | 750.0 | 110.0 | 0.00 | 0 | 1,600 | 0.500 | 480 |", md)

    def test_or_that_the_most_tried_did_not(self):
        from loomlab.incluster.experiments import scale

        sections = [self.section("worker", r, 500 * r / 4, 900) for r in (1, 2, 4)] + [
            self.section("virtual", 1, 750, 120)
        ]
        self.assertIn(
            "**none of 1, 2, 4 worker pods matched one virtual pod; the closest, 4 pods: req/s 500.0 against"
            " 750.0, p99 900.0 against 120.0 ms**",
            "\n".join(scale.tables(sections)),
        )


class Workloads(unittest.TestCase):
    def test_every_workload_runs_in_the_cluster_at_the_quick_scale(self):
        quick = plan.workload_suites("quick")
        self.assertEqual(
            set(quick), {"sleep", "tasks", "product", "recruits", "candidates", "db", "pinning", "mixed", "buffers"}
        )
        self.assertEqual(quick["recruits"].loads[0].env["RECORDS"], "3000")
        self.assertEqual(plan.workload_suites("smoke")["recruits"].loads[0].env["RECORDS"], "500")
        # The chunk writers in the cluster: three modes but COPY.
        self.assertEqual(
            {ld.env["WRITES"]: ld.modes for ld in quick["candidates"].loads},
            {
                "sequential": ("worker", "virtual", "reactive"),
                "parallel": ("worker", "virtual", "reactive"),
                "copy": ("virtual",),
            },
        )


if __name__ == "__main__":
    unittest.main()


class Starts(unittest.TestCase):
    def test_quarkus_line_from_a_log_with_timestamps_is_timed_from_the_pod_first_seen(self):
        import math
        from datetime import UTC, datetime

        from loomlab.incluster.core import startphases

        log = (
            "2026-11-27T07:20:01.100000000Z __  ____  __  _____\n"
            "2026-11-27T07:20:03.250000000Z 2026-11-27 07:20:03,249 INFO  [io.quarkus] (main) loom-lab 0.1.0 on JVM"
            " (powered by Quarkus 3.33.2.1) started in 1.874s. Listening on: http://0.0.0.0:8080\n"
        )
        seen = datetime(2026, 11, 27, 7, 20, 0, tzinfo=UTC).timestamp()
        found = startphases.started_line(log, seen)
        self.assertAlmostEqual(found["up_s"], 3.25, places=3)
        self.assertEqual(found["quarkus_started_s"], 1.874)
        self.assertTrue(all(math.isnan(v) for v in startphases.started_line("no such line\n", seen).values()))

    def test_a_pod_runs_once_each_container_is_running(self):
        from loomlab.kube import running

        def pod(*states):
            return {"status": {"containerStatuses": [{"state": s} for s in states]}}

        self.assertFalse(running({"status": {}}))
        self.assertFalse(running(pod({"waiting": {"reason": "ContainerCreating"}})))
        self.assertFalse(running(pod({"running": {}}, {"waiting": {}})))
        self.assertTrue(running(pod({"running": {"startedAt": "2026-11-27T07:20:01Z"}})))

    def test_a_stuck_pod_is_said_in_one_line(self):
        from loomlab.kube import pod_said

        pending = {
            "metadata": {"name": "job-x-1"},
            "status": {
                "phase": "Pending",
                "conditions": [
                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"},
                    {"type": "Initialized", "status": "True"},
                ],
                "containerStatuses": [{"name": "loadgen", "state": {"waiting": {"reason": "ContainerCreating"}}}],
            },
        }
        self.assertEqual(
            pod_said(pending),
            "pod job-x-1 Pending, PodScheduled False (Unschedulable: 0/1 nodes), container loadgen waiting"
            " ContainerCreating",
        )
        done = {
            "metadata": {"name": "j"},
            "status": {
                "phase": "Failed",
                "containerStatuses": [{"name": "loadgen", "state": {"terminated": {"reason": "Error", "exitCode": 1}}}],
            },
        }
        self.assertEqual(pod_said(done), "pod j Failed, container loadgen terminated Error exit 1")

    def test_the_start_up_table_gives_each_phase_per_variant(self):
        from loomlab.incluster.core import report

        starts = [
            {"variant": "jvm", "replicas": 1, "running_s": 1.0, "up_s": 3.0, "ready_s": 5.0, "answered_s": 5.2},
            {"variant": "jvm", "replicas": 1, "running_s": 1.2, "up_s": 3.4, "ready_s": 7.0, "answered_s": 7.1},
            {"variant": "jvm-aot", "replicas": 1, "running_s": 1.1, "up_s": 2.0, "ready_s": 4.0, "answered_s": 4.3},
        ]
        t = report.startup_table(starts)
        rows = {r[0]: r for r in t.rows}
        self.assertEqual(len(rows), 2)
        jvm = rows["in-cluster JVM"]
        self.assertEqual(jvm[1], "2 x 1")
        self.assertEqual(jvm[2:6], ["1.10 (1.00-1.20)", "3.20 (3.00-3.40)", "6.00 (5.00-7.00)", "6.15 (5.20-7.10)"])

    def test_each_image_over_the_first_is_paired_by_round(self):
        from loomlab.incluster.experiments import starts

        def start(variant, r, ready):
            return {"variant": variant, "round": r, "running_s": 1.0, "up_s": 2.0, "ready_s": ready, "answered_s": 5.0}

        runs = [start("jvm", 1, 4.0), start("jvm-aot", 1, 3.0), start("jvm", 2, 8.0), start("jvm-aot", 2, 4.0)]
        found = starts.ratios(runs, "jvm-aot", "jvm")
        # 0.75 and 0.5: the rounds' own ratios, not 3.5 / 6 of the medians.
        self.assertEqual((found["ready_s"].median, found["ready_s"].low, found["ready_s"].high), (0.625, 0.5, 0.75))
        self.assertEqual(found["answered_s"].median, 1.0)
        self.assertIsNone(starts.ratio_table(runs, ["jvm"]))
        t = starts.ratio_table(runs, ["jvm", "jvm-aot"])
        assert t is not None
        self.assertEqual(t.rows[0][0], "in-cluster JVM+AOT")


class NodeCpu(unittest.TestCase):
    def test_each_pod_s_cpu_from_the_kubelet_s_cgroups_v1_and_v2(self):
        import tempfile

        from loomlab.incluster.core import nodecpu

        with tempfile.TemporaryDirectory() as tmp:
            v1 = Path(tmp, "v1")
            (v1 / "cpuacct/kubepods/burstable/poda-1").mkdir(parents=True)
            (v1 / "cpuacct/kubepods/burstable/poda-1/cpuacct.usage").write_text("2500000000\n")
            (v1 / "cpuacct/kubepods/burstable/poda-1/cpuacct.usage_sys").write_text("1000000000\n")
            (v1 / "cpuacct/kubepods/podb-2").mkdir(parents=True)
            (v1 / "cpuacct/kubepods/podb-2/cpuacct.usage").write_text("500000000\n")
            self.assertEqual(nodecpu.pod_usage_s(v1), {"a-1": (2.5, 1.0), "b-2": (0.5, 0.0)})
            v2 = Path(tmp, "v2")
            (v2 / "kubepods/besteffort/podc-3").mkdir(parents=True)
            (v2 / "kubepods/besteffort/podc-3/cpu.stat").write_text(
                "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n"
            )
            self.assertEqual(nodecpu.pod_usage_s(v2), {"c-3": (1.5, 0.5)})
            self.assertTrue(nodecpu.on_this_host(["c-3"], v2))
            self.assertFalse(nodecpu.on_this_host(["c-3", "elsewhere"], v2))
            self.assertFalse(nodecpu.on_this_host([], v2))

    def test_the_host_is_the_machine_s_busy_time_less_every_pod_s(self):
        import os

        from loomlab.incluster.core import nodecpu

        hz = os.sysconf("SC_CLK_TCK")
        # user nice system idle iowait irq softirq steal: idle and iowait are not busy.
        self.assertAlmostEqual(nodecpu.busy_s(f"cpu  {hz} 0 {hz} 900 50 0 0 0 0 0\ncpu0 1 2\n"), 2.0)
        before = nodecpu.Reading(100.0, {"svc": (10.0, 4.0), "k6": (5.0, 1.0), "gone": (1.0, 0.0)})
        after = nodecpu.Reading(110.0, {"svc": (14.0, 5.5), "k6": (7.0, 2.0), "new": (0.5, 0.0), "dns": (2.25, 1.0)})
        groups = {"svc": "service", "k6": "k6", "dns": nodecpu.OTHER_PODS}
        spent = nodecpu.split(before, after, groups)
        self.assertEqual(spent["service"], 4.0)
        self.assertEqual(spent["k6"], 2.0)
        self.assertEqual(spent[nodecpu.OTHER_PODS], 2.75)  # the new pod's half second and CoreDNS's
        self.assertEqual(spent[nodecpu.HOST], 10.0 - 8.75)
        self.assertEqual(list(spent), list(nodecpu.ORDER))
        kernel = nodecpu.split(before, after, groups, kernel=True)
        self.assertEqual((kernel["service"], kernel["k6"]), (1.5, 1.0))
        self.assertNotIn(nodecpu.HOST, kernel)
        run = {"node_cpu_s": spent, "wall_s": 5.0, "requests": 2000}
        section = {"load": "A3", "results": {"virtual": {"runs": [run]}}}
        t = nodecpu.table([section, {"load": "x", "results": {"virtual": {"runs": [{"wall_s": 1.0}]}}}])
        assert t is not None
        self.assertEqual(len(t.rows), 1)
        self.assertEqual(t.rows[0][3:5], ["2.000", "1.000"])  # 4 s and 2 s over 2,000 requests
        self.assertEqual(t.rows[0][-1], "2.00")  # 10 s over the Job's 5 s
        self.assertNotIn("service: kernel", t.headers)  # a run before the kernel's share was read
        run["node_kernel_s"] = kernel
        t = nodecpu.table([section])
        assert t is not None
        self.assertEqual(t.rows[0][-3:-1], ["0.750", "0.500"])  # 1.5 s and 1 s over 2,000 requests
        self.assertIsNone(nodecpu.table([]))

    def test_the_results_page_quotes_its_starts(self):
        import json

        from loomlab import ROOT
        from loomlab.incluster.core import report
        from loomlab.incluster.experiments import starts

        docs = ROOT / "docs" / "results"
        page = (docs / "2026-11-27-start-up-floor.md").read_text()
        runs = json.loads((docs / "2026-11-27-start-up-floor" / "cluster" / "starts.json").read_text())["starts"]
        paired = starts.ratio_table(runs, ["jvm", "jvm-aot"])
        assert paired is not None
        phases = dict(zip([k for k, _ in report.START_PHASES], paired.rows[0][1:], strict=True))
        rows = {r[0]: r for r in report.startup_table(runs).rows}
        for key, label in (("up_s", "Quarkus up"), ("ready_s", "Ready"), ("answered_s", "first answer")):
            i = 2 + [k for k, _ in report.START_PHASES].index(key)
            jvm, aot = rows["in-cluster JVM"][i], rows["in-cluster JVM+AOT"][i]
            self.assertRegex(
                page, rf"\| {label}[^|]* \| {re.escape(jvm)} \| {re.escape(aot)} \| {re.escape(phases[key])} \|"
            )


class JobEnv(unittest.TestCase):
    def test_a_value_set_replaces_its_name_s_entry_and_adds_the_others(self):
        container = {"env": [{"name": "RESULTS", "value": "/results"}, {"name": "SCRIPT", "value": "sleep.js"}]}
        jobs.set_env(container, RESULTS="/results/job-1", SAMPLES="1")
        self.assertEqual(
            container["env"],
            [
                {"name": "RESULTS", "value": "/results/job-1"},
                {"name": "SCRIPT", "value": "sleep.js"},
                {"name": "SAMPLES", "value": "1"},
            ],
        )


class ClusterSharePage(unittest.TestCase):
    def test_the_node_cpu_table_is_the_runs(self):
        from loomlab import ROOT
        from loomlab.bench import records
        from loomlab.incluster.core import nodecpu

        docs = ROOT / "docs" / "results"
        data = records.read_results(docs / "2026-11-27-cluster-share" / "cluster")
        t = nodecpu.table(data["sections"])
        assert t is not None
        self.assertIn(t.markdown(), (docs / "2026-11-27-cluster-share.md").read_text())


class CpuLimitTest(unittest.TestCase):
    def test_no_cpu_limit_drops_the_deployments_cpu_limit_and_keeps_the_rest(self):
        from loomlab.incluster.core import deploy, target

        # An overlay renders on a clean clone (deploy/k8s/local needs the credentials ./lab k8s secret writes).
        database = {
            "kind": "StatefulSet",
            "spec": {"template": {"spec": {"containers": [{"resources": {"limits": {"cpu": "1"}}}]}}},
        }
        docs = [*deploy.render("deploy/k8s/overlays/jvm", {}), database]
        bare = target.without_cpu_limit(docs)
        before = [d for d in docs if d["kind"] == "Deployment"]
        after = [d for d in bare if d["kind"] == "Deployment"]
        self.assertTrue(after)
        for was, now in zip(before, after, strict=True):
            was_res = was["spec"]["template"]["spec"]["containers"][0]["resources"]
            now_res = now["spec"]["template"]["spec"]["containers"][0]["resources"]
            self.assertIn("cpu", was_res["limits"])  # the input is left as it was
            self.assertNotIn("cpu", now_res["limits"])
            self.assertEqual(now_res["limits"]["memory"], was_res["limits"]["memory"])
            self.assertEqual(now_res["requests"], was_res["requests"])
        database = next(d for d in bare if d["kind"] == "StatefulSet")
        self.assertIn("cpu", database["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"])


class CgroupPageTest(unittest.TestCase):
    def test_the_page_quotes_each_columns_cpu_ratio(self):
        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = " ".join((docs / "2026-11-27-cluster-share.md").read_text().split())
        for run, columns in (
            ("pod-heap", ("pod-heap",)),
            ("quota", ("quota2",)),
            ("cgroup", ("cgroup", "quota2")),
            ("cgroup-carriers", ("carriers1", "cgroup")),
            ("cgroup-one-carrier", ("cgroup",)),
        ):
            text = (docs / "2026-11-27-cluster-share" / run / "report.md").read_text()
            for column in columns:
                for mode in ("virtual", "reactive"):
                    rows = [line for line in text.splitlines() if line.startswith(f"| {mode}[{column}] |")]
                    knobs = [line for line in rows if line.count("x (") >= 4]
                    for line in knobs:
                        cpu = cells(line)[3]
                        self.assertIn(cpu, page, f"{run}: {mode}[{column}]")

    def test_the_page_quotes_each_pair_of_runs(self):
        import json
        import statistics

        from loomlab import ROOT

        docs = ROOT / "docs" / "results"
        page = " ".join((docs / "2026-11-27-cluster-share.md").read_text().split())

        def a3(run: str, mode: str) -> float:
            data = json.loads((docs / "2026-11-27-cluster-share" / run / "results.json").read_text())
            section = next(s for s in data["sections"] if "A3" in s["load"])
            return statistics.median(r["throughput"] for r in section["results"][mode]["runs"])

        for local, cluster in (
            ("local", "cluster"),
            ("kernel-local", "kernel-cluster"),
            ("kernel-local", "no-cpu-limit"),
            ("third-local", "third-cluster"),
        ):
            for mode in ("virtual", "reactive"):
                here, there = a3(local, mode), a3(cluster, mode)
                self.assertIn(f"{here:,.0f} / {there:,.0f} ({there / here:.2f})", page, f"{cluster} {mode}")


class PolicyProbe(unittest.TestCase):
    """The probe of NetworkPolicies is made from the Jobs a run uses (jobs.job_templates over the
    rendered deploy/k8s/jobs), as `./lab k8s run` makes it."""

    class Kube:
        """What the probe asks of the cluster: the Job applied, its pod's log, the Job deleted."""

        def __init__(self, log: str):
            self.log, self.applied, self.deleted = log, [], []

        def apply(self, docs):
            self.applied.extend(docs)

        def pod_log(self, name, timeout):
            return self.log

        def delete_job(self, name):
            self.deleted.append(name)

    def probe(self, log: str) -> tuple[str, "PolicyProbe.Kube"]:
        from unittest import mock

        templates = jobs.job_templates(deploy.render("deploy/k8s/jobs", {}), {})
        kube = self.Kube(log)
        with mock.patch.object(deploy, "wait_job", return_value={"metadata": {"name": "probe-pod"}}):
            return deploy.policy_probe(kube, templates), kube  # type: ignore[arg-type]

    def test_the_probe_is_a_loadgen_pod_that_only_opens_a_connection_to_the_database(self):
        said, kube = self.probe("refused\n")
        (job,) = kube.applied
        pod = job["spec"]["template"]
        container = pod["spec"]["containers"][0]
        self.assertEqual(pod["metadata"]["labels"]["app.kubernetes.io/name"], "loadgen", "loadgen's own policy")
        self.assertIn("/dev/tcp/postgres/5432", container["command"][-1])
        self.assertEqual(container["env"], [])
        self.assertEqual(kube.deleted, [job["metadata"]["name"]])
        self.assertEqual(
            said, "NetworkPolicies enforced, measured: a loadgen pod's connection to postgres:5432 was refused"
        )

    def test_a_reached_database_says_the_policies_are_not_enforced(self):
        said, _ = self.probe("reached")
        self.assertIn("applied but not enforced", said)
