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

The sleep waits on a timer; its twin waits on a socket: the db workload's slow query (pg_sleep, 20
ms) at the sleep's open 1,500 req/s for 10 s on a pool of 40 (its bound 2,000 req/s), in the same three
patterns, each mode beside the reference server's own slow query (pgx on a pool of the same size, the
same wait for a connection), so that what a wait costs is measured where a thread waits for a peer's
bytes."""

from __future__ import annotations

import dataclasses

from ..planning.bounds import littles_bound
from ..planning.lane import REACTIVE, VIRTUAL, VIRTUAL_LOOP, Knob, Lane
from ..planning.loads import BURSTS, PACED, Load, Scale, Suite, arriving, open_load
from . import db, knobs, sleep

RATE = 1500
BURST_MS = 100
# A paced connection's period: RATE x PERIOD_MS connections (150, the sleep's and the socket's).
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


# The socket wait: each request holds one of `pool` connections `ms` in pg_sleep, the sleep's RATE
# arriving a second (0.75 of the pool's bound, so that no mode sheds: 30 in flight; a burst of 150
# waits at most four queries' time for a connection), for SECONDS: 15,000 requests a run, as the
# sleep's. (Until 2026-12-05: 100 ms on a pool of 50 at 400 req/s, the pool's bound 500 below the
# issue's rate; PostgreSQL's 300 connections hold 40 for each column side by side.)
@dataclasses.dataclass(frozen=True)
class Socket:
    """The socket wait's shape: the query's time, the pool, the open rate and a run's seconds."""

    ms: int = 20
    pool: int = 40
    rate: int = RATE
    seconds: int = SECONDS


# The shape the records before 2026-12-05's afternoon ran: no profile runs it, their reports rebuild
# from it (workloads.of_section).
RECORDED_SOCKET = Socket(ms=100, pool=50, rate=400, seconds=25)


def socket_load(shape: Socket) -> Load:
    """The open slow query, evenly spaced, in the three modes and the reference server's: every
    column's bound is the suite's pool over the query's time (the reference's pool is the suite's)."""
    bound = littles_bound(shape.pool, shape.ms / 1000)
    load = open_load(
        "db",
        "k6/db.js",
        shape.rate / bound,
        bound,
        "the pool bound",
        shape.seconds,
        lambda lane, pools: bound,
        {"DB_MS": str(shape.ms), "MAX_ERRORS": "0.01"},
        shape.pool * 4,
        counters=("loomlab_refused_503",),
        lanes=db.MODES,
        request=db.db_request,
    )
    return dataclasses.replace(load, syscalls=True, referenced=True)


def socket_suite(shape: Socket) -> Suite:
    socket = socket_load(shape)
    return Suite(
        workload="db",
        variant="cost",
        description=f"the sleep's socket-waiting twin: CPU per request against the reference server at an"
        f" open {shape.rate} req/s of the {shape.ms} ms slow query on a pool of {shape.pool}, arrivals evenly"
        f" spaced, in bursts every {BURST_MS} ms and paced over connections each every {PERIOD_MS} ms",
        server_env={
            "QUARKUS_THREAD_POOL_MAX_THREADS": str(WORKER_THREADS),
            "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": str(shape.pool),
        },
        core=False,
        warmup_seconds=6,
        loads=[socket, arriving(socket, BURSTS, BURST_MS), arriving(socket, PACED, PERIOD_MS)],
    )


def recorded() -> list[Suite]:
    """Suites no profile runs any more, kept so that their records' reports rebuild."""
    return [socket_suite(RECORDED_SOCKET)]


def suites(scale: Scale) -> list[Suite]:
    uniform = dataclasses.replace(
        sleep.open_sleep_load(RATE / (WORKER_THREADS / 0.1), WORKER_THREADS / 0.1, SECONDS), syscalls=True
    )
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
                for ld in (uniform, arriving(uniform, BURSTS, BURST_MS), arriving(uniform, PACED, PERIOD_MS))
            ],
        ),
        socket_suite(Socket()),
    ]
