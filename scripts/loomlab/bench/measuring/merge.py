"""One load split over k6 runners (k6 execution segments), merged exactly.

k6 cannot merge distributed runners, and percentiles cannot be combined from per-runner
summaries. So each runner also writes its raw samples with k6's own CSV output, gzipped
(`--out csv=FILE.gz`, times in microseconds: K6_CSV_TIME_FORMAT=unix_micro), and the merge
rebuilds the summary k6 would have printed for all of them, in k6's own shape
(`metrics[name].values`, `state.testRunDurationMs`), so everything downstream reads it as it reads
one runner's:

- counters summed, rates (Rate metrics) over the union of the samples;
- every Trend statistic from the union of the samples, percentiles with k6's own interpolation;
- a counter's per-second rate over the union of the runners' windows (each from its first
  request's start, for its run's duration);
- every threshold the runners declared evaluated again on the merged values.

Only the metrics asked for are parsed, and only their Trend values are kept (8 bytes each): the
files are streamed, never loaded.
"""

from __future__ import annotations

import csv
import gzip
import math
import re
import zlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path

TIME_FORMAT = "unix_micro"  # what the runners' K6_CSV_TIME_FORMAT must be
BLOCK = 1 << 20  # bytes of decompressed CSV scanned at a time
REQUEST_TRENDS = ("http_req_duration", "loomlab_chunk_duration")  # their samples end a request
THRESHOLD = re.compile(
    r"^\s*(avg|min|max|med|count|rate|value|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|===|==|!=|<|>)\s*" r"(-?\d+(?:\.\d+)?)\s*$"
)


class MergeError(Exception):
    """A runner's samples are missing or unreadable: no merged figure may be reported."""


@dataclass
class Series:
    """One summary entry (a metric, or a sub-metric `name{tag:value,...}`) and what its samples add up to."""

    key: str
    kind: str  # k6's metric type: trend, counter, rate
    tags: dict
    values: array = field(default_factory=lambda: array("d"))
    total: float = 0.0
    samples: int = 0


def _has_extras(cols: list[str], at: int | None, wanted: dict) -> bool:
    """Whether a row's extra_tags column ('k=v&k2=v2') carries every wanted tag."""
    tagged = dict(kv.split("=", 1) for kv in cols[at].split("&") if "=" in kv) if at is not None else {}
    return all(tagged.get(k) == v for k, v in wanted.items())


def parse_key(key: str) -> tuple[str, dict]:
    """'http_req_duration{scenario:main,expected_response:true}' -> (name, tags)."""
    if "{" not in key:
        return key, {}
    name, _, rest = key.partition("{")
    tags = dict(part.split(":", 1) for part in rest.rstrip("}").split(",") if part)
    return name, tags


def percentile(ordered, p: float) -> float:
    """k6's Trend percentile: linear interpolation between the closest ranks of the sorted values."""
    n = len(ordered)
    if n == 0:
        return 0.0
    if n == 1:
        return ordered[0]
    i = p * (n - 1)
    low, high = ordered[math.floor(i)], ordered[math.ceil(i)]
    return low + (high - low) * (i - math.floor(i))


