"""The reference server beside the modes: a minimal Go net/http server (scripts/reference, built by
scripts/gotool.sh reference) answering the sleep endpoint with a goroutine per request and nothing else,
the platform's floor. Where a load's script is one it serves, `./lab bench` runs it as a column of
its own in the same rounds as the modes (rotated with them, so drift hits it alike); it takes no
part in a verdict (it is not a mode of the service), and the load's reference table gives each
mode's req/s and CPU per request as a ratio to it, paired round by round like a verdict's."""

from __future__ import annotations

import math

from loomlab import labreport as lr

from . import verdict
from .loads import REFERENCE, Load


def reference_table(load: Load, results: dict) -> lr.Table | None:
    """Each mode (and knob column) against the reference server in the same rounds: req/s and CPU
    per request, the median of the per-round ratios and its interval (verdict.CONFIDENCE)."""
    ref = results.get(REFERENCE, {}).get("runs", [])
    modes = [m for m in load.modes if m != REFERENCE and results.get(m, {}).get("runs")]
    if not ref or not modes:
        return None
    # The servers' threads' context switches per request, where /proc was read (local runs).
    switches = any(not math.isnan(run.get("switches_per_req", math.nan)) for run in ref)
    t = lr.Table(
        ["mode", "req/s", "of the reference's req/s", "CPU ms/req", "of the reference's CPU/req"]
        + (["switches/req", "of the reference's switches/req"] if switches else [])
    )
    for m in [*modes, REFERENCE]:
        runs = results[m]["runs"]
        agg = lr.aggregate(runs)
        t.add(
            m,
            lr.fmt(agg["throughput"].median, 0),
            "1x" if m == REFERENCE else verdict.paired(runs, ref, "throughput"),
            lr.fmt(agg.get("cpu_ms_per_req", lr.Spread.of([])).median, 3),
            "1x" if m == REFERENCE else verdict.paired(runs, ref, "cpu_ms_per_req"),
            *(
                [
                    lr.fmt(agg.get("switches_per_req", lr.Spread.of([])).median, 2),
                    "1x" if m == REFERENCE else verdict.paired(runs, ref, "switches_per_req"),
                ]
                if switches
                else []
            ),
        )
    return t
