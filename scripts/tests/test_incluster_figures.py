"""Unit tests of the figures a cluster run reads back (loomlab.incluster.core): each pod's requests
(replicas), each phase of a pod's start, and each pod's CPU from the kubelet's cgroups."""

import re
import unittest
from pathlib import Path


class Replicas(unittest.TestCase):
    def test_each_pods_requests_during_the_run_in_pod_order(self):
        from loomlab.incluster.core.measure import pod_requests

        samples = [{"pod_requests": {"b": 10.0, "a": 5.0}}, {"cpu_ns": 1.0}, {"pod_requests": {"b": 60.0, "a": 45.0}}]
        self.assertEqual(pod_requests({}, samples)["pod_requests"], [40.0, 50.0])
        self.assertNotIn("pod_requests", pod_requests({}, samples[:1]))

    def test_a_deployments_bounds_are_its_pods_pools_times_its_replicas(self):
        from loomlab.bench.planning.lane import Lane
        from loomlab.bench.planning.loads import service_pools
        from loomlab.bench.workloads.sleep import sleep_bound

        pools = {"worker.max-threads": 50, "fan-out.worker-threads": 200, "execution.max-wait-ms": 2000}
        self.assertEqual(service_pools(pools), pools, "one pod")
        two = service_pools({**pools, "replicas": 2})
        self.assertEqual(
            (two["worker.max-threads"], two["fan-out.worker-threads"], two["execution.max-wait-ms"]), (100, 400, 2000)
        )
        self.assertEqual(sleep_bound(500, 100)(Lane("worker"), two), 1000)

    def test_the_report_gives_each_pods_share(self):
        from loomlab.bench.planning import loads
        from loomlab.bench.reporting.loadfigures import LoadFigures
        from loomlab.bench.reporting.tables import replicas_table

        load = loads.Load("closed", "k6/sleep.js", "sleep", {}, lanes=(loads.Lane("worker"),))
        one = replicas_table(LoadFigures.of(load, {"worker": {"runs": [{"pod_requests": [100.0]}]}}, {}))
        self.assertIsNone(one, "one pod: no table")
        t = replicas_table(
            LoadFigures.of(
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
                {},
            )
        )
        assert t is not None
        self.assertEqual(t.rows, [["worker", "1", "45", "45.0 (40.0-50.0)"], ["worker", "2", "55", "55.0 (50.0-60.0)"]])


class Starts(unittest.TestCase):
    def test_quarkus_line_from_a_log_with_timestamps_is_timed_from_the_pod_first_seen(self):
        import math
        from datetime import UTC, datetime

        from loomlab.incluster.core import jobs

        log = (
            "2026-11-27T07:20:01.100000000Z __  ____  __  _____\n"
            "2026-11-27T07:20:03.250000000Z 2026-11-27 07:20:03,249 INFO  [io.quarkus] (main) loom-lab 0.1.0 on JVM"
            " (powered by Quarkus 3.33.2.1) started in 1.874s. Listening on: http://0.0.0.0:8080\n"
        )
        seen = datetime(2026, 11, 27, 7, 20, 0, tzinfo=UTC).timestamp()
        found = jobs.started_line(log, seen)
        self.assertAlmostEqual(found["up_s"], 3.25, places=3)
        self.assertEqual(found["quarkus_started_s"], 1.874)
        self.assertTrue(all(math.isnan(v) for v in jobs.started_line("no such line\n", seen).values()))

    def test_a_pod_runs_once_each_container_is_running(self):
        from loomlab.podstatus import running

        def pod(*states):
            return {"status": {"containerStatuses": [{"state": s} for s in states]}}

        self.assertFalse(running({"status": {}}))
        self.assertFalse(running(pod({"waiting": {"reason": "ContainerCreating"}})))
        self.assertFalse(running(pod({"running": {}}, {"waiting": {}})))
        self.assertTrue(running(pod({"running": {"startedAt": "2026-11-27T07:20:01Z"}})))

    def test_a_stuck_pod_is_said_in_one_line(self):
        from loomlab.podstatus import pod_said

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

    def test_runners_not_done_in_time_are_reported_where_they_stood_and_a_failed_one_at_once(self):
        from unittest import mock

        from loomlab import LabError
        from loomlab.incluster.core import jobwaits

        def pod(i: int, state: dict) -> dict:
            annotations = {"batch.kubernetes.io/job-completion-index": str(i)}
            return {
                "metadata": {"name": f"job-x-{i}", "annotations": annotations},
                "status": {"phase": "Pending", "containerStatuses": [{"name": "loadgen", "state": state}]},
            }

        class Kube:
            ns = "loom-lab"
            pods = [pod(0, {"waiting": {}})]
            status = None

            def job_pods(self, job):
                return self.pods

            def job_status(self, job):
                return self.status

            def pod_log(self, name, timeout):
                if name == "job-x-1":
                    return "runner 1: not every runner was set within 180 s (ready-0)"
                raise RuntimeError("container not started")

        kube = Kube()
        with mock.patch("loomlab.proc.time.sleep"), self.assertRaises(LabError) as refused:
            jobwaits.wait_runners_done(kube, "job-x", 2, 0)  # type: ignore[arg-type]
        said = str(refused.exception)
        self.assertIn("its runners did not finish within 0 s", said)
        where = "pod job-x-0 Pending, container loadgen waiting; its log ends:\n(none: container not started)"
        self.assertIn(where, said)
        kube.pods = [pod(0, {"waiting": {}}), pod(1, {"terminated": {"exitCode": 1}})]
        with mock.patch("loomlab.proc.time.sleep"), self.assertRaises(LabError) as failed:
            jobwaits.wait_runners_done(kube, "job-x", 2, 3600)  # type: ignore[arg-type]
        self.assertIn("runner 1 failed: runner 1: not every runner was set", str(failed.exception))
        kube.pods = [pod(0, {"waiting": {}})]
        kube.status = mock.Mock(
            conditions=[
                mock.Mock(
                    type="Failed",
                    status="True",
                    reason="DeadlineExceeded",
                    message="Job was active longer than specified deadline",
                )
            ]
        )
        with mock.patch("loomlab.proc.time.sleep"), self.assertRaises(LabError) as ended:
            jobwaits.wait_runners_done(kube, "job-x", 2, 3600)  # type: ignore[arg-type]
        self.assertIn("Job job-x failed (DeadlineExceeded", str(ended.exception))

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


if __name__ == "__main__":
    unittest.main()
