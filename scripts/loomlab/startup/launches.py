"""One launch of a variant, and the launches of every variant interleaved.

A launch's time to the first answer is polled from process launch (not the framework's own log
line); its phases come from what the launch printed (loomlab.startup.phases); its memory from the
OS at the first answer, and again idle and after a fixed load (loadgen: the sleep and product workloads)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from loomlab import LabError, proc, schema, stats
from loomlab.bench import api as bench

from . import phases as ph

FIRST = bench.sleep.FIRST_ANSWER
LAUNCH_TIMEOUT_S = 60

# /proc/<pid>/status fields: the resident set, its anonymous part (heap, metaspace, code cache,
# thread stacks) and its file-backed part (the JVM's libraries, mapped jars, an AOT cache).
MEMORY = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file"}


def memory_mb(pid: int) -> dict[str, float]:
    """The process's resident memory in MB as the OS counts it, whole and split (MEMORY)."""
    found = dict.fromkeys(MEMORY.values(), float("nan"))
    with contextlib.suppress(OSError):  # a process that is gone: no figure
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in MEMORY:
                found[MEMORY[key]] = int(value.split()[0]) / 1024
    return found


def get(url: str, timeout=2.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            return r.status
    except OSError:
        return 0


@dataclass
class Launched:
    """A service process that has answered its first request."""

    process: subprocess.Popen
    at: float  # wall clock at launch (s since the epoch): StepTiming's stamps are wall-clock
    ttfr_ms: float  # launch to the first successful answer
    first_ms: float  # that answer's own round trip


def launch(cmd: list[str], port: int, log: Path) -> Launched:
    """`cmd` started with its output in `log`, polled every 5 ms until it answers FIRST (bounded);
    without Flyway, as production starts it: main() migrates the schema first (schema.py)."""
    full = dict(os.environ, **schema.service_env(), QUARKUS_HTTP_PORT=str(port))
    with log.open("w") as out:  # the process keeps its own copy of the descriptor
        at, t0 = time.time(), time.monotonic()
        service = subprocess.Popen(cmd, env=full, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}{FIRST}"
    while time.monotonic() < t0 + LAUNCH_TIMEOUT_S:
        asked = time.monotonic()
        if get(url, timeout=1) == 200:
            answered = time.monotonic()
            return Launched(service, at, (answered - t0) * 1000, (answered - asked) * 1000)
        if service.poll() is not None:
            raise LabError(f"{cmd[0]} exited with {service.returncode}; see {log}")
        time.sleep(0.005)
    proc.stop(service, 30)
    raise LabError(f"no successful request within {LAUNCH_TIMEOUT_S} s; see {log}")


@contextlib.contextmanager
def launched(cmd: list[str], port: int, log: Path) -> Iterator[Launched]:
    """`cmd` launched (launch) for the length of the block, and stopped however the block ends."""
    started = launch(cmd, port, log)
    try:
        yield started
    finally:
        proc.stop(started.process, 30)


# The fixed load after a launch's idle reading, on the lab's engine (loadgen), in the virtual mode:
# sleep (200 users x 20 requests of 20 ms) and product (ramped to 100 users over 10 s).
FIXED_LOADS = (
    bench.Load(
        "200 users x 20, 20 ms",
        "k6/sleep.js",
        "sleep",
        {"VUS": "200", "ITERATIONS": "20", "SLEEP_MS": "20"},
        request=bench.sleep.sleep_request,
        timeout_s=300,
    ),
    bench.Load(
        "ramped to 100 users over 10 s",
        "k6/product.js",
        "product",
        {"STAGES": "3s:100,6s:100,1s:0"},
        request=bench.product.product_request,
        timeout_s=300,
    ),
)


def generate(settings: Settings, load: bench.Load, lane: bench.Lane, out: Path, label: str, samples: bool = False):
    """loadgen's run of `load` in `lane` against a launched service (its summary at `out`)."""
    return bench.Loadgen(settings.loadgen, samples=samples).generate(
        load, lane, f"http://127.0.0.1:{settings.port}", out, label, bench.RunSettings(), False
    )


def rate(settings: Settings, load: bench.Load, out: Path) -> float:
    """loadgen's req/s of `load` in the virtual mode against a launched JVM (its summary at `out`); a
    threshold crossed still gives its rate (the run's log beside it says which)."""
    return generate(settings, load, bench.Lane(bench.VIRTUAL), out, out.stem).figures["throughput"]


@dataclass
class Variant:
    """A variant's command line; `loaded`: the lab's fixed loads (FIXED_LOADS) run against it
    after its first answer. The minimal application has one endpoint, so it is measured to its first
    answer and at idle only."""

    cmd: list[str]
    loaded: bool = True


@dataclass
class Settings:
    """What every launch shares: the load generator (loadgen's binary), the port, the JDK's jcmd
    (counters), and whether each launch starts from a cold page cache."""

    loadgen: str
    port: int
    jcmd: Path
    cold: bool = False


DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def drop_page_cache() -> None:
    """The kernel's clean page cache, dentries and inodes dropped (after a sync, root only): the next
    launch reads the JDK, the jar and an AOT cache from the disk again."""
    os.sync()
    try:
        DROP_CACHES.write_text("3\n")
    except OSError as e:
        raise LabError(f"--cold drops the page cache through {DROP_CACHES}, which needs root: {e}") from e


def measure(variants: dict[str, Variant], launches: int, settings: Settings, out: Path) -> dict:
    """Each variant's launches, interleaved (rotated): per variant, the launches' figures (a dict per
    launch: the figures, and its phases and counters under "phases" and "counters")."""
    runs: dict[str, list[dict]] = {name: [] for name in variants}
    for i in range(launches):
        for name in stats.rotated(list(variants), i):
            runs[name].append(measure_launch(name, variants[name], i, settings, out))
    return runs


def measure_launch(name: str, variant: Variant, i: int, settings: Settings, out: Path) -> dict:
    """One launch of one variant: its first answer and the phases before it, its memory and class
    counts there, then its memory idle and (a loaded variant) its throughput and memory at a fixed load."""
    log = out / f"{name}-{i + 1}.log"
    if settings.cold:
        drop_page_cache()
    with launched(variant.cmd, settings.port, log) as started:
        service = started.process
        first = memory_mb(service.pid)
        counted = ph.counters(settings.jcmd, service.pid)
        time.sleep(2)
        rss_idle = memory_mb(service.pid)["rss"]
        sleep_rps = product_rps = rss_load = float("nan")
        if variant.loaded:  # the fixed load after the idle reading: sleep's and product's req/s, then the RSS
            sleep_load, product_load = FIXED_LOADS
            sleep_rps = rate(settings, sleep_load, out / f"{name}-{i + 1}-sleep.json")
            product_rps = rate(settings, product_load, out / f"{name}-{i + 1}-product.json")
            rss_load = memory_mb(service.pid)["rss"]
    print(
        f"   {name} launch {i + 1}: first answer after {started.ttfr_ms:.0f} ms, RSS {first['rss']:.0f} MB "
        f"({first['anon']:.0f} anonymous, {first['file']:.0f} file-backed; idle {rss_idle:.0f}"
        + (
            f", after load {rss_load:.0f}), sleep {sleep_rps:.0f} req/s, product {product_rps:.0f} req/s"
            if variant.loaded
            else "; not loaded)"
        ),
        flush=True,
    )
    return {
        "ttfr_ms": started.ttfr_ms,
        "first_request_ms": started.first_ms,
        "rss_first_mb": first["rss"],
        "anon_first_mb": first["anon"],
        "file_first_mb": first["file"],
        "rss_idle_mb": rss_idle,
        "rss_load_mb": rss_load,
        "sleep_rps": sleep_rps,
        "product_rps": product_rps,
        "phases": ph.phases(log.read_text(errors="replace"), started.at, started.ttfr_ms),
        "counters": counted,
    }
