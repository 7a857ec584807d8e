"""Seed E: pinning, 50 users blocking 50 ms while holding a lock of three kinds."""

from __future__ import annotations

from ..planning.arrivals import Request
from ..planning.bounds import littles_bound
from ..planning.lane import VIRTUAL, VIRTUAL_LOOP, Lane
from ..planning.loads import Load, Scale, Suite, open_load

# What binds each mode (answer.py), and what else every mode shares.
BOUND_NAMES = {
    "worker": "worker threads",
    "virtual": "carriers, when a pin holds one",
    "virtual-loop": "event loops, when a pin holds one",
}
USES = "CPU, shared with k6"


def pinning_bound(vus: int, ms: int, lock: str):
    """Each user holds its thread ms per request; a pinned virtual thread holds a carrier too, so
    pins cap the virtual mode at carriers / ms, and the virtual-loop mode at event loops / ms (its
    carrier is the event loop that read the request)."""

    def bound(lane: Lane, pools: dict):
        virtual = lane.mode in (VIRTUAL, VIRTUAL_LOOP)
        conc = vus if virtual else min(vus, pools.get("worker.max-threads", vus))
        pins = lock == "native" or (lock == "synchronized" and pools.get("jdk.feature", 25) < 24)
        if virtual and pins:
            conc = min(conc, pools.get("virtual.carriers" if lane.mode == VIRTUAL else "reactive.event-loops", 1))
        return littles_bound(conc, ms / 1000.0)

    return bound


def pinning_request(env: dict) -> Request:
    """GET /api/{MODE}/pinning, as k6/pinning.js sends it: the answer names the lock it held."""
    lock = env["LOCK"]
    return Request((f"/api/{env['MODE']}/pinning?lock={lock}&ms={env['PIN_MS']}",), expect=(f'"lock":"{lock}"',))


def pinning_open_load(fraction: float, seconds: int) -> Load:
    """Native-frame pins at a fraction of the pinned virtual bound (2 carriers / 50 ms = 40 req/s
    on 2 cores): the worker mode's 200 threads take it whatever the fraction."""
    return open_load(
        "pinning",
        "k6/pinning.js",
        fraction,
        40,
        "the pinned virtual bound",
        seconds,
        pinning_bound(10**6, 50, "native"),
        {"LOCK": "native", "PIN_MS": "50"},
        200,
        request=pinning_request,
    )


def suites(scale: Scale) -> list[Suite]:
    steady = scale.steady_s
    return [
        Suite(
            workload="pinning",
            description="Seed E: 50 users blocking 50 ms while holding a lock: synchronized (does not pin "
            "since JDK 24), ReentrantLock (never pins), an FFM upcall from native code (always pins); then "
            "native pins in an open model below and above the pinned virtual bound; the wait for a thread "
            "unbounded, as in the seed (with native pins, virtual threads wait over 2 s for a free carrier, "
            "and loomlab.execution.max-wait would shed them with 503 instead of showing what a pin costs)",
            server_env={"LOOMLAB_EXECUTION_THREAD_WAIT_BOUNDED": "false"},
            warmup_seconds=6,
            loads=[
                Load(
                    f"50 VUs for {steady} s, {lock}",
                    "k6/pinning.js",
                    "pinning",
                    {"LOCK": lock, "VUS": "50", "DURATION": f"{steady}s", "PIN_MS": "50"},
                    bound=pinning_bound(50, 50, lock),
                    timeout_s=120,
                    est_s=steady + 1,
                    request=pinning_request,
                )
                for lock in ("synchronized", "reentrant", "native")
            ]
            + [pinning_open_load(f, scale.short_s) for f in (0.8, 1.2)],
        )
    ]
