"""The schema's migration in the cluster (deploy/k8s/app/migration-job.yaml): a run applies each of
its variants' migration Jobs afresh and waits for them, on a fake API server."""

from __future__ import annotations

import datetime
import types
import unittest
from unittest import mock

from loomlab import LabError
from loomlab.incluster.core import services

T0 = datetime.datetime(2026, 11, 29, 6, 0, 0, tzinfo=datetime.UTC)


def status(kind: str, seconds: float = 0) -> types.SimpleNamespace:
    """A Job's status as the client returns it: a condition of `kind` ("" for running)."""
    conditions = [types.SimpleNamespace(type=kind, status="True")] if kind else []
    return types.SimpleNamespace(
        conditions=conditions,
        succeeded=1 if kind == "Complete" else None,
        start_time=T0,
        completion_time=T0 + datetime.timedelta(seconds=seconds) if kind == "Complete" else None,
    )


class Kube:
    """Each Job: there (finished) until deleted, then gone, then running twice after its apply, then
    `ends` (a status)."""

    ns = "loom-lab"

    def __init__(self, ends: dict):
        self.ends = ends
        self.calls: list[tuple[str, str]] = []
        self.polls: dict[str, int] = {}
        self.log = ""

    def delete(self, api_version: str, kind: str, name: str):
        self.calls.append(("delete", name) if (api_version, kind) == ("batch/v1", "Job") else ("delete?", name))

    def apply(self, docs: list[dict]):
        self.calls += [("apply", d["metadata"]["name"]) for d in docs]

    def job_pods(self, job: str) -> list[dict]:
        return [{"metadata": {"name": f"{job}-x"}}]

    def pod_log(self, name: str, timeout: float) -> str:
        self.calls.append(("log", name))
        return self.log

    def job_status(self, name: str):
        if ("apply", name) not in self.calls:
            return None if ("delete", name) in self.calls else status("Complete")
        self.polls[name] = self.polls.get(name, 0) + 1
        return status("") if self.polls[name] <= 2 else self.ends[name]


class MigrationTest(unittest.TestCase):
    def setUp(self):
        # deploy/k8s/local's variants (it needs a credentials file to render whole).
        self.local = [d for v in ("jvm", "jvm-aot") for d in services.render(f"deploy/k8s/overlays/{v}", {})]

    def test_every_variant_has_its_migration_job(self):
        jobs = services.migration_jobs(self.local)
        deployments = [d for d in self.local if d["kind"] == "Deployment" and d["metadata"]["name"].startswith("loom")]
        self.assertEqual(sorted(map(services.variant, jobs)), sorted(map(services.variant, deployments)))
        self.assertEqual(
            sorted(j["metadata"]["name"] for j in jobs), ["loom-lab-migrate-jvm", "loom-lab-migrate-jvm-aot"]
        )

    def test_each_job_is_deleted_and_gone_before_it_is_applied_afresh_and_timed_by_its_status(self):
        jobs = services.migration_jobs(self.local)
        names = [j["metadata"]["name"] for j in jobs]
        kube = Kube({n: status("Complete", 7 + i) for i, n in enumerate(names)})
        with mock.patch("loomlab.proc.time.sleep"):
            seconds = services.migrate(kube, jobs)  # type: ignore[arg-type]
        self.assertEqual(seconds, {names[0]: 7.0, names[1]: 8.0})
        self.assertEqual(kube.calls, [("delete", n) for n in names] + [("apply", n) for n in names])

    def test_a_failed_migration_fails_the_run_with_its_log(self):
        (job, *_) = services.migration_jobs(self.local)
        name = job["metadata"]["name"]
        kube = Kube({name: status("Failed")})
        kube.log = "FATAL: password authentication failed"
        with mock.patch("loomlab.proc.time.sleep"):
            with self.assertRaisesRegex(LabError, "migration failed: FATAL: password authentication failed"):
                services.migrate(kube, [job])  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
