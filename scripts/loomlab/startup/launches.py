"""One launch of a variant, and the launches of every variant interleaved.

A launch's time to the first answer is polled from process launch (not the framework's own log
line); its phases come from what the launch printed (loomlab.startup.phases); its memory from the
OS at the first answer, and again idle and after a fixed load (k6 sleep.js and product.js)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from loomlab import ROOT, LabError, proc
from loomlab import labreport as lr
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
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in MEMORY:
                found[MEMORY[key]] = int(value.split()[0]) / 1024
    except OSError:
        pass
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


def launch(cmd: list[str], port: int, env: dict, log: Path) -> Launched:
    """`cmd` started with its output in `log`, polled every 5 ms until it answers FIRST (bounded)."""
    full = dict(os.environ, **env, QUARKUS_HTTP_PORT=str(port))
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
    stop(service)
    raise LabError(f"no successful request within {LAUNCH_TIMEOUT_S} s; see {log}")


def stop(service: subprocess.Popen):
    proc.stop(service, 30)


def k6_rate(k6: str, script: str, env: dict, out: Path) -> float:
    """k6's req/s of `script` against a launched JVM (its summary at `out`); a run that wrote no summary
    (k6 stopped before its end) is refused with what k6 said."""
    full = dict(os.environ, **env, SUMMARY_JSON=str(out))
    run = subprocess.run(
        [k6, "run", "--quiet", "--no-color", str(ROOT / script)],
        env=full,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if not out.is_file():
        said = (run.stderr or run.stdout).strip().splitlines()[-3:]
        raise LabError(f"k6 {script} wrote no summary (exit {run.returncode}): {' / '.join(said) or 'no output'}")
    data = json.loads(out.read_text())
    return lr.k6_figures(data, Path(script).stem)["throughput"]


@dataclass
class Variant:
    """A variant's command line; `loaded`: the lab's loads (k6 sleep.js and product.js) run against it
    after its first answer. The minimal application has one endpoint, so it is measured to its first
    answer and at idle only."""

    cmd: list[str]
    loaded: bool = True


@dataclass
class Settings:
    """What every launch shares: k6, the port, the JDK's jcmd (counters), and whether each launch
    starts from a cold page cache."""

    k6: str
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
        for name in lr.rotated(list(variants), i):
            runs[name].append(measure_launch(name, variants[name], i, settings, out))
    return runs


def loaded(name: str, i: int, settings: Settings, out: Path, pid: int) -> tuple[float, float, float]:
    """The fixed load after the idle reading: sleep.js's and product.js's req/s, then the RSS after them."""
    base = f"http://127.0.0.1:{settings.port}"
    sleep_rps = k6_rate(
        settings.k6,
        "k6/sleep.js",
        {"MODE": "virtual", "BASE_URL": base, "VUS": "200", "ITERATIONS": "20", "SLEEP_MS": "20"},
        out / f"{name}-{i + 1}-sleep.json",
    )
    product_rps = k6_rate(
        settings.k6,
        "k6/product.js",
        {"MODE": "virtual", "BASE_URL": base, "STAGES": "3s:100,6s:100,1s:0"},
        out / f"{name}-{i + 1}-product.json",
    )
    return sleep_rps, product_rps, memory_mb(pid)["rss"]


def measure_launch(name: str, variant: Variant, i: int, settings: Settings, out: Path) -> dict:
    """One launch of one variant: its first answer and the phases before it, its memory and class
    counts there, then its memory idle and (a loaded variant) its throughput and memory at a fixed load."""
    log = out / f"{name}-{i + 1}.log"
    if settings.cold:
        drop_page_cache()
    started = launch(variant.cmd, settings.port, {}, log)
    service = started.process
    try:
        first = memory_mb(service.pid)
        counted = ph.counters(settings.jcmd, service.pid)
        time.sleep(2)
        rss_idle = memory_mb(service.pid)["rss"]
        nan = float("nan")
        sleep_rps, product_rps, rss_load = (
            loaded(name, i, settings, out, service.pid) if variant.loaded else (nan, nan, nan)
        )
    finally:
        stop(service)
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
