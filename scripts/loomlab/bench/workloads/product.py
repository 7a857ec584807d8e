"""Seed C: a product lookup over four slow dependencies called in parallel."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

from ..planning.arrivals import Request
from ..planning.bounds import expected_max, max_quantile, stages_bound
from ..planning.lane import WORKER, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, open_load

# Seed C: 6 stages to 35 VUs over 7 min; platform pool (core 50, max 200, queue 500) vs virtual.
SEED_C = {
    "worker": {"throughput": 17.38, "mean": 966.61, "p50": 990.32, "p95": 1530, "max": 2270, "error_rate": 0.0},
    "virtual": {"throughput": 33.45, "mean": 405.66, "p50": 394.2, "p95": 549.59, "max": 1450, "error_rate": 0.0},
}
# Seed C's shape: durations in sevenths of the total, targets scaled from a peak of 35.
SEED_C_SHAPE = [(1, 5), (1, 10), (1, 20), (1, 35), (2, 35), (1, 0)]
# The worker mode's fan-out bound with the default pools: 200 threads / 0.775 s of sub-task time.
PRODUCT_WORKER_CAP = 200 / 0.775
MODES = modes_of("product")
WITH_RX = modes_of("product", with_rx=True)
# What binds each mode in a closed load (answer.py), and what else every mode shares.
BOUND_NAMES = {
    "worker": "the fan-out pool and worker threads",
    "virtual": "users / E[max]",
    "virtual-loop": "users / E[max]",
    "reactive": "users / E[max]",
    "virtual+rx": "users / E[max]",
}
USES = "CPU and the database, shared with k6"


# The ids loadgen's arrivals take in turn, drawn once from 1..PRODUCTS with SEED (k6/product.js draws
# per user from the same range).
IDS = 1000


def product_request(env: dict) -> Request:
    """GET /api/{MODE}/products/{id}, as k6/product.js sends it, with the seed's thresholds (errors
    under 10 %, p95 under 5 s, p90 under 3 s); the answer names its mode (and the reactive clients)."""
    mode = env["MODE"]
    rx = env.get("CLIENTS") == "reactive"
    draw = random.Random(int(env.get("SEED", "42")))
    products = int(env.get("PRODUCTS", "10000"))
    ids = [draw.randint(1, products) for _ in range(IDS)]
    return Request(
        tuple(f"/api/{mode}/products/{i}" + ("?clients=reactive" if rx else "") for i in ids),
        expect=(f'"mode":"{mode}"', '"product":{"id":', *(('"clients":"reactive"',) if rx else ())),
        limits=(("p95", 5000.0), ("p90", 3000.0)),
        max_errors=0.10,
    )


def product_ranges(pools: dict) -> list[tuple[float, float]]:
    return [tuple(r) for r in pools.get("product.latency-ms", {}).values()]


def product_expect(pools: dict) -> dict:
    ranges = product_ranges(pools)
    return {"mean": expected_max(ranges), "p95": max_quantile(ranges, 0.95)} if ranges else {}


def product_cap(lane: Lane, pools: dict) -> float:
    """The most lookups per second a mode's pools allow. Worker: request threads / E[max], and
    fan-out threads / the summed mean latency of the four sub-tasks (each holds a fan-out thread
    for its own latency), the default pools' before /api/info has said them. Virtual and reactive:
    no pool (infinite)."""
    if lane.mode != WORKER:
        return math.inf
    ranges = product_ranges(pools)
    if not ranges:
        return PRODUCT_WORKER_CAP if not pools else math.nan
    e_max = expected_max(ranges) / 1000.0
    occupancy = sum((a + b) / 2 for a, b in ranges) / 1000.0
    return min(
        pools.get("worker.max-threads", math.inf) / e_max, pools.get("fan-out.worker-threads", math.inf) / occupancy
    )


def product_bound(stages: Sequence[tuple[float, float]]):
    """Each user completes one lookup per E[max], up to the mode's pool cap."""

    def bound(lane: Lane, pools: dict):
        ranges = product_ranges(pools)
        if not ranges:
            return math.nan
        return stages_bound(stages, 1000.0 / expected_max(ranges), product_cap(lane, pools))

    return bound


