"""The runner's Role (deploy/k8s/access) asks for what `./lab k8s run` needs and no more: a cluster
admin reads it before binding it, and a test keeps it from growing back."""

import ast
import contextlib
import io
import unittest

import yaml
from kubernetes.utils import parse_quantity

from labmachine.verify import testrun
from labmachine.verify.__main__ import render_all
from loomlab import ROOT, kube
from loomlab.incluster.core import jobs, pods, volumes
from loomlab.labcluster import LOADGEN_IMAGE

RUNNER = ROOT / "deploy/k8s/access/runner.yaml"
BOUNDS = ROOT / "deploy/k8s/access/bounds.yaml"
K8S = ROOT / "deploy/k8s"


def role_rules() -> list[dict]:
    docs = [d for d in yaml.safe_load_all(RUNNER.read_text()) if d]
    (role,) = [d for d in docs if d["kind"] == "Role"]
    rules: list[dict] = role["rules"]
    return rules


def grants(resource: str) -> list[dict]:
    return [r for r in role_rules() if resource in r["resources"]]


class RunnerRoleTest(unittest.TestCase):
    def test_no_wildcard_anywhere(self):
        for rule in role_rules():
            for key in ("apiGroups", "resources", "verbs"):
                self.assertNotIn("*", rule[key], rule)

    def test_secrets_are_never_read_listed_or_watched(self):
        for rule in grants("secrets"):
            self.assertFalse({"get", "list", "watch"} & set(rule["verbs"]), rule)

    def test_secrets_are_created_never_changed(self):
        # A PATCH's or an update's answer is the whole Secret: every key, whatever the request sent.
        self.assertEqual([r["verbs"] for r in grants("secrets")], [["create"]])

    def test_network_policies_are_applied_never_deleted(self):
        for rule in grants("networkpolicies"):
            self.assertFalse({"delete", "deletecollection", "list", "watch"} & set(rule["verbs"]), rule)

    def test_nothing_is_written_through_a_proxy(self):
        # A POST through a Service's proxy reaches what no policy guards (Prometheus' remote write);
        # through a pod's, any endpoint of any pod (a split's runners start each other instead).
        self.assertEqual({v for r in grants("services/proxy") for v in r["verbs"]}, {"get"})
        self.assertEqual({v for r in grants("pods/proxy") for v in r["verbs"]}, {"get"})

    def test_no_way_into_a_running_pod(self):
        # exec into the database's pod is its superuser; a results volume is read through a log.
        for sub in ("pods/exec", "pods/attach", "pods/portforward", "pods/ephemeralcontainers"):
            self.assertEqual(grants(sub), [], sub)


ADMISSION = ROOT / "deploy/k8s/access/admission.yaml"


