#!/usr/bin/env python3
"""`./lab bench`: runs the k6 scripts against the service in both modes and writes the report.

It starts the service itself (one instance per workload, with the pools that workload's seed
used), scrapes /q/metrics before, during and after every run, warms up without counting, repeats
each measured run, and prints medians with their spread beside the Little's-law bound and the
seed's figures. Everything it measured lands under target/loom-lab/<timestamp>/.

Called by ./lab with the JDK, the database and k6 ready; see `./lab bench --help`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import htmlreport  # noqa: E402
import labreport as lr  # noqa: E402
import proc  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------------------------
# What runs: workloads, their load shapes, bounds and seeds
# --------------------------------------------------------------------------------------------


@dataclass
class Load:
    """One k6 run shape of a workload, measured in each mode."""

    name: str
    script: str
    scenario: str
    env: dict
    # (mode, pools from /api/info) -> the Little's-law bound on throughput (req/s), or None.
    bound: Callable[[str, dict], float] | None = None
    # pools -> expected latency figures (ms) to print beside the measured ones, e.g. E[max].
    expect: Callable[[dict], dict] | None = None
    seed: dict = field(default_factory=dict)  # mode -> {figure: value}
    modes: tuple = ("worker", "virtual")
    timeout_s: int = 300
    extra: tuple = ()  # custom k6 trends to report: (metric, label, stat)
    warmups: int | None = None  # None: --warmups
    repeats: int | None = None  # None: --repeats
    warmup_env: dict = field(default_factory=dict)  # overrides of env for warm-up runs
    counters: tuple = ()  # custom k6 counters whose count and rate the report keeps
    extra_report: tuple = ()  # custom k6 trends kept per run but not shown in the load table
    rate: float | None = None  # open model: arrivals per second (bound: min(rate, the mode's bound))
    open_s: float | None = None  # open model: seconds of arrivals
    # False where k6 itself is the bottleneck: the dashboard's export costs k6 CPU (A3 virtual:
    # 3-7 % of its throughput, measured), so --dashboards auto leaves those runs alone.
    dashboard: bool = True
    est_s: float | dict = 10.0  # planned seconds of one run (or mode -> seconds), for the time left
    warmup_est_s: float | dict | None = None  # planned seconds of one warm-up run (None: est_s)


@dataclass
class Suite:
    workload: str
    description: str
    server_env: dict
    loads: list[Load]
    variant: str = ""  # a second configuration of the same workload, e.g. a smaller pool
    summary: Callable[[list[dict]], "lr.Table"] | None = None  # a table across the suite's loads
    # Least warm-up load per mode (s); None: --warmup-seconds. Workloads paced by sleeps, pools or
    # the database settle in seconds; the CPU-bound A3 virtual run needs the JIT's full warm-up.
    warmup_seconds: float | None = None


def effective_bound(load: Load, mode: str, pools: dict) -> float:
    """The Little's-law bound of a load in a mode; an open load cannot exceed its arrival rate."""
    if not load.bound:
        return math.nan
    b = load.bound(mode, pools)
    return min(b, load.rate) if load.rate is not None else b


def sleep_bound(vus: int, sleep_ms: int):
    """Users (virtual) or worker threads (worker), each busy sleep_ms per request."""

    def bound(mode: str, pools: dict):
        conc = vus if mode == "virtual" else min(vus, pools.get("worker.max-threads", vus))
        return lr.littles_bound(conc, sleep_ms / 1000.0)

    return bound


def product_ranges(pools: dict) -> list[tuple[float, float]]:
    return [tuple(r) for r in pools.get("product.latency-ms", {}).values()]


def product_expect(pools: dict) -> dict:
    ranges = product_ranges(pools)
    return {"mean": lr.expected_max(ranges), "p95": lr.max_quantile(ranges, 0.95)} if ranges else {}


def product_cap(mode: str, pools: dict) -> float:
    """The most lookups per second a mode's pools allow. Worker: request threads / E[max], and
    fan-out threads / the summed mean latency of the four sub-tasks (each holds a fan-out thread
    for its own latency). Virtual: no pool (infinite)."""
    ranges = product_ranges(pools)
    if not ranges:
        return math.nan
    if mode != "worker":
        return math.inf
    e_max = lr.expected_max(ranges) / 1000.0
    occupancy = sum((a + b) / 2 for a, b in ranges) / 1000.0
    return min(pools.get("worker.max-threads", math.inf) / e_max,
               pools.get("fan-out.worker-threads", math.inf) / occupancy)


def product_bound(stages: list[tuple[float, float]]):
    """Each user completes one lookup per E[max], up to the mode's pool cap."""

    def bound(mode: str, pools: dict):
        ranges = product_ranges(pools)
        if not ranges:
            return math.nan
        return lr.stages_bound(stages, 1000.0 / lr.expected_max(ranges), product_cap(mode, pools))

    return bound


# The worker mode's fan-out bound with the default pools: 200 threads / 0.775 s of sub-task time.
PRODUCT_WORKER_CAP = 200 / 0.775


# Seed C's shape: durations in sevenths of the total, targets scaled from a peak of 35.
SEED_C_SHAPE = [(1, 5), (1, 10), (1, 20), (1, 35), (2, 35), (1, 0)]


def seed_c_stages(total_s: int, peak: int) -> list[tuple[int, int]]:
    return [(max(1, round(total_s * n / 7)), round(t * peak / 35)) for n, t in SEED_C_SHAPE]


