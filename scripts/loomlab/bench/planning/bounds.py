"""Little's law and the bounds built on it: the most a number of requests in flight can complete a
second, over a ramping closed model, and for the slowest of parallel uniform waits (the product's
fan-out); a run's efficiency is its throughput against its bound."""

from __future__ import annotations

import math
from collections.abc import Sequence


def littles_bound(concurrency: float, latency_s: float) -> float:
    """Most requests per second `concurrency` requests in flight can complete when each takes
    `latency_s`: throughput <= concurrency / latency."""
    if latency_s <= 0:
        return math.inf
    return concurrency / latency_s


def stages_bound(
    stages: Sequence[tuple[float, float]], per_vu_rate: float, cap: float = math.inf, start_vus: float = 0.0
) -> float:
    """Little's law over a ramping closed model: the time average of min(VUs(t) x per_vu_rate, cap).

    `stages` are (seconds, target VUs) with linear ramps between targets, as k6 ramping-vus runs
    them; `per_vu_rate` is 1 / latency; `cap` the most a bounded pool can complete per second.
    """
    total_t, area, vus = 0.0, 0.0, start_vus
    for seconds, target in stages:
        steps = max(1, int(seconds * 20))
        for i in range(steps):
            v = vus + (target - vus) * (i + 0.5) / steps
            area += min(v * per_vu_rate, cap) * seconds / steps
        total_t += seconds
        vus = target
    return area / total_t if total_t else math.nan


def uniform_max_cdf(x: float, ranges: list[tuple[float, float]]) -> float:
    """P(max of independent uniforms U(a, b) <= x)."""
    p = 1.0
    for a, b in ranges:
        p *= 0.0 if x <= a else 1.0 if x >= b or b <= a else (x - a) / (b - a)
    return p


def expected_max(ranges: list[tuple[float, float]], steps: int = 20000) -> float:
    """E[max] of independent uniforms: the integral of 1 - F(x) from 0 to the largest bound."""
    hi = max(b for _, b in ranges)
    dx = hi / steps
    return sum((1 - uniform_max_cdf((i + 0.5) * dx, ranges)) * dx for i in range(steps))


def max_quantile(ranges: list[tuple[float, float]], q: float) -> float:
    """The q-quantile of the max of independent uniforms, by bisection."""
    lo, hi = 0.0, max(b for _, b in ranges)
    for _ in range(60):
        mid = (lo + hi) / 2
        if uniform_max_cdf(mid, ranges) < q:
            lo = mid
        else:
            hi = mid
    return hi


def efficiency(throughput: float, bound: float) -> float:
    if not bound or math.isinf(bound) or math.isnan(bound):
        return math.nan
    return throughput / bound
