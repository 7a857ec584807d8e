"""A flame graph of each JVM variant's start-up: one launch more per variant, not counted in the
figures, with async-profiler's agent loaded as the JVM starts (CPU samples from the first bytecode)
and stopped at the first answer. From its samples: the start-up's CPU by category (the interpreter
and compiled Java, class loading and initialisation, the JIT's threads, GC, the kernel) and the CPU
inside each Quarkus start-up step (its generated `deploy` method), beside the step's wall time."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from loomlab.bench import api

from .launches import Settings, launched
from .phases import short

# A start-up step's generated class and method as the converter prints it (simple names):
# `FlywayProcessor$startActions1234567.deploy` (or `.deploy_0`) -> FlywayProcessor.startActions.
STEP_FRAME = re.compile(r"(?:^|\.)([A-Za-z0-9_]+)\$([A-Za-z_]+?)\d*\.deploy(?:_\d+)?$")


def profile_start(name: str, cmd: list[str], settings: Settings, profiler: api.Profiler, out: Path) -> dict:
    """One profiled launch of `cmd` (a JVM command line): its samples until the first answer as
    figures (see summarise) and the flame graph's path relative to `out`."""
    folder = out / "flames"
    folder.mkdir(parents=True, exist_ok=True)
    jfr = folder / f"{name}.jfr"
    agent = f"-agentpath:{profiler.library}=start,event=cpu,interval={api.CPU_INTERVAL_NS},jfr,file={jfr}"
    with launched([cmd[0], *api.JVM_FLAGS, agent, *cmd[1:]], settings.port, folder / f"{name}.log") as started:
        profiler.jcmd(started.process.pid, "stop")
    files = profiler.convert(jfr, ("cpu_html", "cpu"))
    return {**summarise(api.read_collapsed(files["cpu"])), "html": str(files["cpu_html"].relative_to(out))}


def summarise(stacks: list[tuple[list[str], int]]) -> dict:
    """CPU ms sampled by category, and inside each start-up step (a step counted once per stack)."""
    ms = api.CPU_INTERVAL_NS / 1e6
    categories: Counter = Counter()
    steps: Counter = Counter()
    for frames, n in stacks:
        categories[api.category_of(frames)] += n
        for step in {m for m in map(step_of, frames) if m}:
            steps[step] += n
    return {
        "cpu_ms": sum(categories.values()) * ms,
        "categories": {c: n * ms for c, n in categories.most_common()},
        "steps": {s: n * ms for s, n in steps.most_common()},
    }


def step_of(frame: str) -> str:
    """The start-up step (as print-startup-times names it) whose generated method a frame is, or ""."""
    m = STEP_FRAME.search(api.bare(frame))
    return short(f"{m.group(1)}.{m.group(2)}") if m else ""
