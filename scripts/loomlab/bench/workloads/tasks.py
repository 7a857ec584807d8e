"""Seed A1: many blocked tasks, 100 on 10 platform threads vs one virtual thread each, and
100,000 virtual threads."""

from __future__ import annotations

from ..planning.arrivals import Request
from ..planning.lane import VIRTUAL, Lane
from ..planning.loads import Load, Scale, Suite, modes_of

# Seed A1: 100 tasks x 1 s; 10 platform threads ~10,000 ms, virtual ~1,000 ms; 100,000 virtual ~1,500 ms.
SEED_A1 = {"worker": {"elapsed": 10_000}, "virtual": {"elapsed": 1_000}}
SEED_A1_100K = {"virtual": {"elapsed": 1_500}}
# What else every mode shares (answer.py); tasks has no throughput bound.
BOUND_NAMES: dict = {}
USES = "CPU and memory"

TASK_TRENDS = (
    ("loomlab_tasks_elapsed_ms", "elapsed ms", "med"),
    ("loomlab_tasks_peak_concurrent", "peak tasks at once", "max"),
    ("loomlab_tasks_peak_platform_threads", "peak platform threads", "max"),
    ("loomlab_tasks_rss_bytes_per_task", "RSS B/task", "med"),
    ("loomlab_tasks_heap_bytes_per_task", "heap B/task", "med"),
    ("loomlab_tasks_measure_gc_ms", "GC to measure ms", "med"),
)

# Each trend's field of the answer (dev.loomlab.tasks.TasksResult); a memory figure the service could
# not measure (-1, tasks too short to catch asleep) is left out, as k6/tasks.js leaves it.
TASK_FIELDS = tuple(
    zip(
        (metric for metric, _, _ in TASK_TRENDS),
        (
            "elapsedMs",
            "peakConcurrentTasks",
            "peakPlatformThreads",
            "rssBytesPerConcurrentTask",
            "heapBytesPerConcurrentTask",
            "measureGcMs",
        ),
        strict=True,
    )
)


def tasks_request(env: dict) -> Request:
    """GET /api/{MODE}/tasks, as k6/tasks.js sends it: every task ran, in the mode asked, and the
    request took at least one task's sleep (k6 holds the answer's elapsedMs to it)."""
    mode, count, ms = env["MODE"], env["COUNT"], env["TASK_MS"]
    return Request(
        (f"/api/{mode}/tasks?count={count}&ms={ms}",),
        expect=(f'"mode":"{mode}","count":{count},',),
        floor_ms=float(ms),
        fields=TASK_FIELDS,
    )


def tasks_load(count: str, ms: str, smoke: bool, seed: dict, lanes: tuple[Lane, ...]) -> Load:
    """Seed A1: one k6 run of 3 requests is the repeat (a worker request of 100 x 1 s takes 10 s)."""
    iterations = 1 if smoke else 3
    # Planned seconds: 100 tasks on 10 platform threads take 10 sleeps; one virtual thread each, one
    # sleep (100,000 of them: ~1.5).
    virtual_s = iterations * int(ms) / 1000 * (1 if int(count) <= 100 else 1.5) + 1
    return Load(
        f"{int(count):,} tasks x {ms} ms" + ("" if smoke else " (A1)"),
        "k6/tasks.js",
        "tasks",
        # One user (k6/tasks.js: closedIterations(1, ITERATIONS)).
        {"COUNT": count, "TASK_MS": ms, "VUS": "1", "ITERATIONS": str(iterations)},
        seed=seed,
        lanes=lanes,
        timeout_s=120,
        extra=TASK_TRENDS,
        warmups=1,
        repeats=1,
        # The warm-up runs the same code path with a tenth of the sleep.
        warmup_env={"ITERATIONS": "1", "TASK_MS": str(max(1, int(ms) // 10))},
        est_s={"worker": iterations * int(ms) / 100 + 1, "virtual": virtual_s, "virtual-loop": virtual_s},
        warmup_est_s=int(ms) / 1000 + 1,
        request=tasks_request,
    )


def suites(scale: Scale) -> list[Suite]:
    count, big = ("100", "2000") if scale.smoke else ("100", "100000")
    ms = "200" if scale.smoke else "1000"
    return [
        Suite(
            workload="tasks",
            description="Seed A1: 100 tasks sleeping 1 s on 10 platform threads vs one virtual thread each; "
            "then 100,000 virtual threads",
            server_env={},
            warmup_seconds=0,
            loads=[
                tasks_load(count, ms, scale.smoke, {} if scale.smoke else SEED_A1, modes_of("tasks")),
                tasks_load(big, ms, scale.smoke, {} if scale.smoke else SEED_A1_100K, (Lane(VIRTUAL),)),
            ],
        )
    ]
