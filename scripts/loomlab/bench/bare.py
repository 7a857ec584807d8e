"""What the bench reads of a JVM without the service's management endpoints: the minimal Quarkus
application (scripts/minimal, `./lab bench --minimal`), the same sleep on a virtual thread with
nothing of the lab's around it. It has no /q/health, /q/metrics or /api/info, so it is ready at its
first answer and its CPU, RSS and threads are read from /proc where the service's own counters
would be (runner.BareService); what the service spends beyond it per request is what the lab's
code and extensions add."""

from __future__ import annotations

import math
import os
from pathlib import Path

from loomlab.samples import SAMPLED_COUNTERS, SAMPLED_GAUGES

# What answers once the application is up: its one endpoint, without a sleep.
READY_PATH = "/api/virtual/sleep?ms=0"
INFO = {"server": "scripts/minimal: Quarkus REST, the sleep on a virtual thread and nothing else"}


def sample(pid: int, root: Path = Path("/proc")) -> dict:
    """The figures a scrape would give that /proc has: CPU (user and system, in clock ticks of 10 ms,
    under 1 % of a run's), RSS and live threads; the others NaN, as a metric the service lacks.
    OSError when the process is gone."""
    pid_dir = root / str(pid)
    # The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    fields = (pid_dir / "stat").read_text().rpartition(")")[2].split()
    rss_pages = int((pid_dir / "statm").read_text().split()[1])
    status = dict(line.split(":", 1) for line in (pid_dir / "status").read_text().splitlines() if ":" in line)
    return {
        **{key: math.nan for key, _, _ in SAMPLED_GAUGES + SAMPLED_COUNTERS},
        "cpu_ns": (int(fields[11]) + int(fields[12])) * 1e9 / os.sysconf("SC_CLK_TCK"),
        "rss_bytes": rss_pages * os.sysconf("SC_PAGE_SIZE"),
        "live_threads": int(status["Threads"]),
    }
