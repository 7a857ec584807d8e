"""Where virtual threads stop winning: C ms of CPU then W ms of waiting per request, swept over C
under the A3 closed load (worker pool of 50), and a tail-latency mix of long CPU requests among short
waiting ones. No seed measured this side; the predictions are Little's law's."""

from __future__ import annotations

from loomlab import LabError

from ..planning.arrivals import Request
from ..planning.bounds import littles_bound
from ..planning.lane import THREADED, WORKER, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, open_env

WORKER_THREADS = 50
WAIT_MS = 100
SWEEP_CPU_MS = (0, 1, 2, 5, 10, 20)
# The reactive mode twice: the work on the event loop (a naive port) and moved off it (OFFLOAD).
MODES = modes_of("mixed", with_offload=True)
# What binds each mode in a closed load (answer.py), and what else every mode shares.
BOUND_NAMES = {
    "worker": "worker threads, or the cores",
    "virtual": "the cores (users / request time below C*)",
    "virtual-loop": "the cores, on the event loops that carry it",
    "reactive": "the cores, on the event loops",
    "reactive+offload": "the cores",
}
USES = "CPU, shared with k6"
# The p99 of the short requests alone (k6/mixed.js), what the tail-latency mix is read by.
SHORT_P99 = "loomlab_short_duration"
# Requests per user at each C: about 4 s per run where the cores bind (100 req/s at C = 20 ms).
ITERATIONS = {0: 4, 1: 4, 2: 4, 5: 2, 10: 1, 20: 1}
# A request's query: C ms of CPU, then W ms of waiting.
SHORT_PATH = "cpu-ms={cpu}&wait-ms={wait}"


def mixed_request(env: dict) -> Request:
    """GET /api/{MODE}/mixed, as k6/mixed.js sends it: C ms of CPU then W ms of waiting, or with
    LONG_SHARE a share of long CPU requests among them (their arrivals spread evenly through the
    targets, taken in turn, where k6 draws each at random with the same share), the short ones'
    latency kept apart; every answer names its mode."""
    mode, cpu, wait = env["MODE"], env.get("CPU_MS", "5"), env.get("WAIT_MS", "100")
    offload = "&offload=true" if env.get("OFFLOAD") == "true" else ""
    short = "?" + SHORT_PATH.format(cpu=cpu, wait=wait)
    paths = [f"/api/{mode}/mixed{short}{offload}"]
    share = float(env.get("LONG_SHARE", "0"))
    if share > 0:
        every = round(1 / share)
        if abs(every * share - 1) > 1e-9:
            raise LabError(f"LONG_SHARE {share}: loadgen spreads one long request in every N; 1/{share} is no whole N")
        long_path = f"/api/{mode}/mixed?{SHORT_PATH.format(cpu=env.get('LONG_CPU_MS', '50'), wait=0)}{offload}"
        paths = paths * (every - 1) + [long_path]
    return Request(
        tuple(paths),
        expect=(f'"mode":"{mode}"',),
        latency_of=((SHORT_P99, short),) if share > 0 else (),
    )


def cores(pools: dict) -> float:
    """The cores the service's JVM sees (availableProcessors), times its replicas."""
    return float(pools.get("cpus", 1))


def mixed_bound(users: int, cpu_ms: float, wait_ms: float):
    """Little's law, twice: the requests in flight over the request's time (threads for the worker
    mode, users otherwise; an offloaded request holds a worker thread only for its CPU), and the
    cores over the CPU per request. The lower binds."""

    def bound(lane: Lane, pools: dict):
        threads = min(users, pools.get("worker.max-threads", users))
        in_flight = threads if lane.mode == WORKER else users
        by_wait = littles_bound(in_flight, (cpu_ms + wait_ms) / 1000.0)
        return min(by_wait, littles_bound(cores(pools), cpu_ms / 1000.0))

    return bound


def crossover_ms(threads: int, cores_: float, wait_ms: float) -> float:
    """The C at which the worker pool's two bounds meet, T / (W + C) = N / C: C* = N W / (T - N).
    Below it threads bind the worker mode and virtual threads win; above it the cores bind both."""
    return cores_ * wait_ms / (threads - cores_) if threads > cores_ else float("inf")


