"""The skeleton of every run, local or in a cluster: the server under test scraped once before the
load generator's run, every sample period while it goes on and once after, the scrapes kept beside
the run's files. bench/runner.run_load wraps an engine's run in it; incluster/core/measure.py a
Job's, one runner's or a split's."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from .target import ServiceUnderTest

T = TypeVar("T")


class Sampler(threading.Thread):
    """Scrapes /q/metrics every `period` s while a run goes on (one scrape before, one after)."""

    def __init__(self, service: ServiceUnderTest, period: float):
        super().__init__(daemon=True)
        self.service, self.period = service, period
        self.samples: list[dict] = []
        self._done = threading.Event()

    def scrape(self):
        try:
            sample = self.service.sample()
            sample["t"] = time.time()
            self.samples.append(sample)
        except OSError:
            pass

    def run(self):
        while not self._done.wait(self.period):
            self.scrape()

    def finish(self) -> list[dict]:
        self._done.set()
        self.join()
        self.scrape()
        return self.samples


@dataclass(frozen=True)
class Sampled(Generic[T]):
    """What `run` gave, the server's scrapes around it, and its seconds."""

    result: T
    samples: list[dict]
    took: float


def sampled(service: ServiceUnderTest, period: float, out: Path, run: Callable[[], T]) -> Sampled[T]:
    """`run` with `service` scraped before, every `period` s during and after it (also when it
    fails); the scrapes written to <out>.metrics.jsonl, which the report's server-over-time charts read."""
    sampler = Sampler(service, period)
    sampler.scrape()  # once before the load
    sampler.start()
    started = time.monotonic()
    try:
        result = run()
    finally:
        samples = sampler.finish()
    took = time.monotonic() - started
    out.with_suffix(".metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return Sampled(result, samples, took)
