"""What a section prints beside its figures: its tables, from its load and its results. Said once, for
the run that measured them (rounds.measure) and for a report rebuilt from results.json, which keeps
no table (records.TABLES)."""

from __future__ import annotations

from . import flames
from .loads import Load
from .tables import load_table, ratio_line, replicas_table, runners_table, server_table


def section_tables(load: Load, results: dict, pools: dict, native: bool) -> dict:
    """The section's keys that are tables or lines (records.TABLES and "ratio"); `pools` are the
    whole service's (one pod's times its replicas)."""
    return {
        "table": load_table(load, results, pools),
        "server": server_table(load, results, native),
        "runners": runners_table(load, results),
        "replicas": replicas_table(load, results),
        "ratio": ratio_line(load, results),
        "flames": flames.flames_table(load, results),
        "frames_cpu": flames.frames_table(load, results),
        "frames_alloc": flames.frames_table(load, results, "alloc_frames_kib"),
    }
