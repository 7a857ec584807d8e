"""What a case cost the service, read from its own /q/metrics: the process's CPU and the records it
counted as written, before and after; the heap in use, sampled every 0.1 s while the case runs (a
sampled peak: a spike between two scrapes is missed, and each scrape costs the service a little)."""

from __future__ import annotations

import math
import threading
import urllib.request
from dataclasses import dataclass
from types import TracebackType

from loomlab.metrics import parse, value

HEAP: tuple[str, dict[str, str]] = ("jvm_memory_used_bytes", {"area": "heap"})
CPU: tuple[str, dict[str, str]] = ("process_cpu_time_ns_total", {})
RECORDS: tuple[str, dict[str, str]] = ("loomlab_ingest_records_total", {})
EVERY_S = 0.1


@dataclass(frozen=True)
class Cost:
    cpu_s: float
    heap_peak_mib: float
    records_before: float
    records_after: float


def scrape(base: str) -> dict[str, float]:
    """CPU (ns), heap in use (bytes) and records written (0 before the first write) now."""
    with urllib.request.urlopen(base + "/q/metrics", timeout=10) as r:
        samples = parse(r.read().decode())
    records = value(samples, *RECORDS)
    return {
        "cpu": value(samples, *CPU),
        "heap": value(samples, *HEAP),
        "records": 0.0 if math.isnan(records) else records,
    }


class Watch:
    """`with Watch(base) as w: ...` then `w.cost`: what the block cost the service."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.peak = 0.0
        self.before: dict[str, float] = {}
        self.cost = Cost(math.nan, math.nan, math.nan, math.nan)
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(EVERY_S):
            try:
                self.peak = max(self.peak, scrape(self.base)["heap"])
            except OSError:
                continue  # the service busy past the scrape's timeout: the next sample tries again

    def __enter__(self) -> Watch:
        self.before = scrape(self.base)
        self.peak = self.before["heap"]
        self._sampler.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._sampler.join()
        after = scrape(self.base)
        self.peak = max(self.peak, after["heap"])
        self.cost = Cost(
            (after["cpu"] - self.before["cpu"]) / 1e9,
            self.peak / (1 << 20),
            self.before["records"],
            after["records"],
        )
