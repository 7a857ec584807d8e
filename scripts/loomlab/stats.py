"""The statistics every report and verdict shares: medians with their spread over repeated runs,
percentiles by nearest rank, ratios and sums that keep NaN for a figure not measured, and the
rotated order of interleaved rounds. Standard library only: the loadgen image's runner uses it."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def std_dev(sum_of_squares, mean, count) -> float:
    """Population standard deviation from the sum of squares, the mean and the count."""
    if not count or sum_of_squares is None or mean is None or math.isnan(mean):
        return math.nan
    return math.sqrt(max(0.0, sum_of_squares / count - mean * mean))


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


def ratio(a: float, b: float) -> float:
    if not b or math.isnan(a) or math.isnan(b):
        return math.nan
    return a / b


def nansum(*values: float) -> float:
    """The sum of the values that are numbers; NaN if none is."""
    real = [v for v in values if not math.isnan(v)]
    return sum(real) if real else math.nan


def nanmax(*values: float) -> float:
    """The largest of the values that are numbers; NaN if none is."""
    real = [v for v in values if not math.isnan(v)]
    return max(real) if real else math.nan


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


def median_of(agg: Mapping[str, Spread], key: str) -> float:
    """The median of `key` in an aggregate (NaN where no run has it)."""
    return agg[key].median if key in agg else math.nan


def aggregate(runs: Sequence[Mapping[str, Any]]) -> dict[str, Spread]:
    keys = sorted({k for r in runs for k, v in r.items() if isinstance(v, int | float)})
    return {k: Spread.of([r.get(k, math.nan) for r in runs]) for k in keys}
