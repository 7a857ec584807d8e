"""`./lab bench`: drives every load against the service in every mode and writes the report.

It starts the service itself (one instance per workload, with the pools that workload's seed
used), scrapes /q/metrics before, during and after every run, warms up without counting, repeats
each measured run, and prints medians with their spread beside the Little's-law bound and the
seed's figures. Everything it measured lands under target/loom-lab/<timestamp>/.

Called by ./lab with the JDK, the database and the load generator ready; see `./lab bench --help`.
"""

from __future__ import annotations

import os
from pathlib import Path

from loomlab import LabError, command
from loomlab.table import fmt_duration

from .cli import parser
from .deciding import verdict
from .pipeline import measure
from .planning.plan import Plan
from .reporting import jdks
from .reporting.compare import compare
from .reporting.report import finish, run_meta
from .running import quota, runner
from .running.engines import Engines
from .running.progress import Progress
from .running.runner import LocalJvm


def announce(plan: Plan, listed: bool) -> Progress:
    """Prints the plan (`listed`: each suite and mode too) and returns its progress."""
    settings, chosen = plan.settings, plan.suites
    total_loads = sum(len(s.loads) for s in chosen)
    planned, most = plan.seconds(), plan.seconds(settings.max_rounds)
    if settings.capacity:
        print(
            f"plan: a capacity search of {len(chosen)} suites; about {fmt_duration(planned)} of start-up and"
            f" steps at one round a new rate that held, else {settings.repeats} (up to {fmt_duration(most)} where"
            " the generator lags in half an edge's rounds), were every mode to climb to its top"
            f" (x{settings.capacity.top_x:g} its start, x{settings.capacity.factor:g} its pool's bound where one"
            " binds it), fail there and at every bisection, and hold its held edge again; a mode whose knee lies"
            " below its start, or whose held edge fails when run again, takes more, most modes far fewer",
            flush=True,
        )
    else:
        print(
            f"plan: {len(chosen)} suites, {total_loads} loads; about {fmt_duration(planned)} of load and start-up"
            f" at {settings.repeats} rounds per load, up to {fmt_duration(most)} where"
            f" the runs cannot tell at {settings.repeats} and need up to {settings.max_rounds} (a verdict needs an"
            f" interval of {verdict.CONFIDENCE:.0%} confidence: {verdict.min_rounds()} rounds at least); the progress"
            " lines correct it by the pace measured so far",
            flush=True,
        )
    if listed:
        for s in chosen:
            print(
                f"  {s.workload}{' / ' + s.variant if s.variant else ''} loads: {'; '.join(ld.name for ld in s.loads)}"
            )
        for s, m, lane in plan.lane_seconds():
            print(
                f"  {s.workload}{' / ' + s.variant if s.variant else ''} {m.key}: start-up and warm-up "
                f"{fmt_duration(lane['start'])}, runs {fmt_duration(sum(lane['runs'].values()))}"
            )
    return Progress(total_loads, planned)


def main(argv=None):
    args = parser().parse_args(argv)
    if args.compare:
        compare(Path(args.compare[0]), Path(args.compare[1]))
        return
    if not args.plan and not (args.java and args.out and (args.loadgen or args.engine == "k6")):
        raise LabError("--loadgen, --java and --out are needed to run (./lab bench passes them)")
    plan = Plan.of(args)
    progress = announce(plan, args.plan)
    if args.plan:
        return
    engines = Engines(args.engine, args.loadgen, args.k6)
    used = engines.check([ld for s in plan.suites for ld in s.loads])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = list(plan.named)
    javas = runner.javas(args.java, wanted) if wanted else {}
    java = javas[wanted[0]] if len(wanted) == 1 else args.java
    local = LocalJvm(java, engines, Path(args.jar), args.port, args.jvm_flags, tuple(javas.items()), args.reference)
    try:
        sections, info = measure(plan, out, progress, local)
    finally:
        in_cgroups = any(lane.knob.quota_cpus is not None for s in plan.suites for ld in s.loads for lane in ld.lanes)
        if in_cgroups and (left := quota.remove()):
            print(f"cgroups left behind (a JVM still in them?): {', '.join(map(str, left))}", flush=True)
    print("\n".join(jdks.comparison(sections)), flush=True)
    meta = run_meta(
        plan.settings,
        info,
        os.environ.get("LOOMLAB_COMMAND", "lab bench"),
        [e.version() for e in used],
        jvm_flags=args.jvm_flags,
    )
    finish(out, meta, sections, chartjs=args.chartjs, strict=args.strict)


if __name__ == "__main__":
    command(main)
