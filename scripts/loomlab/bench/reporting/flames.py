"""The profiled runs' tables (./lab bench --flames): each mode's profiled run against its rounds, the
CPU per request by the profiler's categories, the frames whose CPU or allocation per request differ
most between the modes, and a folder's CPU per request in the stacks a pattern matches."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from statistics import median

from loomlab.table import Table, fmt

from ..measuring.flames import COLUMNS, read_collapsed
from ..measuring.profiler import ALLOC_INTERVAL_BYTES, CPU_INTERVAL_NS
from .loadfigures import LoadFigures


def cpu_ms_per_request(figures: dict) -> float:
    return figures.get("cpu_s", float("nan")) * 1000 / max(figures.get("requests", 0), 1)


def flames_table(f: LoadFigures) -> Table | None:
    """Per mode: the profiled run against the rounds (the profiler's cost), the CPU per request the
    samples account for, by category, the KiB allocated per request, and the flame graphs."""
    profiled = {m: f.results[m]["profiled"] for m in f.modes if "profiled" in f.results[m]}
    if not profiled:
        return None
    t = Table(
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
        runs = f.modes[mode].runs
        rounds_rps = median(r["throughput"] for r in runs)
        rounds_cpu = median(cpu_ms_per_request(r) for r in runs)
        t.add(
            mode,
            f"{fmt(p['figures']['throughput'], 0)} / {fmt(rounds_rps, 0)}"
            f" ({fmt(p['figures']['throughput'] / rounds_rps, 2)}x)",
            f"{fmt(cpu_ms_per_request(p['figures']), 3)} / {fmt(rounds_cpu, 3)}",
            fmt(p["cpu_ms"], 3),
            *(fmt(p["categories"].get(c, 0.0), 3) for c in COLUMNS),
            fmt(p["alloc_kib"], 1),
            f"[cpu]({p['files']['cpu_html']}), [alloc]({p['files']['alloc_html']})",
        )
    return t


def frames_table(f: LoadFigures, key: str = "cpu_frames_us", most: int = 10) -> Table | None:
    """The frames whose CPU (us) or allocation (KiB) per request differ most between the profiled
    modes, each frame with everything it called; a frame whose figures equal a listed one's in every
    mode (a caller on the same path) is left out."""
    profiled = {m: f.results[m]["profiled"][key] for m in f.modes if "profiled" in f.results[m]}
    if len(profiled) < 2:
        return None
    frames = set().union(*profiled.values())
    spread = {frame: [profiled[m].get(frame, 0.0) for m in profiled] for frame in frames}
    ranked = sorted(frames, key=lambda frame: (-(max(spread[frame]) - min(spread[frame])), frame))
    unit = "us CPU/req" if key == "cpu_frames_us" else "KiB/req"
    t = Table(["frame (with what it calls)", *(f"{m} {unit}" for m in profiled)])
    seen: set[tuple] = set()
    for frame in ranked:
        figures = tuple(round(v, 1) for v in spread[frame])
        if figures in seen:
            continue
        seen.add(figures)
        t.add(f"`{frame}`", *(fmt(v, 1) for v in spread[frame]))
        if len(seen) == most:
            break
    return t


# The interval figures the report states beside the tables.
SAMPLING = (
    f"CPU sampled every {CPU_INTERVAL_NS / 1e6:g} ms of a thread's CPU time, allocation every"
    f" {ALLOC_INTERVAL_BYTES // 1024} KiB (TLAB-driven): per-request figures are samples x interval / requests"
)


def frames_per_request(folder: Path, patterns: list[str]) -> Table:
    """us of CPU per request, per profiled run of a report folder (its profiles/*.cpu.collapsed and
    the k6 summary beside each), in the samples whose stack matches each pattern."""
    # A pattern's '|' would split its markdown column.
    t = Table(["profiled run", "requests", "CPU samples", *(p.replace("|", "\\|") for p in patterns)])
    for collapsed in sorted((folder / "profiles").glob("*.cpu.collapsed")):
        run = collapsed.name.removesuffix(".cpu.collapsed")
        requests = json.loads((collapsed.parent / f"{run}.json").read_text())["metrics"]["http_reqs"]["values"]["count"]
        stacks = read_collapsed(collapsed)
        us = CPU_INTERVAL_NS / 1e3 / max(requests, 1)
        matched = [sum(n for fs, n in stacks if re.search(p, ";".join(fs))) * us for p in patterns]
        t.add(run, fmt(requests, 0), fmt(sum(n for _, n in stacks), 0), *(fmt(v, 1) for v in matched))
    return t


if __name__ == "__main__":
    cli = argparse.ArgumentParser(
        prog="python -m loomlab.bench.reporting.flames",
        description="us of CPU per request in the stacks that match each pattern (a regular expression over"
        " the stack, frames joined by ';'), for every profiled run of a report folder (./lab bench --flames)",
    )
    cli.add_argument("folder", type=Path)
    cli.add_argument("patterns", nargs="+")
    options = cli.parse_args()
    print(frames_per_request(options.folder, options.patterns).markdown())
