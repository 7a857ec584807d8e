"""What a run is: the execution models (read from k6/lib/modes.json, the one statement of which
workload runs in which mode), a Load (one k6 run shape measured in each mode), a Suite (a
workload's loads under one server configuration), and the Scale a profile runs them at. The
workloads themselves, with their seeds and bounds, are in workloads/; the profiles in profiles.py."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from loomlab import ROOT

from .arrivals import Request
from .lane import MODES, OFFLOAD, REACTIVE, REFERENCE_LANE, RX, THREADED, VIRTUAL, Knob, Lane

MATRIX = {k: v for k, v in json.loads((ROOT / "k6/lib/modes.json").read_text()).items() if k != "about"}
# The matrix's key for the workloads whose virtual mode can await the reactive clients.
MATRIX_RX = Lane(VIRTUAL, RX).key


def modes_of(key: str, with_rx: bool = False, with_offload: bool = False) -> tuple[Lane, ...]:
    """A workload's lanes (or 'copy', 'ingest-grpc'), in report order; with_rx adds the virtual+rx
    lane where the workload has it, with_offload the reactive+offload lane."""
    lanes = tuple(lane for lane in MODES if not lane.client and lane.mode in MATRIX[key])
    lanes += (Lane(REACTIVE, OFFLOAD),) if with_offload and Lane(REACTIVE) in lanes else ()
    return lanes + ((Lane(VIRTUAL, RX),) if with_rx and key in MATRIX[MATRIX_RX] else ())


@dataclass(frozen=True)
class Load:
    """One run shape of a workload (its k6 script and the environment that shapes it; the same
    environment shapes loadgen's run where the load declares its `request`), measured in each mode."""

    name: str
    script: str
    scenario: str
    env: dict
    # (lane, pools from /api/info) -> the Little's-law bound on throughput (req/s), or None.
    bound: Callable[[Lane, dict], float] | None = None
    # pools -> expected latency figures (ms) to print beside the measured ones, e.g. E[max].
    expect: Callable[[dict], dict] | None = None
    seed: dict = field(default_factory=dict)  # column -> {figure: value}
    # The columns it is measured in, in report order: the modes, a knob column (a mode with one setting
    # changed, in the same rounds as its default column: workloads/knobs.py), the reference server.
    lanes: tuple[Lane, ...] = THREADED
    timeout_s: int = 300
    extra: tuple = ()  # custom k6 trends to report: (metric, label, stat)
    warmups: int | None = None  # None: --warmups
    repeats: int | None = None  # None: --repeats
    warmup_env: dict = field(default_factory=dict)  # overrides of env for warm-up runs
    counters: tuple = ()  # custom k6 counters whose count and rate the report keeps
    # A counter of the answers that did the work (200s): where a load is made to be shed, its req/s
    # (and so its efficiency against the bound) is this counter's rate, not every answer's.
    served: str | None = None
    extra_report: tuple = ()  # custom k6 trends kept per run but not shown in the load table
    rate: float | None = None  # open model: arrivals per second (bound: min(rate, the mode's bound))
    open_s: float | None = None  # open model: seconds of arrivals
    # False where k6 itself is the bottleneck: the dashboard's export costs k6 CPU (A3 virtual:
    # 3-7 % of its throughput, measured), so --dashboards auto leaves those runs alone.
    dashboard: bool = True
    est_s: float | dict = 10.0  # planned seconds of one run (or mode -> seconds), for the time left
    warmup_est_s: float | dict | None = None  # planned seconds of one warm-up run (None: est_s)
    k6_cpus: str = ""  # the CPUs k6 runs on (a taskset list, e.g. "0"); "": any
    # The request of one arrival, from the run's environment (the load's, a warm-up's overrides, and
    # the lane's k6_env: MODE, CLIENTS, ...); None: only k6 sends this load so far.
    request: Callable[[dict], Request] | None = None
    # Count the server's system calls during each run, perf's tracepoints (syscalls.py), in every column.
    syscalls: bool = False
    # The reference server serves it though its script is not of SERVES's: the db twin, which needs
    # the lab's database and is run where a profile asks (the pool is the suite's, so is the load's).
    referenced: bool = False

    @property
    def serves_reference(self) -> bool:
        """Whether the reference server answers this load's requests (a column of its own)."""
        return self.script in SERVES or self.referenced

    @property
    def columns(self) -> tuple[str, ...]:
        """Its lanes' names, in report order: the keys of its results."""
        return tuple(lane.key for lane in self.lanes)

    def lane(self, column: str) -> Lane:
        """The lane of one of its columns (by name, as its results are keyed)."""
        return next(lane for lane in self.lanes if lane.key == column)

    def in_lanes(self, lanes: Iterable[Lane]) -> Load:
        """This load in `lanes` (read back by name at an edge: results.json, a Job's MODES), each with
        this load's own setting where it has that column; another's without its setting."""
        known = {lane.key: lane for lane in self.lanes}
        return replace(self, lanes=tuple(known.get(lane.key, lane) for lane in lanes))


@dataclass(frozen=True)
class Suite:
    workload: str
    description: str
    server_env: dict
    loads: list[Load]
    variant: str = ""  # what sets it apart from the workload's other suites, e.g. a smaller pool
    # False for a variant of the seed's own configuration (a smaller pool, no bulkhead, a simulated
    # round trip): profiles pick the core suites and these apart.
    core: bool = True
    # A table across the loads of the suites that name it, by name (summaries.SUMMARIES), made after
    # the last of them.
    summary: str = ""
    # Least warm-up load per mode (s); None: --warmup-seconds. Workloads paced by sleeps, pools or
    # the database settle in seconds; the CPU-bound A3 virtual run needs the JIT's full warm-up.
    warmup_seconds: float | None = None
    service_cpus: str = ""  # the CPUs the service's JVM runs on (a taskset list, e.g. "1"); "": any


def on_cpus(cmd: list[str], cpus: str) -> list[str]:
    """`cmd` held to the CPUs of a taskset list (its threads, and the JVM's view of its processors:
    availableProcessors follows the affinity mask); unchanged for "" (any CPU)."""
    return ["taskset", "-c", cpus, *cmd] if cpus else cmd


# The k6 scripts whose endpoint the reference server answers (as /api/reference/...) in every load:
# the sleep's; its db twin only where a load asks (Load.referenced).
SERVES = ("k6/sleep.js",)


def each_load(chosen: list[Suite], change: Callable[[Load], Load]) -> list[Suite]:
    """`chosen` with `change` made to each load: new suites, the planned ones left as they were."""
    return [replace(suite, loads=[change(load) for load in suite.loads]) for suite in chosen]


def with_reference(chosen: list[Suite]) -> list[Suite]:
    """`chosen` with the reference column in every load whose script it serves; its planned time is
    the fastest mode's (it is bound like the virtual and reactive modes: by the users)."""

    def fastest(est: Any) -> Any:
        return {**est, REFERENCE_LANE.key: min(est.values())} if isinstance(est, dict) and est else est

    def add(load: Load) -> Load:
        if not load.serves_reference or REFERENCE_LANE in load.lanes:
            return load
        lanes = (*load.lanes, REFERENCE_LANE)
        return replace(load, lanes=lanes, est_s=fastest(load.est_s), warmup_est_s=fastest(load.warmup_est_s))

    return each_load(chosen, add)


def with_column(
    chosen: list[Suite], setting: str, knob: Knob, where: Callable[[Load, Lane], bool] = lambda load, lane: True
) -> list[Suite]:
    """`chosen` with a column "<mode>[SETTING]" in every load per mode it runs (the reference
    server's aside): the same mode with `knob`, in the same rounds, planned as long as the mode; each
    section's knobs table gives it against the mode (./lab ab: another build; --aot-cache: the JVM
    with an AOT cache); `where(load, lane)`: the loads and modes that get one (--minimal: the
    minimal application's one endpoint)."""

    def add(load: Load) -> Load:
        new = tuple(lane.with_setting(setting, knob) for lane in load.lanes if lane.is_default and where(load, lane))
        # Before the reference server's column: the columns' order is the rounds' (plan.suite_lanes).
        own = tuple(lane for lane in load.lanes if lane != REFERENCE_LANE)
        return replace(
            load,
            lanes=(*own, *new, *((REFERENCE_LANE,) if REFERENCE_LANE in load.lanes else ())),
            est_s=planned_as_modes(load.est_s, new),
            warmup_est_s=planned_as_modes(load.warmup_est_s, new),
        )

    return each_load(chosen, add)


def planned_as_modes(est: Any, lanes: tuple[Lane, ...]) -> Any:
    """A load's planned seconds (per column, or one figure for all) with each of `lanes` planned as
    long as its mode's default column (the longest where that has no figure)."""
    if not isinstance(est, dict) or not est:
        return est
    return {**est, **{lane.key: est.get(lane.default.key, max(est.values())) for lane in lanes}}


@dataclass(frozen=True)
class Scale:
    """How big a profile runs the workloads: `smoke` in seconds (CI), `seeds` at the seeds' own
    sizes, else the quick scale. The durations are of one run."""

    name: str = "quick"
    short_s: int = 4  # an open run
    steady_s: int = 4  # a steady closed run (db, pinning)

    @property
    def smoke(self) -> bool:
        return self.name == "smoke"

    @property
    def seeds(self) -> bool:
        return self.name == "seeds"

    @property
    def records(self) -> int:
        """Records of a chunk stream (seed D's own 87,488 at the seeds' scale)."""
        return 500 if self.smoke else 87_488 if self.seeds else 3_000


# What each pod has its own of: a Deployment of R pods has R of each (its bounds scale with R).
POD_CAPACITIES = (
    "cpus",
    "worker.max-threads",
    "fan-out.worker-threads",
    "datasource.max-size",
    "reactive.pool-max-size",
    "reactive.event-loops",
    "tasks.worker-pool-size",
    "virtual.carriers",
)


def service_pools(pools: dict) -> dict:
    """The pools of the whole service: one pod's (/api/info) times its `replicas` (1 unless set)."""
    r = pools.get("replicas", 1)
    return {k: v * r if k in POD_CAPACITIES and isinstance(v, int | float) else v for k, v in pools.items()}


def mode_bound(load: Load, column: str, pools: dict) -> float:
    """The Little's-law bound of a column's pools on a load (NaN where the load has none); a knob
    column's with the pools its setting changes."""
    if not load.bound:
        return math.nan
    lane = load.lane(column)
    return load.bound(lane.default, {**pools, **lane.knob.pools})


def effective_bound(load: Load, column: str, pools: dict) -> float:
    """The Little's-law bound of a load in a column; an open load cannot exceed its arrival rate."""
    b = mode_bound(load, column, pools)
    return min(b, load.rate) if load.rate is not None and not math.isnan(b) else b


# An open load's arrivals: evenly spaced (vegeta's constant pacer, k6's constant-arrival-rate); in
# bursts of rate x BURST_MS at once every BURST_MS; or paced over CONNECTIONS kept-alive connections,
# each sending its next request rate / CONNECTIONS after its last (hey's workers' pattern,
# `hey -c 150 -q 10`); the last two loadgen only (scripts/loadgen/arrivals.go).
UNIFORM = "uniform"
BURSTS = "bursts"
PACED = "paced"


def arriving(load: Load, arrivals: str, period_ms: int) -> Load:
    """`load` (an open one) with the same mean rate arriving in BURSTS, one every `period_ms`, or PACED:
    sent over rate x `period_ms` connections, each sending its next request `period_ms` after its last
    (or when its answer comes, if later)."""
    if load.rate is None:
        raise ValueError(f"{load.name}: only an open load has arrivals to {'pace' if arrivals == PACED else 'group'}")
    per_period = load.rate * period_ms / 1000
    if arrivals == PACED:
        how, env = f"paced over {round(per_period)} connections each", {"CONNECTIONS": str(round(per_period))}
    else:
        how, env = f"in bursts of {per_period:g}", {"BURST_MS": str(period_ms)}
    return replace(load, name=f"{load.name}, {how} every {period_ms} ms", env={**load.env, "ARRIVALS": arrivals, **env})


def open_env(rate: int, seconds: int, max_vus: int, duration_var: str = "DURATION") -> dict:
    """An open load's k6 parameters: `rate` arrivals per second for `seconds`, at most `max_vus` in flight."""
    return {"MODEL": "open", "RATE": str(rate), duration_var: f"{seconds}s", "MAX_VUS": str(max_vus)}


def open_load(
    workload: str,
    script: str,
    fraction: float,
    reference: float,
    of_what: str,
    seconds: int,
    bound: Callable[[Lane, dict], float],
    env: dict,
    max_vus: int,
    duration_var: str = "DURATION",
    **kw,
) -> Load:
    """Open model: `fraction` x `reference` (a Little's-law bound) arrivals per second for `seconds`.
    `bound` is each mode's own bound; dropped arrivals or errors above it are the expected
    overload, below it a failure."""
    rate = round(reference * fraction)
    return Load(
        f"open {rate} req/s ({fraction:.1f}x {of_what})",
        script,
        workload,
        {**env, **open_env(rate, seconds, max_vus, duration_var)},
        bound=bound,
        rate=rate,
        open_s=seconds,
        timeout_s=seconds + 120,
        est_s=seconds + 1,
        **kw,
    )