class RunnerFile:
    """One runner's CSV, streamed into the series it matches."""

    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path
        self.first_start_us: int | None = None

    def read(self, series: dict[str, list[Series]]):
        if not self.path.is_file():
            raise MergeError(f"runner {self.name}: no samples at {self.path} (the runner failed or never wrote them)")
        try:
            with gzip.open(self.path, "rb") as f:
                self._read(f, series)
        except (EOFError, OSError, zlib.error) as e:
            raise MergeError(f"runner {self.name}: {self.path} is truncated or not gzip ({e})") from e

    def _read(self, f, series: dict[str, list[Series]]):
        header = f.readline().decode().rstrip("\r\n").split(",")
        if header[:3] != ["metric_name", "timestamp", "metric_value"]:
            raise MergeError(f"runner {self.name}: {self.path} is not k6's CSV output (header {header[:3]})")
        at = {name: i for i, name in enumerate(header)}
        extra = at.get("extra_tags")
        # Per metric, each series' tag checks: (column, value) pairs, then tags of extra_tags.
        checks = {
            metric: [
                (
                    s,
                    [(at[k], v) for k, v in s.tags.items() if k in at],
                    {k: v for k, v in s.tags.items() if k not in at},
                )
                for s in targets
            ]
            for metric, targets in series.items()
        }
        # The rows of the wanted metrics, found by the regex engine: k6 writes about 13 rows a
        # request, and most belong to metrics no figure reads. Each block starts with the newline
        # that ends the row before it (a literal prefix the engine searches fast).
        rows = re.compile(rb"\n((?:" + b"|".join(re.escape(m.encode()) for m in series) + rb"),[^\n]*)")
        rest = b"\n"
        while True:
            block = f.read(BLOCK)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n")
            block, rest = block[:cut], block[cut:]
            self._rows(rows.finditer(block), checks, extra)
        self._rows(rows.finditer(rest + b"\n"), checks, extra)  # the last row, with or without its newline

    def _rows(self, matches, checks: dict, extra: int | None):
        """Adds each matched row to the series whose tags it carries (the loop every sample runs)."""
        first = self.first_start_us
        for match in matches:
            line = match.group(1).decode()
            cols = next(csv.reader([line])) if '"' in line else line.rstrip("\r").split(",")
            metric, value = cols[0], float(cols[2])
            for s, columns, extras in checks[metric]:
                for i, v in columns:
                    if cols[i] != v:
                        break
                else:
                    if extras and not _has_extras(cols, extra, extras):
                        continue
                    s.samples += 1
                    s.total += value
                    if s.kind == "trend":
                        s.values.append(value)
            if metric in REQUEST_TRENDS:
                start = self._micros(cols[1]) - int(value * 1000)
                if first is None or start < first:
                    first = start
        self.first_start_us = first

    def _micros(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise MergeError(
                f"runner {self.name}: {self.path} has time '{text}'; the runners must write "
                f"K6_CSV_TIME_FORMAT={TIME_FORMAT}"
            ) from None


def trend_values(ordered, stats) -> dict:
    n = len(ordered)
    out = {}
    for stat in stats:
        if stat == "avg":
            out[stat] = math.fsum(ordered) / n if n else 0.0
        elif stat == "min":
            out[stat] = ordered[0] if n else 0.0
        elif stat == "max":
            out[stat] = ordered[-1] if n else 0.0
        elif stat == "med":
            out[stat] = percentile(ordered, 0.5)
        elif stat == "count":
            out[stat] = n
        elif stat.startswith("p("):
            out[stat] = percentile(ordered, float(stat[2:-1]) / 100)
    return out


def holds(expression: str, values: dict, ordered) -> bool:
    """A k6 threshold expression ('p(99)<500', 'rate<0.01', 'count<=0') on merged values."""
    m = THRESHOLD.match(expression)
    if not m:
        raise MergeError(f"threshold '{expression}' is not one the merge can evaluate again")
    stat, p, op, bound = m.group(1), m.group(2), m.group(3), float(m.group(4))
    value = percentile(ordered, float(p) / 100) if p else values[stat]
    return {
        "<": value < bound,
        "<=": value <= bound,
        ">": value > bound,
        ">=": value >= bound,
        "==": value == bound,
        "===": value == bound,
        "!=": value != bound,
    }[op]


def merge(files: list[Path], summaries: list[dict], wanted: set[str]) -> dict:
    """The summary of all runners' samples for the metrics named in `wanted` (every sub-metric of
    theirs the runners' summaries hold), in k6's shape, with `runners` (each runner's own summary
    figures are in its summary) and `start_skew_s` beside it. MergeError when a runner is missing.
    Long because a merged summary has k6's own shape, built key by key for trends, counters and
    rates."""
    if not files or len(files) != len(summaries):
        raise MergeError(f"{len(files)} sample files for {len(summaries)} runner summaries")
    declared: dict[str, dict] = {}
    for summary in summaries:
        for key, metric in summary.get("metrics", {}).items():
            if parse_key(key)[0] in wanted:
                declared.setdefault(key, metric)
    series: dict[str, list[Series]] = {}
    by_key = {}
    for key, metric in declared.items():
        if metric.get("type") not in ("trend", "counter", "rate"):
            raise MergeError(f"{key} is a {metric.get('type')}; only trends, counters and rates merge")
        name, tags = parse_key(key)
        by_key[key] = Series(key, metric["type"], tags)
        series.setdefault(name, []).append(by_key[key])

    runners = [RunnerFile(f"{i}", path) for i, path in enumerate(files)]
    for runner in runners:
        runner.read(series)
        if runner.first_start_us is None:
            raise MergeError(f"runner {runner.name}: {runner.path} holds no request")
    starts = [r.first_start_us or 0 for r in runners]
    windows = [
        (start / 1e6, start / 1e6 + s["state"]["testRunDurationMs"] / 1000)
        for start, s in zip(starts, summaries, strict=False)
    ]
    window_s = max(end for _, end in windows) - min(start for start, _ in windows)

    metrics = {}
    for key, metric in declared.items():
        s = by_key[key]
        ordered = sorted(s.values) if s.kind == "trend" else ()
        if s.kind == "trend":
            values = trend_values(ordered, metric.get("values", {}).keys())
        elif s.kind == "counter":
            values = {"count": s.total, "rate": s.total / window_s if window_s > 0 else 0.0}
        else:
            values = {
                "rate": s.total / s.samples if s.samples else 0.0,
                "passes": s.total,
                "fails": s.samples - s.total,
            }
        entry = {"type": s.kind, "contains": metric.get("contains", "default"), "values": values}
        if metric.get("thresholds"):
            entry["thresholds"] = {e: {"ok": holds(e, values, ordered)} for e in metric["thresholds"]}
        metrics[key] = entry
    return {
        "metrics": metrics,
        "state": {"testRunDurationMs": window_s * 1000},
        "runners": len(runners),
        "start_skew_s": (max(starts) - min(starts)) / 1e6,
    }


def crossed(summary: dict) -> list[str]:
    """The thresholds a (merged) summary crossed, as 'metric: expression'."""
    return [
        f"{key}: {expr}"
        for key, m in summary.get("metrics", {}).items()
        for expr, result in m.get("thresholds", {}).items()
        if not result.get("ok", True)
    ]
