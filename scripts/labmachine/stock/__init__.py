"""A stranger's machine, proven on this one: a stock Debian 12 root filesystem (mmdebstrap, the
`standard` variant a Debian install has), the committed checkout cloned into it, then exactly what the
README tells a user to run, as root in a container on this machine's network: its prerequisite line,
then lab commands (by default the README's two). Each step runs in its own mount and PID namespace
(unshare + chroot): its mounts and every process it started die with it, nothing is left on the host.

What stands in for the user's own set-up, and nothing else:
- Temurin 25 and Go, which Debian 12 cannot provide, bind-mounted read-only where the README tells a
  user to install them (/usr/lib/jvm, /usr/local/go);
- this machine's CA bundle, added the Debian way (update-ca-certificates) and named for pip and npm:
  the package registries this machine reaches sit behind it, as a company's proxy would;
- with --warm-caches, this machine's Maven repository and Go caches as read-only lower layers
  (overlayfs, writes stay in the run): downloads and compiles saved, no prerequisite among them.

    ./lab stock                                      the README's line, its doctor, ./lab bench, ./lab test
    ./lab stock --then test --then "bench --profile smoke --strict" --warm-caches      what CI runs
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

from labmachine.stock import machine
from labmachine.stock.plan import Done, Step, steps, summary
from loomlab import ROOT, LabError, proc


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="./lab stock",
        description="The README's prerequisite line and commands in a stock Debian 12 root filesystem, on"
        " this machine (root): each step's exit status and time in target/loom-lab/stock-<time>/stock.md.",
    )
    p.add_argument(
        "--then",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a lab command to run after the README's line and doctor, instead of its two (repeatable),"
        ' e.g. --then "bench --profile smoke --strict"',
    )
    p.add_argument(
        "--warm-caches", action="store_true", help="this machine's Maven and Go caches as read-only lower layers"
    )
    p.add_argument("--fresh", action="store_true", help="make the cached root filesystem again")
    p.add_argument("--timeout-min", type=int, default=120, help="the whole run's bound (default 120)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    if os.geteuid() != 0:
        raise LabError("./lab stock runs as root (mmdebstrap, mounts, chroot)")
    for needed in (machine.JDK, machine.GO):
        if not (needed / "bin").is_dir():
            raise LabError(f"{needed} is missing: the stock machine gets it from here, as the README tells a user")
    if busy := [port for port in machine.PORTS if proc.listening(port)]:
        raise LabError(
            f"ports {busy} are in use on 127.0.0.1 (the stock machine shares this network): stop what holds them"
        )
    # This machine's CA first (a stand-in, above), then what the README says.
    plan = [
        Step("this machine's CA", "update-ca-certificates >/dev/null"),
        *steps((ROOT / "README.md").read_text(), args.then),
    ]
    deadline = time.monotonic() + args.timeout_min * 60
    caches = machine.warm_caches() if args.warm_caches else []
    tar = machine.pristine(args.fresh)
    out = ROOT / "target" / "loom-lab" / time.strftime("stock-%Y%m%d-%H%M%S")
    out.mkdir(parents=True)
    run = Path(os.path.realpath(machine.private_dir(machine.HOME / "runs"))) / out.name
    run.mkdir(mode=0o700)
    done: list[Done] = []
    try:
        rootfs = machine.prepare(tar, run, caches)
        for step in plan:
            d = machine.run_step(rootfs, run, step, caches, deadline)
            done.append(d)
            print(f"stock: {d.name}: exit {d.status} in {d.seconds:,.0f} s", file=sys.stderr, flush=True)
            if d.status not in step.accept:
                break
        machine.keep(rootfs, out)
    finally:
        if left := machine.mounted_under(run):
            print(f"stock: {run} kept: still mounted at {left}", file=sys.stderr)
        else:
            shutil.rmtree(run)
    (out / "stock.md").write_text(summary(done))
    (out / "stock.json").write_text(json.dumps([asdict(d) for d in done], indent=2) + "\n")
    print(summary(done), end="")
    passed = len(done) == len(plan) and all(d.status in s.accept for d, s in zip(done, plan, strict=True))
    return 0 if passed else 1
