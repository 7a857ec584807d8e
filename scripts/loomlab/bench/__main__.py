"""`./lab bench`: runs the k6 scripts against the service in every mode and writes the report.

It starts the service itself (one instance per workload, with the pools that workload's seed
used), scrapes /q/metrics before, during and after every run, warms up without counting, repeats
each measured run, and prints medians with their spread beside the Little's-law bound and the
seed's figures. Everything it measured lands under target/loom-lab/<timestamp>/.

Called by ./lab with the JDK, the database and k6 ready; see `./lab bench --help`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from loomlab import ROOT
from loomlab import labreport as lr

from . import verdict
from .compare import compare
from .loads import Suite
from .profiles import PROFILES, profile_defaults, suites
from .progress import Progress
from .report import finish, run_meta
from .rounds import measure, planned_seconds, suite_modes


def parser() -> argparse.ArgumentParser:
    """`./lab bench`'s options (a help text is a %-format: a literal percent sign is written %%).
    Long because it declares every option of `./lab bench`, one call each, with its help."""
    p = argparse.ArgumentParser(prog="lab bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--k6", required=True, help="k6 binary (./lab passes it)")
    p.add_argument("--java", required=True, help="java of the service (./lab passes it)")
    p.add_argument("--jar", default=str(ROOT / "target/quarkus-app/quarkus-run.jar"))
    p.add_argument("--out", required=True, help="report folder (./lab: target/loom-lab/<timestamp>)")
    p.add_argument("--port", type=int, default=8090)
    p.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="quick",
        help="; ".join(f"{name}: {about}" for name, (_, _, _, about) in PROFILES.items()),
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when any measured k6 run crossed a threshold")
    p.add_argument("--workload", default="", help="comma-separated workloads (default: all)")
    p.add_argument(
        "--mode",
        default="",
        help="worker, virtual, reactive or virtual+rx (virtual threads awaiting the reactive "
        "clients), comma-separated (default: every mode a workload has)",
    )
    p.add_argument(
        "--warmups", type=int, default=None, help="most warm-up runs per mode (at least 2 unless fewer; 15, smoke: 1)"
    )
    p.add_argument(
        "--warmup-seconds",
        type=float,
        default=None,
        help="least time of warm-up load per mode before the runs may count as warm (15; smoke: 0)",
    )
    p.add_argument(
        "--warmup-tolerance",
        type=float,
        default=0.03,
        help="warm-up stops once two runs in a row differ by less than this fraction",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="least measured rounds per load (default: the fewest whose interval reaches the verdict's"
        f" {verdict.CONFIDENCE:.0%}% confidence; smoke: 1)",
    )
    p.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help="most rounds per load: rounds go on past --repeats while the verdict cannot tell (6; smoke: --repeats)",
    )
    p.add_argument(
        "--blocks",
        action="store_true",
        help="run each mode's loads in a block, one JVM at a time, instead of interleaved rounds",
    )
    p.add_argument(
        "--runners",
        type=int,
        default=1,
        help="k6 runners per run: the load split with k6's execution segments, the runners started paused"
        " and resumed together, their raw samples merged exactly (default 1)",
    )
    p.add_argument("--sample-period", type=float, default=0.5, help="seconds between /q/metrics scrapes")
    p.add_argument(
        "--dashboards",
        choices=["auto", "all", "none"],
        default="auto",
        help="export k6's web dashboard (HTML) of the measured runs: auto (default) every run but"
        " those where k6 is the bottleneck (A3: the export costs k6 3-7 %% of the virtual"
        " throughput), all, or none",
    )
    p.add_argument("--jvm-flags", default=os.environ.get("LAB_JVM_FLAGS", ""))
    p.add_argument("--chartjs", default="", help="Chart.js UMD bundle to inline in report.html (./lab passes it)")
    p.add_argument("--plan", action="store_true", help="print what would run and its estimated time, and exit")
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("DIR_A", "DIR_B"),
        help="print the differences of two reports' results.json (B against A) and exit",
    )
    return p


def chosen_suites(args) -> list[Suite]:
    """The profile's suites of the workloads asked for; a workload the profile lacks is refused with
    the profiles that have it."""
    wanted = {w for w in args.workload.split(",") if w}
    missing = wanted - {s.workload for s in suites(args.profile)}
    if missing:
        raise SystemExit(
            f"workload(s) not in the {args.profile} profile: "
            + "; ".join(
                f"{w}: " + (", ".join(p for p in PROFILES if w in {s.workload for s in suites(p)}) or "no profile")
                for w in sorted(missing)
            )
            + " (--profile NAME)"
        )
    return [s for s in suites(args.profile) if not wanted or s.workload in wanted]


def announce(args, chosen: list[Suite], modes: set[str]) -> Progress:
    """Prints the plan (with --plan, each suite and mode too) and returns its progress."""
    total_loads = sum(len(s.loads) for s in chosen)
    plans = [(s, m, planned_seconds(s, m, args)) for s in chosen for m in suite_modes(s, modes)]

    def planned_at(rounds: int) -> float:
        scale = max(rounds, args.repeats) / max(args.repeats, 1)
        return sum(plan["start"] + sum(plan["runs"].values()) * scale for _, _, plan in plans)

    planned = planned_at(args.repeats)
    print(
        f"plan: {len(chosen)} suites, {total_loads} loads; about {lr.fmt_duration(planned)} of load and start-up"
        f" at {args.repeats} rounds per load, up to {lr.fmt_duration(planned_at(args.max_rounds))} where"
        f" the runs cannot tell at {args.repeats} and need up to {args.max_rounds} (a verdict needs an interval"
        f" of {verdict.CONFIDENCE:.0%} confidence: {verdict.min_rounds()} rounds at least); the progress lines"
        " correct it by the pace measured so far",
        flush=True,
    )
    if args.plan:
        for s, m, plan in plans:
            print(
                f"  {s.workload}{' / ' + s.variant if s.variant else ''} {m}: start-up and warm-up "
                f"{lr.fmt_duration(plan['start'])}, runs {lr.fmt_duration(sum(plan['runs'].values()))}"
            )
    return Progress(total_loads, planned)


def main(argv=None):
    args = parser().parse_args(argv)
    args.interleave = not args.blocks
    if args.runners < 1:
        raise SystemExit("--runners must be 1 or more")
    if args.compare:
        compare(Path(args.compare[0]), Path(args.compare[1]))
        return
    chosen = chosen_suites(args)
    modes = {m for m in args.mode.split(",") if m}
    profile_defaults(args)
    progress = announce(args, chosen, modes)
    if args.plan:
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sections, info = measure(chosen, args, out, modes, progress)
    meta = run_meta(args, info, os.environ.get("LAB_COMMAND", "lab bench"), args.k6)
    finish(out, args, meta, sections)


if __name__ == "__main__":
    main()
