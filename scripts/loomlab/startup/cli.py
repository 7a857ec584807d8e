"""`./lab startup`'s options, apart from what it runs (so `./lab startup --help` reads them without
the harness's packages)."""

from __future__ import annotations

import argparse
import os

from loomlab import LabError
from loomlab.bench.planning.columns import jvm_column

DESCRIPTION = (
    "JVM vs JVM with an AOT cache vs native, measured the same way: time to the first answer and its"
    " phases, RSS, throughput at a fixed load, in interleaved launches (docs/commands.md). The JDK is"
    " the one ./lab picks (JAVA_HOME); the run's files go to target/loom-lab/startup-<time>/."
)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab startup", description=DESCRIPTION)
    # ./lab gives these three (the JDK it picks, the loadgen it builds, a new run folder): not the
    # user's to give, so --help leaves them out.
    p.add_argument("--java", required=True, help=argparse.SUPPRESS)
    p.add_argument("--loadgen", required=True, help=argparse.SUPPRESS)
    p.add_argument("--out", required=True, help=argparse.SUPPRESS)
    p.add_argument("--launches", type=int, default=5, help="per variant, interleaved across the variants (default 5)")
    p.add_argument("--port", type=int, default=8095, help="the port each launch listens on (default 8095)")
    p.add_argument(
        "--jvm-flags",
        default=os.environ.get("LOOMLAB_JVM_FLAGS", ""),
        help="flags added to every JVM launch (default: $LOOMLAB_JVM_FLAGS)",
    )
    p.add_argument(
        "--minimal",
        default="",
        metavar="JAR",
        help="the minimal application's quarkus-run.jar (./lab startup builds scripts/minimal and passes it)",
    )
    p.add_argument("--cold", action="store_true", help="drop the page cache before every launch (root)")
    p.add_argument("--no-flames", action="store_true", help="leave out the profiled launch of each JVM variant")
    p.add_argument(
        "--first-minute",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="also each mode's first minute after its first answer, on every loaded JVM variant, ROUNDS"
        " interleaved rounds (each a launch and 60 s of load per variant and mode; default 0: not run)",
    )
    p.add_argument(
        "--first-minute-load",
        choices=("closed", "open"),
        default="closed",
        help="the first minute's load: closed, 200 users on the 20 ms sleep (default; the JIT's warm-up under"
        " a full CPU), or open, 4,000 arrivals a second of it (how soon the service keeps up)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=FLAGS",
        help="one more JVM variant, jvm+NAME: the jar with these flags added (a change to measure beside"
        " the JVM in the same interleaved launches, e.g. no-openapi=-Dquarkus.smallrye-openapi.enable=false)",
    )
    return checked(p.parse_args(argv))


def checked(args: argparse.Namespace) -> argparse.Namespace:
    """The options, each refusal before the training run (minutes), not as a traceback after it."""
    if args.launches < 1:  # no launch gives no figure
        raise LabError("--launches must be 1 or more")
    if not 0 <= args.first_minute <= 20:  # each round is minutes of load
        raise LabError("--first-minute takes 0 (not run) to 20 rounds")
    if args.cold and os.geteuid() != 0:
        raise LabError("--cold drops the page cache (/proc/sys/vm/drop_caches), which needs root")
    args.variant = [(name, list(knob.jvm_flags)) for name, knob in (jvm_column(v, "--variant") for v in args.variant)]
    names = [name for name, _ in args.variant]
    if len(set(names)) < len(names):
        raise LabError(f"--variant: each NAME once ({', '.join(names)})")
    return args