def product_load(total_s: int, peak: int, seed: dict, **kw) -> Load:
    stages = seed_c_stages(total_s, peak)
    warm = seed_c_stages(min(30, max(7, total_s * 2 // 3)), peak)  # JIT warm-up, not a second seed run
    stages_env = lambda st: ",".join(f"{d}s:{t}" for d, t in st)
    return Load(
        f"ramp to {peak} VUs in {total_s} s" + (" (C)" if seed else ""),
        "k6/product.js",
        "product",
        {"STAGES": stages_env(stages), "PEAK_VUS": str(peak)},
        bound=product_bound(stages),
        expect=product_expect,
        seed=seed,
        timeout_s=total_s + 120,
        est_s=sum(d for d, _ in stages) + 1,
        warmup_est_s=sum(d for d, _ in warm) + 1,
        warmup_env={"STAGES": stages_env(warm)},
        **kw,
    )


# Seed A3 (SCENARIOS.md): 500 users x 10 requests, 100 ms, Tomcat 50 threads vs virtual.
SEED_A3 = {
    "worker": {"throughput": 479.1, "mean": 977, "min": 100, "max": 1141, "sd": 196.97, "error_rate": 0.0},
    "virtual": {"throughput": 3921.6, "mean": 105, "min": 100, "max": 177, "sd": 9.84, "error_rate": 0.0},
}
# Seed A1: 100 tasks x 1 s; 10 platform threads ~10,000 ms, virtual ~1,000 ms; 100,000 virtual ~1,500 ms.
SEED_A1 = {"worker": {"elapsed": 10_000}, "virtual": {"elapsed": 1_000}}
SEED_A1_100K = {"virtual": {"elapsed": 1_500}}
# Seed C: 6 stages to 35 VUs over 7 min; platform pool (core 50, max 200, queue 500) vs virtual.
# Seed D: 87,488 records in 875 chunks; sequential 113.0 rec/s, parallel 168.8 rec/s.
SEED_D = {"sequential": {"worker": {"records_per_s": 113.0}}, "parallel": {"worker": {"records_per_s": 168.8}}}
SEED_C = {
    "worker": {"throughput": 17.38, "mean": 966.61, "p50": 990.32, "p95": 1530, "max": 2270, "error_rate": 0.0},
    "virtual": {"throughput": 33.45, "mean": 405.66, "p50": 394.2, "p95": 549.59, "max": 1450, "error_rate": 0.0},
}

TASK_TRENDS = (
    ("lab_tasks_elapsed_ms", "elapsed ms", "med"),
    ("lab_tasks_peak_concurrent", "peak tasks at once", "max"),
    ("lab_tasks_peak_platform_threads", "peak platform threads", "max"),
    ("lab_tasks_rss_bytes_per_task", "RSS B/task", "med"),
    ("lab_tasks_heap_bytes_per_task", "heap B/task", "med"),
    ("lab_tasks_measure_gc_ms", "GC to measure ms", "med"),
)


def open_load(workload: str, script: str, fraction: float, reference: float, of_what: str, seconds: int,
              bound: Callable[[str, dict], float], env: dict, max_vus: int, duration_var: str = "DURATION",
              **kw) -> Load:
    """Open model: `fraction` x `reference` (a Little's-law bound) arrivals per second for `seconds`.
    `bound` is each mode's own bound; dropped arrivals or errors above it are the expected
    overload, below it a failure."""
    rate = round(reference * fraction)
    return Load(
        f"open {rate} req/s ({fraction:.1f}x {of_what})",
        script,
        workload,
        {**env, "MODEL": "open", "RATE": str(rate), duration_var: f"{seconds}s", "MAX_VUS": str(max_vus)},
        bound=bound,
        rate=rate,
        open_s=seconds,
        timeout_s=seconds + 120,
        est_s=seconds + 1,
        **kw,
    )


def open_sleep_load(fraction: float, worker_bound: float, seconds: int) -> Load:
    return open_load("sleep", "k6/sleep.js", fraction, worker_bound, "the worker bound", seconds,
                     sleep_bound(10**6, 100), {"SLEEP_MS": "100"}, 1500)


def pool_bound(per_request_s: float):
    """db: connections (or the bulkhead, if smaller) / the time each request holds one."""

    def bound(mode: str, pools: dict):
        return lr.littles_bound(pools.get("datasource.max-size", 20), per_request_s)

    return bound


def pinning_bound(vus: int, ms: int, lock: str):
    """Each user holds its thread ms per request; a pinned virtual thread holds a carrier too, so
    pins cap the virtual mode at carriers / ms."""

    def bound(mode: str, pools: dict):
        conc = vus if mode == "virtual" else min(vus, pools.get("worker.max-threads", vus))
        pins = lock == "native" or (lock == "synchronized" and pools.get("jdk.feature", 25) < 24)
        if mode == "virtual" and pins:
            conc = min(conc, pools.get("virtual.carriers", 1))
        return lr.littles_bound(conc, ms / 1000.0)

    return bound


def recruits_summary(sections: list[dict]) -> lr.Table:
    """records/s of every (writes, mode) of the recruits suite beside the COPY anchor."""
    rows = []
    for sec in sections:
        if sec["workload"] != "recruits":
            continue
        writes = sec["env"].get("WRITES", "?")
        for mode, r in sec["results"].items():
            agg = lr.aggregate(r["runs"])
            rows.append((sec.get("variant") or "local", writes, mode, agg))
    t = lr.Table(["setup", "writes", "mode", "records/s", "vs COPY", "vs sequential", "chunk p50 ms", "chunk p95 ms",
                  "recruit ms", "skill ms", "description ms", "embedding ms", "errors %", "seed rec/s"])
    for setup in dict.fromkeys(r[0] for r in rows):
        ours = [r for r in rows if r[0] == setup]
        copy_rate = next((r[3]["records_per_s"].median for r in ours if r[1] == "copy"), math.nan)
        seq = {r[2]: r[3]["records_per_s"].median for r in ours if r[1] == "sequential"}
        for _, writes, mode, agg in ours:
            med = lambda k: agg.get(k, lr.Spread.of([])).median
            t.add(setup, writes, mode, lr.fmt_spread(agg["records_per_s"], 0),
                  lr.fmt(lr.ratio(med("records_per_s"), copy_rate), 2, "x"),
                  lr.fmt(lr.ratio(med("records_per_s"), seq.get(mode, math.nan)), 2, "x"),
                  lr.fmt(med("p50")), lr.fmt(med("p95")), lr.fmt(med("lab_table_recruit_ms")),
                  lr.fmt(med("lab_table_recruit_skill_ms")), lr.fmt(med("lab_table_recruit_description_ms")),
                  lr.fmt(med("lab_table_recruit_skill_embedding_ms")), lr.fmt(med("error_rate") * 100, 2),
                  lr.fmt(SEED_D.get(writes, {}).get("worker", {}).get("records_per_s")) if setup == "local" else "-")
    return t


RECRUIT_TRENDS = (
    ("lab_table_recruit_ms", "recruit ms", "med"),
    ("lab_table_recruit_skill_ms", "skill ms", "med"),
    ("lab_table_recruit_description_ms", "description ms", "med"),
    ("lab_table_recruit_skill_embedding_ms", "embedding ms", "med"),
)


def recruits_suite(records: int, variant: str, server_env: dict, id_base: int) -> Suite:
    loads = []
    for writes in ("sequential", "parallel", "copy"):
        loads.append(Load(
            f"{records:,} records in chunks of 100, {writes}" + (" (D)" if records == 87_488 else ""),
            "k6/recruits.js", "recruits",
            {"RECORDS": str(records), "CHUNK": "100", "WRITES": writes, "ID_BASE": str(id_base)},
            seed=SEED_D.get(writes, {}) if records == 87_488 and not variant else {},
            modes=("worker", "virtual") if writes != "copy" else ("virtual",),
            timeout_s=1800, counters=("lab_records",), extra_report=RECRUIT_TRENDS,
            est_s=records / (700 if variant else 3500) + 1,
            warmup_est_s=min(records, 1000) / (700 if variant else 3500) + 1,
            warmup_env={"RECORDS": str(min(records, 1000))}))
    return Suite(
        workload="recruits",
        variant=variant,
        description="Seed D: recruits streamed in chunks of 100 and upserted into recruit, recruit_skill, "
        "recruit_description and recruit_skill_embedding (pgvector 384): sequential (one transaction) vs "
        "parallel (parent, then the three children at once on the request's model), with COPY as the anchor"
        + (f"; {variant}" if variant else ""),
        server_env=server_env,
        loads=loads,
        summary=recruits_summary,
    )


def db_load(seconds: int) -> Load:
    """Seed B: 100 users on a pool of 20, each request holding a connection 200 ms."""
    return Load(f"100 VUs for {seconds} s, 200 ms query", "k6/db.js", "db",
                {"VUS": "100", "DURATION": f"{seconds}s", "DB_MS": "200"}, bound=pool_bound(0.2), timeout_s=120,
                counters=("lab_refused_503",), est_s=seconds + 1)


def db_open_load(fraction: float, seconds: int) -> Load:
    """Arrivals at a fraction of the pool's bound (20 / 0.2 s = 100 req/s), in both modes. Above it
    the bulkhead answers 503 after its bounded wait: errors are the expected overload there."""
    return open_load("db", "k6/db.js", fraction, 100, "the pool bound", seconds, pool_bound(0.2),
                     {"DB_MS": "200", "MAX_ERRORS": "0.01" if fraction < 1 else "0.5"}, 400,
                     counters=("lab_refused_503",))


def pinning_open_load(fraction: float, seconds: int) -> Load:
    """Native-frame pins at a fraction of the pinned virtual bound (2 carriers / 50 ms = 40 req/s
    on 2 cores): the worker mode's 200 threads take it whatever the fraction."""
    return open_load("pinning", "k6/pinning.js", fraction, 40, "the pinned virtual bound", seconds,
                     pinning_bound(10**6, 50, "native"), {"LOCK": "native", "PIN_MS": "50"}, 200)


def tasks_load(count: str, ms: str, smoke: bool, seed: dict, modes: tuple) -> Load:
    """Seed A1: one k6 run of 3 requests is the repeat (a worker request of 100 x 1 s takes 10 s)."""
    iterations = 1 if smoke else 3
    return Load(f"{int(count):,} tasks x {ms} ms" + ("" if smoke else " (A1)"), "k6/tasks.js", "tasks",
                {"COUNT": count, "TASK_MS": ms, "ITERATIONS": str(iterations)}, seed=seed, modes=modes,
                timeout_s=120, extra=TASK_TRENDS, warmups=1, repeats=1,
                # The warm-up runs the same code path with a tenth of the sleep.
                warmup_env={"ITERATIONS": "1", "TASK_MS": str(max(1, int(ms) // 10))},
                # 100 tasks on 10 platform threads take 10 sleeps; one virtual thread each, one sleep
                # (100,000 of them: ~1.5).
                est_s={"worker": iterations * int(ms) / 100 + 1,
                       "virtual": iterations * int(ms) / 1000 * (1 if int(count) <= 100 else 1.5) + 1},
                warmup_est_s=int(ms) / 1000 + 1)


def suites(profile: str) -> list[Suite]:
    smoke = profile == "smoke"  # seconds, for CI: the whole pipeline, scaled down
    seeds = profile == "seeds"
    a3 = {"VUS": "50", "ITERATIONS": "4", "SLEEP_MS": "100"} if smoke else {"VUS": "500", "ITERATIONS": "10", "SLEEP_MS": "100"}
    a1_count, a1_big = ("100", "2000") if smoke else ("100", "100000")
    a1_ms = "200" if smoke else "1000"
    short = 4  # seconds of an open run
    steady = 4  # seconds of a steady closed run (db, pinning)
    if smoke:
        product_loads = [product_load(7, 10, {})]
    elif seeds:
        # The seed's 7 minutes once per mode (repeats would take 42 minutes), and 10x its users.
        product_loads = [product_load(420, 35, SEED_C, repeats=1), product_load(42, 350, {})]
    else:
        product_loads = [product_load(10, 35, SEED_C), product_load(10, 350, {})]
    product_open = [open_load("product", "k6/product.js", f, PRODUCT_WORKER_CAP, "the worker's fan-out bound",
                              short, product_cap, {}, 1000, duration_var="OPEN_DURATION") for f in (0.8, 1.2)]
    records = 500 if smoke else 87_488 if seeds else 3_000
    suites_ = [
        Suite(
            workload="sleep",
            description="Seed A3: 500 users started at once, 10 requests each, no think time, "
            "100 ms sleep; worker pool of 50 platform threads (the seed's Tomcat) vs virtual threads; "
            "then an open model (constant arrival rate) below and above the worker pool's bound",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": "50"},
            loads=[
                Load(f"closed {a3['VUS']} VUs x {a3['ITERATIONS']}" + ("" if smoke else " (A3)"), "k6/sleep.js", "sleep", a3,
                     bound=sleep_bound(int(a3["VUS"]), 100), seed={} if smoke else SEED_A3, timeout_s=180,
                     dashboard=False,
                     # 50 threads x 10 req/s each; virtual ~4,000 req/s with k6 on the same cores.
                     est_s={"worker": int(a3["VUS"]) * int(a3["ITERATIONS"]) / 500 + 1,
                            "virtual": int(a3["VUS"]) * int(a3["ITERATIONS"]) / 4000 + 1}),
                open_sleep_load(0.8, 500, short),
                open_sleep_load(1.2, 500, short),
            ],
        ),
        Suite(
            workload="tasks",
            description="Seed A1: 100 tasks sleeping 1 s on 10 platform threads vs one virtual thread each; "
            "then 100,000 virtual threads",
            server_env={},
            warmup_seconds=0,
            loads=[
                tasks_load(a1_count, a1_ms, smoke, {} if smoke else SEED_A1, ("worker", "virtual")),
                tasks_load(a1_big, a1_ms, smoke, {} if smoke else SEED_A1_100K, ("virtual",)),
            ],
        ),
        Suite(
            workload="product",
            description="Seed C: a product lookup waiting for four slow dependencies called in parallel "
            "(catalog U(100,300) ms with a real SELECT, stock U(150,400) ms over real HTTP, recommendations "
            "U(50,200), prices U(100,250)); closed model ramped through the seed's 6 stages; worker pool "
            "200 with a fan-out pool of 200 platform threads vs virtual threads; then an open model below and "
            "above the worker mode's fan-out bound",
            server_env={},
            warmup_seconds=8,
            loads=product_loads + product_open,
        ),
        recruits_suite(records, "", {}, 1),
        Suite(
            workload="db",
            description="Seed B: each request holds one pooled connection for 200 ms (pg_sleep); 100 users "
            "on a pool of 20, behind a fair bulkhead of 20 permits; then an open model below and above the "
            "pool's bound",
            server_env={},
            warmup_seconds=6,
            loads=[db_load(steady), db_open_load(0.8, short), db_open_load(1.2, short)],
        ),
        Suite(
            workload="pinning",
            description="Seed E: 50 users blocking 50 ms while holding a lock: synchronized (does not pin "
            "since JDK 24), ReentrantLock (never pins), an FFM upcall from native code (always pins); then "
            "native pins in an open model below and above the pinned virtual bound; the wait for a thread "
            "unbounded, as in the seed (with native pins, virtual threads wait over 2 s for a free carrier, "
            "and loomlab.execution.queue-wait.max would shed them with 503 instead of showing what a pin costs)",
            server_env={"LOOMLAB_EXECUTION_QUEUE_WAIT_ENABLED": "false"},
            warmup_seconds=6,
            loads=[Load(f"50 VUs for {steady} s, {lock}", "k6/pinning.js", "pinning",
                        {"LOCK": lock, "VUS": "50", "DURATION": f"{steady}s", "PIN_MS": "50"},
                        bound=pinning_bound(50, 50, lock), timeout_s=120, est_s=steady + 1)
                   for lock in ("synchronized", "reentrant", "native")]
            + [pinning_open_load(f, short) for f in (0.8, 1.2)],
        ),
    ]
    if not smoke:
        # Variants: the seed's own constraints, to show where each pool bound bites.
        suites_ += [
            Suite(
                workload="product",
                variant="fan-out pool of 50",
                description="Seed C's platform pool really ran 50 threads (core 50, queue 500: a "
                "ThreadPoolExecutor grows past its core only when the queue is full); the worker mode with a "
                "fan-out pool of 50, whose bound is 50 threads / 0.775 s of sub-task time = 64.5 req/s",
                server_env={"LOOMLAB_EXECUTION_FAN_OUT_WORKER_THREADS": "50"},
                warmup_seconds=8,
                loads=[dataclasses.replace(product_loads[0], modes=("worker",))],
            ),
            recruits_suite(records if not seeds else 10_000, "simulated round trip 20 ms per statement",
                           {"LOOMLAB_RECRUITS_SIMULATED_ROUND_TRIP": "20ms"}, 1),
            Suite(
                workload="db",
                variant="no bulkhead",
                description="Seed B without the bulkhead: every request queues on Agroal's pool itself",
                server_env={"LOOMLAB_DB_BULKHEAD_ENABLED": "false"},
                warmup_seconds=6,
                loads=[db_load(steady)],
            ),
        ]
    return suites_


# --------------------------------------------------------------------------------------------
# The service under test
# --------------------------------------------------------------------------------------------


class Service:
    """The service under test as a local JVM. `./lab k8s run` has a twin for a Deployment in the
    cluster (scripts/k8s/incluster.py): the same methods, so run_suite drives either."""

    environment = "local JVM"

    def __init__(self, java: str, jar: Path, port: int, env: dict, jvm_flags: list[str], log: Path):
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        full_env = dict(os.environ)
        full_env.update(env)
        full_env["QUARKUS_HTTP_PORT"] = str(port)
        cmd = [java, *jvm_flags, "-jar", str(jar)]
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, env=full_env, stdout=log.open("w"), stderr=subprocess.STDOUT)

    def wait_ready(self, timeout_s=60):
        if proc.wait_http(self.url + "/q/health/ready", timeout_s, alive=lambda: self.proc.poll() is None):
            return
        if self.proc.poll() is not None:
            raise SystemExit(f"service exited with {self.proc.returncode}; see {self.log}")
        raise SystemExit(f"service not ready after {timeout_s} s; see {self.log}")

    def get(self, path: str, timeout=10) -> str:
        with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
            return r.read().decode()

    def run(self, load: "Load", mode: str, out: Path, label: str, args, warmup=False) -> dict:
        """One k6 run of `load` against this service: its figures (see figures_of)."""
        return run_k6(args.k6, load, mode, self.url, out, label, self, args, warmup)

    def stop(self):
        proc.stop(self.proc)


def local_service(suite: "Suite", mode: str, tag: str, args, out: Path) -> Service:
    """A JVM of its own for each suite and mode, with the suite's configuration."""
    return Service(args.java, Path(args.jar), args.port, suite.server_env, args.jvm_flags.split(),
                   out / f"service-{tag}-{mode}.log")


class Sampler(threading.Thread):
    """Scrapes /q/metrics every `period` s while a run goes on (one scrape before, one after)."""

    def __init__(self, service: Service, period: float):
        super().__init__(daemon=True)
        self.service, self.period = service, period
        self.samples: list[dict] = []
        self._done = threading.Event()

    def scrape(self):
        try:
            sample = lr.scrape_sample(self.service.get("/q/metrics", timeout=5))
            sample["t"] = time.time()
            self.samples.append(sample)
        except OSError:
            pass

    def run(self):
        while not self._done.wait(self.period):
            self.scrape()

    def finish(self) -> list[dict]:
        self._done.set()
        self.join()
        self.scrape()
        return self.samples


# --------------------------------------------------------------------------------------------
# Running k6
# --------------------------------------------------------------------------------------------


def run_k6(k6: str, load: Load, mode: str, base_url: str, out: Path, label: str, service: Service, args,
           warmup=False) -> dict:
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(load.env)
    if warmup:
        env.update(load.warmup_env)
    env.update({"MODE": mode, "BASE_URL": base_url, "SUMMARY_JSON": str(out), "RUN_LABEL": label})
    if not warmup and (args.dashboards == "all" or (args.dashboards == "auto" and load.dashboard)):
        env.update({"K6_WEB_DASHBOARD": "true", "K6_WEB_DASHBOARD_EXPORT": str(out.with_suffix(".html")),
                    "K6_WEB_DASHBOARD_PORT": "-1",
                    # k6 skips the export of a run shorter than a few periods (default 10 s).
                    "K6_WEB_DASHBOARD_PERIOD": "1s"})
    sampler = Sampler(service, args.sample_period)
    sampler.scrape()
    sampler.start()
    started = time.monotonic()
    try:
        k6_run = subprocess.run([k6, "run", "--quiet", "--no-color", str(ROOT / load.script)], env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=load.timeout_s)
    except subprocess.TimeoutExpired:
        sampler.finish()
        raise SystemExit(f"k6 run '{label}' exceeded {load.timeout_s} s and was stopped")
    samples = sampler.finish()
    took = time.monotonic() - started
    (out.with_suffix(".log")).write_text(k6_run.stdout + k6_run.stderr)
    (out.with_suffix(".metrics.jsonl")).write_text("".join(json.dumps(s) + "\n" for s in samples))
    if not out.exists():
        raise SystemExit(f"k6 run '{label}' wrote no summary (exit {k6_run.returncode}):\n{k6_run.stderr[-2000:]}")
    return figures_of(load, json.loads(out.read_text()), samples, k6_run.returncode, took)


def figures_of(load: Load, summary: dict, samples: list[dict], k6_exit: int, took: float) -> dict:
    """A run's figures: k6's summary, the server's samples, and the load's own counters and trends."""
    figures = lr.k6_figures(summary, load.scenario)
    figures.update(lr.server_figures(samples))
    metrics = summary.get("metrics", {})
    for metric, _, stat in load.extra + load.extra_report:
        figures[metric] = metrics.get(metric, {}).get("values", {}).get(stat, math.nan)
    for counter in load.counters:
        values = metrics.get(counter, {}).get("values", {})
        figures[f"{counter}_count"] = values.get("count", 0)
        figures[f"{counter}_rate"] = values.get("rate", 0.0)
    if "lab_records" in load.counters:
        figures["records_per_s"] = figures["lab_records_rate"]
    if load.open_s and lr.open_kept_up(figures["dropped"], figures["error_rate"]):
        # An open run that kept up: its throughput is the arrival rate it took, requests per second
        # of arrivals. k6's own rate also divides by the drain after the last arrival, when nothing
        # arrives (10 % of a 4 s run). An overloaded run keeps k6's rate: the service was busy
        # through the drain too.
        figures["k6_rate"] = figures["throughput"]
        figures["throughput"] = figures["requests"] / load.open_s
    figures["k6_exit"] = k6_exit
    figures["wall_s"] = took
    return figures


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


def load_table(load: Load, results: dict, pools: dict) -> lr.Table:
    """results: mode -> {"runs": [...], "warmup": {...}}"""
    if load.extra:
        headers = ["mode", *(label for _, label, _ in load.extra), "seed elapsed ms", "requests", "errors %"]
        t = lr.Table(headers)
        for mode in load.modes:
            r = results.get(mode)
            if not r:
                continue
            agg = lr.aggregate(r["runs"])
            cells = [lr.fmt_spread(agg.get(m, lr.Spread.of([])), 0) for m, _, _ in load.extra]
            seed = load.seed.get(mode, {}).get("elapsed")
            t.add(mode, *cells, lr.fmt(seed, 0), lr.fmt(agg["requests"].median, 0), lr.fmt(agg["error_rate"].median * 100, 2))
        return t

    expected = load.expect(pools) if load.expect else {}
    extra = ["E[max] ms", "mean excess"] if expected else []
    verdict = ["verdict"] if load.rate is not None else []
    t = lr.Table(["mode", "requests", "req/s", "bound", "eff.", "mean ms", "sd", "min", "p50", "p90", "p95", "p99",
                  "max", "errors %", "dropped", *verdict, *extra, "last warm-up req/s", "seed req/s", "seed mean"])
    for mode in load.modes:
        r = results.get(mode)
        if not r:
            continue
        agg = lr.aggregate(r["runs"])
        bound = effective_bound(load, mode, pools)
        thr = agg["throughput"]
        seed = load.seed.get(mode, {})
        warm = r.get("warmup") or {}
        t.add(mode, lr.fmt(agg["requests"].median, 0), lr.fmt_spread(thr, 1), lr.fmt(bound, 0),
              lr.fmt(lr.efficiency(thr.median, bound) * 100, 0, " %"),
              lr.fmt_spread(agg["mean"]), lr.fmt(agg["sd"].median), lr.fmt(agg["min"].median), lr.fmt(agg["p50"].median),
              lr.fmt(agg["p90"].median), lr.fmt(agg["p95"].median), lr.fmt(agg["p99"].median), lr.fmt(agg["max"].median),
              lr.fmt(agg["error_rate"].median * 100, 2), lr.fmt(agg["dropped"].median, 0),
              *([open_verdict(load, mode, pools, agg)] if verdict else []),
              *([lr.fmt(expected["mean"]), lr.fmt((agg["mean"].median / expected["mean"] - 1) * 100, 1, " %")]
                if expected else []),
              lr.fmt(warm.get("throughput"), 1), lr.fmt(seed.get("throughput")), lr.fmt(seed.get("mean"), 0))
    return t


def open_verdict(load: Load, mode: str, pools: dict, agg: dict) -> str:
    """The verdict of an open load's median run in a mode (see lr.open_verdict)."""
    return lr.open_verdict(load.rate, load.bound(mode, pools), agg["dropped"].median, agg["error_rate"].median)


def run_failed(load: Load, mode: str, pools: dict, run: dict) -> bool:
    """A measured run that must fail --strict: k6 crossed a threshold, unless it is an open run
    above this mode's bound, whose drops and errors are the overload the load was made to show."""
    if load.rate is not None:
        return (not lr.open_kept_up(run["dropped"], run["error_rate"])
                and not lr.above_bound(load.rate, load.bound(mode, pools)))
    return bool(run.get("k6_exit"))


def server_table(load: Load, results: dict, native: bool = False) -> lr.Table:
    t = lr.Table(["mode", "CPU s", "CPU ms/req", "peak in-flight", "peak threads", "peak RSS MB",
                  "peak worker active", "peak worker queue", "peak db awaiting", "db max wait ms", "503s",
                  "GC pauses", "pinned"])
    for mode in load.modes:
        r = results.get(mode)
        if not r:
            continue
        agg = lr.aggregate(r["runs"])
        get = lambda k: agg.get(k, lr.Spread.of([])).median
        cpu_per_req = lr.ratio(get("cpu_s") * 1000, get("requests"))
        t.add(mode, lr.fmt(get("cpu_s"), 2), lr.fmt(cpu_per_req, 3), lr.fmt(get("peak_in_flight"), 0),
              lr.fmt(get("peak_live_threads"), 0), lr.fmt(get("peak_rss_bytes") / 1e6, 0),
              lr.fmt(get("peak_worker_active"), 0), lr.fmt(get("peak_worker_queued"), 0),
              lr.fmt(get("peak_db_awaiting"), 0), lr.fmt(get("peak_db_max_wait_ms"), 0),
              lr.fmt(get("lab_refused_503_count"), 0) if "lab_refused_503" in load.counters else "-",
              lr.fmt(get("delta_gc_pauses"), 0),
              # micrometer-java21's virtual-thread meters are incomplete in native images.
              "n/a (native)" if native else lr.fmt(get("delta_pinned"), 0))
    return t


def ratio_line(load: Load, results: dict) -> str:
    if "worker" not in results or "virtual" not in results or load.extra:
        return ""
    if load.rate is not None:
        # Both modes are offered the same rate: the difference is in latency and drops.
        w, v = (lr.aggregate(results[m]["runs"]) for m in ("worker", "virtual"))
        return (f"same arrivals in both modes: worker/virtual mean latency {lr.fmt(lr.ratio(w['mean'].median, v['mean'].median), 2)}x, "
                f"p99 {lr.fmt(lr.ratio(w['p99'].median, v['p99'].median), 2)}x; dropped worker "
                f"{lr.fmt(w['dropped'].median, 0)}, virtual {lr.fmt(v['dropped'].median, 0)}")
    w = lr.aggregate(results["worker"]["runs"])["throughput"].median
    v = lr.aggregate(results["virtual"]["runs"])["throughput"].median
    sw, sv = load.seed.get("worker", {}).get("throughput"), load.seed.get("virtual", {}).get("throughput")
    seed = f"; seed {lr.fmt(lr.ratio(sv, sw), 1)}x" if sw and sv else ""
    return f"virtual/worker throughput: {lr.fmt(lr.ratio(v, w), 2)}x{seed}"


def write_report(out: Path, meta: dict, sections: list[dict], appendix: list[str] = ()):
    md = [f"# {meta.get('title', 'loom-lab bench report')}", "", f"Profile: {meta['profile']}", ""]
    md += [f"- date: {meta['date']}", f"- command: `{meta['command']}`", f"- machine: {meta['machine']}",
           f"- JDK: {meta['info'].get('jdk')} ({meta['info'].get('vm')}), Quarkus {meta['info'].get('quarkus')}, "
           f"{meta['info'].get('imageKind')}, {meta['info'].get('cpus')} CPUs",
           f"- k6: {meta['k6']}, " + meta.get("k6_where", "on the same machine as the service"),
           *meta.get("setup", []),
           f"- k6 web-dashboard exports (runs/*.html): {meta.get('dashboards', 'auto')}"
           + (" (every measured run but the closed A3 load, where k6 is the bottleneck and the export costs it"
              " 3-7 % of the virtual throughput)" if meta.get("dashboards", "auto") == "auto" else ""),
           f"- warm-up (not counted), per mode in its own JVM{meta.get('jvm_where', '')}: at least {meta['warmup_seconds']:.0f} s of load and"
           f" until two runs in a row differ by < {meta['warmup_tolerance'] * 100:.0f} % (at most {meta['warmups']}"
           f" runs); measured runs per mode: {meta['repeats']}"
           " (fewer where a load says so, e.g. tasks: one k6 run of 3 requests)",
           "- figures: median of the measured runs, (min-max) where they differ; latency in ms;"
           " bound = Little's law, concurrency / latency; eff. = throughput / bound",
           "- open model (k6 constant-arrival-rate): req/s = requests / seconds of arrivals when the run kept up,"
           " else k6's rate over the whole run (the drain included, when the service was still busy); the bound is"
           " min(rate, the mode's own bound); dropped arrivals or errors are a failure below the mode's bound and"
           " the expected overload above it (column 'verdict')",
           f"- server peaks come from scrapes every {meta['sample_period']} s: a run shorter than that shows"
           " only its before and after", ""]
    for s in sections:
        expectation = ""
        if s.get("expected"):
            e = s["expected"]
            expectation = (f"Expected latency with every dependency answering on time: E[max] = {e['mean']:.1f} ms, "
                           f"p95 = {e['p95']:.1f} ms (the slowest of the configured uniform delays); "
                           "'mean excess' is the measured mean over E[max].")
        md += [f"## {s['workload']}: {s['load']} ({s.get('environment', Service.environment)})", "",
               s["description"], "", expectation, "",
               f"Load: `{s['script']}` with {s['env']}; service env {s['server_env']}; pools {s['pools']}", "",
               s["table"].markdown(), ""]
        if s["ratio"]:
            md += [s["ratio"], ""]
        md += ["Server side (from /q/metrics, scraped every "
               f"{meta['sample_period']} s; medians over the measured runs):", "", s["server"].markdown(), ""]
        if s.get("summary"):
            md += [f"### {s['workload']}: every load of the suite", "", s["summary"].markdown(), ""]
    startups = sorted(out.parent.glob("startup-*/report.md"))
    if startups:
        # The latest `./lab startup` on this machine: start-up and memory belong beside throughput.
        md += ["## Start-up and memory (latest ./lab startup)", "",
               startups[-1].read_text().split("\n", 2)[-1], f"(from {startups[-1].parent.name})", ""]
    (out / "report.md").write_text("\n".join(md + list(appendix)))


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def compare(a: Path, b: Path):
    """Two bench reports side by side: every (workload, load, mode) both measured, B against A."""
    ra, rb = (json.loads((d / "results.json").read_text()) for d in (a, b))
    key = lambda s: (s["workload"], s.get("variant", ""), s["load"], s.get("environment", Service.environment))
    sa = {key(s): s for s in ra["sections"]}
    t = lr.Table(["workload", "load", "mode", "req/s A", "req/s B", "change", "p95 A", "p95 B", "change",
                  "errors A %", "errors B %"])
    for s in rb["sections"]:
        other = sa.get(key(s))
        if not other:
            continue
        for mode, r in s["results"].items():
            if mode not in other["results"]:
                continue
            x, y = lr.aggregate(other["results"][mode]["runs"]), lr.aggregate(r["runs"])
            ch = lambda k: lr.fmt((lr.ratio(y[k].median, x[k].median) - 1) * 100, 1, " %")
            name = s["workload"] + (f" / {s['variant']}" if s.get("variant") else "")
            t.add(name, s["load"], mode, lr.fmt(x["throughput"].median), lr.fmt(y["throughput"].median),
                  ch("throughput"), lr.fmt(x["p95"].median), lr.fmt(y["p95"].median), ch("p95"),
                  lr.fmt(x["error_rate"].median * 100, 2), lr.fmt(y["error_rate"].median * 100, 2))
    print(f"A: {a} ({ra['meta']['date']}, {ra['meta']['info'].get('imageKind')}, {ra['meta']['machine']})")
    print(f"B: {b} ({rb['meta']['date']}, {rb['meta']['info'].get('imageKind')}, {rb['meta']['machine']})")
    print(t.text() if t.rows else "no (workload, load, mode) in common")


SERVICE_START_S = 4  # JVM start-up to ready, plus stop


def suite_modes(suite: Suite, modes: set) -> list[str]:
    return [m for m in ("worker", "virtual") if any(m in l.modes for l in suite.loads) and (not modes or m in modes)]


def warmup_seconds(suite: Suite, args) -> float:
    return args.warmup_seconds if suite.warmup_seconds is None else min(suite.warmup_seconds, args.warmup_seconds)


def planned_seconds(suite: Suite, mode: str, args) -> dict:
    """What one mode of a suite should take: start-up and warm-up, then each load's runs."""
    first = next(l for l in suite.loads if mode in l.modes)
    least_runs = min(2, args.warmups, first.warmups or 2)
    per_mode = lambda v: v.get(mode, 0.0) if isinstance(v, dict) else v
    warm = max(warmup_seconds(suite, args), per_mode(first.warmup_est_s or first.est_s) * least_runs)
    runs = {id(l): (args.repeats if l.repeats is None else min(l.repeats, args.repeats)) * per_mode(l.est_s)
            for l in suite.loads if mode in l.modes}
    return {"start": SERVICE_START_S + warm, "runs": runs}


def tick(progress: dict, seconds: float) -> str:
    """Books `seconds` of the plan as done; returns the elapsed time and the estimate of what is left."""
    progress["planned_done"] += seconds
    elapsed = time.monotonic() - progress["started"]
    left = lr.eta_seconds(progress["planned_total"], progress["planned_done"], elapsed)
    return f"{lr.fmt_duration(elapsed)} elapsed, about {lr.fmt_duration(left)} left"


def run_suite(suite: Suite, args, out: Path, modes: set, progress: dict, start=local_service, prefix: str = ""):
    """Each mode gets a service of its own (a JVM, or a fresh pod in the cluster), so threads, RSS
    and GC of one mode never show in the other's figures: start, warm up (the suite's first load),
    run every load, stop. `prefix` names the environment in the run files (in-cluster variants)."""
    results = [dict() for _ in suite.loads]
    pools, info = {}, {}
    tag = prefix + suite.workload + (f"-{suite.variant}" if suite.variant else "")
    tag = tag.replace(" ", "_").replace(",", "")
    for mode in suite_modes(suite, modes):
        plan = planned_seconds(suite, mode, args)
        service = start(suite, mode, tag, args, out)
        try:
            service.wait_ready()
            info = json.loads(service.get("/api/info"))
            pools = info.get("pools", {})
            print(f"   {mode}: service ready ({info.get('jdk')}, {info.get('imageKind')})", flush=True)
            warmed = False
            for i, load in enumerate(suite.loads):
                if mode not in load.modes:
                    continue
                slug = f"{tag}-{re.sub(r'[^A-Za-z0-9.]+', '_', load.name.split(' (')[0]).strip('_')}"
                warm = {}
                if not warmed:
                    # Warm-up, not counted: the JIT compiles this mode's request path. Later loads of
                    # the suite run on the warm JVM.
                    warmups = args.warmups if load.warmups is None else min(load.warmups, args.warmups)
                    least = warmup_seconds(suite, args)
                    previous = math.nan
                    warm_started = time.monotonic()
                    for w in range(warmups):
                        label = f"warm-up {w + 1}/{warmups} {suite.workload} {mode}"
                        print(f"   {label} ...", end="", flush=True)
                        warm = service.run(load, mode, out / "warmup" / f"{slug}-{mode}-{w + 1}.json", label,
                                           args, warmup=True)
                        print(f" {lr.fmt(warm['throughput'])} req/s", flush=True)
                        # Warm once two runs in a row agree and the JIT had --warmup-seconds of load:
                        # short runs agree with each other long before the JIT is done.
                        if (w + 1 >= 2 and lr.settled(previous, warm["throughput"], args.warmup_tolerance)
                                and time.monotonic() - warm_started >= least):
                            break
                        previous = warm["throughput"]
                    warmed = True
                    print(f"   warm: {tick(progress, plan['start'])}", flush=True)
                repeats = args.repeats if load.repeats is None else min(load.repeats, args.repeats)
                results[i][mode] = {"runs": [], "warmup": warm}
                for r in range(repeats):
                    label = f"run {r + 1}/{repeats} {suite.workload} {mode} {load.name}"
                    print(f"   [{progress['done'] + i + 1}/{progress['total']}] {label} ...", end="", flush=True)
                    run_json = out / "runs" / f"{slug}-{mode}-{r + 1}.json"
                    fig = service.run(load, mode, run_json, label, args)
                    eta = tick(progress, plan["runs"][id(load)] / repeats)
                    results[i][mode]["runs"].append(fig)
                    if r == 0:
                        results[i][mode]["first_run"] = str(run_json.relative_to(out))
                    print(f" {lr.fmt(fig['throughput'])} req/s, mean {lr.fmt(fig['mean'])} ms, "
                          f"errors {lr.fmt(fig['error_rate'] * 100, 2)} %, dropped {lr.fmt(fig['dropped'], 0)} "
                          f"({eta})", flush=True)
        finally:
            service.stop()
    progress["done"] += len(suite.loads)
    return results, pools, info


def main(argv=None):
    p = argparse.ArgumentParser(prog="lab bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--k6", required=True, help="k6 binary (./lab passes it)")
    p.add_argument("--java", required=True, help="java of the service (./lab passes it)")
    p.add_argument("--jar", default=str(ROOT / "target/quarkus-app/quarkus-run.jar"))
    p.add_argument("--out", required=True, help="report folder (./lab: target/loom-lab/<timestamp>)")
    p.add_argument("--port", type=int, default=8090)
    p.add_argument("--profile", choices=["quick", "seeds", "smoke"], default="quick",
                   help="quick: every workload, minutes; seeds: each seed's own setup; smoke: seconds, for CI")
    p.add_argument("--strict", action="store_true", help="exit 1 when any measured k6 run crossed a threshold")
    p.add_argument("--workload", default="", help="comma-separated workloads (default: all)")
    p.add_argument("--mode", default="", help="worker or virtual (default: both)")
    p.add_argument("--warmups", type=int, default=15, help="most warm-up runs per mode (at least 2 unless fewer)")
    p.add_argument("--warmup-seconds", type=float, default=15,
                   help="least time of warm-up load per mode before the runs may count as warm")
    p.add_argument("--warmup-tolerance", type=float, default=0.03,
                   help="warm-up stops once two runs in a row differ by less than this fraction")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sample-period", type=float, default=0.5, help="seconds between /q/metrics scrapes")
    p.add_argument("--dashboards", choices=["auto", "all", "none"], default="auto",
                   help="export k6's web dashboard (HTML) of the measured runs: auto (default) every run but"
                        " those where k6 is the bottleneck (A3: the export costs k6 3-7 %% of the virtual"
                        " throughput), all, or none")
    p.add_argument("--jvm-flags", default=os.environ.get("LAB_JVM_FLAGS", ""))
    p.add_argument("--chartjs", default="", help="Chart.js UMD bundle to inline in report.html (./lab passes it)")
    p.add_argument("--plan", action="store_true", help="print what would run and its estimated time, and exit")
    p.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"),
                   help="print the differences of two reports' results.json (B against A) and exit")
    args = p.parse_args(argv)
    if args.compare:
        compare(Path(args.compare[0]), Path(args.compare[1]))
        return

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = {w for w in args.workload.split(",") if w}
    modes = {m for m in args.mode.split(",") if m}
    chosen = [s for s in suites(args.profile) if not wanted or s.workload in wanted]
    if wanted - {s.workload for s in suites(args.profile)}:
        raise SystemExit(f"unknown workload(s): {', '.join(sorted(wanted - {s.workload for s in suites(args.profile)}))}")
    if args.profile == "smoke":
        args.warmups, args.repeats, args.warmup_seconds = min(args.warmups, 1), 1, 0
    sections, info = [], {}
    total_loads = sum(len(s.loads) for s in chosen)
    plans = [(s_, m, planned_seconds(s_, m, args)) for s_ in chosen for m in suite_modes(s_, modes)]
    planned = sum(plan["start"] + sum(plan["runs"].values()) for _, _, plan in plans)
    progress = {"done": 0, "total": total_loads, "started": time.monotonic(), "planned_total": planned,
                "planned_done": 0.0}
    print(f"plan: {len(chosen)} suites, {total_loads} loads; about {lr.fmt_duration(planned)} of load and start-up"
          " (the progress lines correct it by the pace measured so far)", flush=True)
    if args.plan:
        for s_, m, plan in plans:
            print(f"  {s_.workload}{' / ' + s_.variant if s_.variant else ''} {m}: start-up and warm-up "
                  f"{lr.fmt_duration(plan['start'])}, runs {lr.fmt_duration(sum(plan['runs'].values()))}")
        return
    k6_version = subprocess.run([args.k6, "version"], capture_output=True, text=True).stdout.split("(")[0].strip()
    sections, info = measure(chosen, args, out, modes, progress)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "command": os.environ.get("LAB_COMMAND", "lab bench"),
            "machine": machine(), "info": info, "k6": k6_version, "warmups": args.warmups, "repeats": args.repeats,
            "warmup_tolerance": args.warmup_tolerance, "profile": args.profile,
            "warmup_seconds": args.warmup_seconds,
            "sample_period": args.sample_period, "dashboards": args.dashboards}
    finish(out, args, meta, sections)


def machine() -> str:
    return (f"{os.cpu_count()} CPUs, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, "
            f"{os.uname().sysname} {os.uname().release}")


def measure(chosen: list[Suite], args, out: Path, modes: set, progress: dict, start=local_service,
            environment: str = Service.environment, prefix: str = "") -> tuple[list[dict], dict]:
    """Runs the suites (run_suite) and turns each load's results into a report section."""
    sections, info = [], {}
    for suite in chosen:
        scaled = " (smoke: scaled down to seconds)" if args.profile == "smoke" else ""
        if not suite.description.endswith(scaled):
            suite.description += scaled
        where = f" [{environment}]" if environment != Service.environment else ""
        print(f"\n== {suite.workload}{' / ' + suite.variant if suite.variant else ''}{where}: {suite.description}",
              flush=True)
        results, pools, info = run_suite(suite, args, out, modes, progress, start, prefix)
        for i, load in enumerate(suite.loads):
            load.modes = tuple(m for m in load.modes if m in results[i])
            section = {"workload": suite.workload, "variant": suite.variant, "load": load.name,
                       "environment": environment,
                       "description": suite.description, "script": load.script, "env": load.env,
                       "server_env": suite.server_env, "pools": pools,
                       "table": load_table(load, results[i], pools),
                       "server": server_table(load, results[i], info.get("imageKind") == "native"),
                       "ratio": ratio_line(load, results[i]), "results": results[i],
                       "expected": load.expect(pools) if load.expect else {},
                       "bounds": {m: effective_bound(load, m, pools) for m in load.modes}, "rate": load.rate,
                       "failed": [m for m in load.modes for run in results[i][m]["runs"]
                                  if run_failed(load, m, pools, run)]}
            sections.append(section)
            print(f"\n{suite.workload}: {load.name}{where}\n{section['table'].text()}")
            if section["ratio"]:
                print(section["ratio"])
            print(f"server side:\n{section['server'].text()}\n", flush=True)
        if suite.summary:
            table = suite.summary(sections)
            sections[-1]["summary"] = table
            print(f"{suite.workload} summary:\n{table.text()}\n", flush=True)
    return sections, info


def finish(out: Path, args, meta: dict, sections: list[dict], appendix: list[str] = ()):
    """report.md (sections, then `appendix`: markdown lines), report.html and results.json; with
    --strict, exit 1 on a failed run."""
    write_report(out, meta, sections, appendix)
    htmlreport.write(out, meta, sections, Path(args.chartjs) if args.chartjs else None)
    (out / "results.json").write_text(json.dumps(
        {"meta": meta, "sections": [{k: v for k, v in s.items() if k not in ("table", "server", "summary")}
                                    for s in sections]},
        indent=1, default=str))
    print(f"report: {out / 'report.md'}")
    crossed = [f"{s['workload']} {s['load']} {mode} ({s['environment']})" for s in sections for mode, r in s["results"].items()
               for run in r["runs"] if run.get("k6_exit")]
    if crossed:
        print(f"k6 thresholds crossed in: {', '.join(crossed)} (see the runs' .log files)")
    failed = [f"{s['workload']} {s['load']} {mode} ({s['environment']})" for s in sections for mode in s["failed"]]
    if failed:
        print(f"failed (a closed run crossed a threshold, or an open run dropped or failed below its bound): "
              f"{', '.join(failed)}")
        if args.strict:
            sys.exit(1)
    elif crossed:
        print("every crossing above is an open run past its mode's bound: the overload it was made to show")


if __name__ == "__main__":
    main()
