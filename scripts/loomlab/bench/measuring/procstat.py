"""What /proc says of a local process the bench started: the kernel's share of its CPU beside every
scrape (the service's own counter has user and kernel time together), and all the bench reads of
the minimal Quarkus application (scripts/minimal, `./lab bench --minimal`: the same sleep on a
virtual thread with nothing of the lab's around it). That application has no /q/health,
/q/metrics or /api/info, so it is ready at its first answer and its CPU, RSS and threads come from
here where the service's counters would be (runner.BareService); what the service spends beyond it
per request is what the lab's code and extensions add."""

from __future__ import annotations

import math
import os
import resource
from pathlib import Path

from loomlab.samples import SAMPLED_COUNTERS, SAMPLED_GAUGES

# What answers once the minimal application is up: its one endpoint, without a sleep.
READY_PATH = "/api/virtual/sleep?ms=0"
INFO = {"server": "scripts/minimal: Quarkus REST, the sleep on a virtual thread and nothing else"}
PROC = Path("/proc")


def cpu_ns(pid: int, root: Path = PROC) -> tuple[float, float]:
    """The process' user and kernel (system) CPU in ns, in clock ticks of 10 ms (under 1 % of a run's
    CPU). OSError when the process is gone."""
    # The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    fields = (root / str(pid) / "stat").read_text().rpartition(")")[2].split()
    tick_ns = 1e9 / os.sysconf("SC_CLK_TCK")
    return int(fields[11]) * tick_ns, int(fields[12]) * tick_ns


def context_switches(pid: int, root: Path = PROC) -> float:
    """The context switches of the process' live threads, voluntary (a wait: a park, a read with
    nothing to read) and not (preempted), the sum over /proc/PID/task/*/status. A thread that has
    ended takes its own with it: the JVM's carriers, event loops and pool threads, and Go's, live
    through a run. OSError when the process is gone."""
    total = 0
    for task in (root / str(pid) / "task").iterdir():
        try:
            text = (task / "status").read_text()
        except FileNotFoundError:  # the thread ended since the listing
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split(":", 1)[1])
    return float(total)


def kernel(pid: int, root: Path = PROC) -> dict:
    """The figures beside a scrape (samples.PROC_COUNTERS): the process' kernel CPU and its threads'
    context switches."""
    return {"cpu_system_ns": cpu_ns(pid, root)[1], "ctx_switches": context_switches(pid, root)}


def sample(pid: int, root: Path = PROC) -> dict:
    """The figures a scrape would give that /proc has: CPU (user and kernel), RSS and live threads; the
    others NaN, as a metric the service lacks."""
    pid_dir = root / str(pid)
    rss_pages = int((pid_dir / "statm").read_text().split()[1])
    status = dict(line.split(":", 1) for line in (pid_dir / "status").read_text().splitlines() if ":" in line)
    user, system = cpu_ns(pid, root)
    return {
        **{key: math.nan for key, _, _ in SAMPLED_GAUGES + SAMPLED_COUNTERS},
        "cpu_ns": user + system,
        "cpu_system_ns": system,
        "ctx_switches": context_switches(pid, root),
        "rss_bytes": rss_pages * os.sysconf("SC_PAGE_SIZE"),
        "live_threads": int(status["Threads"]),
    }


class ChildrenCpu:
    """The CPU seconds (user and system) of the child processes waited for since it was made: the
    load generator's, the one child a run waits for (the services run on until they are stopped)."""

    def __init__(self):
        self.start = self._now()

    @staticmethod
    def _now() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def seconds(self) -> float:
        return self._now() - self.start
