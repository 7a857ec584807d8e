"""`./lab serve`: the service in the foreground as the bench starts it, the schema migrated first as
a step of its own (schema.migrate, as the schema's owner), then the service with Flyway off and, on
the lab's own database, logged in as the service's role (schema.service_env).

    python3 -m loomlab.serve JAVA JAR [JVM flags...]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from loomlab import command, schema

LOG = Path("target/serve-migration.log")


def main(java: str, jar: str, *flags: str) -> None:
    LOG.parent.mkdir(parents=True, exist_ok=True)
    seconds = schema.migrate(java, jar, LOG)
    env = {**os.environ, **schema.service_env()}
    who = env.get("QUARKUS_DATASOURCE_USERNAME", "the environment's user")
    print(f"schema migrated in {seconds:.1f} s (log {LOG}); the service logs in as {who}", flush=True)
    os.execve(java, [java, *flags, "-jar", jar], env)


if __name__ == "__main__":
    command(main, *sys.argv[1:])
