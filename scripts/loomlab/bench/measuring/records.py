"""The shapes a run's figures travel in, typed: one run's figures, a mode's runs, a load's section
(what the report prints) and results.json (what --compare and the charts read back), with the
schema version results.json carries. Standard library only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict, cast

from loomlab import LabError

# results.json's shape. 2: "schema" itself, and sections as below. --compare reads only its own.
SCHEMA_VERSION = 2

# The keys of a section that are tables (loomlab.table.Table): printed, never written to results.json.
TABLES = (
    "table",
    "server",
    "reference",
    "knobs",
    "summary",
    "runners",
    "replicas",
    "flames",
    "frames_cpu",
    "frames_alloc",
)


class RunFigures(TypedDict, total=False):
    """One k6 run: k6's figures (req/s, latency percentiles in ms, errors, dropped arrivals), the
    server's peaks and deltas over the run (peak_*, delta_*, cpu_s), the load's own trends."""

    requests: float
    throughput: float
    mean: float
    p50: float
    p90: float
    p95: float
    p99: float
    max: float
    error_rate: float
    dropped: float
    connections: float  # the connections the generator opened (loadgen)
    cpu_s: float
    cpu_ms_per_req: float
    k6_cpu_s: float  # k6's own CPU seconds (local runs before 2026-11-28; gen_cpu_s since)
    gen_cpu_s: float  # the load generator's own CPU seconds (local runs: it shares the cores)
    engine: str  # the engine that drove the run: loadgen or k6 (bench.engines)
    k6_exit: int  # the generator's exit: 99 where a threshold was crossed (k6's code, kept by every engine)
    wall_s: float


class ModeResults(TypedDict, total=False):
    runs: list[RunFigures]  # the measured rounds, in order
    warmup: dict[str, Any]  # what the warm-up did (runs, seconds, settled)
    first_run: str  # the first measured run's summary file (its /q/metrics samples beside it)
    # One more run with async-profiler attached, not counted (bench.flames): its figures, its CPU and
    # allocation per request by category and frame, its flame graphs.
    profiled: dict[str, Any]
    # Pins since the JVM started, by the first frame outside the JDK (runs on several JDKs: jdks.py).
    pin_sites: dict[str, float]


class Section(TypedDict, total=False):
    """One load of one suite, measured in every mode it has."""

    workload: str
    variant: str
    load: str
    environment: str
    jdk: int  # the JDK of its JVMs, where one run compared JDKs (bench/reporting/jdks.py)
    description: str
    script: str
    env: dict[str, str]
    server_env: dict[str, str]
    pools: dict[str, Any]
    interleaved: bool
    ratio: str
    results: dict[str, ModeResults]
    expected: dict[str, float]
    bounds: dict[str, float]
    rate: float | None
    failed: list[str]
    # deciding.verdict.Verdict.record(): decided once, by the rounds that ran the load (absent: fewer than 2 modes)
    verdict: dict[str, Any]
    # a capacity search's SLA and options (bench/reporting/capacity.py); its runs carry "offered" and "step"
    capacity: dict[str, Any]


class Results(TypedDict):
    schema: int
    meta: dict[str, Any]
    sections: list[Section]


def results_of(meta: dict, sections: list[dict]) -> Results:
    """results.json's content: the meta and every section without its printed tables."""
    kept: list[Section] = [{k: v for k, v in s.items() if k not in TABLES} for s in sections]  # type: ignore[misc]
    return {"schema": SCHEMA_VERSION, "meta": meta, "sections": kept}


def read_results(folder: Path) -> Results:
    """A report folder's results.json, refused when there is none or its schema is not this harness's."""
    path = folder / "results.json"
    if not path.is_file():
        raise LabError(f"{path}: no such file (a run's folder holds one: target/loom-lab/<run>, docs/results/<run>)")
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or "sections" not in data:
        raise LabError(
            f"{folder / 'results.json'}: not a bench run's results (./lab startup and ./lab k8s starts write"
            " their own, whose pages are their report)"
        )
    schema = data.get("schema", 1)
    if schema != SCHEMA_VERSION:
        raise LabError(
            f"{folder / 'results.json'}: schema {schema}, this harness reads {SCHEMA_VERSION}"
            " (rerun the bench, or compare with the harness that wrote it)"
        )
    return cast(Results, data)
