"""The schema's migration step (schema.py): the service's jar once with Quarkus' init-and-exit."""

import os
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from loomlab import LabError, schema


def fake_java(folder: Path, body: str) -> str:
    """A `java` that records its arguments and the two variables, then runs `body`."""
    java = folder / "java"
    java.write_text(
        '#!/bin/sh\necho "args: $*"\necho "init=$QUARKUS_INIT_AND_EXIT flyway=$QUARKUS_FLYWAY_ACTIVE"\n' + body + "\n"
    )
    java.chmod(0o755)
    return str(java)


class MigrateTest(unittest.TestCase):
    def test_the_jar_runs_once_with_init_and_exit_and_flyway_active(self):
        with tempfile.TemporaryDirectory() as d:
            log = Path(d) / "migration.log"
            with unittest.mock.patch.dict(os.environ, {"QUARKUS_FLYWAY_ACTIVE": "false"}):
                took = schema.migrate(fake_java(Path(d), "exit 0"), "/x/quarkus-run.jar", log)
            self.assertGreaterEqual(took, 0)
            text = log.read_text()
            self.assertIn("args: -jar /x/quarkus-run.jar", text)
            self.assertIn("init=true flyway=true", text)  # the migration's own, over the caller's

    def test_a_failed_or_endless_migration_is_an_error_naming_its_log(self):
        with tempfile.TemporaryDirectory() as d:
            log = Path(d) / "migration.log"
            with self.assertRaisesRegex(LabError, f"exit 3.*{log}"):
                schema.migrate(fake_java(Path(d), "exit 3"), "app.jar", log)
            with (
                unittest.mock.patch.object(schema, "TIMEOUT_S", 0.5),
                self.assertRaisesRegex(LabError, "took over 0.5 s"),
            ):
                schema.migrate(fake_java(Path(d), "exec sleep 30"), "app.jar", log)

    def test_every_launch_after_it_runs_without_flyway(self):
        self.assertEqual(schema.FLYWAY_OFF, {"QUARKUS_FLYWAY_ACTIVE": "false"})
        self.assertEqual(schema.MIGRATE["QUARKUS_INIT_AND_EXIT"], "true")
        with unittest.mock.patch.dict(os.environ, clear=True):
            self.assertEqual(schema.service_env(), schema.FLYWAY_OFF)

    def test_on_the_lab_s_database_a_launch_logs_in_as_the_service_and_the_migration_as_the_owner(self):
        lab_db = {
            "QUARKUS_DATASOURCE_USERNAME": "loomlab",
            "QUARKUS_DATASOURCE_PASSWORD": "owner-pw",
            "LOOMLAB_DB_SERVICE_USERNAME": "loomlab_service",
            "LOOMLAB_DB_SERVICE_PASSWORD": "service-pw",
        }
        with unittest.mock.patch.dict(os.environ, lab_db, clear=True):
            env = schema.service_env()
            self.assertEqual(env["QUARKUS_DATASOURCE_USERNAME"], "loomlab_service")
            self.assertEqual(env["QUARKUS_DATASOURCE_PASSWORD"], "service-pw")
            self.assertEqual(env["QUARKUS_FLYWAY_ACTIVE"], "false")
            with tempfile.TemporaryDirectory() as d:
                log = Path(d) / "migration.log"
                schema.migrate(fake_java(Path(d), 'echo "user=$QUARKUS_DATASOURCE_USERNAME"'), "app.jar", log)
                self.assertIn("user=loomlab\n", log.read_text())


if __name__ == "__main__":
    unittest.main()
