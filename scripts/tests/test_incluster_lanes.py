"""A knob column in a cluster (incluster/core/lanes.py, `./lab k8s run --jvm-column/--quota-column`):
the lane's own Deployment, rendered from the real overlay, runs its JVM flags after the image's and
its CPU quota as its container's limit; the plan has the columns once per suite; what a cluster
cannot run is refused before anything is applied."""

from __future__ import annotations

import contextlib
import io
import unittest
from pathlib import Path

from loomlab import LabError
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import lanes, services
from loomlab.incluster.core.measure import ClusterWhere
from loomlab.incluster.core.plan import ClusterPlan


def rendered() -> tuple[dict, dict]:
    """The JVM variant's Deployment and Service as deploy/k8s/overlays/jvm renders them."""
    docs = services.render("deploy/k8s/overlays/jvm", {})
    return next(d for d in docs if d["kind"] == "Deployment"), next(d for d in docs if d["kind"] == "Service")


def container(dep: dict) -> dict:
    return dep["spec"]["template"]["spec"]["containers"][0]


def plan(*argv: str) -> list:
    args = cli.run(["--plan", "--profile", "smoke", "--workload", "sleep", *argv])
    with contextlib.redirect_stdout(io.StringIO()):
        return list(ClusterPlan.of(args).blocks)


class ClusterWhereTest(unittest.TestCase):
    """Where the cluster's lanes run (the bench's Where): interleaved, each lane on a Deployment and
    Service of its own; in blocks, on the variant's Deployment, patched; the suite's configuration
    in its container's environment either way."""

    class Kube:
        def __init__(self):
            self.applied: list[dict] = []
            self.patched: list[tuple[str, list]] = []

        def apply(self, docs):
            self.applied.extend(docs)

        def patch_deployment(self, name, patch):
            self.patched.append((name, patch))

    def start(self, interleave: bool) -> ClusterWhereTest.Kube:
        kube = self.Kube()
        where = ClusterWhere(kube, list(rendered()), {}, [], interleave, "jvm", "JVM pods", 2)  # type: ignore[arg-type]
        suite = bench.Suite("sleep", "", {"LOOMLAB_SLEEP_MAX": "9"}, [])
        where.start(suite, bench.Lane(bench.VIRTUAL), "t", None, Path("out"))
        return kube

    def test_interleaved_a_lane_runs_on_a_deployment_of_its_own_with_the_suite_s_configuration(self):
        dep, svc = self.start(interleave=True).applied
        name = rendered()[0]["metadata"]["name"]
        self.assertEqual((dep["metadata"]["name"], svc["metadata"]["name"]), (f"{name}-virtual", f"{name}-virtual"))
        self.assertEqual(dep["spec"]["replicas"], 2)
        self.assertIn({"name": "LOOMLAB_SLEEP_MAX", "value": "9"}, container(dep)["env"])

    def test_in_blocks_the_variant_s_deployment_is_patched(self):
        kube = self.start(interleave=False)
        self.assertEqual(kube.applied, [])
        ((name, patch),) = kube.patched
        self.assertEqual(name, rendered()[0]["metadata"]["name"])
        by_path = {op["path"]: op["value"] for op in patch}
        self.assertEqual(by_path["/spec/replicas"], 2)
        self.assertIn({"name": "LOOMLAB_SLEEP_MAX", "value": "9"}, by_path["/spec/template/spec/containers/0/env"])


