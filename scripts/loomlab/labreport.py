"""The arithmetic of loom-lab's reports, kept apart from the runner so it can be tested on fixed
inputs: figures out of k6 summaries and /q/metrics scrapes, Little's-law bounds, medians with
their spread, ratios, and the tables that print them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

# --------------------------------------------------------------------------------------------
# k6 summaries
# --------------------------------------------------------------------------------------------


def _metric(summary: dict, name: str, scenario: str | None):
    metrics = summary.get("metrics", {})
    if scenario and f"{name}{{scenario:{scenario}}}" in metrics:
        return metrics[f"{name}{{scenario:{scenario}}}"]
    return metrics.get(name)


def _values(summary: dict, name: str, scenario: str | None) -> dict:
    m = _metric(summary, name, scenario)
    return (m or {}).get("values", {})


# A gRPC chunk stream's figures (k6/ingest-grpc.js), read where an HTTP script's are: one "request"
# is a chunk, from its write to its acknowledgement (k6/lib/lab.js STREAM_METRICS).
STREAM_METRICS = {
    "http_req_duration": "loomlab_chunk_duration",
    "http_reqs": "loomlab_chunks",
    "http_req_failed": "loomlab_chunk_failed",
}


def k6_figures(summary: dict, scenario: str) -> dict:
    """The figures of one k6 run, from its raw handleSummary() data."""
    names = STREAM_METRICS if _values(summary, "loomlab_chunks", scenario) else {n: n for n in STREAM_METRICS}
    d = _values(summary, names["http_req_duration"], scenario)
    reqs = _values(summary, names["http_reqs"], scenario)
    failed = _values(summary, names["http_req_failed"], scenario)
    sq = _values(summary, "loomlab_req_duration_sq", None)
    dropped = _values(summary, "dropped_iterations", None)
    count = reqs.get("count", 0)
    mean = d.get("avg", math.nan)
    duration_s = summary.get("state", {}).get("testRunDurationMs", math.nan) / 1000.0
    # k6's rate divides by the whole run, setup() included; the lab's setup waits for the service
    # (and, where NetworkPolicies are enforced, for the engine to admit a new k6 pod), so the rate
    # of the load is over the run less the setup the script measured (k6/lib/lab.js requireReady).
    setup = (summary.get("setup_data") or {}).get("setup", {})
    setup_s = setup.get("ms", 0.0) / 1000.0
    load_s = duration_s - setup_s
    return {
        "requests": count,
        "throughput": count / load_s if setup and load_s > 0 else reqs.get("rate", 0.0),
        "setup_s": setup_s,
        "setup_probes": setup.get("probes", 0),
        "mean": mean,
        "sd": std_dev(sq.get("count"), mean, d.get("count", count)),
        "min": d.get("min", math.nan),
        "p50": d.get("med", math.nan),
        "p90": d.get("p(90)", math.nan),
        "p95": d.get("p(95)", math.nan),
        "p99": d.get("p(99)", math.nan),
        "max": d.get("max", math.nan),
        "error_rate": failed.get("rate", 0.0),
        "dropped": dropped.get("count", 0),
        "duration_s": duration_s,
    }


def std_dev(sum_of_squares, mean, count) -> float:
    """Population standard deviation from the sum of squares, the mean and the count."""
    if not count or sum_of_squares is None or mean is None or math.isnan(mean):
        return math.nan
    return math.sqrt(max(0.0, sum_of_squares / count - mean * mean))


# --------------------------------------------------------------------------------------------
# Little's law
# --------------------------------------------------------------------------------------------


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


def nearest_rank(values: Sequence[float], p: float) -> float:
    """The smallest value with at least p % of the values at or below it (loadgen's definition of a
    percentile); NaN for no values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)] if ordered else math.nan


def rotated(items: Sequence[T], i: int) -> list[T]:
    """The order of round i when every round runs each item once: shifted by one every round, so each
    leads in turn and drift reaches every item alike (the bench's rounds, start-up's launches)."""
    k = i % len(items) if items else 0
    return [*items[k:], *items[:k]]


