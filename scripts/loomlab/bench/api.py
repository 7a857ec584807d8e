"""The bench's public interface: what another driver of the same comparison (the in-cluster
runner, loomlab.incluster) builds on. Everything else in loomlab.bench is the bench's own and may
change; tests/test_layering.py holds every other package to these names."""

from __future__ import annotations

from .figures import figures_of
from .loads import MODES, Load, Scale, Suite, k6_mode
from .plan import planned_seconds, suite_modes
from .profiles import suites
from .progress import Progress
from .report import finish, machine, run_meta
from .rounds import measure
from .runner import Sampler, split_figures
from .runners import RESUME, merged_run, resume_all, runner_file
from .settings import RunSettings
from .target import ServiceUnderTest
from .verdict import interval
from .workloads import product, sleep

__all__ = [
    "MODES",
    "Progress",
    "RESUME",
    "RunSettings",
    "Load",
    "Sampler",
    "Scale",
    "ServiceUnderTest",
    "Suite",
    "figures_of",
    "finish",
    "interval",
    "k6_mode",
    "machine",
    "measure",
    "merged_run",
    "planned_seconds",
    "product",
    "resume_all",
    "run_meta",
    "runner_file",
    "sleep",
    "split_figures",
    "suite_modes",
    "suites",
]
