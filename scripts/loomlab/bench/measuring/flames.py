"""Where the CPU and the allocations go in each mode: after a load's rounds, one more run per mode
with async-profiler attached (profiler.py), not counted in the verdict, and what the recordings say
per request: CPU by the profiler's categories (compiled and interpreted Java, GC, JIT, the JVM's
runtime, the kernel), and the frames whose CPU or bytes per request differ most between modes. The
profiler's own cost is the profiled run against the rounds' median, in the same table."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from loomlab.table import fmt

from ..planning.lane import Lane
from ..planning.loads import Load
from ..planning.settings import RunSettings
from .profiler import CPU_INTERVAL_NS, Profiler

# The converter's categories (--classify: the root frame of each CPU sample), as the table names
# them. C1/C2 compiled and interpreted frames are the application's and the libraries' Java code.
CATEGORIES = {
    "c2_comp": "Java",
    "c1_comp": "Java",
    "interpreter": "Java",
    "gc": "GC",
    "jit": "JIT",
    "vm": "JVM",
    "vtable_stubs": "JVM",
    "adapter": "JVM",
    "native": "native",
    "class_init": "classes",
    "class_load": "classes",
    "class_resolve": "classes",
    "class_verify": "classes",
    "lambda_init": "classes",
}
# A sample whose leaf runs in the kernel is the kernel's, whatever its category (syscalls: futex,
# epoll, nanosleep, the scheduler's wake-ups).
KERNEL = "kernel"
# Categories that are threads of their own (the compilers, the collectors), not the requests' path.
OWN_THREADS = ("JIT", "GC")
COLUMNS = ("Java", "GC", "JIT", "JVM", KERNEL, "native", "classes")
# A frame kept per mode in results.json: at least this share of the mode's CPU or bytes.
KEPT_SHARE = 0.005
SUFFIX = re.compile(r"_\[[a-z0-9]+\]$")


def wanted(settings: RunSettings, suite_workload: str, load: Load) -> bool:
    """Whether --flames (a regular expression) names this load, matched against 'workload load'."""
    pattern = settings.flames
    return bool(pattern) and re.search(pattern, f"{suite_workload} {load.name}") is not None


def read_collapsed(path: Path) -> list[tuple[list[str], int]]:
    """Collapsed stacks, root first: (frames, samples or bytes) per line."""
    stacks = []
    for line in path.read_text().splitlines():
        frames, _, count = line.rpartition(" ")
        if frames:
            stacks.append((frames.split(";"), int(count)))
    return stacks


def bare(frame: str) -> str:
    """A frame without the converter's type suffix (_[j] compiled, _[i] inlined, _[k] kernel, ...)."""
    return SUFFIX.sub("", frame)


def category_of(frames: list[str]) -> str:
    if frames[-1].endswith("_[k]"):
        return KERNEL
    root = bare(frames[0])
    if root.startswith("[") and root.endswith("]"):
        return CATEGORIES.get(root[1:-1], "JVM")
    return "Java"


def inclusive(stacks: list[tuple[list[str], int]]) -> Counter:
    """Each frame's samples (or bytes) with everything it called: a frame counts once per stack."""
    totals: Counter = Counter()
    for frames, count in stacks:
        for frame in {bare(f) for f in frames if not f.startswith("[")}:
            totals[frame] += count
    return totals


def summarise(files: dict[str, Path], requests: float) -> dict:
    """A profiled run's figures per request: CPU ms sampled, by category; KiB allocated; the frames
    that hold at least KEPT_SHARE of either (CPU in us, allocation in KiB). The CPU frames leave out
    the JIT's and GC's threads, whose whole figures are categories of their own."""
    cpu, alloc = read_collapsed(files["cpu"]), read_collapsed(files["alloc"])
    ms = CPU_INTERVAL_NS / 1e6 / max(requests, 1)
    categories: Counter = Counter()
    for frames, n in cpu:
        categories[category_of(frames)] += n
    cpu_total, alloc_total = sum(n for _, n in cpu), sum(n for _, n in alloc)
    kib = 1 / 1024 / max(requests, 1)
    return {
        "cpu_ms": cpu_total * ms,
        "categories": {c: n * ms for c, n in categories.items()},
        "alloc_kib": alloc_total * kib,
        "cpu_frames_us": {
            f: n * ms * 1000
            for f, n in inclusive([(fs, n) for fs, n in cpu if category_of(fs) not in OWN_THREADS]).items()
            if n >= KEPT_SHARE * cpu_total
        },
        "alloc_frames_kib": {f: n * kib for f, n in inclusive(alloc).items() if n >= KEPT_SHARE * alloc_total},
    }


def profile_load(
    services: dict[Lane, Any], load: Load, results: dict, slug: str, settings: RunSettings, out: Path
) -> None:
    """One profiled run per lane after the load's rounds (local JVMs: runner.Service): results[its
    column]["profiled"] gets its figures, the summary of its recording and its flame graphs (paths
    relative to the report)."""
    profiler = Profiler.fetch(next(iter(services.values())).java)
    for lane, service in services.items():
        mode = lane.key
        run_json = out / "profiles" / f"{slug}-{mode}.json"
        print(f"   profiled run (not counted) {mode} {load.name} ...", end="", flush=True)
        with profiler.recording(service.pid, run_json.with_suffix(".jfr")) as jfr:
            figures = service.run(load, lane, run_json, f"profiled {mode} {load.name}", settings)
        files = profiler.convert(jfr)
        results[mode]["profiled"] = {
            "figures": figures,
            **summarise(files, figures["requests"]),
            "files": {k: str(v.relative_to(out)) for k, v in files.items() if k.endswith("html")},
        }
        print(f" {fmt(figures['throughput'])} req/s", flush=True)