def settled(previous: float, current: float, tolerance: float) -> bool:
    """True when two successive warm-up figures differ by less than `tolerance` (a fraction)."""
    if math.isnan(previous) or math.isnan(current) or not previous:
        return False
    return abs(current - previous) / previous < tolerance


def open_kept_up(dropped: float, error_rate: float, max_error_rate: float = 0.01) -> bool:
    """An open-model run kept up when it dropped no arrival and (almost) none failed: dropped
    arrivals or errors are the open model's failure signal."""
    return dropped <= 0 and error_rate < max_error_rate


def above_bound(rate: float, bound: float) -> bool:
    """Arrivals faster than a mode's Little's-law bound (unknown bound: never above)."""
    return not math.isnan(bound) and rate > bound


def open_verdict(rate: float, bound: float, dropped: float, error_rate: float, max_error_rate: float = 0.01) -> str:
    """How one mode took an open-model load. Above this mode's Little's-law bound (`bound`, before
    capping by the rate) drops and errors are the expected overload, below it a failure."""
    failed = not open_kept_up(dropped, error_rate, max_error_rate)
    above = above_bound(rate, bound)
    if failed:
        return "overloaded (rate above its bound)" if above else "FAILED below its bound"
    return "held (above its bound)" if above else "held"


def fmt_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def ratio(a: float, b: float) -> float:
    if not b or math.isnan(a) or math.isnan(b):
        return math.nan
    return a / b


# --------------------------------------------------------------------------------------------
# Repeats: medians and spread
# --------------------------------------------------------------------------------------------


@dataclass
class Spread:
    median: float
    low: float
    high: float
    n: int

    @staticmethod
    def of(values) -> Spread:
        vals = [v for v in values if v is not None and not math.isnan(v)]
        if not vals:
            return Spread(math.nan, math.nan, math.nan, 0)
        return Spread(statistics.median(vals), min(vals), max(vals), len(vals))


def aggregate(runs: Sequence[Mapping[str, Any]]) -> dict[str, Spread]:
    keys = sorted({k for r in runs for k, v in r.items() if isinstance(v, int | float)})
    return {k: Spread.of([r.get(k, math.nan) for r in runs]) for k in keys}


# --------------------------------------------------------------------------------------------
# What a scrape of the service's /q/metrics keeps (loomlab.metrics parses it)
# --------------------------------------------------------------------------------------------


def nansum(*values: float) -> float:
    """The sum of the values that are numbers; NaN if none is."""
    real = [v for v in values if not math.isnan(v)]
    return sum(real) if real else math.nan


def nanmax(*values: float) -> float:
    """The largest of the values that are numbers; NaN if none is."""
    real = [v for v in values if not math.isnan(v)]
    return max(real) if real else math.nan


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def fmt(v, digits=1, unit="") -> str:
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "-"
    if isinstance(v, str):
        return v
    if digits == 0:
        return f"{v:,.0f}{unit}"
    return f"{v:,.{digits}f}{unit}"


def fmt_spread(s: Spread, digits=1, unit="") -> str:
    if not s.n:
        return "-"
    if s.n == 1 or s.low == s.high:
        return fmt(s.median, digits, unit)
    return f"{fmt(s.median, digits, unit)} ({fmt(s.low, digits)}-{fmt(s.high, digits)})"


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""  # a line under the table (what it adds up to), where it has one

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        out = ["| " + " | ".join(self.headers) + " |", "|" + "|".join("---" for _ in self.headers) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(out + (["", self.note] if self.note else []))

    def text(self) -> str:
        widths = [
            max(len(h), *(len(r[i]) for r in self.rows)) if self.rows else len(h) for i, h in enumerate(self.headers)
        ]

        def line(cells):
            return "  ".join(
                c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
            )

        lines = [line(self.headers), line(["-" * w for w in widths])] + [line(r) for r in self.rows]
        return "\n".join(lines + ([self.note] if self.note else []))
