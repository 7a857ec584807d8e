"""A long run's progress: how many loads are done, and the time left, from the plan's seconds
scaled by the pace measured so far (tqdm's meter: left = planned left x elapsed / planned done)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tqdm import tqdm

METER = "{percentage:3.0f}% of the plan |{bar:20}| {elapsed} elapsed, about {remaining} left"


@dataclass
class Progress:
    loads_total: int
    planned_total: float  # seconds of start-up, warm-up and least rounds the plan expects
    loads_done: int = 0
    planned_done: float = 0.0
    started: float = field(default_factory=time.monotonic)

    def tick(self, seconds: float) -> str:
        """Books `seconds` of the plan as done; the meter line (elapsed, and what is left)."""
        self.planned_done += seconds
        done = min(self.planned_done, self.planned_total)
        return tqdm.format_meter(
            done, self.planned_total, time.monotonic() - self.started, bar_format=METER, ascii=True
        )

    def label(self, i: int) -> str:
        """[n/total] of the load `i` past those done."""
        return f"[{self.loads_done + i + 1}/{self.loads_total}]"
