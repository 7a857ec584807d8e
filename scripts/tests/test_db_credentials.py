"""Three database roles, each read only where it is used: the superuser by the database alone, the
schema's owner by the database and the migration Job, the service's own role by the database and
the service (deploy/k8s/access/admission.yaml holds the runner to the same keys). Every password is
a file of a Secret volume that names its keys; none is ever in a process's environment."""

import contextlib
import io
import unittest
from urllib.parse import parse_qsl, urlsplit

from labmachine.verify.__main__ import render_all
from tests.test_access import WORKLOADS, documents, pod_spec

SECRET = "db-credentials"


def reads(path: str, kind: str) -> dict[str, str]:
    """What a workload reads of db-credentials: an environment variable's name, or a file's path in
    its container, -> the Secret's key. A variable whose value is such a file's path (the database's
    *_PASSWORD_FILE) reads that file's key."""
    (workload,) = [d for d in documents(path) if d["kind"] == kind]
    spec = pod_spec(workload)
    (container,) = spec["containers"]
    volumes = {
        v["name"]: v["secret"] for v in spec.get("volumes", []) if v.get("secret", {}).get("secretName") == SECRET
    }
    found = {
        f"{m['mountPath']}/{item['path']}": item["key"]
        for m in container.get("volumeMounts", [])
        if m["name"] in volumes
        for item in volumes[m["name"]]["items"]
    }
    for e in container.get("env", []):
        if e.get("valueFrom", {}).get("secretKeyRef", {}).get("name") == SECRET:
            found[e["name"]] = e["valueFrom"]["secretKeyRef"]["key"]
        elif e.get("value") in found:
            found[e["name"]] = found[e["value"]]
    return found


def config_literals() -> dict[str, str]:
    (config,) = documents("app/kustomization.yaml")
    return dict(x.split("=", 1) for g in config["configMapGenerator"] for x in g.get("literals", []))


class DatabaseRolesTest(unittest.TestCase):
    def setUp(self):
        self.database = reads("base/postgres.yaml", "StatefulSet")
        self.service = reads("app/deployment.yaml", "Deployment")
        self.migration = reads("app/migration-job.yaml", "Job")
        # The folder the service's configuration reads a file per property from (SmallRye Config's
        # file-system source), the same in the service and its migration.
        self.folder = config_literals()["SMALLRYE_CONFIG_SOURCE_FILE_LOCATIONS"]

    def login(self, reader: dict[str, str]) -> tuple[str, str]:
        return reader[f"{self.folder}/quarkus.datasource.username"], reader[
            f"{self.folder}/quarkus.datasource.password"
        ]

    def test_the_service_logs_in_as_its_own_role_never_the_owner_or_the_superuser(self):
        own = (self.database["POSTGRES_APP_USER"], self.database["POSTGRES_APP_PASSWORD_FILE"])
        self.assertEqual(self.login(self.service), own)
        for other in ("POSTGRES_USER", "POSTGRES_PASSWORD_FILE", "POSTGRES_OWNER_USER", "POSTGRES_OWNER_PASSWORD_FILE"):
            self.assertNotIn(self.database[other], self.service.values(), other)

    def test_the_migration_logs_in_as_the_schemas_owner_never_the_service_or_the_superuser(self):
        owner = (self.database["POSTGRES_OWNER_USER"], self.database["POSTGRES_OWNER_PASSWORD_FILE"])
        self.assertEqual(self.login(self.migration), owner)
        for other in ("POSTGRES_USER", "POSTGRES_PASSWORD_FILE", "POSTGRES_APP_USER", "POSTGRES_APP_PASSWORD_FILE"):
            self.assertNotIn(self.database[other], self.migration.values(), other)

    def test_every_client_checks_the_databases_certificate_and_name(self):
        url = config_literals()["QUARKUS_DATASOURCE_JDBC_URL"]
        query = dict(parse_qsl(urlsplit(url.removeprefix("jdbc:")).query))
        self.assertEqual(query["sslmode"], "verify-full")
        for reader in (self.service, self.migration):
            self.assertEqual(reader[query["sslrootcert"]], "ca.crt")
        (database,) = [d for d in documents("base/postgres.yaml") if d["kind"] == "StatefulSet"]
        args = pod_spec(database)["containers"][0]["args"]
        settings = dict(a.split("=", 1) for a in args if a != "-c")
        self.assertEqual(settings["ssl"], "on")
        self.assertEqual(self.database[settings["ssl_cert_file"]], "tls.crt")
        self.assertEqual(self.database[settings["ssl_key_file"]], "tls.key")
        self.assertNotIn("tls.key", self.service.values())
        self.assertNotIn("tls.key", self.migration.values())

    def test_the_service_leaves_the_schema_to_the_migration(self):
        self.assertEqual(config_literals()["QUARKUS_FLYWAY_ACTIVE"], "false")
        (job,) = [d for d in documents("app/migration-job.yaml") if d["kind"] == "Job"]
        env = {e["name"]: e.get("value") for e in pod_spec(job)["containers"][0]["env"]}
        self.assertEqual((env["QUARKUS_FLYWAY_ACTIVE"], env["QUARKUS_INIT_AND_EXIT"]), ("true", "true"))


class NoPasswordInTheEnvironmentTest(unittest.TestCase):
    """Across every kustomization the lab renders: no container takes a password (or a whole Secret)
    into its environment, and every Secret volume names its keys and opens them to its pod's group
    at most."""

    @classmethod
    def setUpClass(cls):
        with contextlib.redirect_stdout(io.StringIO()):
            cls.workloads = [d for docs in render_all().values() for d in docs if d["kind"] in WORKLOADS]

    def test_no_password_is_an_environment_variable(self):
        self.assertGreater(len(self.workloads), 5)
        for workload in self.workloads:
            spec = pod_spec(workload)
            for c in spec["containers"] + spec.get("initContainers", []):
                with self.subTest(workload=workload["metadata"]["name"], container=c["name"]):
                    refs = [
                        e["valueFrom"]["secretKeyRef"]["key"]
                        for e in c.get("env", [])
                        if "secretKeyRef" in e.get("valueFrom", {})
                    ]
                    self.assertEqual([k for k in refs if k.endswith("password")], [])
                    self.assertEqual([f for f in c.get("envFrom", []) if "secretRef" in f], [])

    def test_every_secret_volume_names_its_keys_and_is_no_more_than_group_readable(self):
        mounted = 0
        for workload in self.workloads:
            for v in pod_spec(workload).get("volumes", []):
                if "secret" in v:
                    mounted += 1
                    with self.subTest(workload=workload["metadata"]["name"], volume=v["name"]):
                        self.assertEqual(v["secret"]["secretName"], SECRET)
                        self.assertTrue(v["secret"]["items"])
                        self.assertEqual(v["secret"]["defaultMode"] & ~0o440, 0, oct(v["secret"]["defaultMode"]))
        self.assertGreaterEqual(mounted, 3)


if __name__ == "__main__":
    unittest.main()
