"""Where a launch's time to the first answer goes, read from what the JVM and Quarkus print and count.

- The JVM's own creation: `-Xlog:startuptime` prints "Create VM, S secs".
- Quarkus' start-up steps (the build-time-recorded bytecode of each extension, and the application's
  start-up observers inside `LifecycleEventsBuildStep.startupEvent`): with
  `-Dquarkus.debug.print-startup-times=true` it prints each step's wall-clock end and its time since
  the previous step ended (io.quarkus.runtime.util.StepTiming), so the steps tile the span from the
  first step's start to the last one's end.
- Before the first step (the JVM created, then the runner's class loader, the main class and the
  configuration) and after the last (the HTTP server taking the request, the first request's own
  work) are what remains of the time to the first answer.
- Class loading and the JIT at the first answer, from the JVM's performance counters (`jcmd
  PerfCounter.print`): classes loaded and how many came from the CDS archive or AOT cache.
"""

from __future__ import annotations

import math
import re
import subprocess
from datetime import datetime
from pathlib import Path

# Flags that make a launch print its phases (JVM variants; a native executable takes the property).
PROPERTY = "-Dquarkus.debug.print-startup-times=true"
JVM_FLAGS = ("-Xlog:startuptime", PROPERTY)

STEP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) Build step (\S+) completed in: (\d+)ms$", re.M)
CREATE_VM = re.compile(r"\[startuptime\] Create VM, ([\d.]+) secs")

BEFORE = "before Quarkus' first step"  # JVM created, runner class loader, main class, configuration
VM = "of which: the JVM created"
AFTER = "after the last step, to the first answer"  # the HTTP server taking it, the request's own work


def short(step: str) -> str:
    """A step's name without its package: `io.quarkus.flyway.FlywayProcessor.startActions` ->
    `FlywayProcessor.startActions` (the generated step names join the class and method with '.' or '#')."""
    head, sep, method = step.replace("#", ".").rpartition(".")
    return f"{head.rpartition('.')[2]}.{method}" if sep else step


def phases(log: str, launched_at: float, ttfr_ms: float) -> dict[str, float]:
    """The launch's time to the first answer by phase (ms), in the order they happen: before the first
    step (and the JVM's creation within it), each step, after the last. Empty where the log holds no
    step (a launch without the flags, or one that printed its steps elsewhere)."""
    steps = [(stamp(m.group(1)), short(m.group(2)), float(m.group(3))) for m in STEP.finditer(log)]
    if not steps:
        return {}
    first_end, _, first_ms = steps[0]
    before = (first_end - launched_at) * 1000 - first_ms
    found: dict[str, float] = {BEFORE: before}
    vm = CREATE_VM.search(log)
    if vm:
        found[VM] = float(vm.group(1)) * 1000
    for _, name, ms in steps:
        found[name] = found.get(name, 0.0) + ms
    found[AFTER] = ttfr_ms - (steps[-1][0] - launched_at) * 1000
    return found


def stamp(text: str) -> float:
    """StepTiming's wall-clock stamp (the JVM's local time zone, which it shares with this process)
    as seconds since the epoch."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp()


# The performance counters a launch keeps, as (name, counter, divided by the tick frequency).
COUNTERS = {
    "classes loaded": ("java.cls.loadedClasses", False),
    "of which from the CDS archive or AOT cache": ("java.cls.sharedLoadedClasses", False),
    "class loading (s)": ("sun.cls.time", True),
    "JIT compilations": ("sun.ci.totalCompiles", False),
    "JIT (s, compiler threads)": ("java.ci.totalTime", True),
}


def counters(jcmd: Path, pid: int) -> dict[str, float]:
    """COUNTERS of the JVM `pid` now (NaN each where jcmd cannot read them: a native executable)."""
    try:
        done = subprocess.run([str(jcmd), str(pid), "PerfCounter.print"], capture_output=True, text=True, timeout=60)
        text = done.stdout if done.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    return read_counters(text)


def read_counters(text: str) -> dict[str, float]:
    """COUNTERS from `jcmd PID PerfCounter.print`'s lines (name=value); ticks turned into seconds."""
    raw = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    hz = float(raw.get("sun.os.hrt.frequency", "nan"))
    found = {}
    for label, (name, ticks) in COUNTERS.items():
        value = float(raw[name]) if name in raw else math.nan
        found[label] = value / hz if ticks else value
    return found
