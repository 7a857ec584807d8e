"""Seed B: a query that holds a pooled connection, 100 users on 20 connections, and a flood."""

from __future__ import annotations

from ..planning.arrivals import Request
from ..planning.bounds import littles_bound
from ..planning.lane import THREADED, Lane
from ..planning.loads import Load, Scale, Suite, modes_of, open_load

MODES = modes_of("db")
# What binds each mode (answer.py), and what else every mode shares.
BOUND_NAMES = {m.key: "connections" for m in modes_of("db", with_rx=True)}
USES = "CPU and the database, shared with k6"


def pool_bound(per_request_s: float):
    """db: connections (or the bulkhead, if smaller) / the time each request holds one; the reactive
    mode's own pool has as many by default."""

    def bound(lane: Lane, pools: dict):
        size = pools.get("reactive.pool-max-size" if lane.reactive_clients else "datasource.max-size", 20)
        return littles_bound(size, per_request_s)

    return bound


def db_request(env: dict) -> Request:
    """GET /api/{MODE}/db/slow, as k6/db.js sends it: 200s served, 503s refused by the bounded wait;
    MAX_WAIT_MS, where set: no answer, 200 or 503, may take longer."""
    clients = "&clients=reactive" if env.get("CLIENTS") == "reactive" else ""
    return Request(
        (f"/api/{env['MODE']}/db/slow?ms={env['DB_MS']}{clients}",),
        counts=(("loomlab_served_200", 200), ("loomlab_refused_503", 503)),
        limits=(("max", float(env["MAX_WAIT_MS"])),) if "MAX_WAIT_MS" in env else (),
    )


def db_load(seconds: int, lanes: tuple[Lane, ...]) -> Load:
    """Seed B: 100 users on a pool of 20, each request holding a connection 200 ms."""
    return Load(
        f"100 VUs for {seconds} s, 200 ms query",
        "k6/db.js",
        "db",
        {"VUS": "100", "DURATION": f"{seconds}s", "DB_MS": "200"},
        bound=pool_bound(0.2),
        timeout_s=120,
        counters=("loomlab_refused_503",),
        est_s=seconds + 1,
        lanes=lanes,
        request=db_request,
    )


def db_flood_load(vus: int, seconds: int) -> Load:
    """Far more users than connections, no think time: every mode serves what the pool takes and
    sheds the rest with 503 once its one wait budget is spent (loomlab.execution.max-wait, drawn by
    the wait for a thread and for a connection alike), so no answer takes much longer than the
    budget plus the query; MAX_WAIT_MS fails the run if one takes far longer (before the thread
    wait was bounded, the worker mode queued them: max 10.2 s on 1,000 users; with a bound per
    queue, a worker request could wait twice: max 5.28 s)."""
    return Load(
        f"flood: {vus:,} VUs for {seconds} s, 200 ms query (req/s: answered 200)",
        "k6/db.js",
        "db",
        {"VUS": str(vus), "DURATION": f"{seconds}s", "DB_MS": "200", "MAX_ERRORS": "0.99", "MAX_WAIT_MS": "7000"},
        bound=pool_bound(0.2),
        timeout_s=120,
        counters=("loomlab_refused_503", "loomlab_served_200"),
        served="loomlab_served_200",
        est_s=seconds + 3,
        lanes=MODES,
        request=db_request,
    )


def db_open_load(fraction: float, seconds: int) -> Load:
    """Arrivals at a fraction of the pool's bound (20 / 0.2 s = 100 req/s), in every mode. Above it
    the bulkhead answers 503 once the wait budget is spent: errors are the expected overload there."""
    return open_load(
        "db",
        "k6/db.js",
        fraction,
        100,
        "the pool bound",
        seconds,
        pool_bound(0.2),
        {"DB_MS": "200", "MAX_ERRORS": "0.01" if fraction < 1 else "0.5"},
        400,
        counters=("loomlab_refused_503",),
        lanes=MODES,
        request=db_request,
    )


def suites(scale: Scale) -> list[Suite]:
    main = Suite(
        workload="db",
        description="Seed B: each request holds one pooled connection for 200 ms (pg_sleep); 100 users "
        "on a pool of 20, behind a fair bulkhead of 20 permits, waited for within the request's budget of "
        "2 s (reactive: a reactive pool of 20 behind the same bulkhead without a blocked thread; virtual+rx: "
        "virtual threads awaiting that reactive pool); then an open model below and above the pool's bound; "
        "then a flood of users that every mode must shed with 503 within its one wait budget",
        server_env={},
        warmup_seconds=6,
        loads=[
            db_load(scale.steady_s, modes_of("db", with_rx=True)),
            db_open_load(0.8, scale.short_s),
            db_open_load(1.2, scale.short_s),
            db_flood_load(300 if scale.smoke else 1000, scale.steady_s if scale.smoke else 6),
        ],
    )
    no_bulkhead = Suite(
        workload="db",
        variant="no bulkhead",
        core=False,
        description="Seed B without the bulkhead: every request queues on Agroal's pool itself",
        server_env={"LOOMLAB_DB_BULKHEAD_ENABLED": "false"},
        warmup_seconds=6,
        loads=[db_load(scale.steady_s, THREADED)],
    )
    return [main, no_bulkhead]
