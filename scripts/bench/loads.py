"""What runs: the workloads, their load shapes (closed and open), Little's-law bounds and the
seeds' figures; `suites(profile)` is the plan of each profile."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Callable

import labreport as lr

# The execution models, in report order. THREADED: the workloads that block threads by design (tasks,
# pinning) or stream chunks over gRPC; ALL: those with an event-loop form too (sleep, product, db, the
# chunk writers over HTTP but COPY).
# VIRTUAL_RX: a variant of the virtual mode measured as a column of its own where a load lists it
# (db, product): the request's virtual thread awaits the reactive clients (k6 CLIENTS=reactive).
VIRTUAL_RX = "virtual+rx"
MODES = ("worker", "virtual", "reactive", VIRTUAL_RX)
THREADED = ("worker", "virtual")
ALL = ("worker", "virtual", "reactive")
WITH_VARIANT = ALL + (VIRTUAL_RX,)


def k6_mode(mode: str) -> dict:
    """The k6 environment that selects a column: its MODE, and CLIENTS for the virtual variant."""
    return {"MODE": "virtual", "CLIENTS": "reactive"} if mode == VIRTUAL_RX else {"MODE": mode}


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
    modes: tuple = THREADED
    timeout_s: int = 300
    extra: tuple = ()  # custom k6 trends to report: (metric, label, stat)
    warmups: int | None = None  # None: --warmups
    repeats: int | None = None  # None: --repeats
    warmup_env: dict = field(default_factory=dict)  # overrides of env for warm-up runs
    counters: tuple = ()  # custom k6 counters whose count and rate the report keeps
    # A counter of the answers that did the work (200s): where a load is made to be shed, its req/s
    # (and so its efficiency against the bound) is this counter's rate, not every answer's.
    served: str | None = None
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
        # Reactive: a timer per user on the event loop, which holds no thread meanwhile.
        conc = vus if mode != "worker" else min(vus, pools.get("worker.max-threads", vus))
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
    for its own latency). Virtual and reactive: no pool (infinite)."""
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
        modes=kw.pop("modes", ALL),
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
                     sleep_bound(10**6, 100), {"SLEEP_MS": "100"}, 1500, modes=ALL)


def pool_bound(per_request_s: float):
    """db: connections (or the bulkhead, if smaller) / the time each request holds one; the reactive
    mode's own pool has as many by default."""

    def bound(mode: str, pools: dict):
        rx = mode in ("reactive", VIRTUAL_RX)
        size = pools.get("reactive.pool-max-size", 20) if rx else pools.get("datasource.max-size", 20)
        return lr.littles_bound(size, per_request_s)

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


def ingest_setup(section: dict) -> str:
    """Where a chunk stream ran: its variant, else its environment ("local" on this machine's JVM,
    "in-cluster JVM", ...)."""
    environment = section.get("environment", "local JVM")
    return section.get("variant") or ("local" if environment == "local JVM" else environment)


def ingest_summary(sections: list[dict]) -> lr.Table:
    """records/s of every (domain, writes, mode) of the ingest suites beside the COPY anchor."""
    rows = []
    for sec in sections:
        if sec["workload"] not in INGEST_DOMAINS:
            continue
        writes = sec["env"].get("WRITES", "?")
        for mode, r in sec["results"].items():
            agg = lr.aggregate(r["runs"])
            rows.append((sec["workload"], ingest_setup(sec), writes, mode, agg,
                         int(sec["env"].get("CHUNK", 100))))
    t = lr.Table(["domain", "setup", "writes", "chunk", "mode", "records/s", "best chunk", "vs COPY", "vs sequential",
                  "chunk p50 ms", "chunk p99 ms", "parent ms", "skill ms", "text ms", "embedding ms",
                  "CPU ms/1k rec", "errors %", "seed rec/s"])
    rate = lambda r: r[4]["records_per_s"].median
    for key in dict.fromkeys(r[:2] for r in rows):
        ours = [r for r in rows if r[:2] == key]
        copy_rate = next((rate(r) for r in ours if r[2] == "copy"), math.nan)
        seq = {(r[3], r[5]): rate(r) for r in ours if r[2] == "sequential"}
        # The fastest chunk size of each (writes, mode), where more than one was run.
        best = {}
        for r in ours:
            if r[2:4] not in best or rate(r) > rate(best[r[2:4]]):
                best[r[2:4]] = r
        sizes = {r[2:4]: {x[5] for x in ours if x[2:4] == r[2:4]} for r in ours}
        for domain, setup, writes, mode, agg, chunk in ours:
            med = lambda k: agg.get(k, lr.Spread.of([])).median
            seed = SEED_D.get(writes, {}).get("worker", {}).get("records_per_s") if chunk == 100 else None
            is_best = len(sizes[(writes, mode)]) > 1 and best[(writes, mode)][5] == chunk
            t.add(domain, setup, writes, chunk, mode, lr.fmt_spread(agg["records_per_s"], 0), "best" if is_best else "",
                  lr.fmt(lr.ratio(med("records_per_s"), copy_rate), 2, "x"),
                  lr.fmt(lr.ratio(med("records_per_s"), seq.get((mode, chunk), math.nan)), 2, "x"),
                  lr.fmt(med("p50")), lr.fmt(med("p99")),
                  *(lr.fmt(med(metric)) for metric, _, _ in INGEST_TRENDS),
                  lr.fmt(med("cpu_ms_per_1k_records"), 0),
                  lr.fmt(med("error_rate") * 100, 2),
                  lr.fmt(seed) if setup == "local" and domain == "recruits" else "-")
    return t