class AdmissionPolicyTest(unittest.TestCase):
    """What the Role cannot say (which Secret, no externalIPs, no Secret in the runner's own pods,
    no NetworkPolicy that opens more than the namespace's pods and DNS) is said by a
    ValidatingAdmissionPolicy applied with it; ./lab k8s verify proves each refusal on a real API
    server."""

    def test_the_policy_is_applied_with_the_role_and_denies(self):
        listed = yaml.safe_load((ROOT / "deploy/k8s/access/kustomization.yaml").read_text())["resources"]
        self.assertIn("admission.yaml", listed)
        docs = [d for d in yaml.safe_load_all(ADMISSION.read_text()) if d]
        policies = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ValidatingAdmissionPolicy"}
        bindings = {d["spec"]["policyName"]: d for d in docs if d["kind"] == "ValidatingAdmissionPolicyBinding"}
        kept = {kube.KEPT_POLICY, "loom-lab-monitoring-kept"}  # a run knows the first by name in a refusal
        self.assertEqual(set(policies), {"loom-lab-runner-creates", *kept})
        self.assertEqual(set(bindings), set(policies))
        # One exemption, written once per policy (YAML anchors do not cross documents): held equal here.
        exemptions = {name: p["spec"]["matchConditions"] for name, p in policies.items()}
        self.assertEqual(len({yaml.safe_dump(c) for c in exemptions.values()}), 1, exemptions)
        for name, policy in policies.items():
            with self.subTest(policy=name):
                self.assertEqual(bindings[name]["spec"]["validationActions"], ["Deny"])
                self.assertEqual(policy["spec"]["failurePolicy"], "Fail")
                # Every subject but the admins and the cluster's own, in every namespace so labelled.
                (condition,) = policy["spec"]["matchConditions"]
                self.assertNotIn("loom-lab-runner", condition["expression"])
                selected = bindings[name]["spec"]["matchResources"]["namespaceSelector"]["matchLabels"]
                self.assertEqual(selected, {"loomlab.dev/runner-policy": "enforced"})
                (namespace,) = documents("namespace/namespace.yaml")
                self.assertEqual(namespace["metadata"]["labels"]["loomlab.dev/runner-policy"], "enforced")
        # Without the registries' ConfigMap the runner creates no workload (rather than any image).
        param = bindings["loom-lab-runner-creates"]["spec"]["paramRef"]
        self.assertEqual((param["name"], param["parameterNotFoundAction"]), ("loom-lab-registries", "Deny"))
        self.assertNotIn("namespace", param)  # the request's own namespace's
        # The registries and the database's first-start scripts: the admin's, never written by the runner.
        rules = policies["loom-lab-configmaps-kept"]["spec"]["matchConstraints"]["resourceRules"]
        kept_as = {(r["resources"][0], n): set(r["operations"]) for r in rules for n in r["resourceNames"]}
        self.assertEqual(kept_as, {("configmaps", "loom-lab-registries"): {"CREATE", "UPDATE", "DELETE"},
                                   ("configmaps", "postgres-init"): {"CREATE", "UPDATE", "DELETE"}})  # fmt: skip
        # The scripts come with the admin's objects (and the lab's own cluster's), never with base.
        with contextlib.redirect_stdout(io.StringIO()):
            rendered = render_all()
        for kustomization, held in (("access", 1), ("local", 1), ("base", 0)):
            scripts = [
                d
                for d in rendered[kustomization]
                if (d["kind"], d["metadata"]["name"]) == ("ConfigMap", "postgres-init")
            ]
            self.assertEqual(len(scripts), held, kustomization)

    def test_every_image_the_lab_runs_is_of_the_registries_the_policy_admits(self):
        (registries,) = documents("access/registries.yaml")
        prefixes = registries["data"]["registries"].split()
        self.assertTrue(all(p.endswith("/") for p in prefixes), prefixes)
        with contextlib.redirect_stdout(io.StringIO()):
            rendered = [d for docs in render_all().values() for d in docs]
        images = {LOADGEN_IMAGE} | {
            c["image"] for d in rendered if d["kind"] in WORKLOADS for c in pod_spec(d).get("containers", [])
        }
        self.assertGreater(len(images), 5)
        for image in sorted(images):
            with self.subTest(image=image):
                self.assertTrue(any(image.startswith(p) for p in prefixes))

    def test_it_judges_every_kind_that_carries_a_pod_or_a_secret_and_every_network_policy(self):
        judged = {r for rule in runner_creates()["matchConstraints"]["resourceRules"] for r in rule["resources"]}
        kinds = {"pods", "secrets", "services", "deployments", "statefulsets", "jobs", "networkpolicies"}
        self.assertLessEqual(kinds, judged)

    def test_it_holds_the_database_s_pod_to_what_postgres_yaml_writes(self):
        """Said once: the values the policy pins the database's pod to are the manifest's (an edit of
        one without the other fails here, before any cluster refuses the database)."""
        variables = {v["name"]: v["expression"] for v in runner_creates()["variables"]}
        (database,) = [d for d in documents("base/postgres.yaml") if d["kind"] == "StatefulSet"]
        (c,) = pod_spec(database)["containers"]
        env = {e["name"]: e.get("value") or e["valueFrom"]["secretKeyRef"]["key"] for e in c["env"]}
        self.assertEqual(ast.literal_eval(variables["databaseEnv"]), env)
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        self.assertEqual(ast.literal_eval(variables["databaseMounts"]), mounts)
        probes = [c[p]["exec"]["command"] for p in ("startupProbe", "readinessProbe", "livenessProbe") if p in c]
        self.assertEqual(probes, [ast.literal_eval(variables["ready"])] * 3)
        (data,) = database["spec"]["volumeClaimTemplates"]
        self.assertEqual(data["spec"]["accessModes"], ["ReadWriteOncePod"], "one pod at a time mounts the data")


def runner_creates() -> dict:
    """The spec of the policy that judges what the runner creates."""
    (policy,) = [
        d
        for d in yaml.safe_load_all(ADMISSION.read_text())
        if d and d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == "loom-lab-runner-creates"
    ]
    return dict(policy["spec"])


def documents(path: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((K8S / path).read_text()) if d]


def containers(path: str, kind: str) -> list[dict]:
    (workload,) = [d for d in documents(path) if d["kind"] == kind]
    found: list[dict] = workload["spec"]["template"]["spec"]["containers"]
    return found


WORKLOADS = ("Deployment", "StatefulSet", "Job", "Pod")


