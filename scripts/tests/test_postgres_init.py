"""The cluster's database, initialised as its image does it (src/main/docker/local/pg-entrypoint.sh
sourcing deploy/k8s/components/postgres-init/postgres-init.sh), on this machine's PostgreSQL 15: the
schema's owner owns the database and changes its schema; the service's role reads and writes what the owner makes and
changes nothing of the schema; the superuser is refused over TCP and keeps its socket."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import unittest
from pathlib import Path

from loomlab import ROOT

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ENTRYPOINT = ROOT / "src/main/docker/local/pg-entrypoint.sh"
INIT = ROOT / "deploy/k8s/components/postgres-init/postgres-init.sh"
GRANTS = ROOT / "deploy/k8s/components/postgres-init/service-grants.sql"
DB_TLS = ROOT / "scripts/k8s/db-tls.sh"


# db-credentials' password keys, as the StatefulSet mounts them.
PASSWORDS = {"admin-password": "superuser-secret", "owner-password": "owner-secret", "password": "app-secret"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@unittest.skipUnless(
    os.geteuid() == 0 and (PG_BIN / "initdb").exists() and shutil.which("runuser"),
    "needs root (the server runs as postgres) and PostgreSQL 15 (./lab test provides both)",
)
class PostgresInitTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="loomlab-pginit-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        (self.dir / "initdb.d").mkdir()
        # The folder as the ConfigMap fills it: the script and the grants it reads.
        for part in (INIT, GRANTS):
            shutil.copy(part, self.dir / "initdb.d" / part.name)
        # The entrypoint as the image runs it, its scripts' folder here, the server's start left to us.
        script = ENTRYPOINT.read_text().replace("/docker-entrypoint-initdb.d", str(self.dir / "initdb.d"))
        (self.dir / "entrypoint.sh").write_text(script.replace("exec postgres ", "exit 0 # "))
        # The passwords as the Secret's volume gives them: a file each, no newline at the end.
        secrets = self.dir / "secrets"
        secrets.mkdir()
        for name, password in PASSWORDS.items():
            (secrets / name).write_text(password)
            (secrets / name).chmod(0o400)
        # The database's TLS as `./lab k8s secret` makes it, for this machine's address too.
        subprocess.run(["bash", str(DB_TLS), str(secrets), "loom-lab", "IP:127.0.0.1"], check=True, timeout=60)
        self.ca = secrets / "ca.crt"
        subprocess.run(["chown", "-R", "postgres:", str(self.dir)], check=True)
        self.data = self.dir / "data"
        env = {
            "PATH": f"{PG_BIN}:/usr/bin:/bin",
            "PGDATA": str(self.data),
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD_FILE": str(secrets / "admin-password"),
            "POSTGRES_DB": "loomlab",
            "POSTGRES_OWNER_USER": "loomlab_owner",
            "POSTGRES_OWNER_PASSWORD_FILE": str(secrets / "owner-password"),
            "POSTGRES_APP_USER": "loomlab",
            "POSTGRES_APP_PASSWORD_FILE": str(secrets / "password"),
        }
        subprocess.run(
            ["runuser", "-u", "postgres", "--", "env", "-i", *(f"{k}={v}" for k, v in env.items())]
            + ["sh", str(self.dir / "entrypoint.sh")],
            check=True,
            capture_output=True,
            timeout=120,
        )
        self.port = free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.dir}"
            f" -c ssl=on -c ssl_cert_file={secrets / 'tls.crt'} -c ssl_key_file={secrets / 'tls.key'}"
        )
        self.pg_ctl("-l", str(self.dir / "server.log"), "-o", options, "start")
        self.addCleanup(self.pg_ctl, "-m", "fast", "stop")

    def pg_ctl(self, *args: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-s", *args],
            check=True,
            timeout=60,
        )

    def psql(
        self, user: str, password: str, sql: str, host: str = "127.0.0.1", tls: str = "verify-full"
    ) -> subprocess.CompletedProcess:
        """psql as a client in the cluster connects: over TLS, the server's certificate checked against
        the database's CA and its name (`tls`: another sslmode)."""
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"}
        env |= {"PGSSLMODE": tls, "PGSSLROOTCERT": str(self.ca)}
        argv = ["psql", "-h", host, "-p", str(self.port), "-U", user, "-d", "loomlab", "-Atc", sql]
        if host != "127.0.0.1":
            argv = ["runuser", "-u", "postgres", "--", *argv]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    def test_the_superuser_is_refused_over_tcp_with_its_own_password(self):
        done = self.psql("postgres", "superuser-secret", "SELECT 1")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('pg_hba.conf rejects connection for host "127.0.0.1", user "postgres"', done.stderr)
        # On the pod's own socket it still works: the image's init and an admin inside the pod.
        self.assertEqual(self.psql("postgres", "", "SELECT 1", host=str(self.dir)).stdout.strip(), "1")

    def test_a_login_in_clear_text_is_refused_before_its_password_is_asked(self):
        done = self.psql("loomlab", "app-secret", "SELECT 1", tls="disable")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('pg_hba.conf rejects connection for host "127.0.0.1", user "loomlab"', done.stderr)
        self.assertIn("no encryption", done.stderr)
        self.assertEqual(
            self.psql(
                "loomlab", "app-secret", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
            ).stdout.strip(),
            "t",
        )

    def test_the_owner_logs_in_over_tcp_and_owns_the_database_with_nothing_more(self):
        sql = (
            "SELECT r.rolsuper, r.rolcreatedb, r.rolcreaterole, pg_get_userbyid(d.datdba),"
            " (SELECT count(*) FROM pg_extension WHERE extname = 'vector')"
            " FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = 'loomlab'"
        )
        done = self.psql("loomlab_owner", "owner-secret", sql)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "f|f|f|loomlab_owner|1")

    def test_the_service_writes_the_owners_tables_and_changes_no_schema(self):
        made = self.psql(
            "loomlab_owner",
            "owner-secret",
            "CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v vector(2), n text)",
        )
        self.assertEqual(made.returncode, 0, made.stderr)
        rows = (
            "INSERT INTO t (v, n) VALUES ('[1,2]', 'a') ON CONFLICT (id) DO UPDATE SET n = 'b';"
            " UPDATE t SET n = 'c'; CREATE TEMP TABLE s (x int); SELECT count(*) FROM t; DELETE FROM t"
        )
        done = self.psql("loomlab", "app-secret", rows)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("1", done.stdout.split())
        for ddl in (
            "CREATE TABLE u (x int)",
            "ALTER TABLE t ADD COLUMN x int",
            "DROP TABLE t",
            "TRUNCATE t",
            "ALTER DATABASE loomlab SET work_mem = '1GB'",
            "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
        ):
            with self.subTest(ddl=ddl):
                refused = self.psql("loomlab", "app-secret", ddl)
                self.assertNotEqual(refused.returncode, 0, ddl)
                self.assertRegex(refused.stderr, "permission denied|must be owner")


if __name__ == "__main__":
    unittest.main()
