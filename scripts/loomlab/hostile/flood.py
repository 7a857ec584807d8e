"""Liveness while an endpoint is flooded: `clients` threads send one request after another to it for
`seconds` (and at most `most` requests each), while a probe asks /q/health/live every 0.2 s. The
kubelet restarts a pod whose liveness probe is not answered within its timeout (1 s by default);
the lab asks for 100 ms."""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from loomlab.hostile.cases import Row
from loomlab.hostile.client import Answer, get, post
from loomlab.hostile.watch import Watch

LIVE_WITHIN_S = 0.1
PROBE_EVERY_S = 0.2


@dataclass(frozen=True)
class Flood:
    name: str
    path: str
    body: Callable[[], bytes] | None
    clients: int


def probe(base: str, stop: threading.Event, seconds: list[float], statuses: Counter[int]) -> None:
    while not stop.wait(PROBE_EVERY_S):
        answer = get(base + "/q/health/live", timeout=5)
        seconds.append(answer.seconds)
        statuses[answer.status] += 1


def flood(base: str, case: Flood, duration_s: float, most: int = 100_000) -> Row:
    body = case.body() if case.body else None
    deadline = time.monotonic() + duration_s
    answered: Counter[int] = Counter()
    lock = threading.Lock()

    def client(_: int) -> None:
        for _ in range(most):
            if time.monotonic() >= deadline:
                return
            a: Answer = post(base + case.path, body) if body is not None else get(base + case.path)
            with lock:
                answered[a.status] += 1

    probes: list[float] = []
    live: Counter[int] = Counter()
    stop = threading.Event()
    prober = threading.Thread(target=probe, args=(base, stop, probes, live), daemon=True)
    with Watch(base) as watch:
        prober.start()
        with ThreadPoolExecutor(case.clients) as pool:
            list(pool.map(client, range(case.clients)))
        stop.set()
        prober.join()
    slowest = max(probes) if probes else float("inf")
    p50 = statistics.median(probes) if probes else float("inf")
    ok = bool(probes) and set(live) == {200} and slowest <= LIVE_WITHIN_S
    said = ", ".join(f"{n} x {s}" for s, n in sorted(answered.items()))
    request = f"{case.clients} clients on {case.path} for {duration_s:.0f} s ({said})"
    answer = f"live {len(probes)} probes {'/'.join(map(str, sorted(live)))}, median {p50 * 1000:.0f} ms"
    return Row("liveness", case.name, request, answer, slowest, watch.cost, ok)


def floods(empty_skills: Callable[[], bytes]) -> list[Flood]:
    return [
        Flood("worker sleep flooded", "/api/worker/sleep?ms=100", None, 64),
        Flood("virtual sleep flooded", "/api/virtual/sleep?ms=100", None, 64),
        Flood("virtual-loop sleep flooded", "/api/virtual-loop/sleep?ms=100", None, 64),
        Flood("reactive sleep flooded", "/api/reactive/sleep?ms=100", None, 64),
        Flood("reactive batch of 50,000 violations flooded", "/api/reactive/recruits/batch", empty_skills, 8),
    ]
