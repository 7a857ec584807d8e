"""The knobs users turn once they have the answer, each alone against its mode's default in the same
rounds (a column "<mode>[<setting>]" beside the mode's own): the worker pool's size, the carriers
of virtual threads, the event loops, the GC and jdk.trackAllThreads. On the quick answer's A3, the
open sleep below, at and above the worker pool's bound and at 1,500 req/s (where the server's CPU
per request is compared with the reference server's), and product at 350 users. The knobs table
of each section says which setting changes which figure (bench/reporting/knobs.py)."""

from __future__ import annotations

import dataclasses
import os

from ..planning.lane import REACTIVE, VIRTUAL, VIRTUAL_LOOP, WORKER, Knob, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, planned_as_modes
from . import product, sleep

MODES = modes_of("sleep")
# The machine's cores: virtual threads' carriers are `cores` and Quarkus' event loops one per core,
# at least two (LOOPS; /api/info's reactive.event-loops), so the knobs go one step each way.
CORES = os.cpu_count() or 2
LOOPS = max(2, CORES)
GCS = {"serial": "-XX:+UseSerialGC", "parallel": "-XX:+UseParallelGC"}  # G1 is the default's
# The open sleep's rates as fractions of the worker pool's bound (50 threads / 100 ms = 500 req/s).
OPEN_FRACTIONS = (0.8, 1.0, 1.2, 3.0)


def worker_pool(threads: int) -> Knob:
    return Knob(env={"QUARKUS_THREAD_POOL_MAX_THREADS": str(threads)}, pools={"worker.max-threads": threads})


def carriers(n: int) -> Knob:
    return Knob(jvm_flags=(f"-Djdk.virtualThreadScheduler.parallelism={n}",), pools={"virtual.carriers": n})


def event_loops(n: int) -> Knob:
    return Knob(env={"QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE": str(n)}, pools={"reactive.event-loops": n})


def knobs(pools: bool) -> tuple[Lane, ...]:
    """Every knob column; `pools`: with the worker pool's sizes (the sleep suite's pool of 50 against
    Quarkus' default 200 and A3's 500 users, the size at which its bound is the users')."""
    worker, virtual, reactive = Lane(WORKER), Lane(VIRTUAL), Lane(REACTIVE)
    # The virtual-loop mode's carriers are the event loops: its one scheduler knob is their number.
    loop = Lane(VIRTUAL_LOOP)
    sized = tuple(worker.with_setting(f"threads={n}", worker_pool(n)) for n in (200, 500)) if pools else ()
    return (
        *sized,
        *(virtual.with_setting(f"carriers={n}", carriers(n)) for n in (1, 2 * CORES) if n != CORES),
        virtual.with_setting("trackAllThreads=false", Knob(jvm_flags=("-Djdk.trackAllThreads=false",))),
        *(m.with_setting(f"loops={n}", event_loops(n)) for m in (loop, reactive) for n in (1, 2 * LOOPS)),
        *(m.with_setting(f"gc={gc}", Knob(jvm_flags=(flag,))) for m in MODES for gc, flag in GCS.items()),
    )


def with_knobs(load: Load, columns: tuple[Lane, ...]) -> Load:
    """`load` in the three modes and every knob column, each planned as long as its mode."""
    return dataclasses.replace(
        load,
        lanes=(*MODES, *columns),
        seed={},
        est_s=planned_as_modes(load.est_s, columns),
        warmup_est_s=planned_as_modes(load.warmup_est_s, columns),
    )


def suites(scale: Scale) -> list[Suite]:
    a3_suite = sleep.suites(scale)[0]
    worker_bound = 50 / 0.1
    sleep_loads = [a3_suite.loads[0]] + [sleep.open_sleep_load(f, worker_bound, scale.short_s) for f in OPEN_FRACTIONS]
    product_suite = product.suites(scale)[0]
    ramp = next((ld for ld in product_suite.loads if "350" in ld.name), product_suite.loads[0])
    return [
        Suite(
            workload="sleep",
            variant="knobs",
            description="each knob alone against its mode's default, A3's configuration (a worker pool of 50)",
            server_env=a3_suite.server_env,
            core=False,
            loads=[with_knobs(ld, knobs(pools=True)) for ld in sleep_loads],
        ),
        Suite(
            workload="product",
            variant="knobs",
            description="each knob alone against its mode's default, product's configuration",
            server_env=product_suite.server_env,
            core=False,
            warmup_seconds=product_suite.warmup_seconds,
            loads=[with_knobs(ramp, knobs(pools=False))],
        ),
    ]