def sweep_load(cpu_ms: int, users: int, iterations: int) -> Load:
    requests = users * iterations
    return Load(
        f"C={cpu_ms} ms, W={WAIT_MS} ms, closed {users} VUs x {iterations}",
        "k6/mixed.js",
        "mixed",
        {"CPU_MS": str(cpu_ms), "WAIT_MS": str(WAIT_MS), "VUS": str(users), "ITERATIONS": str(iterations)},
        bound=mixed_bound(users, cpu_ms, WAIT_MS),
        lanes=MODES,
        timeout_s=240,
        dashboard=False,
        # The worker pool at its thread bound, the others near the cores' (k6 shares them).
        est_s={
            m.key: requests / min(480.0 if m.mode == WORKER else 2500.0, 1500.0 / max(cpu_ms, 0.5)) + 2 for m in MODES
        },
        request=mixed_request,
    )


def tail_load(seconds: int, rate: int, lanes: tuple[Lane, ...] = MODES) -> Load:
    """5 % of requests are 50 ms of CPU alone, the rest wait 100 ms with no CPU: the p99 of the
    short ones shows what the long ones do to them (virtual threads are not time-sliced)."""
    long_share, long_ms = 0.05, 50
    cpu_per_req = long_share * long_ms
    return Load(
        f"open {rate} req/s, 5 % long ({long_ms} ms CPU), the rest {WAIT_MS} ms waits",
        "k6/mixed.js",
        "mixed",
        {
            **open_env(rate, seconds, 1000),
            "CPU_MS": "0",
            "WAIT_MS": str(WAIT_MS),
            "LONG_SHARE": str(long_share),
            "LONG_CPU_MS": str(long_ms),
        },
        bound=mixed_bound(10**6, cpu_per_req, (1 - long_share) * WAIT_MS),
        lanes=lanes,
        rate=rate,
        open_s=seconds,
        timeout_s=seconds + 120,
        est_s=seconds + 2,
        extra_report=((SHORT_P99, "short p99 (ms)", "p(99)"),),
        request=mixed_request,
    )


def suites(scale: Scale) -> list[Suite]:
    users = 50 if scale.smoke else 500
    sweep = (5,) if scale.smoke else SWEEP_CPU_MS
    tail_s = 4 if scale.smoke else 8
    # Smoke (CI) offers the mix at 200 req/s: with one warm-up run, the naive reactive form at 300
    # dropped 6 of 1,200 arrivals once (its loops held by the long requests of a cold JIT).
    tail_rate = 200 if scale.smoke else 300
    server_env = {"QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS)}
    # The closed burst queues, as in A3: at C = 20 ms, 500 users hold 10 s of CPU, and a 2 s wait
    # budget refused about half of them in every mode (measured), so req/s counted refusals.
    sweep_env = {**server_env, "LOOMLAB_EXECUTION_THREAD_WAIT_BOUNDED": "false"}
    description = (
        "CPU in the request: C ms of SHA-256 rounds (calibrated at start-up) then a 100 ms wait, swept "
        "over C under the A3 closed load, worker pool of 50 platform threads; reactive twice, the work on "
        "the event loop (naive) and offloaded to the worker pool (executeBlocking); Little's law predicts "
        f"the worker pool catches up at C* = N W / (T - N) ({crossover_ms(WORKER_THREADS, 2, WAIT_MS):.1f} ms "
        "on 2 cores); the wait for a thread or carrier unbounded, as in A3 (past C* the burst of 500 users "
        "holds seconds of CPU, and the 2 s budget would shed it in every mode)"
    )
    main = Suite(
        workload="mixed",
        description=description,
        server_env=sweep_env,
        summary="mixed",
        loads=[sweep_load(c, users, 1 if scale.smoke else ITERATIONS[c]) for c in sweep],
    )
    tail = Suite(
        workload="mixed",
        variant="tail",
        description="Long CPU requests among short waiting ones, open model: the short requests' p99 per "
        "mode, carriers at the JDK's default (one per core)",
        server_env=server_env,
        summary="tail",
        loads=[tail_load(tail_s, tail_rate)],
    )
    carriers = Suite(
        workload="mixed",
        variant="tail, 8 carriers",
        description="The same mix with jdk.virtualThreadScheduler.parallelism=8 (four carriers per core): "
        "the OS time-slices the carriers, so a long CPU request no longer holds one of only two",
        server_env={**server_env, "JAVA_TOOL_OPTIONS": "-Djdk.virtualThreadScheduler.parallelism=8"},
        core=False,
        summary="tail",
        loads=[tail_load(tail_s, tail_rate, lanes=THREADED)],
    )
    return [main, tail] if scale.smoke else [main, tail, carriers]