def pod_spec(workload: dict) -> dict:
    spec: dict = workload["spec"] if workload["kind"] == "Pod" else workload["spec"]["template"]["spec"]
    return spec


def bounds(kind: str) -> dict:
    (found,) = [d for d in yaml.safe_load_all(BOUNDS.read_text()) if d and d["kind"] == kind]
    return dict(found["spec"])


class NamespaceBoundsTest(unittest.TestCase):
    """The quota holds the largest run the lab documents, added up from the manifests themselves;
    no container of the lab asks past the LimitRange's maximum."""

    # (manifest, kind, how many pods of it the largest run holds at once)
    LARGEST_RUN = (
        ("app/deployment.yaml", "Deployment", 2 * 4 + 2),  # two variants at maxReplicas, a surge
        ("base/postgres.yaml", "StatefulSet", 1),
        ("jobs/base/job.yaml", "Job", 4),  # k6 runner pods
        ("components/monitoring/prometheus.yaml", "Deployment", 1),
        ("jobs/sleep-indexed/resume-job.yaml", "Job", 1),
        ("app/migration-job.yaml", "Job", 2),  # both variants' migrations, as the run starts
    )

    def lab_containers(self):
        for path, kind, count in self.LARGEST_RUN:
            for container in containers(path, kind):
                if path == "jobs/base/job.yaml":
                    # A run's load Jobs are these on the lab's engine (k6's ask no more of anything).
                    (container,) = pod_spec(jobs.on_loadgen(documents(path)[0], "loadgen"))["containers"]
                yield container, count

    def test_the_autoscalers_stay_within_the_counted_replicas(self):
        (hpa,) = documents("components/autoscaler/hpa.yaml")
        (scaled,) = [d for d in documents("components/queue-autoscaler/scaledobject.yaml")]
        self.assertLessEqual(hpa["spec"]["maxReplicas"], 4)
        self.assertLessEqual(scaled["spec"]["maxReplicaCount"], 4)

    def test_the_quota_holds_the_largest_run(self):
        hard = bounds("ResourceQuota")["hard"]
        for side in ("requests", "limits"):
            for resource in ("cpu", "memory", "ephemeral-storage"):
                total = sum(parse_quantity(c["resources"][side][resource]) * n for c, n in self.lab_containers())
                with self.subTest(side=side, resource=resource):
                    self.assertLessEqual(total, parse_quantity(hard[f"{side}.{resource}"]))
        pods = sum(n for _, _, n in self.LARGEST_RUN) + 2  # and two helper pods (pods.py)
        self.assertLessEqual(pods, int(hard["pods"]))

    def test_the_quota_holds_every_volume(self):
        hard = bounds("ResourceQuota")["hard"]
        workloads = [d for d in (K8S / "jobs").iterdir() if d.name not in ("base", "results") and d.is_dir()]
        (pvc,) = documents("jobs/results/pvc.yaml")
        (database,) = [d for d in documents("base/postgres.yaml") if d["kind"] == "StatefulSet"]
        claims = [pvc] * len(workloads) + database["spec"]["volumeClaimTemplates"]
        self.assertLessEqual(len(claims), int(hard["persistentvolumeclaims"]))
        storage = sum(parse_quantity(c["spec"]["resources"]["requests"]["storage"]) for c in claims)
        self.assertLessEqual(storage, parse_quantity(hard["requests.storage"]))

    def test_the_database_takes_every_connection_the_largest_run_opens(self):
        # Per service pod: the JDBC pool, the reactive pool (its size is the JDBC pool's unless
        # LOOMLAB_REACTIVE_POOL_MAX_SIZE says: ReactivePoolProducer.maxSize) and the readiness check's.
        config = {}
        for d in documents("app/kustomization.yaml"):
            for generator in d.get("configMapGenerator", []):
                config |= dict(x.split("=", 1) for x in generator.get("literals", []))
        self.assertNotIn("LOOMLAB_REACTIVE_POOL_MAX_SIZE", config)
        per_pod = 2 * int(config["QUARKUS_DATASOURCE_JDBC_MAX_SIZE"]) + 1
        (pods,) = [n for path, kind, n in self.LARGEST_RUN if path == "app/deployment.yaml"]
        (database,) = [d for d in documents("base/postgres.yaml") if d["kind"] == "StatefulSet"]
        args = database["spec"]["template"]["spec"]["containers"][0]["args"]
        most = int(next(a.split("=", 1)[1] for a in args if a.startswith("max_connections=")))
        reserved = 3  # PostgreSQL's superuser_reserved_connections
        # A migration Job's: Flyway's connection and the one that holds its lock.
        (migrations,) = [n for path, kind, n in self.LARGEST_RUN if path == "app/migration-job.yaml"]
        self.assertLessEqual(pods * per_pod + 2 * migrations + reserved, most)

    def test_every_pod_keeps_its_scratch_volumes_within_its_disk(self):
        """Each scratch volume is bounded, and the pod's disk limit (its containers', the
        LimitRange's default where one states none) holds the volumes' bounds and the logs, so
        that a pod is evicted at its volume's bound, not before it."""
        (container_limits,) = [x for x in bounds("LimitRange")["limits"] if x["type"] == "Container"]
        default = container_limits["default"]["ephemeral-storage"]
        with contextlib.redirect_stdout(io.StringIO()):
            rendered = [d for docs in render_all().values() for d in docs]
        made = [
            jobs.on_loadgen(documents("jobs/base/job.yaml")[0], "loadgen"),
            volumes.reader_pod("reader", "results", "loadgen", "run", remove=False),
            pods.restricted_pod("probe", {}, "loadgen", pods.IDLE),
        ]
        workloads = [d for d in rendered if d["kind"] in ("Deployment", "StatefulSet", "Job")] + made
        self.assertGreater(len(workloads), 10)
        for workload in workloads:
            spec = pod_spec(workload)
            with self.subTest(workload=f"{workload['kind']}/{workload['metadata']['name']}"):
                scratch = [v["emptyDir"] for v in spec.get("volumes", []) if "emptyDir" in v]
                self.assertTrue(all("sizeLimit" in v for v in scratch), scratch)
                limit = sum(
                    parse_quantity(c.get("resources", {}).get("limits", {}).get("ephemeral-storage", default))
                    for c in spec["containers"]
                )
                needed = sum(parse_quantity(v["sizeLimit"]) for v in scratch) + parse_quantity(pods.LOGS_DISK)
                self.assertGreaterEqual(limit, needed)

    def test_no_container_asks_past_the_limit_range(self):
        (container_limits,) = [x for x in bounds("LimitRange")["limits"] if x["type"] == "Container"]
        for container, _ in self.lab_containers():
            for resource, most in container_limits["max"].items():
                with self.subTest(container=container["name"], resource=resource):
                    asked = parse_quantity(container["resources"]["limits"][resource])
                    self.assertLessEqual(asked, parse_quantity(most))


