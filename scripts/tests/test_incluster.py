"""Unit tests of what `./lab k8s run` deploys (loomlab.incluster.core): the images, the variants,
the Jobs it makes on the lab's engine and their environment, what it leaves to the namespace
(Prometheus), the service without its CPU limit, the NetworkPolicy probe, and which workloads run
in the cluster."""

import copy
import unittest

from loomlab import ROOT, LabError
from loomlab.bench.jobrun import RUNNERS_SET_S
from loomlab.incluster.core import jobs, jobwaits, plan, services


class Images(unittest.TestCase):
    def test_pushed_images_replace_the_local_ones_in_every_pod_template(self):
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
        out = services.with_images(docs, pushed)
        images = [c["image"] for c in out[0]["spec"]["template"]["spec"]["containers"]]
        self.assertEqual(images, ["registry.example.com/t/loom-lab/loom-lab-jvm@sha256:ab", "other:1"])
        self.assertEqual(
            docs[0]["spec"]["template"]["spec"]["containers"][0]["image"], "127.0.0.1:5000/loom-lab/loom-lab-jvm:0.1.0"
        )  # the rendered documents are left as they were


class Variants(unittest.TestCase):
    def test_each_variant_with_an_image_here_renders_where_a_run_applies_it(self):
        # deploy/k8s/local needs the gitignored credentials to render: its overlays are read here,
        # and the kustomizations beside it whole (they name no secret).
        for variant, known in plan.VARIANTS.items():
            name, image = known.name, known.image
            if variant == "native":  # no image is built here (no GraalVM or Mandrel)
                continue
            beside = plan.BESIDE_LOCAL.get(variant)
            docs = services.render(beside or f"deploy/k8s/overlays/{variant}", {})
            kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
            self.assertLessEqual({("Deployment", name), ("Service", name)}, kinds, variant)
            dep = next(d for d in docs if d["kind"] == "Deployment")
            self.assertEqual(dep["spec"]["template"]["spec"]["containers"][0]["image"], image, variant)
            self.assertEqual(dep["metadata"]["labels"]["app.kubernetes.io/variant"], variant)
            if beside:  # sized as the stack beside it (components/two-cores)
                self.assertEqual(dep["spec"]["strategy"]["type"], "Recreate", variant)

    def test_deploy_k8s_local_starts_no_variant_kept_beside_it(self):
        local = (ROOT / "deploy/k8s/local/kustomization.yaml").read_text()
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
        from loomlab.bench.planning.profiles import suites

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

    def test_a_split_is_an_indexed_job_of_runners_that_wait_for_each_other_with_no_port(self):
        template = copy.deepcopy(self.templates()["sleep.js"])
        template["spec"]["activeDeadlineSeconds"] = 100
        job = jobwaits.distribute(template, 3)
        container = job["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e.get("value") for e in container["env"]}
        self.assertEqual((job["spec"]["completionMode"], job["spec"]["completions"]), ("Indexed", 3))
        self.assertEqual((env["SEGMENTS"], env["PAUSED"], env["RESULTS"]), ("3", "1", "/results/k6-sleep"))
        self.assertEqual(job["spec"]["activeDeadlineSeconds"], 100 + RUNNERS_SET_S, "the runners' wait, then the run")
        self.assertFalse({"ports", "readinessProbe"} & set(container), "nothing reaches into a runner")
        self.assertEqual(job["spec"]["backoffLimit"], 0, "no runner starts twice")

    def test_job_names_are_dns_labels_and_unique(self):
        a = jobs.job_id("jvm-aot-sleep-closed_500_VUs_x_10-virtual-3")
        b = jobs.job_id("jvm-aot-sleep-closed_500_VUs_x_10-virtual-3" * 3)
        self.assertRegex(a, r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        self.assertLessEqual(len(b), 63)

    def test_a_run_gets_one_target_one_mode_and_its_load(self):
        from loomlab.bench.planning.profiles import suites

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
        from loomlab.bench.planning import loads

        load = loads.Load("closed", "k6/sleep.js", "sleep", {"VUS": "50"}, timeout_s=100)
        with self.assertRaisesRegex(LabError, "declares no request"):
            jobs.make_job(self.templates(), load, "lg-x", "http://x:8080", "virtual", "r1", warmup=False)


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


class Monitoring(unittest.TestCase):
    def test_a_run_leaves_out_prometheus_and_only_prometheus(self):
        # deploy/k8s/monitoring adds the component to the namespace, as deploy/k8s/local adds it to
        # the database and the services (local needs the gitignored credentials to render).
        docs = services.render("deploy/k8s/monitoring", {})
        left_out = sorted(d["metadata"]["name"] for d in docs if services.monitoring(d))
        self.assertTrue(all(n.startswith("prometheus") for n in left_out), left_out)
        # account, role, binding, config, Service, Deployment, its two policies (in, out)
        self.assertEqual(len(left_out), 8, left_out)
        self.assertEqual([d["kind"] for d in docs if not services.monitoring(d)], ["Namespace"])

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


class CpuLimitTest(unittest.TestCase):
    def test_cpu_limit_0_drops_the_deployments_cpu_limit_and_keeps_the_rest(self):
        # An overlay renders on a clean clone (deploy/k8s/local needs the credentials ./lab k8s secret writes).
        database = {
            "kind": "StatefulSet",
            "spec": {"template": {"spec": {"containers": [{"resources": {"limits": {"cpu": "1"}}}]}}},
        }
        docs = [*services.render("deploy/k8s/overlays/jvm", {}), database]
        bare = services.with_cpu_limit(docs, 0)
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

        def delete(self, api_version, kind, name):
            self.deleted.append(name if (api_version, kind) == ("batch/v1", "Job") else f"{kind} {name}")

    def probe(self, log: str) -> tuple[str, "PolicyProbe.Kube"]:
        from unittest import mock

        templates = jobs.job_templates(services.render("deploy/k8s/jobs", {}), {})
        kube = self.Kube(log)
        with mock.patch.object(jobwaits, "wait_job", return_value={"metadata": {"name": "probe-pod"}}):
            return services.policy_probe(kube, templates), kube  # type: ignore[arg-type]

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
            {ld.env["WRITES"]: ld.columns for ld in quick["candidates"].loads},
            {
                "sequential": ("worker", "virtual", "virtual-loop", "reactive"),
                "parallel": ("worker", "virtual", "virtual-loop", "reactive"),
                "copy": ("virtual",),
            },
        )


if __name__ == "__main__":
    unittest.main()
