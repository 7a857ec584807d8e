"""A run's figures from its generator's (k6's summary, or another engine's figures) and the server's
scrapes: what every report, verdict and k6 Job's answer reads. Standard library only: the lab's k6
image runs it beside k6."""

from __future__ import annotations

import math

from loomlab import stats
from loomlab.samples import server_figures

from ..planning.loads import Load


def _values(summary: dict, name: str, scenario: str | None) -> dict:
    metrics, scoped = summary.get("metrics", {}), f"{name}{{scenario:{scenario}}}"
    m = metrics[scoped] if scenario and scoped in metrics else metrics.get(name)
    return (m or {}).get("values", {})


# A gRPC chunk stream's figures (k6/ingest-grpc.js), read where an HTTP script's are: one "request"
# is a chunk, from its write to its acknowledgement (k6/lib/lab.js STREAM_METRICS).
STREAM_METRICS = {
    "http_req_duration": "loomlab_chunk_duration",
    "http_reqs": "loomlab_chunks",
    "http_req_failed": "loomlab_chunk_failed",
}

# k6's trend statistics (summaryTrendStats) by the figure each is kept as.
TREND_STATS = {"min": "min", "med": "p50", "p(90)": "p90", "p(95)": "p95", "p(99)": "p99", "max": "max"}


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
        "sd": stats.std_dev(sq.get("count"), mean, d.get("count", count)),
        **{key: d.get(stat, math.nan) for stat, key in TREND_STATS.items()},
        "error_rate": failed.get("rate", 0.0),
        "dropped": dropped.get("count", 0),
        "duration_s": duration_s,
    }


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


def open_throughput(load: Load, figures: dict) -> dict:
    """An open run that kept up: its throughput is the arrival rate it took, requests per second of
    arrivals. k6's own rate also divides by the drain after the last arrival, when nothing arrives
    (10 % of a 4 s run). An overloaded run keeps k6's rate: the service was busy through the drain too."""
    if load.open_s and open_kept_up(figures["dropped"], figures["error_rate"]):
        figures["k6_rate"] = figures["throughput"]
        figures["throughput"] = figures["requests"] / load.open_s
    return figures


def k6_generated(load: Load, summary: dict) -> dict:
    """k6's figures of a run: its summary's, and the load's own counters and trends."""
    figures = k6_figures(summary, load.scenario)
    metrics = summary.get("metrics", {})
    for metric, _, stat in load.extra + load.extra_report:
        figures[metric] = metrics.get(metric, {}).get("values", {}).get(stat, math.nan)
    for counter in load.counters:
        values = metrics.get(counter, {}).get("values", {})
        figures[f"{counter}_count"] = values.get("count", 0)
        figures[f"{counter}_rate"] = values.get("rate", 0.0)
    return figures


def figures_from(load: Load, generated: dict, samples: list[dict], exit_code: int, took: float) -> dict:
    """A run's figures: the generator's (any engine's), the server's samples, and what both give."""
    figures = dict(generated)
    figures.update(server_figures(samples))
    if load.served:
        # Every answer's rate stays beside it; req/s is what the bound limits: the work done.
        figures["answers_per_s"] = figures["throughput"]
        figures["throughput"] = figures[f"{load.served}_rate"]
    if "loomlab_records" in load.counters:
        figures["records_per_s"] = figures["loomlab_records_rate"]
        # The service's CPU per 1,000 records written: what a transport costs the server.
        records = figures["loomlab_records_count"]
        figures["cpu_ms_per_1k_records"] = figures.get("cpu_s", math.nan) * 1e6 / records if records else math.nan
    open_throughput(load, figures)
    if "runner_figures" in figures:
        figures["runner_figures"] = [open_throughput(load, f) for f in figures["runner_figures"]]
    # The server's CPU per request answered: what the reference and knob tables pair round by round.
    figures["cpu_ms_per_req"] = stats.ratio(figures.get("cpu_s", math.nan) * 1000, figures["requests"])
    # Of which the kernel's, where /proc was read beside the scrapes (local runs).
    figures["kernel_ms_per_req"] = stats.ratio(figures.get("delta_cpu_system_ns", math.nan) / 1e6, figures["requests"])
    # And the server's threads' context switches per request (the same local runs).
    figures["switches_per_req"] = stats.ratio(figures.get("delta_ctx_switches", math.nan), figures["requests"])
    # The generator's exit: THRESHOLDS_CROSSED (99, k6's code, which every engine keeps) or 0.
    figures["k6_exit"] = exit_code
    figures["wall_s"] = took
    return figures
