"""The bench's public interface: what another driver of the same comparison (the in-cluster
runner, loomlab.incluster) builds on. Everything else in loomlab.bench is the bench's own and may
change; tests/test_layering.py holds every other package to these names."""

from __future__ import annotations

from .engines import THRESHOLDS_CROSSED
from .engines.k6 import K6
from .engines.loadgen import Loadgen
from .figures import figures_from, figures_of
from .flames import COLUMNS, bare, category_of, read_collapsed
from .jobrun import BEGIN as LOADGEN_RUN
from .jobrun import read as loadgen_run
from .loads import MODES, Load, Scale, Suite, k6_mode
from .plan import planned_seconds, suite_modes
from .profiler import CPU_INTERVAL_NS, JVM_FLAGS, Profiler
from .profiles import suites
from .progress import Progress
from .report import finish, machine, run_meta
from .rounds import measure
from .runner import Sampler, split_figures
from .runners import RESUME, merged_run, resume_all, runner_file
from .settings import RunSettings
from .target import ServiceUnderTest
from .verdict import interval
from .workloads import MODULES, product, sleep

__all__ = [
    "COLUMNS",
    "K6",
    "Loadgen",
    "CPU_INTERVAL_NS",
    "JVM_FLAGS",
    "LOADGEN_RUN",
    "MODES",
    "MODULES",
    "Profiler",
    "Progress",
    "RESUME",
    "RunSettings",
    "Load",
    "Sampler",
    "Scale",
    "ServiceUnderTest",
    "Suite",
    "THRESHOLDS_CROSSED",
    "bare",
    "category_of",
    "figures_from",
    "figures_of",
    "finish",
    "interval",
    "k6_mode",
    "loadgen_run",
    "machine",
    "measure",
    "merged_run",
    "planned_seconds",
    "product",
    "read_collapsed",
    "resume_all",
    "run_meta",
    "runner_file",
    "sleep",
    "split_figures",
    "suite_modes",
    "suites",
]
