"""The load generators a run can be driven by, behind one seam: an Engine sends one load in one
column against a base URL and gives back the generator's figures (the keys of k6_figures)
and whether a threshold of the load was crossed. runner.run_load wraps any engine in the same
skeleton (the server sampled around the run, the generator's own CPU counted).

- loadgen (scripts/loadgen, a driver over vegeta's library and grpc-go, MIT and Apache-2.0): the
  lab's own, for every load (each declares its arrivals.Request);
- k6: what a user brings (`--engine k6`, or --k6 PATH): a k6 found on PATH, never one the lab
  installs or builds.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from loomlab import LabError

from ...planning.lane import Lane
from ...planning.loads import Load
from ...planning.settings import RunSettings

# What `--engine` takes: auto (loadgen where a load declares its request, else the user's k6), or one.
CHOICES = ("auto", "loadgen", "k6")
# A run's exit when the generator crossed one of the load's thresholds (k6's own code, kept by all).
THRESHOLDS_CROSSED = 99


@dataclass(frozen=True)
class Generated:
    """What a generator measured of one run: its figures, and 0 or THRESHOLDS_CROSSED."""

    figures: dict
    exit: int


class Engine(Protocol):
    @property
    def name(self) -> str:
        """The engine's short name, kept with every run it drove."""

    def version(self) -> str:
        """The engine and its version, as the report names it."""

    def prepare(self, load: Load, lane: Lane, warmup: bool) -> None:
        """What a run of `load` in `lane` needs made before its clock starts (a stream's bodies)."""

    def generate(
        self, load: Load, lane: Lane, base_url: str, out: Path, label: str, settings: RunSettings, warmup: bool
    ) -> Generated:
        """One run of `load` in `lane` against `base_url`; its files beside `out`."""


@dataclass
class Engines:
    """The engine of each load under one `--engine` choice; k6's binary is looked for on PATH only
    when a load needs it."""

    choice: str
    loadgen: str
    k6: str = ""
    _k6_engine: Engine | None = field(default=None, repr=False)

    def of(self, load: Load) -> Engine:
        from .k6 import K6
        from .loadgen import Loadgen

        if self.choice != "k6" and load.request is not None:
            return Loadgen(self.loadgen)
        if self.choice == "loadgen":
            raise LabError(f"{load.script}: loadgen cannot send this load yet; --engine k6 (your own k6) can")
        if self._k6_engine is None:
            self._k6_engine = K6(self.k6 or find_k6())
        return self._k6_engine

    def check(self, loads: list[Load]) -> list[Engine]:
        """The engines `loads` need, refusing up front a load the choice cannot send."""
        return list({e.name: e for e in (self.of(ld) for ld in loads)}.values())


def find_k6() -> str:
    """The user's own k6 on PATH: the lab never fetches, builds or ships k6 (AGPL-3.0)."""
    found = shutil.which("k6")
    if not found:
        raise LabError(
            "--engine k6 runs your own k6, and none is on PATH (the lab does not install it: it is AGPL-3.0);"
            " install it under your own licence (https://grafana.com/docs/k6/latest/set-up/install-k6/)"
            " or pass --k6 PATH, or use the lab's engine (--engine loadgen)"
        )
    return found
