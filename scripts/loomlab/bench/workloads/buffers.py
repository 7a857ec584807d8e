"""A per-thread cache against a shared pool: each request encodes into a 64 KiB scratch buffer from
a ThreadLocal (as libraries cache per thread) or from a pool shared by all threads, then waits 100 ms.
A pool's threads reuse their thread-local buffer; a virtual thread is new for every request, so its
thread-local cache allocates every time. Measured per mode: bytes allocated per request, GC, RSS."""

from __future__ import annotations

from ..planning.arrivals import Request
from ..planning.bounds import littles_bound
from ..planning.lane import WORKER, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, open_env

MODES = modes_of("buffers")
WAIT_MS = 100
# What binds each mode in an open load (answer.py), and what else every mode shares.
BOUND_NAMES = {
    "worker": "worker threads",
    "virtual": "users / wait",
    "virtual-loop": "users / wait",
    "reactive": "users / wait",
}
USES = "CPU and the heap's allocation rate, shared with k6"
CACHES = ("thread", "pool")


def buffers_bound(lane: Lane, pools: dict) -> float:
    """Open load: threads (worker) or the arrivals' own concurrency, each held WAIT_MS."""
    conc = pools.get("worker.max-threads", 200) if lane.mode == WORKER else 10**6
    return littles_bound(conc, WAIT_MS / 1000.0)


# The seeds loadgen's arrivals take in turn (k6/buffers.js passes each user's iteration number).
SEEDS = 64


def buffers_request(env: dict) -> Request:
    """GET /api/{MODE}/buffers, as k6/buffers.js sends it: the answer names the cache it used."""
    mode, cache = env["MODE"], env["CACHE"]
    paths = tuple(f"/api/{mode}/buffers?cache={cache}&seed={i}&wait-ms={env['WAIT_MS']}" for i in range(SEEDS))
    return Request(paths, expect=(f'"cache":"{cache}"',))


def buffers_load(cache: str, rate: int, seconds: int) -> Load:
    return Load(
        f"open {rate} req/s, cache={cache}",
        "k6/buffers.js",
        "buffers",
        {"CACHE": cache, "WAIT_MS": str(WAIT_MS), **open_env(rate, seconds, 1000)},
        bound=buffers_bound,
        lanes=MODES,
        rate=rate,
        open_s=seconds,
        timeout_s=seconds + 120,
        est_s=seconds + 2,
        request=buffers_request,
    )


def suites(scale: Scale) -> list[Suite]:
    seconds = 4 if scale.smoke else 8
    rate = 200 if scale.smoke else 800
    return [
        Suite(
            workload="buffers",
            description="A per-thread cache (ThreadLocal, 64 KiB, as Jackson's buffer recycler kept) against a "
            "shared pool of the same buffers, each request encoding into one then waiting 100 ms; open model "
            f"at {rate} req/s, the worker pool at Quarkus' 200 threads so that no pool binds",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": "200"},
            summary="buffers",
            loads=[buffers_load(cache, rate, seconds) for cache in CACHES],
        )
    ]