def seed_c_stages(total_s: int, peak: int) -> list[tuple[int, int]]:
    return [(max(1, round(total_s * n / 7)), round(t * peak / 35)) for n, t in SEED_C_SHAPE]


def product_load(total_s: int, peak: int, seed: dict, **kw) -> Load:
    stages = seed_c_stages(total_s, peak)
    warm = seed_c_stages(min(30, max(7, total_s * 2 // 3)), peak)  # JIT warm-up, not a second seed run

    def stages_env(st):
        return ",".join(f"{d}s:{t}" for d, t in st)

    return Load(
        f"ramp to {peak} VUs in {total_s} s" + (" (C)" if seed else ""),
        "k6/product.js",
        "product",
        {"STAGES": stages_env(stages), "PEAK_VUS": str(peak)},
        bound=product_bound(stages),
        expect=product_expect,
        lanes=WITH_RX,
        seed=seed,
        timeout_s=total_s + 120,
        est_s=sum(d for d, _ in stages) + 1,
        warmup_est_s=sum(d for d, _ in warm) + 1,
        warmup_env={"STAGES": stages_env(warm)},
        request=product_request,
        **kw,
    )


def suites(scale: Scale) -> list[Suite]:
    """Long because it declares the product suites' loads with their k6 settings, bounds and seeds."""
    if scale.smoke:
        ramps = [product_load(7, 10, {})]
    elif scale.seeds:
        # The seed's 7 minutes once per mode (repeats would take 42 minutes), and 10x its users.
        ramps = [product_load(420, 35, SEED_C, repeats=1), product_load(42, 350, {})]
    else:
        ramps = [product_load(10, 35, SEED_C), product_load(10, 350, {})]
    # Smoke (CI) holds its below-bound run at 0.4x: with one 7 s warm-up, a cold JIT spent 10.6 CPU
    # ms a lookup in a 2-CPU pod sharing the node with k6 and PostgreSQL, and 0.8x (206 req/s) then
    # asks for more CPU than the pod has (a clean-clone in-cluster smoke dropped arrivals there).
    below = 0.4 if scale.smoke else 0.8
    opens = [
        open_load(
            "product",
            "k6/product.js",
            f,
            PRODUCT_WORKER_CAP,
            "the worker's fan-out bound",
            scale.short_s,
            product_cap,
            {},
            1000,
            duration_var="OPEN_DURATION",
            lanes=MODES,
            request=product_request,
        )
        for f in (below, 1.2)
    ]
    main = Suite(
        workload="product",
        description="Seed C: a product lookup waiting for four slow dependencies called in parallel "
        "(catalog U(100,300) ms with a real SELECT, stock U(150,400) ms over real HTTP, recommendations "
        "U(50,200), prices U(100,250)); closed model ramped through the seed's 6 stages; worker pool "
        "200 with a fan-out pool of 200 platform threads vs virtual threads vs the event loop (Mutiny, the "
        "reactive PostgreSQL client, the Vert.x web client, timers) vs virtual threads awaiting that same "
        "Mutiny combination (virtual+rx); then an open model below and above the worker mode's fan-out bound",
        server_env={},
        warmup_seconds=8,
        loads=ramps + opens,
    )
    # The seed's own constraint, to show where the pool bound bites.
    fan_out_50 = Suite(
        workload="product",
        variant="fan-out pool of 50",
        core=False,
        description="Seed C's platform pool really ran 50 threads (core 50, queue 500: a "
        "ThreadPoolExecutor grows past its core only when the queue is full); the worker mode with a "
        "fan-out pool of 50, whose bound is 50 threads / 0.775 s of sub-task time = 64.5 req/s",
        server_env={"LOOMLAB_EXECUTION_FAN_OUT_WORKER_THREADS": "50"},
        warmup_seconds=8,
        loads=[dataclasses.replace(ramps[0], lanes=(Lane(WORKER),))],
    )
    return [main, fan_out_50]
