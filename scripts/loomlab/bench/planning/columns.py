"""The knob columns a command line asks for, read once for the bench, the cluster and the start-up
(`--jvm-column`, `--quota-column`, `./lab startup --variant`): NAME=VALUE, a column's name and the
setting it changes (lane.Knob). Standard library only: the command lines' --help runs without the venv."""

from __future__ import annotations

import re
from pathlib import Path

from loomlab import LabError

from .lane import VIRTUAL, Knob, Lane
from .loads import SERVES, Suite, with_column, with_reference
from .settings import jdks_named


def named(text: str, option: str, form: str) -> tuple[str, str]:
    """An option's NAME=VALUE: a NAME of letters, digits, '.', '_' or '-' (a column's name, and its
    files' names: no path), a letter or digit first, and a value."""
    name, _, value = text.partition("=")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}", name) or not value.strip():
        raise LabError(f"{option} {text!r}: give {form}, a name of letters, digits, '.', '_' or '-'")
    return name, value


def jvm_column(text: str, option: str = "--jvm-column") -> tuple[str, Knob]:
    """--jvm-column NAME=FLAGS: the JVM with other options, each starting with '-'."""
    name, flags = named(text, option, "NAME=FLAGS")
    if not all(f.startswith("-") for f in flags.split()):
        raise LabError(f"{option} {text!r}: FLAGS are JVM options, each starting with '-'")
    return name, Knob(jvm_flags=tuple(flags.split()))


def quota_column(text: str) -> tuple[str, Knob]:
    """--quota-column NAME=CPUS: a cgroup of its own (a pod's CPU limit) with CPUS as its quota, 0: none."""
    name, cpus = named(text, "--quota-column", "NAME=CPUS")
    if not re.fullmatch(r"\d{1,3}(\.\d{1,2})?", cpus) or not (float(cpus) == 0 or 0.01 <= float(cpus) <= 256):
        raise LabError(f"--quota-column {text!r}: CPUS is a number of CPUs, 0.01 to 256, or 0 (no quota)")
    return name, Knob(quota_cpus=float(cpus))


def build_of(text: str) -> tuple[str, str]:
    """--build NAME=JAR's name and jar; refused without a jar that exists or a NAME of letters and digits."""
    name, jar = named(text, "--build", "NAME=JAR")
    if not Path(jar).is_file():
        raise LabError(f"--build {text!r}: give NAME=JAR and a jar that exists")
    return name, jar


def columns(args, chosen: list[Suite]) -> list[Suite]:
    """`chosen` with the columns beside the modes that the options ask for: the reference server (where its
    sleep loads run), another build (--build), other JVM flags (--jvm-column), a cgroup with or
    without a CPU quota (--quota-column), the JVM with an AOT cache (--aot-cache), the minimal
    application (--minimal, on the virtual sleep loads: its one endpoint)."""
    if not args.no_reference and (args.reference or args.plan):
        chosen = with_reference(chosen)
    elif not args.no_reference and any(ld.serves_reference for s in chosen for ld in s.loads):
        print("no reference server (scripts/gotool.sh reference builds it with Go): its column is left out", flush=True)
    if args.build:
        name, jar = build_of(args.build)
        chosen = with_column(chosen, f"build={name}", Knob(jar=jar))
    for column in [*map(jvm_column, args.jvm_column), *map(quota_column, args.quota_column)]:
        chosen = with_column(chosen, *column)
    if args.aot_cache:
        if not Path(args.aot_cache).is_file():
            raise LabError(f"--aot-cache {args.aot_cache}: no such file (./lab startup trains one: jvm-aot.aot)")
        # AOTMode=on: a JVM that cannot map the cache (another jar, JDK or GC) stops, not runs without it.
        chosen = with_column(chosen, "aot", Knob(jvm_flags=(f"-XX:AOTCache={args.aot_cache}", "-XX:AOTMode=on")))
    if args.minimal:
        if not args.plan and not Path(args.minimal_jar).is_file():
            raise LabError(f"--minimal: no jar at {args.minimal_jar!r} (./lab bench --minimal builds scripts/minimal)")
        if args.jdk and len(jdks_named(args.jdk)) > 1:
            raise LabError("--minimal runs on one JDK: its column has no metrics to compare JDKs by")
        minimal = Knob(jar=args.minimal_jar, bare=True)
        chosen = with_column(
            chosen, "minimal", minimal, where=lambda load, lane: lane == Lane(VIRTUAL) and load.script in SERVES
        )
    return chosen