# The server's milliseconds per table of each chunk, by the table's role (k6/lib/ingest.js).
INGEST_TRENDS = (
    ("lab_table_parent_ms", "parent ms", "med"),
    ("lab_table_skill_ms", "skill ms", "med"),
    ("lab_table_text_ms", "text ms", "med"),
    ("lab_table_embedding_ms", "embedding ms", "med"),
)

SWEEP_CHUNKS = (100, 200, 300, 500, 1000)

# domain -> (its tables, what a record is): seed D's two domains, one k6 stream (lib/ingest.js).
INGEST_DOMAINS = {
    "recruits": ("recruit, recruit_skill, recruit_description and recruit_skill_embedding", "job postings"),
    "candidates": ("candidate, candidate_skill, candidate_description and candidate_skills_embedding", "people"),
}


def ingest_suite(domain: str, records: int, variant: str, server_env: dict, id_base: int,
                 chunks: tuple = (100,), strategies: tuple = ("sequential", "parallel", "copy"),
                 transport: str = "http") -> Suite:
    """Seed D's chunk stream of one domain, over HTTP/JSON (k6/<domain>.js, a POST per chunk) or over
    the seed's own transport, a gRPC stream of protobuf chunks (k6/ingest-grpc.js): the same records,
    one chunk in flight, the same rows in the summary."""
    seed_size = records == 87_488 and domain == "recruits"
    grpc = transport == "grpc"
    loads = []
    for chunk, writes in ((c, w) for w in strategies for c in chunks):
        env = {"RECORDS": str(records), "CHUNK": str(chunk), "WRITES": writes, "ID_BASE": str(id_base)}
        if grpc:
            env["DOMAIN"] = domain
        loads.append(Load(
            f"{records:,} records in chunks of {chunk}, {writes}" + (" (D)" if seed_size else "")
            + (", gRPC stream" if grpc else ""),
            "k6/ingest-grpc.js" if grpc else f"k6/{domain}.js", f"{domain}_grpc" if grpc else domain,
            env,
            seed=SEED_D.get(writes, {}) if seed_size and not variant and not grpc else {},
            # COPY, the anchor, once; the gRPC stream runs on threads only; the reactive chunk writer
            # has no COPY.
            modes=("virtual",) if writes == "copy" else THREADED if grpc else ALL,
            timeout_s=1800, counters=("lab_records",), extra_report=INGEST_TRENDS,
            est_s=records / (700 if variant and not grpc else 3000 if grpc else 3500) + 1,
            warmup_est_s=min(records, 1000) / (700 if variant and not grpc else 3500) + 1,
            warmup_env={"RECORDS": str(min(records, 1000))}))
    tables, what = INGEST_DOMAINS[domain]
    setup = "gRPC stream" if grpc else ""
    return Suite(
        workload=domain,
        variant=", ".join(v for v in (setup, variant) if v),
        description=f"Seed D: {domain} ({what}) streamed in chunks of {'/'.join(map(str, chunks))} and upserted into {tables} "
        "(pgvector 384): sequential (one transaction) vs parallel (parent, then the three children at once on the "
        "request's model" + (")" if grpc else "; reactive: concurrent Unis on the reactive pool)") + (", with COPY as the anchor" if "copy" in strategies else "")
        + ("; over the seed's transport, one gRPC stream of protobuf chunks each acknowledged after its commit "
           "(k6/ingest-grpc.js, the same records as the HTTP/JSON rows)" if grpc else "")
        + (f"; {variant}" if variant else ""),
        server_env=server_env,
        loads=loads,
        summary=ingest_summary,
    )


