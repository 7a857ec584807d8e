"""`./lab bench`: drives every load against the service in every mode and writes the report.

It starts the service itself (one instance per workload, with the pools that workload's seed
used), scrapes /q/metrics before, during and after every run, warms up without counting, repeats
each measured run, and prints medians with their spread beside the Little's-law bound and the
seed's figures. Everything it measured lands under target/loom-lab/<timestamp>/.

Called by ./lab with the JDK, the database and the load generator ready; see `./lab bench --help`.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from loomlab import LabError, command
from loomlab import labreport as lr

from .cli import parser
from .deciding import verdict
from .pipeline import measure
from .planning.columns import build_of, jvm_column, quota_column
from .planning.lane import VIRTUAL, Knob, Lane
from .planning.loads import SERVES, Load, Suite, each_load, with_column, with_reference
from .planning.plan import Plan, modes_named, planned_seconds
from .planning.profiles import PROFILES, suites
from .planning.settings import RunSettings
from .reporting import jdks
from .reporting.compare import compare
from .reporting.report import finish, run_meta
from .running import quota
from .running.engines import Engines
from .running.progress import Progress
from .running.runner import LocalJvm


def chosen_suites(args) -> list[Suite]:
    """The profile's suites of the workloads asked for, with the loads --loads names and the knob
    columns --knobs names; a workload the profile lacks is refused with the profiles that have it."""
    wanted = {w for w in args.workload.split(",") if w}
    missing = wanted - {s.workload for s in suites(args.profile)}
    if missing:
        raise LabError(
            f"workload(s) not in the {args.profile} profile: "
            + "; ".join(
                f"{w}: " + (", ".join(p for p in PROFILES if w in {s.workload for s in suites(p)}) or "no profile")
                for w in sorted(missing)
            )
            + " (--profile NAME)"
        )
    chosen = [s for s in suites(args.profile) if not wanted or s.workload in wanted]
    if args.loads:
        picked = [
            replace(s, loads=[ld for ld in s.loads if re.search(args.loads, f"{s.workload} {ld.name}")]) for s in chosen
        ]
        chosen = [s for s in picked if s.loads]
        if not chosen:
            raise LabError(f"no load of the chosen suites matches --loads {args.loads!r} (--plan lists them)")
    if args.knobs is None:
        return chosen

    def knobs(load: Load) -> Load:
        """The load's knob columns narrowed to those --knobs names ("none": none)."""
        wanted = (ln for ln in load.lanes if not ln.setting or (args.knobs != "none" and re.search(args.knobs, ln.key)))
        return replace(load, lanes=tuple(wanted))

    return each_load(chosen, knobs)


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
        if args.jdk and len(jdks.parse(args.jdk)) > 1:
            raise LabError("--minimal runs on one JDK: its column has no metrics to compare JDKs by")
        minimal = Knob(jar=args.minimal_jar, bare=True)
        chosen = with_column(
            chosen, "minimal", minimal, where=lambda load, lane: lane == Lane(VIRTUAL) and load.script in SERVES
        )
    return chosen


def announce(plan: Plan, listed: bool) -> Progress:
    """Prints the plan (`listed`: each suite and mode too) and returns its progress."""
    settings, chosen = plan.settings, plan.suites
    total_loads = sum(len(s.loads) for s in chosen)
    seconds = [(s, m, planned_seconds(s, m, settings)) for s in chosen for m in plan.lanes(s)]
    planned, most = plan.seconds(), plan.seconds(settings.max_rounds)
    print(
        f"plan: {len(chosen)} suites, {total_loads} loads; about {lr.fmt_duration(planned)} of load and start-up"
        f" at {settings.repeats} rounds per load, up to {lr.fmt_duration(most)} where"
        f" the runs cannot tell at {settings.repeats} and need up to {settings.max_rounds} (a verdict needs an interval"
        f" of {verdict.CONFIDENCE:.0%} confidence: {verdict.min_rounds()} rounds at least); the progress lines"
        " correct it by the pace measured so far",
        flush=True,
    )
    if listed:
        for s in chosen:
            print(
                f"  {s.workload}{' / ' + s.variant if s.variant else ''} loads: {'; '.join(ld.name for ld in s.loads)}"
            )
        for s, m, lane in seconds:
            print(
                f"  {s.workload}{' / ' + s.variant if s.variant else ''} {m.key}: start-up and warm-up "
                f"{lr.fmt_duration(lane['start'])}, runs {lr.fmt_duration(sum(lane['runs'].values()))}"
            )
    return Progress(total_loads, planned)


def main(argv=None):
    args = parser().parse_args(argv)
    settings = RunSettings.of(args, interleave=not args.blocks, dashboards=args.dashboards)
    if args.compare:
        compare(Path(args.compare[0]), Path(args.compare[1]))
        return
    if not args.plan and not (args.java and args.out and (args.loadgen or args.engine == "k6")):
        raise LabError("--loadgen, --java and --out are needed to run (./lab bench passes them)")
    chosen = columns(args, chosen_suites(args))
    wanted = jdks.parse(args.jdk) if args.jdk else []
    if len(wanted) > 1 and not settings.interleave:
        raise LabError("--jdk with several JDKs runs them in the same rounds: it cannot run with --blocks")
    on: tuple[int | None, ...] = tuple(wanted) if len(wanted) > 1 else (None,)
    plan = Plan(tuple(chosen), settings, frozenset(modes_named(args.mode)), on)
    progress = announce(plan, args.plan)
    if args.plan:
        return
    engines = Engines(args.engine, args.loadgen, args.k6)
    used = engines.check([ld for s in chosen for ld in s.loads])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    javas = jdks.javas(args.java, wanted) if wanted else {}
    java = javas[wanted[0]] if len(wanted) == 1 else args.java
    local = LocalJvm(java, engines, Path(args.jar), args.port, args.jvm_flags, tuple(javas.items()), args.reference)
    try:
        sections, info = measure(plan, out, progress, local)
    finally:
        in_cgroups = any(lane.knob.quota_cpus is not None for s in chosen for ld in s.loads for lane in ld.lanes)
        if in_cgroups and (left := quota.remove()):
            print(f"cgroups left behind (a JVM still in them?): {', '.join(map(str, left))}", flush=True)
    print("\n".join(jdks.comparison(sections)), flush=True)
    meta = run_meta(
        settings,
        info,
        os.environ.get("LOOMLAB_COMMAND", "lab bench"),
        [e.version() for e in used],
        jvm_flags=args.jvm_flags,
    )
    finish(out, meta, sections, chartjs=args.chartjs, strict=args.strict)


if __name__ == "__main__":
    command(main)
