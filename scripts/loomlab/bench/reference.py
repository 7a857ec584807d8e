"""The reference server beside the modes: a minimal Go net/http server (scripts/reference, built by
scripts/reference.sh) answering the sleep endpoint with a goroutine per request and nothing else,
the platform's floor. Where a load's script is one it serves, `./lab bench` runs it as a column of
its own in the same rounds as the modes (rotated with them, so drift hits it alike); it takes no
part in a verdict (it is not a mode of the service), and the load's reference table gives each
mode's req/s and CPU per request as a ratio to it, paired round by round like a verdict's."""

from __future__ import annotations

import math

from loomlab import labreport as lr

from . import verdict
from .loads import MODES, REFERENCE, Load


def _cpu_per_request(runs: list[dict]) -> list[dict]:
    return [{"cpu_ms_per_req": lr.ratio(r.get("cpu_s", math.nan) * 1000, r.get("requests", math.nan))} for r in runs]


def _paired(mode_runs: list[dict], ref_runs: list[dict], key: str) -> str:
    """The median of the rounds' ratios mode / reference with its interval, or the ratio of the
    medians where the rounds are too few for an interval."""
    pair = verdict.compare("m", "r", mode_runs, ref_runs, key, True, verdict.TIE)
    if pair is not None:
        return f"{lr.fmt(pair.median, 2)}x ({lr.fmt(pair.low, 2)}-{lr.fmt(pair.high, 2)})"
    mine = lr.aggregate(mode_runs).get(key)
    theirs = lr.aggregate(ref_runs).get(key)
    if mine is None or theirs is None:
        return "-"
    return f"{lr.fmt(lr.ratio(mine.median, theirs.median), 2)}x (medians)"


def reference_table(load: Load, results: dict) -> lr.Table | None:
    """Each mode against the reference server in the same rounds: req/s and CPU per request, the
    median of the per-round ratios and its interval (verdict.CONFIDENCE)."""
    ref = results.get(REFERENCE, {}).get("runs", [])
    modes = [m for m in MODES if results.get(m, {}).get("runs")]
    if not ref or not modes:
        return None
    t = lr.Table(["mode", "req/s", "of the reference's req/s", "CPU ms/req", "of the reference's CPU/req"])
    for m in [*modes, REFERENCE]:
        runs = results[m]["runs"]
        agg = lr.aggregate(runs)
        cpu = lr.aggregate(_cpu_per_request(runs))["cpu_ms_per_req"].median
        t.add(
            m,
            lr.fmt(agg["throughput"].median, 0),
            "1x" if m == REFERENCE else _paired(runs, ref, "throughput"),
            lr.fmt(cpu, 3),
            "1x" if m == REFERENCE else _paired(_cpu_per_request(runs), _cpu_per_request(ref), "cpu_ms_per_req"),
        )
    return t
