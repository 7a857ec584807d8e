"""The answer of a Job that ran a workload's modes in rounds (jobrun on loadgen, or k6/run.sh with
ROUNDS on a k6 image with the lab's code): the same tables and verdict as `./lab bench`, from the same
code (loads, verdict, answer, report), read from the runs' files.

  python3 -m loomlab.bench.reporting.jobanswer bounds TARGET [EXPECT]   print the service's pools; exit 3
                                                              when EXPECT (k=v,...) differs
  python3 -m loomlab.bench.reporting.jobanswer answer                   the tables and the verdict
      --results DIR --script sleep.js --target NAME --modes "worker virtual" --rounds N
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

from loomlab import LabError, command

from ..deciding import answer
from ..measuring import figures
from ..planning.lane import Lane
from ..planning.loads import Load
from ..workloads import find_load
from .loadfigures import LoadFigures
from .tables import load_table


def pools_of(target: str, wait_s: float = 0) -> dict:
    """The service's pools (/api/info), waiting up to wait_s for it to answer (k6's setup() waits
    for readiness the same way: READY_WAIT_S)."""
    started = time.monotonic()
    said = ""
    while True:
        try:
            with urllib.request.urlopen(f"{target}/api/info", timeout=10) as r:
                return json.loads(r.read()).get("pools", {})
        except OSError as e:
            waited = time.monotonic() - started
            if waited >= wait_s:
                raise LabError(f"{target} did not answer /api/info within {wait_s:.0f} s: {e}") from None
            if str(e) != said:  # each new refusal once, in the log, with when it came
                said = str(e)
                print(f"waiting for {target} ({waited:.1f} s): {said}", file=sys.stderr, flush=True)
            time.sleep(1)


def expected(spec: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in spec.split(",") if "=" in kv)


def bounds(target: str, expect: str) -> int:
    """Prints the service's pools; 3 when one differs from what the answer was measured at."""
    pools = pools_of(target, float(os.environ.get("READY_WAIT_S", "30")))
    print("service pools (/api/info): " + ", ".join(f"{k} {v}" for k, v in sorted(pools.items())), flush=True)
    wrong = {k: (v, pools.get(k)) for k, v in expected(expect).items() if str(pools.get(k)) != v}
    if wrong:
        for k, (want, got) in wrong.items():
            print(
                f"the answer this Job reproduces was measured at {k} = {want}; this service runs {got}", file=sys.stderr
            )
        return 3
    return 0


def answer_of(
    results_dir: Path,
    script: str,
    target: str,
    lanes: list[Lane],
    rounds: int,
    env: dict[str, str],
    pools: dict,
    load: Load | None = None,
) -> tuple[dict, str]:
    """(the section ./lab bench would report, its text) from the rounds' files: k6's raw summaries
    (k6/run.sh) or loadgen's runs (jobrun: their figures as the engine gave them)."""
    load = (load or find_load(script, env)).in_lanes(lanes)
    results = {}
    for mode in load.columns:
        runs = []
        for r in range(1, rounds + 1):
            path = results_dir / f"{script.removesuffix('.js')}-{target}-{mode}-r{r}.json"
            if path.exists():
                got = json.loads(path.read_text())
                if "figures" not in got:  # k6's raw summary (k6/run.sh), else a loadgen run (jobrun)
                    got = {"figures": figures.k6_generated(load, got), "exit": 0}
                runs.append(figures.figures_from(load, got["figures"], [], got["exit"], 0.0))
        results[mode] = {"runs": runs, "warmup": {}}
    measured = LoadFigures.of(load, results, pools)
    section = {
        "workload": script.removesuffix(".js"),
        "load": load.name,
        "results": results,
        "rate": load.rate,
        "bounds": measured.bounds,
    }
    table = answer.answer_table([section], local="")
    text = (
        f"{section['workload']}: {load.name}, {rounds} interleaved rounds (the order of the modes rotated"
        f" each round)\n{load_table(measured).text()}\n\nanswer:\n{table.text()}"
    )
    return section, text


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python3 -m loomlab.bench.reporting.jobanswer")
    sub = p.add_subparsers(dest="what", required=True)
    b = sub.add_parser("bounds")
    b.add_argument("target")
    b.add_argument("expect", nargs="?", default="")
    a = sub.add_parser("answer")
    a.add_argument("--results", required=True)
    a.add_argument("--script", required=True)
    a.add_argument("--target", required=True, help="the target's host name, as in the files' names")
    a.add_argument("--url", required=True, help="the target's base URL (its pools)")
    a.add_argument("--modes", required=True)
    a.add_argument("--rounds", type=int, required=True)
    args = p.parse_args(argv)
    if args.what == "bounds":
        return bounds(args.target, args.expect)
    modes = [Lane.parse(m) for m in args.modes.split()]
    _, text = answer_of(
        Path(args.results), args.script, args.target, modes, args.rounds, dict(os.environ), pools_of(args.url)
    )
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    command(main, sys.argv[1:])