def db_load(seconds: int, modes: tuple = ALL) -> Load:
    """Seed B: 100 users on a pool of 20, each request holding a connection 200 ms."""
    return Load(f"100 VUs for {seconds} s, 200 ms query", "k6/db.js", "db",
                {"VUS": "100", "DURATION": f"{seconds}s", "DB_MS": "200"}, bound=pool_bound(0.2), timeout_s=120,
                counters=("lab_refused_503",), est_s=seconds + 1, modes=modes)


def db_flood_load(vus: int, seconds: int) -> Load:
    """Far more users than connections, no think time: every mode serves what the pool takes and
    sheds the rest with 503 once its one wait budget is spent (loomlab.execution.max-wait, drawn by
    the wait for a thread and for a connection alike), so no answer takes much longer than the
    budget plus the query; MAX_WAIT_MS fails the run if one takes far longer (before the thread
    wait was bounded, the worker mode queued them: max 10.2 s on 1,000 users; with a bound per
    queue, a worker request could wait twice: max 5.28 s)."""
    return Load(f"flood: {vus:,} VUs for {seconds} s, 200 ms query (req/s: answered 200)", "k6/db.js", "db",
                {"VUS": str(vus), "DURATION": f"{seconds}s", "DB_MS": "200", "MAX_ERRORS": "0.99",
                 "MAX_WAIT_MS": "7000"},
                bound=pool_bound(0.2), timeout_s=120, counters=("lab_refused_503", "lab_served_200"),
                served="lab_served_200", est_s=seconds + 3, modes=ALL)


def db_open_load(fraction: float, seconds: int) -> Load:
    """Arrivals at a fraction of the pool's bound (20 / 0.2 s = 100 req/s), in both modes. Above it
    the bulkhead answers 503 after its bounded wait: errors are the expected overload there."""
    return open_load("db", "k6/db.js", fraction, 100, "the pool bound", seconds, pool_bound(0.2),
                     {"DB_MS": "200", "MAX_ERRORS": "0.01" if fraction < 1 else "0.5"}, 400,
                     counters=("lab_refused_503",), modes=ALL)


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


# quick: the three-way answer on the request-response workloads, in about 15 minutes; rest: the rest
# at the same scale (the chunk writers, the workloads that only threads run, the seeds' pool variants).
QUICK_WORKLOADS = ("sleep", "product", "db")


