"""A run's figures from its generator's (k6's summary, or another engine's figures) and the server's
scrapes: what every report, verdict and k6 Job's answer reads. Standard library only: the lab's k6
image runs it beside k6."""

from __future__ import annotations

import math

from loomlab import labreport as lr
from loomlab.samples import server_figures

from ..planning.loads import Load


def open_throughput(load: Load, figures: dict) -> dict:
    """An open run that kept up: its throughput is the arrival rate it took, requests per second of
    arrivals. k6's own rate also divides by the drain after the last arrival, when nothing arrives
    (10 % of a 4 s run). An overloaded run keeps k6's rate: the service was busy through the drain too."""
    if load.open_s and lr.open_kept_up(figures["dropped"], figures["error_rate"]):
        figures["k6_rate"] = figures["throughput"]
        figures["throughput"] = figures["requests"] / load.open_s
    return figures


def k6_generated(load: Load, summary: dict) -> dict:
    """k6's figures of a run: its summary's, and the load's own counters and trends."""
    figures = lr.k6_figures(summary, load.scenario)
    metrics = summary.get("metrics", {})
    for metric, _, stat in load.extra + load.extra_report:
        figures[metric] = metrics.get(metric, {}).get("values", {}).get(stat, math.nan)
    for counter in load.counters:
        values = metrics.get(counter, {}).get("values", {})
        figures[f"{counter}_count"] = values.get("count", 0)
        figures[f"{counter}_rate"] = values.get("rate", 0.0)
    return figures


def figures_of(load: Load, summary: dict, samples: list[dict], k6_exit: int, took: float) -> dict:
    """A k6 run's figures from its summary and the server's samples (the in-cluster runner's)."""
    return figures_from(load, k6_generated(load, summary), samples, k6_exit, took)


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
    figures["cpu_ms_per_req"] = lr.ratio(figures.get("cpu_s", math.nan) * 1000, figures["requests"])
    # Of which the kernel's, where /proc was read beside the scrapes (local runs).
    figures["kernel_ms_per_req"] = lr.ratio(figures.get("delta_cpu_system_ns", math.nan) / 1e6, figures["requests"])
    # And the server's threads' context switches per request (the same local runs).
    figures["switches_per_req"] = lr.ratio(figures.get("delta_ctx_switches", math.nan), figures["requests"])
    # The generator's exit: THRESHOLDS_CROSSED (99, k6's code, which every engine keeps) or 0.
    figures["k6_exit"] = exit_code
    figures["wall_s"] = took
    return figures
