"""The schema's migration as a step of its own before the service starts, as Quarkus' init tasks run
it: the service's jar once with Quarkus' init-and-exit and Flyway active (Flyway migrates, Quarkus
exits before its HTTP server opens), then every launch with Flyway inactive, off the start path.
The service's readiness waits for the schema its build needs (loomlab.db.schema-version), so a
launch that skipped this step is never measured, only reported unready."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from loomlab import LabError

# The environment of every launch of the service after the migration.
FLYWAY_OFF = {"QUARKUS_FLYWAY_ACTIVE": "false"}


def service_env() -> dict[str, str]:
    """Every launch's environment after the migration: Flyway off, and on the lab's own database
    (scripts/db.sh env) the service's role, which reads and writes rows and changes no schema, in
    place of the owner's that migrated it (as in the cluster)."""
    env = dict(FLYWAY_OFF)
    if os.environ.get("LOOMLAB_DB_SERVICE_USERNAME"):
        env["QUARKUS_DATASOURCE_USERNAME"] = os.environ["LOOMLAB_DB_SERVICE_USERNAME"]
        env["QUARKUS_DATASOURCE_PASSWORD"] = os.environ.get("LOOMLAB_DB_SERVICE_PASSWORD", "")
    return env


# The migration's: the same variables Quarkus' Flyway init task sets on its Job.
MIGRATE = {"QUARKUS_INIT_AND_EXIT": "true", "QUARKUS_FLYWAY_ACTIVE": "true"}
# Flyway waits up to about 50 s for a database slow to accept (quarkus.flyway.connect-retries), the
# JVM's start on a busy machine takes seconds, and Quarkus waits 5 s before it exits.
TIMEOUT_S = 180


def migrate(java: str, jar: str | Path, log: Path) -> float:
    """Migrates the database the environment names (QUARKUS_DATASOURCE_*) with `jar`'s migrations;
    its seconds. Raises LabError, naming the log, when it fails or outlasts TIMEOUT_S."""
    cmd = [java, "-jar", str(jar)]
    started = time.monotonic()
    with log.open("a") as out:
        out.write(f"== {' '.join(cmd)}\n")
        out.flush()
        try:
            done = subprocess.run(
                cmd, env={**os.environ, **MIGRATE}, stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            raise LabError(f"the schema's migration took over {TIMEOUT_S} s; see {log}") from None
    if done.returncode != 0:
        raise LabError(f"the schema's migration failed (exit {done.returncode}); see {log}")
    return time.monotonic() - started
