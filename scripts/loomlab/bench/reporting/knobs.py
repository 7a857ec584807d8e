"""The knob columns' table: each setting a user tunes against its mode's default column, in the same
rounds (workloads/knobs.py makes the columns). Each figure is the median of the rounds' ratios,
knob over default, with its interval; a setting changes the answer where an interval lies wholly
outside the tie margin, the verdict's rule."""

from __future__ import annotations

from loomlab.table import Table

from ..deciding import verdict
from .loadfigures import LoadFigures

# (figure, key, tie margin, the word when the knob's figure is higher, when lower)
FIGURES = (
    ("req/s", "throughput", verdict.TIE, "more req/s", "fewer req/s"),
    ("p99", "p99", verdict.TIE_P99, "higher p99", "lower p99"),
    ("CPU ms/req", "cpu_ms_per_req", verdict.TIE, "more CPU/req", "less CPU/req"),
    ("peak RSS", "peak_rss_bytes", verdict.TIE, "more RSS", "less RSS"),
)


def change(knob_runs: list[dict], default_runs: list[dict]) -> str:
    """What the setting changes, figure by figure: beyond the tie margin, within it (nothing), or
    neither (cannot tell at these rounds)."""
    said, unclear = [], []
    for name, key, tie, higher, lower in FIGURES:
        pair = verdict.compare("knob", "default", knob_runs, default_runs, key, True, tie)
        if pair is None or pair.state == "unclear":
            unclear.append(name)
        elif pair.state != "tie":
            said.append(higher if pair.state == "ahead" else lower)
    if unclear:
        said.append("cannot tell: " + ", ".join(unclear))
    return "; ".join(said) or "nothing beyond the margins"


def knobs_table(f: LoadFigures) -> Table | None:
    """Each knob column over its mode's default: req/s, p99, CPU per request and peak RSS."""
    modes = f.modes
    knobs = [
        m
        for m in modes.values()
        if m.lane.setting and m.runs and m.lane.default.key in modes and modes[m.lane.default.key].runs
    ]
    if not knobs:
        return None
    t = Table(["knob", *(f"{name} / default" for name, *_ in FIGURES), "what it changes"])
    for m in knobs:
        mine, default = m.runs, modes[m.lane.default.key].runs
        t.add(m.key, *(verdict.paired(mine, default, key) for _, key, *_ in FIGURES), change(mine, default))
    return t
