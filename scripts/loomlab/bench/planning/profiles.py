"""The profiles of `./lab bench --profile`, as data: a scale, the workloads whose core suites run,
those whose variants of the seeds' configuration run, and what the profile answers."""

from __future__ import annotations

import re
from dataclasses import replace

from loomlab import LabError

from ..workloads import MODULES, ingest
from .loads import Load, Scale, Suite, each_load

EVERY = tuple(m.__name__.rsplit(".", 1)[1] for m in MODULES)
# The request-response workloads, which have a reactive form: the three-way answer.
QUICK = ("sleep", "product", "db")
# Where virtual threads stop winning: CPU in the request (a profile of its own, about 20 minutes).
CPU = ("mixed", "buffers")
# The cores a service gets (a profile of its own: its eight suites would take the cpu profile past
# half an hour).
CORES = ("cores",)
# A capacity run's seconds past its arrivals (loadgen's start and drain): 273 runs of 4 s took 4.47 s
# each on 2026-12-06 (docs/results/2026-12-06-capacity-third.md).
CAPACITY_RUN_EXTRA_S = 0.5
# The knobs users tune, each against its mode's default (a profile of its own: 17 processes side by side).
KNOBS = ("knobs",)
# What a virtual thread costs a request, against the reference server under two arrival patterns.
COST = ("cost",)
NOT_CPU = tuple(w for w in EVERY if w not in CPU + CORES + KNOBS + COST)

# name -> (scale, core suites of these workload modules, variants of these, what it is for)
PROFILES = {
    "quick": ("quick", QUICK, (), "the three-way answer on sleep, product and db"),
    "rest": (
        "quick",
        tuple(w for w in EVERY if w not in QUICK + CPU),
        NOT_CPU,
        "the rest at the same scale: the chunk writers over HTTP in three modes and over gRPC, tasks,"
        " pinning, the seeds' pool variants",
    ),
    "seeds": ("seeds", NOT_CPU, NOT_CPU, "each seed's own setup, every workload"),
    "cpu": (
        "quick",
        CPU,
        CPU,
        "where virtual threads stop winning: CPU per request swept against the worker pool, long CPU"
        " requests among short ones (the carriers at the default and at 8), a per-thread cache against a"
        " shared pool",
    ),
    "cores": ("quick", (), CORES, "the quick answer's A3 and product at 350 users on 1 core and on 2"),
    "knobs": (
        "quick",
        (),
        KNOBS,
        "each knob users tune alone against its mode's default in the same rounds (worker pool, carriers, event"
        " loops, GC, jdk.trackAllThreads) on A3, the open sleep at four rates and product at 350 users;"
        " 17 processes side by side, about 7 GB",
    ),
    "cost": (
        "quick",
        (),
        COST,
        "what a virtual thread costs a request: the open sleep at 1,500 req/s, arrivals even and in bursts,"
        " each mode's CPU, context switches and system calls (perf, where it may count) per request against"
        " the reference server; virtual threads untracked, one carrier, both, one event loop and each mode in"
        " a cgroup of the pod's CPU limit as knob columns (loadgen only; the cgroups need root)",
    ),
    "capacity": (
        "quick",
        QUICK,
        (),
        "the highest open rate each mode holds within an SLA on sleep, product and db (./lab capacity): a ramp"
        " x1.25 then bisection, each step in rounds across the modes; the cost of half and four fifths of it",
    ),
    "smoke": ("smoke", EVERY, (), "every workload, each run scaled to seconds (CI)"),
    "sweep": (
        "quick",
        (),
        (),
        "the chunk sizes of both ingest domains, both transports, with and without a simulated round trip",
    ),
}


def suites(profile: str) -> list[Suite]:
    if profile == "sweep":
        return ingest.sweep_suites()
    scale_name, core, variants, _ = PROFILES[profile]
    scale = Scale(scale_name)
    chosen = [
        s for m in MODULES for s in m.suites(scale) if m.__name__.rsplit(".", 1)[1] in (core if s.core else variants)
    ]
    if profile == "capacity":  # each suite's first open load: where the search starts, its shape, and
        # the latency the suite expects with every dependency on time (the SLA's service time)
        searched = []
        for s in chosen:
            expect = next((ld.expect for ld in s.loads if ld.expect), None)
            first = next(ld for ld in s.loads if ld.rate)
            est_s = (first.open_s or 0) + CAPACITY_RUN_EXTRA_S
            searched.append(replace(s, loads=[replace(first, expect=expect, est_s=est_s)]))
        return searched
    # Core suites first, in report order, then the variants (as the reports have always listed them).
    return [s for s in chosen if s.core] + [s for s in chosen if not s.core]


def chosen_suites(args) -> list[Suite]:
    """The profile's suites of the workloads asked for, with the loads --loads names and the knob
    columns --knobs names; a workload the profile lacks is refused with the profiles that have it."""
    wanted = {w for w in args.workload.split(",") if w}
    missing = wanted - {s.workload for s in suites(args.profile)}
    if missing:
        raise LabError(
            f"workload(s) not in the {args.profile} profile: "
            + "; ".join(
                f"{w}: " + (", ".join(p for p in PROFILES if w in {s.workload for s in suites(p)}) or "no profile")
                for w in sorted(missing)
            )
            + " (--profile NAME)"
        )
    chosen = [s for s in suites(args.profile) if not wanted or s.workload in wanted]
    if args.loads:
        picked = [
            replace(s, loads=[ld for ld in s.loads if re.search(args.loads, f"{s.workload} {ld.name}")]) for s in chosen
        ]
        chosen = [s for s in picked if s.loads]
        if not chosen:
            raise LabError(f"no load of the chosen suites matches --loads {args.loads!r} (--plan lists them)")
    if args.knobs is None:
        return chosen

    def knobs(load: Load) -> Load:
        """The load's knob columns narrowed to those --knobs names ("none": none)."""
        wanted = (ln for ln in load.lanes if not ln.setting or (args.knobs != "none" and re.search(args.knobs, ln.key)))
        return replace(load, lanes=tuple(wanted))

    return each_load(chosen, knobs)
