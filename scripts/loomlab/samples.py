"""The figures a run keeps from the service's /q/metrics scrapes: which metrics (loomlab.metrics
picks them out of each scrape), a Deployment's pods added up, and a run's peaks and deltas.
Standard library only: the k6 image's answer Job computes the same figures."""

from __future__ import annotations

import math

from loomlab.stats import nanmax, nansum

# What each scrape keeps: (key, metric, labels). Counters are reported as deltas over the run,
# gauges as their peak.
SAMPLED_GAUGES = [
    ("live_threads", "jvm_threads_live_threads", {}),
    ("in_flight", "http_server_active_requests", {}),
    ("rss_bytes", "process_resident_memory_bytes", {}),
    ("heap_used_bytes", "jvm_memory_used_bytes", {"area": "heap"}),
    ("worker_active", "executor_active_threads", {"name": "quarkus-worker"}),
    ("worker_queued", "executor_queued_tasks", {"name": "quarkus-worker"}),
    ("db_active", "agroal_active_count", {}),
    ("db_awaiting", "agroal_awaiting_count", {}),
    # Threaded requests wait for a permit in front of Agroal (the bulkhead), the reactive ones in
    # the reactive pool's bulkhead: who waits now.
    ("bulkhead_waiting", "loomlab_db_bulkhead_waiting", {}),
    ("rx_db_awaiting", "loomlab_reactive_pool_waiting", {}),
    # One request's waits, split by queue and drawn from one budget (loomlab.execution.max-wait):
    # a thread, a connection permit (threaded), the reactive bulkhead. Only one mode runs per JVM,
    # so the sum over the mode tag is that mode's.
    ("thread_wait_max_s", "loomlab_execution_wait_seconds_max", {"queue": "thread"}),
    ("permit_wait_max_s", "loomlab_execution_wait_seconds_max", {"queue": "permit"}),
    ("bulkhead_wait_max_s", "loomlab_execution_wait_seconds_max", {"queue": "bulkhead"}),
    # Reading and parsing a request's body: its own work, kept out of the budget.
    ("body_read_max_s", "loomlab_execution_body_read_seconds_max", {}),
]
SAMPLED_COUNTERS: list[tuple[str, str, dict[str, str]]] = [
    ("cpu_ns", "process_cpu_time_ns_total", {}),
    ("gc_pause_s", "jvm_gc_pause_seconds_sum", {}),
    ("gc_pauses", "jvm_gc_pause_seconds_count", {}),
    ("pinned", "jvm_threads_virtual_pinned_seconds_count", {}),
    # Every pin, however short (the service's own JFR stream; micrometer's above counts those > 20 ms).
    ("pinned_events", "loomlab_virtual_pinned_events_total", {}),
    ("submit_failed", "jvm_threads_virtual_submit_failed_total", {}),
    # Bytes the JVM allocated (the heap's young generation), and scratch buffers allocated because
    # none could be reused (the buffers workload, both caches).
    ("alloc_bytes", "jvm_gc_memory_allocated_bytes_total", {}),
    ("buffers_allocated", "loomlab_buffers_allocated_total", {}),
]
# Read from /proc beside each scrape where the bench started the process (local runs: bench/measuring/procstat.py),
# not from /q/metrics: the kernel's share of the process' CPU (syscalls, the network stack's work
# done on its behalf), which the service's own counter holds with the rest; and its threads' context
# switches (each a thread put to sleep or preempted: what a wake-up costs is paid per switch).
PROC_COUNTERS = ("cpu_system_ns", "ctx_switches")


def combined_sample(samples: list[dict]) -> dict:
    """One scrape of several pods of a Deployment: the sum over them (threads, RSS, CPU, queues),
    but the longest wait for a `_max_s` figure (a wait is one request's, not a total)."""
    keys = {k for s in samples for k in s}
    return {k: (nanmax if k.endswith("_max_s") else nansum)(*(s.get(k, math.nan) for s in samples)) for k in keys}


def server_figures(samples: list[dict]) -> dict:
    """Server-side evidence of one run from its scrapes (first before the load, last after)."""
    if len(samples) < 2:
        return {}
    first, last = samples[0], samples[-1]
    out = {f"peak_{key}": nanmax(*(s.get(key, math.nan) for s in samples)) for key, _, _ in SAMPLED_GAUGES}
    for key in [k for k, _, _ in SAMPLED_COUNTERS] + list(PROC_COUNTERS):
        out[f"delta_{key}"] = last.get(key, math.nan) - first.get(key, math.nan)
    out["cpu_s"] = out.pop("delta_cpu_ns") / 1e9
    return out
