"""Where the CPU and the allocations go in each mode: after a load's rounds, one more run per mode
with async-profiler attached (profiler.py), not counted in the verdict, and what the recordings say
per request: CPU by the profiler's categories (compiled and interpreted Java, GC, JIT, the JVM's
runtime, the kernel), and the frames whose CPU or bytes per request differ most between modes. The
profiler's own cost is the profiled run against the rounds' median, in the same table."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from statistics import median

from loomlab import labreport as lr

from ..planning.loads import Load
from ..planning.settings import RunSettings
from .profiler import ALLOC_INTERVAL_BYTES, CPU_INTERVAL_NS, Profiler

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
    services: dict, load: Load, modes: list[str], results: dict, slug: str, settings: RunSettings, out: Path
) -> None:
    """One profiled run per mode after the load's rounds (local JVMs: runner.Service): results[mode]
    ["profiled"] gets its figures, the summary of its recording and its flame graphs (paths relative to
    the report)."""
    profiler = Profiler.fetch(services[modes[0]].java)
    for mode in modes:
        service = services[mode]
        run_json = out / "profiles" / f"{slug}-{mode}.json"
        print(f"   profiled run (not counted) {mode} {load.name} ...", end="", flush=True)
        with profiler.recording(service.pid, run_json.with_suffix(".jfr")) as jfr:
            figures = service.run(load, mode, run_json, f"profiled {mode} {load.name}", settings)
        files = profiler.convert(jfr)
        results[mode]["profiled"] = {
            "figures": figures,
            **summarise(files, figures["requests"]),
            "files": {k: str(v.relative_to(out)) for k, v in files.items() if k.endswith("html")},
        }
        print(f" {lr.fmt(figures['throughput'])} req/s", flush=True)


def cpu_ms_per_request(figures: dict) -> float:
    return figures.get("cpu_s", float("nan")) * 1000 / max(figures.get("requests", 0), 1)


def flames_table(load: Load, results: dict) -> lr.Table | None:
    """Per mode: the profiled run against the rounds (the profiler's cost), the CPU per request the
    samples account for, by category, the KiB allocated per request, and the flame graphs."""
    profiled = {m: results[m]["profiled"] for m in load.columns if "profiled" in results.get(m, {})}
    if not profiled:
        return None
    t = lr.Table(
        [
            "mode",
            "req/s profiled / rounds",
            "CPU ms/req profiled / rounds",
            "sampled CPU ms/req",
            *(f"{c} ms" for c in COLUMNS),
            "alloc KiB/req",
            "flame graphs",
        ]
    )
    for mode, p in profiled.items():
        runs = results[mode]["runs"]
        rounds_rps = median(r["throughput"] for r in runs)
        rounds_cpu = median(cpu_ms_per_request(r) for r in runs)
        t.add(
            mode,
            f"{lr.fmt(p['figures']['throughput'], 0)} / {lr.fmt(rounds_rps, 0)}"
            f" ({lr.fmt(p['figures']['throughput'] / rounds_rps, 2)}x)",
            f"{lr.fmt(cpu_ms_per_request(p['figures']), 3)} / {lr.fmt(rounds_cpu, 3)}",
            lr.fmt(p["cpu_ms"], 3),
            *(lr.fmt(p["categories"].get(c, 0.0), 3) for c in COLUMNS),
            lr.fmt(p["alloc_kib"], 1),
            f"[cpu]({p['files']['cpu_html']}), [alloc]({p['files']['alloc_html']})",
        )
    return t


def frames_table(load: Load, results: dict, key: str = "cpu_frames_us", most: int = 10) -> lr.Table | None:
    """The frames whose CPU (us) or allocation (KiB) per request differ most between the profiled
    modes, each frame with everything it called; a frame whose figures equal a listed one's in every
    mode (a caller on the same path) is left out."""
    profiled = {m: results[m]["profiled"][key] for m in load.columns if "profiled" in results.get(m, {})}
    if len(profiled) < 2:
        return None
    frames = set().union(*profiled.values())
    spread = {f: [profiled[m].get(f, 0.0) for m in profiled] for f in frames}
    ranked = sorted(frames, key=lambda f: (-(max(spread[f]) - min(spread[f])), f))
    unit = "us CPU/req" if key == "cpu_frames_us" else "KiB/req"
    t = lr.Table(["frame (with what it calls)", *(f"{m} {unit}" for m in profiled)])
    seen: set[tuple] = set()
    for f in ranked:
        figures = tuple(round(v, 1) for v in spread[f])
        if figures in seen:
            continue
        seen.add(figures)
        t.add(f"`{f}`", *(lr.fmt(v, 1) for v in spread[f]))
        if len(seen) == most:
            break
    return t


# The interval figures the report states beside the tables.
SAMPLING = (
    f"CPU sampled every {CPU_INTERVAL_NS / 1e6:g} ms of a thread's CPU time, allocation every"
    f" {ALLOC_INTERVAL_BYTES // 1024} KiB (TLAB-driven): per-request figures are samples x interval / requests"
)


def frames_per_request(folder: Path, patterns: list[str]) -> lr.Table:
    """us of CPU per request, per profiled run of a report folder (its profiles/*.cpu.collapsed and
    the k6 summary beside each), in the samples whose stack matches each pattern."""
    # A pattern's '|' would split its markdown column.
    t = lr.Table(["profiled run", "requests", "CPU samples", *(p.replace("|", "\\|") for p in patterns)])
    for collapsed in sorted((folder / "profiles").glob("*.cpu.collapsed")):
        run = collapsed.name.removesuffix(".cpu.collapsed")
        requests = json.loads((collapsed.parent / f"{run}.json").read_text())["metrics"]["http_reqs"]["values"]["count"]
        stacks = read_collapsed(collapsed)
        us = CPU_INTERVAL_NS / 1e3 / max(requests, 1)
        matched = [sum(n for fs, n in stacks if re.search(p, ";".join(fs))) * us for p in patterns]
        t.add(run, lr.fmt(requests, 0), lr.fmt(sum(n for _, n in stacks), 0), *(lr.fmt(v, 1) for v in matched))
    return t


if __name__ == "__main__":
    cli = argparse.ArgumentParser(
        prog="python -m loomlab.bench.measuring.flames",
        description="us of CPU per request in the stacks that match each pattern (a regular expression over"
        " the stack, frames joined by ';'), for every profiled run of a report folder (./lab bench --flames)",
    )
    cli.add_argument("folder", type=Path)
    cli.add_argument("patterns", nargs="+")
    options = cli.parse_args()
    print(frames_per_request(options.folder, options.patterns).markdown())
