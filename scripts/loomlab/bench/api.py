"""The bench's public interface: what another driver of the same comparison (the in-cluster
runner, loomlab.incluster) builds on. Everything else in loomlab.bench is the bench's own and may
change; tests/test_layering.py holds every other package to these names."""

from __future__ import annotations

from .deciding.verdict import interval
from .jobrun import BEGIN as LOADGEN_RUN
from .jobrun import RUNNERS_SET_S
from .jobrun import read as loadgen_run
from .measuring.figures import figures_from
from .measuring.flames import COLUMNS, bare, category_of, read_collapsed
from .measuring.profiler import CPU_INTERVAL_NS, JVM_FLAGS, Profiler
from .pipeline import measure
from .planning.bounds import littles_bound
from .planning.columns import jvm_column, quota_column
from .planning.lane import MODE_COLUMNS, REACTIVE, VIRTUAL, VIRTUAL_LOOP, WORKER, Knob, Lane
from .planning.loads import Load, Scale, Suite, with_column
from .planning.plan import Plan, modes_named, planned_seconds, runs_of, suite_lanes
from .planning.profiles import suites
from .planning.settings import RunSettings
from .reporting.report import finish, run_meta
from .running.engines import THRESHOLDS_CROSSED
from .running.engines.loadgen import Loadgen, requests_of
from .running.progress import Progress
from .running.skeleton import sampled
from .workloads import MODULES, product, sleep

__all__ = [
    "COLUMNS",
    "Loadgen",
    "CPU_INTERVAL_NS",
    "JVM_FLAGS",
    "LOADGEN_RUN",
    "RUNNERS_SET_S",
    "MODE_COLUMNS",
    "MODULES",
    "Profiler",
    "Plan",
    "Progress",
    "RunSettings",
    "Load",
    "sampled",
    "Scale",
    "Suite",
    "THRESHOLDS_CROSSED",
    "bare",
    "category_of",
    "figures_from",
    "finish",
    "interval",
    "loadgen_run",
    "measure",
    "planned_seconds",
    "runs_of",
    "product",
    "read_collapsed",
    "requests_of",
    "run_meta",
    "sleep",
    "suite_lanes",
    "jvm_column",
    "littles_bound",
    "quota_column",
    "with_column",
    "Knob",
    "modes_named",
    "Lane",
    "WORKER",
    "VIRTUAL",
    "VIRTUAL_LOOP",
    "REACTIVE",
    "suites",
]
