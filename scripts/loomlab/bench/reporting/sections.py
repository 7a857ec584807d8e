"""A load's report section: what it records (section_of, rounds.measure's) and what it prints beside
its figures, its tables from its load and its results. The tables are said once, for the run that
measured them and for a report rebuilt from results.json, which keeps no table (records.TABLES)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..planning.loads import Load, Suite, service_pools
from ..planning.settings import LOCAL, RunSettings
from . import flames, jdks
from .knobs import knobs_table
from .loadfigures import LoadFigures
from .reference import reference_table
from .tables import load_table, ratio_line, replicas_table, runners_table, server_table

if TYPE_CHECKING:  # the rounds' type only: a rebuilt report runs nothing
    from ..running.rounds import LoadRun


def section_tables(f: LoadFigures, native: bool) -> dict:
    """The section's keys that are tables or lines (records.TABLES and "ratio"), each read from the
    load's figures (whose pools are the whole service's: one pod's times its replicas)."""
    return {
        "table": load_table(f),
        "server": server_table(f, native),
        "runners": runners_table(f),
        "replicas": replicas_table(f),
        "ratio": ratio_line(f),
        "reference": reference_table(f),
        "knobs": knobs_table(f),
        "flames": flames.flames_table(f),
        "frames_cpu": flames.frames_table(f),
        "frames_alloc": flames.frames_table(f, "alloc_frames_kib"),
    }


def section_head(suite: Suite, load: Load, name: str, environment: str, info: dict, interleaved: bool) -> dict:
    """The keys every section starts with (records.Section), a search's too: what ran, where, how."""
    return {
        "workload": suite.workload,
        "variant": suite.variant,
        "load": name,
        "environment": environment,
        "description": suite.description,
        "script": load.script,
        "env": load.env,
        "server_env": suite.server_env,
        "pools": info.get("pools", {}),
        "interleaved": interleaved,
    }


def section_of(suite: Suite, ran: LoadRun, settings: RunSettings, environment: str) -> dict:
    """One load's report section on one JDK: its tables, figures, bounds and verdict (results.json's
    Section). Long because it names every key after the head, one line each."""
    load, results, info = ran.load, ran.results, ran.info
    # Bounds are the whole service's: one pod's pools times its replicas (the report prints one pod's).
    f = LoadFigures.of(load, results, service_pools(info.get("pools", {})))
    section = {
        **section_head(suite, load, load.name, jdks.environment(environment, ran.jdk), info, settings.interleave),
        **section_tables(f, info.get("imageKind") == "native"),
        "results": results,
        "expected": f.expected,
        "bounds": f.bounds,
        "rate": load.rate,
        "failed": f.failed(),
    }
    if ran.jdk is not None:
        section["jdk"] = ran.jdk
    if ran.verdict is not None:
        section["verdict"] = ran.verdict.record()
    return section


def print_section(section: dict) -> None:
    where = f" [{section['environment']}]" if section["environment"] != LOCAL else ""
    print(f"\n{section['workload']}: {section['load']}{where}\n{section['table'].text()}")
    if section["ratio"]:
        print(section["ratio"])
    print(f"server side:\n{section['server'].text()}\n", flush=True)
    if section["knobs"]:
        print(f"each knob against its mode's default:\n{section['knobs'].text()}\n", flush=True)
    if section["reference"]:
        print(f"against the reference server:\n{section['reference'].text()}\n", flush=True)
    if section["replicas"]:
        print(f"service pods:\n{section['replicas'].text()}\n", flush=True)
    if section["runners"]:
        print(f"runners:\n{section['runners'].text()}\n", flush=True)
