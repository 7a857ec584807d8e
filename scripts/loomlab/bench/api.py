"""The bench's public interface: what another driver of the same comparison (the in-cluster
runner, loomlab.incluster) builds on. Everything else in loomlab.bench is the bench's own and may
change; tests/test_layering.py holds every other package to these names."""

from __future__ import annotations

from .columns import jvm_column, quota_column
from .engines import THRESHOLDS_CROSSED
from .engines.loadgen import Loadgen, requests_of
from .figures import figures_from
from .flames import COLUMNS, bare, category_of, read_collapsed
from .jobrun import BEGIN as LOADGEN_RUN
from .jobrun import read as loadgen_run
from .lane import MODE_COLUMNS, REACTIVE, VIRTUAL, WORKER, Knob, Lane
from .loads import Load, Scale, Suite, with_column
from .plan import modes_named, planned_seconds, suite_lanes
from .profiler import CPU_INTERVAL_NS, JVM_FLAGS, Profiler
from .profiles import suites
from .progress import Progress
from .report import finish, machine, run_meta
from .rounds import measure
from .runners import resume_all, runner_file
from .settings import RunSettings
from .skeleton import sampled
from .target import ServiceUnderTest
from .verdict import interval
from .workloads import MODULES, product, sleep

__all__ = [
    "COLUMNS",
    "Loadgen",
    "CPU_INTERVAL_NS",
    "JVM_FLAGS",
    "LOADGEN_RUN",
    "MODE_COLUMNS",
    "MODULES",
    "Profiler",
    "Progress",
    "RunSettings",
    "Load",
    "sampled",
    "Scale",
    "ServiceUnderTest",
    "Suite",
    "THRESHOLDS_CROSSED",
    "bare",
    "category_of",
    "figures_from",
    "finish",
    "interval",
    "loadgen_run",
    "machine",
    "measure",
    "planned_seconds",
    "product",
    "read_collapsed",
    "requests_of",
    "resume_all",
    "run_meta",
    "runner_file",
    "sleep",
    "suite_lanes",
    "jvm_column",
    "quota_column",
    "with_column",
    "Knob",
    "modes_named",
    "Lane",
    "WORKER",
    "VIRTUAL",
    "REACTIVE",
    "suites",
]
