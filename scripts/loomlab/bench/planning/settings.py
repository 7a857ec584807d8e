"""A run's settings, typed and built once: how many warm-ups and rounds, how the load is offered and
sampled. Both command lines (`./lab bench`, `./lab k8s run`) declare these options through
`round_options` (and what runs and where it is written through `lane_options`) and build
`RunSettings.of` their arguments, the profile's defaults applied there;
the rounds, the plan, every ServiceUnderTest and the report take the result. Standard library only:
`--help` needs no venv."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from loomlab import LabError

from ..deciding import verdict
from ..deciding.capacity import Capacity

# The environment of a run on this machine, as reports name it (the cluster's are named by variant).
LOCAL = "local JVM"


@dataclass(frozen=True)
class RunSettings:
    """What the rounds do, whichever driver runs them (defaults: the quick profile's)."""

    profile: str = "quick"
    warmups: int = 15  # most warm-up runs per mode
    warmup_seconds: float = 15  # least warm-up load per mode (s)
    warmup_tolerance: float = 0.03  # two warm-ups in a row within this fraction: warm
    repeats: int = verdict.min_rounds()  # least measured rounds per load
    max_rounds: int = 6  # most rounds per load while the verdict cannot tell
    interleave: bool = True  # rounds across the modes (False: each mode's loads in a block)
    runners: int = 1  # loadgen runners per run in the cluster (./lab k8s run --runners N), the load split
    flames: str = ""  # loads to profile after their rounds (a regular expression; "" none)
    sample_period: float = 0.5  # seconds between /q/metrics scrapes
    dashboards: str = "none"  # k6's web-dashboard export: auto, all or none
    capacity: Capacity | None = None  # the capacity profile's search (None: rounds of the planned loads)

    @classmethod
    def of(cls, args: argparse.Namespace, *, interleave: bool, dashboards: str = "none") -> RunSettings:
        """The settings of a command line's arguments: what it says wins over the profile's defaults
        (smoke: one warm-up, no least warm-up time, one round; capacity: two rounds a step, three where
        the generator lagged in one of two)."""
        smoke, capacity = args.profile == "smoke", args.profile == "capacity"
        repeats = args.repeats if args.repeats is not None else (1 if smoke else 2 if capacity else cls.repeats)
        most = 1 if smoke else 3 if capacity else cls.max_rounds
        settings = cls(
            profile=args.profile,
            warmups=args.warmups if args.warmups is not None else (1 if smoke else cls.warmups),
            warmup_seconds=(0 if smoke else cls.warmup_seconds) if args.warmup_seconds is None else args.warmup_seconds,
            warmup_tolerance=args.warmup_tolerance,
            repeats=repeats,
            max_rounds=max(repeats, args.max_rounds if args.max_rounds is not None else most),
            interleave=interleave,
            runners=getattr(args, "runners", 1),
            flames=getattr(args, "flames", ""),
            sample_period=args.sample_period,
            dashboards=dashboards,
            capacity=Capacity(
                sla_p99_ms=getattr(args, "sla_p99_ms", 0.0),
                step=getattr(args, "step", Capacity.step),
                start=getattr(args, "search_start", 0.0),
                top_x=getattr(args, "search_top_x", Capacity.top_x),
            )
            if capacity
            else None,
        )
        if settings.runners < 1:
            raise LabError("--runners must be 1 or more")
        c = settings.capacity
        if c and not (c.step > 0 and c.top_x > 1 and c.sla_p99_ms >= 0 and c.start >= 0):
            raise LabError(
                "the capacity search needs --step > 0, --search-top-x > 1, --sla-p99-ms and --search-start >= 0"
            )
        return settings


# What a column beside each mode is, where the command runs its lanes (JVM flags; a CPU quota).
COLUMNS = {
    "bench": (
        "the JVM with FLAGS added",
        "its JVM in a cgroup of the bench's own with CPUS CPUs of CFS bandwidth (root)",
    ),
    "cluster": (
        "a Deployment of its own whose JVM gets FLAGS after the image's (JAVA_OPTS_APPEND; not on the native variant)",
        "a Deployment of its own with CPUS as its container's CPU limit and request (0: no limit)",
    ),
}


def lane_options(p: argparse.ArgumentParser, where: str, workloads: str, modes: str) -> None:
    """The options of what runs and where it is written, which `./lab bench` and `./lab k8s run`
    share, declared once: `where` (bench, cluster) says what a column is there."""
    jvm, quota = COLUMNS[where]
    p.add_argument("--out", help="where the report goes (./lab passes it; needed to run)")
    p.add_argument("--workload", default="", help=f"comma-separated workloads (default: {workloads})")
    p.add_argument("--mode", default="", help=f"{modes}, comma-separated (default: every mode a workload has)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a measured run failed: it crossed a threshold (errors, checks, latency floor, drops)"
        " below the mode's bound (above it, the expected overload)",
    )
    p.add_argument(
        "--jvm-column",
        action="append",
        default=[],
        metavar="NAME=FLAGS",
        help="JVM flags beside the default, e.g. 'heap1g=-XX:MaxRAM=1g -XX:MaxRAMPercentage=75' (a pod's heap): a"
        f" column per mode, '<mode>[NAME]', {jvm}, in the same rounds; each section's knobs table gives it against"
        " the mode (repeatable)",
    )
    p.add_argument(
        "--quota-column",
        action="append",
        default=[],
        metavar="NAME=CPUS",
        help="a CPU limit beside the default, as a pod's container's, e.g. 'quota2=2' or 'cgroup=0' (no quota): a"
        f" column per mode, '<mode>[NAME]', {quota}, in the same rounds (repeatable)",
    )
    p.add_argument("--chartjs", default="", help="Chart.js UMD bundle to inline in report.html (./lab passes it)")
    p.add_argument("--plan", action="store_true", help="print what would run and its estimated time, and exit")


def round_options(p: argparse.ArgumentParser) -> None:
    """The options both command lines share, declared once."""
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="the least interleaved rounds per load (every mode once a round, the order rotated); default: the"
        f" fewest whose interval reaches the verdict's {verdict.CONFIDENCE:.0%}% confidence"
        f" ({verdict.min_rounds()}; smoke: 1)",
    )
    p.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help="most rounds per load: rounds go on past --repeats while the verdict cannot tell (6; smoke: --repeats)",
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
        default=RunSettings.warmup_tolerance,
        help="warm-up stops once two runs in a row differ by less than this fraction (default %(default)s)",
    )
    p.add_argument(
        "--sample-period",
        type=float,
        default=RunSettings.sample_period,
        help="seconds between /q/metrics scrapes (default %(default)s)",
    )


def capacity_options(p: argparse.ArgumentParser) -> None:
    """The capacity search's options (RunSettings.capacity), which both command lines share."""
    search = p.add_argument_group("the capacity profile's search")
    search.add_argument(
        "--sla-p99-ms", type=float, default=0.0, help="the SLA's p99 (ms; default: twice the workload's service time)"
    )
    search.add_argument(
        "--step", type=float, default=Capacity.step, help="bisect until failed/held is within 1 + STEP (%(default)s)"
    )
    search.add_argument(
        "--search-start", type=float, default=0.0, help="the first rate (req/s; default: the workload's open load)"
    )
    search.add_argument(
        "--search-top-x", type=float, default=Capacity.top_x, help="the highest rate, x the first (%(default)s)"
    )


def jdks_named(raw: str) -> list[int]:
    """--jdk's '21,25' -> [21, 25]: the JDKs to run, oldest first; each once."""
    try:
        wanted = sorted({int(x) for x in raw.split(",") if x.strip()})
    except ValueError:
        raise LabError(f"--jdk {raw!r}: feature releases separated by commas, e.g. 21,25") from None
    if not wanted:
        raise LabError("--jdk: name at least one JDK, e.g. 21,25")
    return wanted