class OperatorTestRunTest(unittest.TestCase):
    """The pods the k6 operator makes of the TestRun, as verify dry-runs them: each restricted-shaped
    and labelled as the namespace's NetworkPolicies expect."""

    def test_every_pod_drops_privilege_and_is_labelled(self):
        (run,) = [d for d in documents("operator/testrun.yaml") if d["kind"] == "TestRun"]
        made = testrun.pods(run)
        names = [p["metadata"]["name"] for p in made]
        self.assertEqual(names, ["k6-sleep-runner", "k6-sleep-starter", "k6-sleep-initializer"])
        for pod in made:
            with self.subTest(pod=pod["metadata"]["name"]):
                self.assertEqual(pod["metadata"]["labels"]["app.kubernetes.io/name"], "k6")
                self.assertTrue(pod["spec"]["securityContext"]["runAsNonRoot"])
                self.assertEqual(pod["spec"]["securityContext"]["seccompProfile"], {"type": "RuntimeDefault"})
                container = pod["spec"]["containers"][0]["securityContext"]
                self.assertFalse(container["allowPrivilegeEscalation"])
                self.assertEqual(container["capabilities"]["drop"], ["ALL"])


class ObjectCountsTest(unittest.TestCase):
    def test_every_kustomization_at_once_fits_the_counts(self):
        """Each kind's objects across every kustomization of deploy/k8s (by name: overlays share
        theirs), under the quota's count with room for a second run's."""
        hard = bounds("ResourceQuota")["hard"]
        named: dict[str, set[str]] = {}
        # Rendered as ./lab k8s verify renders them: from a copy holding a throwaway database
        # credential where the tree has none (a clean clone has none).
        with contextlib.redirect_stdout(io.StringIO()):
            rendered = render_all()
        for docs in rendered.values():
            for d in docs:
                named.setdefault(d["kind"], set()).add(d["metadata"]["name"])
        for key, kind in (("count/secrets", "Secret"), ("count/configmaps", "ConfigMap"),
                          ("count/services", "Service"), ("count/jobs.batch", "Job")):  # fmt: skip
            self.assertLessEqual(2 * len(named.get(kind, ())), int(hard[key]), kind)


if __name__ == "__main__":
    unittest.main()
