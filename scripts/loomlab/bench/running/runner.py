"""The service under test (a local JVM; the cluster has a twin) and one run of a load generator
(engines/) against it with /q/metrics sampled throughout; rounds.py runs the plan with them."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from loomlab import ROOT, LabError, metrics, proc, schema

from ..measuring import procstat, profiler, syscalls
from ..measuring.figures import figures_from
from ..planning.lane import REFERENCE, Lane
from ..planning.loads import Load, Suite, on_cpus
from ..planning.settings import LOCAL, RunSettings
from . import quota
from .engines import Engine, Engines, Generated
from .skeleton import sampled


class Service:
    """The service under test as a local process: the JVM of a mode, or the reference server
    (reference.py). `./lab k8s run` has a twin for a Deployment in the cluster
    (scripts/loomlab/incluster): the same methods, so rounds.measure drives either."""

    environment = LOCAL

    def __init__(self, cmd: list[str], engines: Engines, port: int, env: dict, log: Path, java: str = ""):
        self.url = f"http://127.0.0.1:{port}"
        # The JVM's java, whose jcmd the flame graphs attach with ('' for the reference server).
        self.java, self.engines = java, engines
        self.log = log
        self.cmd = cmd
        with log.open("w") as out:  # the process keeps its own copy of the descriptor
            self.proc = subprocess.Popen(cmd, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        """The process (taskset, where the suite holds it to CPUs, execs it in place)."""
        return self.proc.pid

    def wait_ready(self, timeout_s: float = 60) -> None:
        if proc.wait_http(self.url + "/q/health/ready", timeout_s, alive=lambda: self.proc.poll() is None):
            return
        if self.proc.poll() is not None:
            raise LabError(f"service exited with {self.proc.returncode}; see {self.log}")
        raise LabError(f"service not ready after {timeout_s} s; see {self.log}")

    def get(self, path: str, timeout=10) -> str:
        with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
            return r.read().decode()

    def info(self) -> dict:
        """/api/info: the service's JDK, image kind, pools and bounds (the reference server's: Go)."""
        return json.loads(self.get("/api/info"))

    def sample(self) -> dict:
        """One scrape of /q/metrics: the figures a run keeps (samples.SAMPLED_GAUGES, _COUNTERS), and
        the process' kernel CPU from /proc (PROC_COUNTERS)."""
        return {**metrics.scrape_sample(self.get("/q/metrics", timeout=5)), **procstat.kernel(self.pid)}

    def run(self, load: Load, lane: Lane, out: Path, label: str, settings: RunSettings, warmup=False) -> dict:
        """One run of `load` against this service, by the load's engine: its figures (figures_from)."""
        return run_load(self.engines.of(load), load, lane, self, out, label, settings, warmup)

    def stop(self):
        proc.stop(self.proc)


class BareService(Service):
    """The minimal application (procstat.py) as a local process: ready at its first answer, read from /proc."""

    def wait_ready(self, timeout_s: float = 60) -> None:
        if proc.wait_http(self.url + procstat.READY_PATH, timeout_s, alive=lambda: self.proc.poll() is None):
            return
        raise LabError(f"the minimal application did not answer in {timeout_s} s; see {self.log}")

    def info(self) -> dict:
        return dict(procstat.INFO)

    def sample(self) -> dict:
        return procstat.sample(self.pid)

    def run(self, load: Load, lane: Lane, out: Path, label: str, settings: RunSettings, warmup=False) -> dict:
        """The run, k6's setup() waiting for the endpoint where the service has /q/health/ready."""
        at = dataclasses.replace(load, env={**load.env, "READY_PATH": procstat.READY_PATH})
        return run_load(self.engines.of(at), at, lane, self, out, label, settings, warmup)


@dataclass(frozen=True)
class LocalJvm:
    """Where the local services run (target.Where): processes of this machine, from the JDK, the jar,
    the first port, the JVM flags, and the engines that load them (`./lab bench` passes each)."""

    java: str
    engines: Engines
    jar: Path
    port: int
    jvm_flags: str
    javas: tuple[tuple[int, str], ...] = ()  # (JDK, its java) where one run compares JDKs
    reference: str = ""  # the reference server's binary (scripts/gotool.sh reference), where it is built
    # The jars whose migrations have run (schema.py): each before its first launch, once a bench.
    migrated: set[str] = field(default_factory=set, compare=False)
    environment: str = LOCAL

    def start(self, suite: Suite, lane: Lane, tag: str, settings: RunSettings, out: Path, slot: int = 0) -> Service:
        """A JVM of its own for each suite and lane (on its JDK, of `javas`), with the suite's
        configuration and a knob column's setting (another build's jar, for ./lab ab; the minimal
        application, for --minimal), or the reference server for its column; `slot` numbers the
        processes that run side by side (port + slot); the schema migrated first by each jar, on its
        first launch, and every launch with Flyway off."""
        log = out / f"service-{tag}-{lane.key}.log"
        # Another process on the port would answer the readiness probe for a JVM that never bound it.
        if proc.listening(self.port + slot):
            raise LabError(
                f"port {self.port + slot} is in use (a JVM of an earlier run? ss -ltnp | grep {self.port + slot})"
            )
        if lane.mode == REFERENCE:
            if not self.reference:
                raise LabError(
                    "the reference server is not built (scripts/gotool.sh reference): run without it (--no-reference)"
                )
            cmd, env = reference_launch(self.reference, self.port + slot, suite)
            return Service(on_cpus(cmd, suite.service_cpus), self.engines, self.port + slot, env, log)
        java = dict(self.javas).get(lane.jdk, self.java) if lane.jdk is not None else self.java
        knob = lane.knob
        flags = [*self.jvm_flags.split(), *knob.jvm_flags, *(profiler.JVM_FLAGS if settings.flames else [])]
        jar = knob.jar or str(self.jar)
        if not knob.bare and jar not in self.migrated:
            took = schema.migrate(self.java, jar, out / "migration.log")
            print(f"  schema migrated by {jar} in {took:.1f} s (a step of its own; every launch runs without Flyway)")
            self.migrated.add(jar)
        env = {**suite.server_env, **knob.env, **schema.service_env(), "QUARKUS_HTTP_PORT": str(self.port + slot)}
        cmd = on_cpus([java, *flags, "-jar", jar], suite.service_cpus)
        if knob.quota_cpus is not None:
            cmd = quota.wrap(cmd, quota.group(lane.key, knob.quota_cpus))
        return (BareService if knob.bare else Service)(cmd, self.engines, self.port + slot, env, log, java)


