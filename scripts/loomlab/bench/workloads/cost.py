"""What a virtual thread costs a request (issue 59): the open sleep at 1,500 req/s under three client
patterns at the same rate: evenly spaced arrivals, bursts (150 at once every 100 ms), and paced
connections (150 kept-alive connections each sending its next request 100 ms after its last, hey's
`-c 150 -q 10`; issue 79), each
mode beside the reference server in the same rounds, with the server's CPU and context switches per
request (and, where perf may count them, system calls, futex calls and epoll waits per request:
bench/measuring/syscalls.py); the overheads of virtual threads and the event loop that a setting reaches, as
knob columns, alone and combined; and the modes in a cgroup of their own, as a pod's container.
A pool of 200 worker threads (Quarkus' default), so that no mode is held by its bound at this rate
(200 / 100 ms = 2,000 req/s) and CPU per request compares like with like.

The sleep waits on a timer; its twin waits on a socket: the db workload's slow query (pg_sleep, 100
ms) at an open 400 req/s for 25 s on a pool of 50 (its bound 500 req/s), in the same three patterns, each
mode beside the reference server's own slow query (pgx on a pool of the same size, the same wait
for a connection), so that what a wait costs is measured where a thread waits for a peer's bytes."""

from __future__ import annotations

import dataclasses

from loomlab import labreport as lr

from ..planning.lane import REACTIVE, VIRTUAL, VIRTUAL_LOOP, Knob, Lane
from ..planning.loads import Load, Scale, Suite, bursts, open_load, paced
from . import db, knobs, sleep

# The sections are sleep's (its bounds and causes apply); this module adds none.
BOUND_NAMES: dict[str, str] = {}
USES = "CPU, shared with the load generator"
RATE = 1500
BURST_MS = 100
# A paced connection's period: RATE x PERIOD_MS connections (150; 40 at DB_RATE).
PERIOD_MS = 100
WORKER_THREADS = 200
# The service's container's CPU limit in the cluster (deploy/k8s/app/deployment.yaml): the quota of
# the cgroup columns, the pod's shape on this machine.
POD_CPUS = 2
# Seconds of arrivals a run: 15,000 requests at this rate, so that a run's CPU (about 1-4 s of it)
# is not within a few JIT compilations or a GC of another's.
SECONDS = 10
# Quarkus names each virtual thread with a counter (quarkus-virtual-thread-N), a slow path in the
# JDK (Quarkus issue 51201). Its guide says an empty quarkus.virtual-threads.name-prefix turns the
# naming off, but on 3.33 an empty value is no value and the default prefix comes back (measured:
# the sleep answer's thread is still quarkus-virtual-thread-0 with -Dquarkus.virtual-threads.name-prefix=),
# so no column can turn it off; Quarkus PR 51223 would.


# The socket wait: each request holds one of DB_POOL connections DB_MS in pg_sleep, DB_RATE arriving
# a second (0.8 of the pool's bound, so that no mode sheds: 40 in flight, bursts of 40, 40 paced
# connections), for
# DB_SECONDS: 10,000 requests a run, about 2-4 s of a server's CPU (at 10 s, 4,000 requests, one
# run's CPU per request ranged 0.27-0.52 ms in one column).
DB_MS = 100
DB_POOL = 50
DB_RATE = 400
DB_SECONDS = 25


def columns() -> tuple[Lane, ...]:
    """The overheads a setting reaches, as knob columns: virtual threads untracked (the JDK's
    container of every thread, for thread dumps), one carrier (no wake-up crosses cores), both
    together, one event loop for the reactive and the virtual-loop modes; and
    each mode in a cgroup of its own with the pod's CPU limit as its quota (quota.py: the shape of
    the service's container in the cluster), where the scheduler accounts every wake-up and sleep
    to the group and its quota."""
    untracked = Knob(jvm_flags=("-Djdk.trackAllThreads=false",))
    one_carrier = knobs.carriers(1)
    virtual = Lane(VIRTUAL)
    return (
        virtual.with_setting("trackAllThreads=false", untracked),
        virtual.with_setting("carriers=1", one_carrier),
        virtual.with_setting(
            "carriers=1,trackAllThreads=false",
            dataclasses.replace(one_carrier, jvm_flags=one_carrier.jvm_flags + untracked.jvm_flags),
        ),
        Lane(REACTIVE).with_setting("loops=1", knobs.event_loops(1)),
        # The virtual-loop mode on one event loop, the reactive column's twin: no request's wake-up
        # crosses loops.
        Lane(VIRTUAL_LOOP).with_setting("loops=1", knobs.event_loops(1)),
        *(mode.with_setting(f"cgroup={POD_CPUS}cpus", Knob(quota_cpus=POD_CPUS)) for mode in knobs.MODES),
    )


def socket_load() -> Load:
    """The open slow query, evenly spaced, in the three modes and the reference server's: every
    column's bound is the suite's pool over the query's time (the reference's pool is the suite's)."""
    bound = lr.littles_bound(DB_POOL, DB_MS / 1000)
    load = open_load(
        "db",
        "k6/db.js",
        DB_RATE / bound,
        bound,
        "the pool bound",
        DB_SECONDS,
        lambda lane, pools: bound,
        {"DB_MS": str(DB_MS), "MAX_ERRORS": "0.01"},
        DB_POOL * 4,
        counters=("loomlab_refused_503",),
        lanes=db.MODES,
        request=db.db_request,
    )
    return dataclasses.replace(load, syscalls=True, referenced=True)


def suites(scale: Scale) -> list[Suite]:
    uniform = dataclasses.replace(
        sleep.open_sleep_load(RATE / (WORKER_THREADS / 0.1), WORKER_THREADS / 0.1, SECONDS), syscalls=True
    )
    socket = socket_load()
    return [
        Suite(
            workload="sleep",
            variant="cost",
            description=f"CPU per request against the reference server at an open {RATE} req/s of the 100 ms"
            f" sleep, arrivals evenly spaced, in bursts every {BURST_MS} ms and paced over connections each every"
            f" {PERIOD_MS} ms, a worker pool of"
            f" {WORKER_THREADS}; virtual threads untracked, one carrier, both, one event loop; each mode in a cgroup",
            server_env={"QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS)},
            core=False,
            loads=[
                knobs.with_knobs(ld, columns())
                for ld in (uniform, bursts(uniform, BURST_MS), paced(uniform, PERIOD_MS))
            ],
        ),
        Suite(
            workload="db",
            variant="cost",
            description=f"the sleep's socket-waiting twin: CPU per request against the reference server at an"
            f" open {DB_RATE} req/s of the {DB_MS} ms slow query on a pool of {DB_POOL}, arrivals evenly spaced,"
            f" in bursts every {BURST_MS} ms and paced over connections each every {PERIOD_MS} ms",
            server_env={
                "QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS),
                "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": str(DB_POOL),
            },
            core=False,
            warmup_seconds=6,
            loads=[socket, bursts(socket, BURST_MS), paced(socket, PERIOD_MS)],
        ),
    ]