def suites(profile: str) -> list[Suite]:
    smoke = profile == "smoke"  # seconds, for CI: the whole pipeline, scaled down
    seeds = profile == "seeds"
    a3 = {"VUS": "50", "ITERATIONS": "4", "SLEEP_MS": "100"} if smoke else {"VUS": "500", "ITERATIONS": "10", "SLEEP_MS": "100"}
    a1_count, a1_big = ("100", "2000") if smoke else ("100", "100000")
    a1_ms = "200" if smoke else "1000"
    short = 4  # seconds of an open run
    steady = 4  # seconds of a steady closed run (db, pinning)
    if smoke:
        product_loads = [product_load(7, 10, {}, modes=WITH_VARIANT)]
    elif seeds:
        # The seed's 7 minutes once per mode (repeats would take 42 minutes), and 10x its users.
        product_loads = [product_load(420, 35, SEED_C, repeats=1, modes=WITH_VARIANT),
                         product_load(42, 350, {}, modes=WITH_VARIANT)]
    else:
        product_loads = [product_load(10, 35, SEED_C, modes=WITH_VARIANT), product_load(10, 350, {}, modes=WITH_VARIANT)]
    product_open = [open_load("product", "k6/product.js", f, PRODUCT_WORKER_CAP, "the worker's fan-out bound",
                              short, product_cap, {}, 1000, duration_var="OPEN_DURATION", modes=ALL)
                    for f in (0.8, 1.2)]
    records = 500 if smoke else 87_488 if seeds else 3_000
    suites_ = [
        Suite(
            workload="sleep",
            description="Seed A3: 500 users started at once, 10 requests each, no think time, "
            "100 ms sleep; worker pool of 50 platform threads (the seed's Tomcat) vs virtual threads vs an "
            "event-loop timer (reactive); then an open model (constant arrival rate) below and above the "
            "worker pool's bound",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": "50"},
            loads=[
                Load(f"closed {a3['VUS']} VUs x {a3['ITERATIONS']}" + ("" if smoke else " (A3)"), "k6/sleep.js", "sleep", a3,
                     bound=sleep_bound(int(a3["VUS"]), 100), seed={} if smoke else SEED_A3, timeout_s=180,
                     dashboard=False, modes=ALL,
                     # 50 threads x 10 req/s each; virtual and reactive ~4,000 req/s with k6 on the
                     # same cores.
                     est_s={"worker": int(a3["VUS"]) * int(a3["ITERATIONS"]) / 500 + 1,
                            "virtual": int(a3["VUS"]) * int(a3["ITERATIONS"]) / 4000 + 1,
                            "reactive": int(a3["VUS"]) * int(a3["ITERATIONS"]) / 4000 + 1}),
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
            "200 with a fan-out pool of 200 platform threads vs virtual threads vs the event loop (Mutiny, the "
            "reactive PostgreSQL client, the Vert.x web client, timers) vs virtual threads awaiting that same "
            "Mutiny combination (virtual+rx); then an open model below and above the worker mode's fan-out bound",
            server_env={},
            warmup_seconds=8,
            loads=product_loads + product_open,
        ),
        ingest_suite("recruits", records, "", {}, 1),
        # The seed's next step: its second domain through the same engine and stream.
        ingest_suite("candidates", records if not seeds else 10_000, "", {}, 1),
        # Seed D's own transport: the same recruits as one gRPC stream of protobuf chunks.
        ingest_suite("recruits", records if not seeds else 10_000, "", {}, 1,
                     strategies=("sequential", "parallel"), transport="grpc"),
        Suite(
            workload="db",
            description="Seed B: each request holds one pooled connection for 200 ms (pg_sleep); 100 users "
            "on a pool of 20, behind a fair bulkhead of 20 permits, waited for at most 2 s (reactive: a "
            "reactive pool of 20 behind the same bulkhead without a blocked thread; virtual+rx: virtual "
            "threads awaiting that reactive pool); then an open model below and above the pool's bound; "
            "then a flood of users that every mode must shed with 503 within its one wait budget",
            server_env={},
            warmup_seconds=6,
            loads=[db_load(steady, WITH_VARIANT), db_open_load(0.8, short), db_open_load(1.2, short),
                   db_flood_load(300 if smoke else 1000, steady if smoke else 6)],
        ),
        Suite(
            workload="pinning",
            description="Seed E: 50 users blocking 50 ms while holding a lock: synchronized (does not pin "
            "since JDK 24), ReentrantLock (never pins), an FFM upcall from native code (always pins); then "
            "native pins in an open model below and above the pinned virtual bound; the wait for a thread "
            "unbounded, as in the seed (with native pins, virtual threads wait over 2 s for a free carrier, "
            "and loomlab.execution.max-wait would shed them with 503 instead of showing what a pin costs)",
            server_env={"LOOMLAB_EXECUTION_THREAD_WAIT_BOUNDED": "false"},
            warmup_seconds=6,
            loads=[Load(f"50 VUs for {steady} s, {lock}", "k6/pinning.js", "pinning",
                        {"LOCK": lock, "VUS": "50", "DURATION": f"{steady}s", "PIN_MS": "50"},
                        bound=pinning_bound(50, 50, lock), timeout_s=120, est_s=steady + 1)
                   for lock in ("synchronized", "reentrant", "native")]
            + [pinning_open_load(f, short) for f in (0.8, 1.2)],
        ),
    ]
    if profile == "sweep":
        # Seed D's next step, chunks of 200-300 and beyond: every size for both domains, both modes,
        # sequential and parallel, here and behind a simulated 20 ms round trip per statement.
        rtt = {"LOOMLAB_INGEST_SIMULATED_ROUND_TRIP": "20ms"}
        return [ingest_suite(domain, 3_000, variant, env, 1, SWEEP_CHUNKS, ("sequential", "parallel"), transport)
                for variant, env in (("", {}), ("simulated round trip 20 ms per statement", rtt))
                for transport in ("http", "grpc")
                for domain in INGEST_DOMAINS]
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
            ingest_suite("recruits", records if not seeds else 10_000, "simulated round trip 20 ms per statement",
                         {"LOOMLAB_INGEST_SIMULATED_ROUND_TRIP": "20ms"}, 1),
            Suite(
                workload="db",
                variant="no bulkhead",
                description="Seed B without the bulkhead: every request queues on Agroal's pool itself",
                server_env={"LOOMLAB_DB_BULKHEAD_ENABLED": "false"},
                warmup_seconds=6,
                loads=[db_load(steady, THREADED)],
            ),
        ]
    if profile == "quick":
        return [s_ for s_ in suites_ if s_.workload in QUICK_WORKLOADS and not s_.variant]
    if profile == "rest":
        return [s_ for s_ in suites_ if s_.workload not in QUICK_WORKLOADS or s_.variant]
    return suites_