# The suite's settings of the service that the reference server's slow query takes too (its flags'
# defaults are the service's): the pool, the wait for a connection, the statement timeout.
REFERENCE_DB_FLAGS = {
    "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": "-db-pool",
    "LOOMLAB_EXECUTION_MAX_WAIT": "-db-wait",
    "LOOMLAB_DB_STATEMENT_TIMEOUT": "-db-statement-timeout",
}


def reference_launch(binary: str, port: int, suite: Suite) -> tuple[list[str], dict[str, str]]:
    """The reference server's command and environment: on `port`, and where the lab's database is
    set (QUARKUS_DATASOURCE_JDBC_URL) its slow query on it as the service's role, with the suite's
    pool, wait and statement timeout (the password in the environment, not on the command line)."""
    cmd = [binary, "-addr", f"127.0.0.1:{port}"]
    url = os.environ.get("QUARKUS_DATASOURCE_JDBC_URL", "")
    if not url.startswith("jdbc:postgresql://"):
        return cmd, {}
    role = {**os.environ, **schema.service_env()}
    cmd += ["-db", url.removeprefix("jdbc:")]
    cmd += [
        arg
        for var, flag in REFERENCE_DB_FLAGS.items()
        if var in suite.server_env
        for arg in (flag, suite.server_env[var])
    ]
    return cmd, {
        "PGUSER": role.get("QUARKUS_DATASOURCE_USERNAME", ""),
        "PGPASSWORD": role.get("QUARKUS_DATASOURCE_PASSWORD", ""),
    }


def run_load(
    engine: Engine,
    load: Load,
    lane: Lane,
    service: Service,
    out: Path,
    label: str,
    settings: RunSettings,
    warmup: bool = False,
) -> dict:
    """One run of `load` in `lane` by `engine`, the server sampled around it: the run's figures with
    the generator's own CPU (it shares the cores locally) and its name; the samples beside `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    engine.prepare(load, lane, warmup)
    generator_cpu = procstat.ChildrenCpu()
    counts: dict = {}

    def generate() -> Generated:
        """The generator's run, the server's system calls counted over it where the load asks."""
        counter = (
            syscalls.start(service.pid, out.with_suffix(".syscalls.csv")) if load.syscalls and not warmup else None
        )
        try:
            return engine.generate(load, lane, service.url, out, label, settings, warmup)
        finally:
            counts.update(counter.stop() if counter else {})

    run = sampled(service, settings.sample_period, out, generate)
    generated = run.result
    figures = figures_from(load, generated.figures, run.samples, generated.exit, run.took)
    figures.update(counts)
    figures.update(syscalls.per_request(counts, figures["requests"]))
    figures["gen_cpu_s"] = generator_cpu.seconds()
    figures["engine"] = engine.name
    return figures


# The JDK 21 runtime scripts/jdk21.sh fetches; any other JDK is the one ./lab picked (--java).
FETCHED = {21: "scripts/jdk21.sh"}


def feature(java: str) -> int:
    """The feature release of `java` (its java.specification.version)."""
    shown = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True, text=True, timeout=60)
    for line in shown.stderr.splitlines():
        if line.strip().startswith("java.specification.version"):
            return int(line.split("=")[1].strip())
    raise LabError(f"{java}: no java.specification.version in its -XshowSettings")


def javas(java: str, wanted: list[int]) -> dict[int, str]:
    """The java of each wanted JDK: `java` (./lab's pick) for its own release, a fetched runtime
    for the others (scripts/jdk21.sh); refused where neither serves."""
    own = feature(java)
    found: dict[int, str] = {}
    for jdk in wanted:
        if jdk == own:
            found[jdk] = java
        elif jdk in FETCHED:
            home = subprocess.run(
                ["bash", str(ROOT / FETCHED[jdk])], capture_output=True, text=True, timeout=900, check=False
            )
            if home.returncode != 0:
                raise LabError(f"JDK {jdk}: {FETCHED[jdk]} failed: {home.stderr.strip()[-400:]}")
            found[jdk] = str(Path(home.stdout.strip()) / "bin" / "java")
        else:
            raise LabError(f"--jdk {jdk}: the lab runs JDK {own} (./lab picked it) and fetches {sorted(FETCHED)}")
    return found