class KnobColumnTest(unittest.TestCase):
    def test_the_jvm_flags_come_after_the_deployments_own_and_its_variables_replace_theirs(self):
        dep, _ = rendered()
        _, heap = bench.jvm_column("heap=-Xmx256m -XX:+AlwaysPreTouch")
        lane = bench.Lane(bench.VIRTUAL).with_setting("heap", heap)
        env = lanes.with_setting(container(dep)["env"], lane)
        flags = next(e["value"] for e in env if e["name"] == lanes.JVM_FLAGS_VAR)
        self.assertTrue(flags.startswith("-XX:MaxRAMPercentage=75 @/deployments/service.args"), flags)
        self.assertTrue(flags.endswith(" -Xmx256m -XX:+AlwaysPreTouch"), flags)
        pool = bench.Knob(env={"QUARKUS_THREAD_POOL_MAX_THREADS": "500"})
        both = lanes.with_setting(
            [*env, {"name": "QUARKUS_THREAD_POOL_MAX_THREADS", "value": "50"}],
            bench.Lane(bench.WORKER).with_setting("threads", pool),
        )
        self.assertEqual([e["value"] for e in both if e["name"] == "QUARKUS_THREAD_POOL_MAX_THREADS"], ["500"])
        self.assertEqual(lanes.with_setting(container(dep)["env"], bench.Lane(bench.VIRTUAL)), container(dep)["env"])

    def test_a_quota_is_the_containers_cpu_limit_and_request_and_zero_drops_the_limit(self):
        dep, svc = rendered()
        _, two = bench.quota_column("q1=1.5")
        own, own_svc = lanes.own_copy(dep, svc, bench.Lane(bench.VIRTUAL).with_setting("q1", two))
        resources = container(own)["resources"]
        self.assertEqual((resources["limits"]["cpu"], resources["requests"]["cpu"]), ("1.5", "1.5"))
        container(dep)["resources"]["requests"]["cpu"] = "100m"  # deploy/k8s/local's request: kept
        small, _ = lanes.own_copy(dep, svc, bench.Lane(bench.VIRTUAL).with_setting("q1", two))
        self.assertEqual(
            (container(small)["resources"]["limits"]["cpu"], container(small)["resources"]["requests"]["cpu"]),
            ("1.5", "100m"),
        )
        container(dep)["resources"]["requests"]["cpu"] = "2"
        self.assertEqual(own["metadata"]["name"], f"{dep['metadata']['name']}-virtual-q1")
        self.assertEqual(own_svc["spec"]["selector"][lanes.MODE_LABEL], "virtual-q1")
        self.assertEqual(container(dep)["resources"]["limits"]["cpu"], "2", "the variant's own is left as it was")
        _, none = bench.quota_column("free=0")
        free, _ = lanes.own_copy(dep, svc, bench.Lane(bench.WORKER).with_setting("free", none))
        self.assertNotIn("cpu", container(free)["resources"]["limits"])
        self.assertEqual(container(free)["resources"]["requests"]["cpu"], "2")

    def test_another_jar_is_the_local_benchs_only(self):
        minimal = bench.Lane(bench.VIRTUAL).with_setting("minimal", bench.Knob(jar="m.jar", bare=True))
        with self.assertRaisesRegex(LabError, "runs on this machine only"):
            lanes.with_setting([], minimal)


class PlanTest(unittest.TestCase):
    def test_each_suite_gets_its_columns_once_whatever_the_variants(self):
        blocks = plan("--variants", "jvm,jvm-aot", "--jvm-column", "heap=-Xmx256m", "--quota-column", "q1=1")
        self.assertEqual(len(blocks), 2)
        self.assertEqual(blocks[0].suite, blocks[1].suite)
        columns = [lane.key for lane in blocks[0].suite.loads[0].lanes]
        self.assertEqual(columns.count("virtual[heap]"), 1)
        modes = ("worker", "virtual", "virtual-loop", "reactive")
        self.assertEqual(columns[4:], [f"{m}[{c}]" for c in ("heap", "q1") for m in modes])

    def test_a_native_image_runs_every_mode_but_virtual_loop_which_answers_501_there(self):
        jvm, native = plan("--variants", "jvm,native")
        self.assertEqual(jvm.modes, frozenset())  # every mode
        self.assertEqual({lane.key for lane in native.modes}, {"worker", "virtual", "reactive"})
        (only,) = plan("--variants", "native", "--mode", "virtual,virtual-loop")
        self.assertEqual({lane.key for lane in only.modes}, {"virtual"})

    def test_what_a_cluster_cannot_run_is_refused_before_anything_is_applied(self):
        with self.assertRaisesRegex(LabError, "native variant has no JVM"):
            plan("--variants", "jvm,native", "--jvm-column", "heap=-Xmx256m")
        with self.assertRaisesRegex(LabError, "no knob column"):
            ClusterPlan.of(cli.run(["--plan", "--profile", "scale", "--quota-column", "q1=1"]))
        with self.assertRaisesRegex(LabError, "FLAGS are JVM options"):
            plan("--variants", "jvm", "--jvm-column", "heap=Xmx1g")

    def test_a_column_whose_copy_the_api_server_would_refuse_or_share_is_refused_first(self):
        longest = "h" * 40  # the longest name a column may have: too long on the JVM+AOT variant
        self.assertEqual(len(plan("--variants", "jvm", "--jvm-column", f"{longest[:30]}=-Xmx1g")), 1)
        with self.assertRaisesRegex(LabError, "longer than a Service's 63 characters"):
            plan("--variants", "jvm-aot", "--jvm-column", f"{longest}=-Xmx1g")
        with self.assertRaisesRegex(LabError, "are one name in the cluster"):
            plan("--variants", "jvm", "--jvm-column", "Heap=-Xmx1g", "--jvm-column", "heap=-Xmx2g")


if __name__ == "__main__":
    unittest.main()
