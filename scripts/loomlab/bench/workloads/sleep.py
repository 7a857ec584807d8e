"""Seed A3: a sleeping endpoint, 500 users at once, 100 ms, a worker pool of 50."""

from __future__ import annotations

from ..planning.arrivals import Request
from ..planning.bounds import littles_bound
from ..planning.lane import WORKER, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, open_load

# Seed A3 (SCENARIOS.md): 500 users x 10 requests, 100 ms, Tomcat 50 threads vs virtual.
SEED_A3 = {
    "worker": {"throughput": 479.1, "mean": 977, "min": 100, "max": 1141, "sd": 196.97, "error_rate": 0.0},
    "virtual": {"throughput": 3921.6, "mean": 105, "min": 100, "max": 177, "sd": 9.84, "error_rate": 0.0},
}
WORKER_THREADS = 50
# The answer a start-up waits for (./lab startup locally, every start in the cluster): the sleep
# endpoint asked for no sleep, in the virtual mode.
FIRST_ANSWER = "/api/virtual/sleep?ms=0"
MODES = modes_of("sleep")
# What binds each mode in a closed load (answer.py), and what else every mode shares.
BOUND_NAMES = {
    "worker": "worker threads",
    "virtual": "users / sleep",
    "virtual-loop": "users / sleep",
    "reactive": "users / sleep",
}
USES = "CPU, shared with k6"


def sleep_request(env: dict) -> Request:
    """GET /api/{MODE}/sleep, as k6/sleep.js sends it: the answer names its mode and takes the sleep."""
    mode, ms = env["MODE"], env["SLEEP_MS"]
    return Request((f"/api/{mode}/sleep?ms={ms}",), expect=(f'"mode":"{mode}"',), floor_ms=float(ms))


def sleep_bound(vus: int, sleep_ms: int):
    """Users (virtual) or worker threads (worker: the suite's, where /api/info has not said them
    yet), each busy sleep_ms per request."""

    def bound(lane: Lane, pools: dict):
        # Reactive: a timer per user on the event loop, which holds no thread meanwhile.
        conc = vus if lane.mode != WORKER else min(vus, pools.get("worker.max-threads", WORKER_THREADS))
        return littles_bound(conc, sleep_ms / 1000.0)

    return bound


def open_sleep_load(fraction: float, worker_bound: float, seconds: int, sleep_ms: int = 100) -> Load:
    """Arrivals at `fraction` of the worker bound, each request sleeping `sleep_ms` (the bound must
    be the one at that sleep: threads / sleep)."""
    return open_load(
        "sleep",
        "k6/sleep.js",
        fraction,
        worker_bound,
        "the worker bound",
        seconds,
        sleep_bound(10**6, sleep_ms),
        {"SLEEP_MS": str(sleep_ms)},
        1500,
        lanes=MODES,
        request=sleep_request,
    )


def suites(scale: Scale) -> list[Suite]:
    users, iterations = (50, 4) if scale.smoke else (500, 10)
    worker_bound = littles_bound(WORKER_THREADS, 0.1)
    return [
        Suite(
            workload="sleep",
            description="Seed A3: 500 users started at once, 10 requests each, no think time, "
            "100 ms sleep; worker pool of 50 platform threads (the seed's Tomcat) vs virtual threads vs an "
            "event-loop timer (reactive); then an open model (constant arrival rate) below and above the "
            "worker pool's bound",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS)},
            loads=[
                Load(
                    f"closed {users} VUs x {iterations}" + ("" if scale.smoke else " (A3)"),
                    "k6/sleep.js",
                    "sleep",
                    {"VUS": str(users), "ITERATIONS": str(iterations), "SLEEP_MS": "100"},
                    bound=sleep_bound(users, 100),
                    seed={} if scale.smoke else SEED_A3,
                    timeout_s=180,
                    dashboard=False,
                    lanes=MODES,
                    request=sleep_request,
                    # 50 threads x 10 req/s each; virtual and reactive ~4,000 req/s with k6 on the
                    # same cores.
                    est_s={m.key: users * iterations / (500 if m.mode == WORKER else 4000) + 1 for m in MODES},
                ),
                open_sleep_load(0.8, worker_bound, scale.short_s),
                open_sleep_load(1.2, worker_bound, scale.short_s),
            ],
        )
    ]
