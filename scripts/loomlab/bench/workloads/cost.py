"""What a virtual thread costs a request (issue 59): the open sleep at 1,500 req/s, under evenly
spaced arrivals and under the same rate in bursts (hey's pattern: 150 at once every 100 ms), each
mode beside the reference server in the same rounds, with the server's CPU and context switches per
request; and the overheads of virtual threads and the event loop that a setting reaches, as knob
columns.
A pool of 200 worker threads (Quarkus' default), so that no mode is held by its bound at this rate
(200 / 100 ms = 2,000 req/s) and CPU per request compares like with like."""

from __future__ import annotations

from ..loads import Knob, Scale, Suite, bursts
from . import knobs, sleep

# The sections are sleep's (its bounds and causes apply); this module adds none.
BOUND_NAMES: dict[str, str] = {}
USES = "CPU, shared with the load generator"
RATE = 1500
BURST_MS = 100
WORKER_THREADS = 200
# Seconds of arrivals a run: 15,000 requests at this rate, so that a run's CPU (about 1-4 s of it)
# is not within a few JIT compilations or a GC of another's.
SECONDS = 10
# Quarkus names each virtual thread with a counter (quarkus-virtual-thread-N), a slow path in the
# JDK (Quarkus issue 51201). Its guide says an empty quarkus.virtual-threads.name-prefix turns the
# naming off, but on 3.33 an empty value is no value and the default prefix comes back (measured:
# the sleep answer's thread is still quarkus-virtual-thread-0 with -Dquarkus.virtual-threads.name-prefix=),
# so no column can turn it off; Quarkus PR 51223 would.


def columns() -> dict[str, Knob]:
    """The overheads a setting reaches, as knob columns: virtual threads untracked (the JDK's
    container of every thread, for thread dumps), one carrier (no wake-up crosses cores), and one
    event loop for the reactive mode."""
    return {
        "virtual[trackAllThreads=false]": Knob(jvm_flags=("-Djdk.trackAllThreads=false",)),
        "virtual[carriers=1]": knobs.carriers(1),
        "reactive[loops=1]": knobs.event_loops(1),
    }


def suites(scale: Scale) -> list[Suite]:
    uniform = sleep.open_sleep_load(RATE / (WORKER_THREADS / 0.1), WORKER_THREADS / 0.1, SECONDS)
    return [
        Suite(
            workload="sleep",
            variant="cost",
            description=f"CPU per request against the reference server at an open {RATE} req/s of the 100 ms"
            f" sleep, arrivals evenly spaced and in bursts every {BURST_MS} ms, a worker pool of"
            f" {WORKER_THREADS}; virtual threads untracked, one carrier, one event loop",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS)},
            core=False,
            loads=[knobs.with_knobs(ld, columns()) for ld in (uniform, bursts(uniform, BURST_MS))],
        )
    ]
