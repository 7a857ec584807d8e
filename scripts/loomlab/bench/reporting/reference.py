"""The reference server beside the modes: a minimal Go net/http server (scripts/reference, built by
scripts/gotool.sh reference) answering the sleep endpoint with a goroutine per request and nothing else,
the platform's floor, and its socket-waiting twin, the db workload's slow query on a pool of the
suite's size (runner.reference_launch). Where a load is one it serves (Load.serves_reference),
`./lab bench` runs it as a column of its own in the same rounds as the modes (rotated with them, so
drift hits it alike); it takes no part in a verdict (it is not a mode of the service), and the
load's reference table gives each mode's req/s and CPU per request as a ratio to it, paired round
by round like a verdict's."""

from __future__ import annotations

import math

from loomlab.table import Table, fmt

from ..deciding import verdict
from ..planning.lane import REFERENCE
from .loadfigures import LoadFigures

# Each figure the table sets against the reference's: (its column, its key in a run, digits, its name
# in the ratio's column).
FIGURES = (("req/s", "throughput", 0, "req/s"), ("CPU ms/req", "cpu_ms_per_req", 3, "CPU/req"))
# Where they were read: the connections the generator opened (loadgen: its arrival pattern's, and more
# where a server's answers come slower); (local runs) the servers' threads' context switches per
# request (/proc), and their system calls per request and the futex calls among them (perf, where a
# load asks: syscalls.py).
OPTIONAL = (
    ("connections", "connections", 0, "connections"),
    ("switches/req", "switches_per_req", 2, "switches/req"),
    ("syscalls/req", "syscalls_per_req", 1, "syscalls/req"),
    ("futex/req", "futex_per_req", 2, "futex/req"),
    ("epoll waits/req", "epoll_per_req", 2, "epoll waits/req"),
)


def reference_table(f: LoadFigures) -> Table | None:
    """Each mode (and knob column) against the reference server in the same rounds: req/s and CPU
    per request (and OPTIONAL's figures, where read), each with the median of the per-round ratios
    and its interval (verdict.CONFIDENCE)."""
    ref = f.modes[REFERENCE].runs if REFERENCE in f.modes else []
    modes = [m for m in f.modes if m != REFERENCE and f.modes[m].runs]
    if not ref or not modes:
        return None
    figures = FIGURES + tuple(f for f in OPTIONAL if any(not math.isnan(run.get(f[1], math.nan)) for run in ref))
    t = Table(["mode", *(c for name, _, _, of in figures for c in (name, f"of the reference's {of}"))])
    for m in [*modes, REFERENCE]:
        runs = f.modes[m].runs
        cells = []
        for _, key, digits, _ in figures:
            cells.append(fmt(f.modes[m].get(key), digits))
            cells.append("1x" if m == REFERENCE else verdict.paired(runs, ref, key))
        t.add(m, *cells)
    return t
