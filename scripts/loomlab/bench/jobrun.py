"""A workload's load on the lab's engine inside a Kubernetes Job (the loadgen image,
src/main/docker/local/Containerfile.loadgen): the bench's own load, sent by the same engine as on
this machine (running/engines/loadgen.py: the request, bodies, thresholds). Standard library only.

One run, with LANE (what `./lab k8s run` makes, incluster/core/jobs.make_job): its figures printed to
the log between two markers for the driver to read. Without LANE, in rounds (deploy/k8s/loads,
applied by hand): the service's pools checked, WARMUPS unmeasured runs of each mode, then ROUNDS
interleaved rounds (every mode once a round, the order rotated), each run's figures written to
RESULTS, and the bench's tables and verdict at the end of the log (jobanswer; one round names no
winner).

  SCRIPT     the load's script (sleep.js)          LOAD  its name in the bench ("closed 500 VUs x 10 (A3)")
  TARGETS    the service's base URL (rounds: several, space separated)
  LANE       one run's column (worker, virtual+rx, ...)     MODES  the rounds' columns (the load's)
  ROUNDS, WARMUPS  rounds and warm-ups per mode (1, 1)       WARMUP  1: one run is a warm-up
  EXPECT_POOLS  k=v,... the pools the answer was measured at; a service with others is refused (exit 3)
  RESULTS    a folder for the runs' files          LOADGEN  the generator (/usr/bin/loadgen)
  RUN_LABEL  one run's name, for its messages     READY_WAIT_S  most seconds to wait for the service (60)
  SEGMENTS, JOB_COMPLETION_INDEX  one run split over N runners (an Indexed Job): this pod's share
             (share), vegeta's results kept for the driver's merge (RESULTS/part<i>.results.bin)
  PAUSED     1: a split's runner starts with the others (wait_for_start; START_WAIT_S, RUNNERS_SET_S)
  SAMPLES    1: every request of one run as a CSV row (RESULTS/run.samples.csv), as a failover reads them
The load's parameters (VUS, ITERATIONS, SLEEP_MS, ...) default to the bench's; one given here
replaces the load's own.

Exit 0; 99 when a run crossed the load's thresholds (figures printed either way); 3 as above.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from loomlab import LabError, command, stats

from .measuring.procstat import ChildrenCpu
from .planning.lane import WORKER, Lane
from .planning.loads import Load
from .planning.settings import RunSettings
from .reporting.jobanswer import answer_of, bounds, pools_of
from .running.engines.loadgen import Loadgen, run_env
from .workloads import suites_of

BEGIN = "----- loom-lab loadgen run -----"
END = "----- end of loom-lab loadgen run -----"


# How a run connects, beside a load's own parameters: NEW_CONNECTIONS=true, a new connection per
# request (an autoscaled Service: kube-proxy spreads connections, not requests).
ENGINE_KEYS = ("NEW_CONNECTIONS",)


def load_of(script: str, name: str, env: Mapping[str, str]) -> Load:
    """The bench's load of this script and name, its parameters replaced by those `env` gives (a
    load's request is made from its parameters) and ENGINE_KEYS added; refused when the bench has no
    such load (a run on loadgen needs the load's request, which only the bench's own loads declare)."""
    for _, load in suites_of(script):
        if load.name == name and load.request is not None:
            params = {k: env.get(k, v) for k, v in load.env.items()} | {k: env[k] for k in ENGINE_KEYS if k in env}
            return dataclasses.replace(load, env=params)
    raise LabError(f"the bench has no load of {script} named {name!r} (./lab bench --plan lists them)")


def run(
    load: Load,
    lane: Lane,
    target: str,
    out: Path,
    label: str,
    warmup: bool,
    engine: Loadgen,
    together: tuple[int, int] | None = None,
) -> dict:
    """One run: {"summary": loadgen's own, "figures", "exit", "gen_cpu_s", "engine", "version"}.
    Its clock starts once the service answers this pod (/api/info, within READY_WAIT_S): a new pod's
    first connections may be refused until the cluster's policy engine has admitted it (as k6's
    setup() waited, its time is the run's setup_s); runner i of a split of n (`together`) once every
    runner of the split may (wait_for_start)."""
    engine.prepare(load, lane, warmup)
    started = time.monotonic()
    pools_of(target, float(os.environ.get("READY_WAIT_S", "60")))
    setup_s = time.monotonic() - started
    if together:
        wait_for_start(out.parent, *together, float(os.environ.get("START_WAIT_S", RUNNERS_SET_S)))
    cpu = ChildrenCpu()
    generated = engine.generate(load, lane, target, out, label, RunSettings(), warmup)
    return {
        "summary": json.loads(out.read_text()),
        "figures": generated.figures | {"setup_s": setup_s},
        "exit": generated.exit,
        "gen_cpu_s": cpu.seconds(),
        "engine": engine.name,
        "version": engine.version(),
    }


# A split's runners start together with no driver and no port: each writes the time it may start (its
# wall clock) to ready-<i> in the Job's folder on the results volume, waits until every runner has,
# then starts at the latest of those times plus START_LEAD_S, so a runner that sees the last file a
# little late still starts with the others (the report's start skew: each runner's first request).
START_LEAD_S = 1.0
# The most seconds a split's runners wait for each other (each one's pod started, its bodies made,
# the service reached): a runner not set by then fails, and the run with it (the driver's Job allows it).
RUNNERS_SET_S = 180


def wait_for_start(folder: Path, i: int, n: int, timeout_s: float) -> None:
    """Runner i of n set, until all n are and their common start has come; a LabError after `timeout_s`,
    or where this runner comes more than START_LEAD_S past that start."""
    mine, written = folder / f"ready-{i}", folder / f"ready-{i}.writing"
    written.write_text(repr(time.time()))
    written.replace(mine)  # whole or not at all, for the others' reads
    files = [folder / f"ready-{k}" for k in range(n)]
    deadline = time.monotonic() + timeout_s
    while missing := [f.name for f in files if not f.exists()]:
        if time.monotonic() > deadline:
            raise LabError(f"runner {i}: not every runner was set within {timeout_s:.0f} s ({', '.join(missing)})")
        time.sleep(0.01)
    late = time.time() - (max(float(f.read_text()) for f in files) + START_LEAD_S)
    if late > START_LEAD_S:  # it saw the others set too late to start with them: no skewed merge
        raise LabError(f"runner {i}: {late:.1f} s past the split's common start (a slow volume or a starved pod)")
    time.sleep(max(0.0, -late))


# What a runner of a split takes its share of: users, arrivals a second, most requests in flight.
SHARED = ("VUS", "RATE", "MAX_VUS")


def share(load: Load, i: int, n: int) -> Load:
    """Runner i's share of `load` split over n runners: each of SHARED divided, the remainder to the
    first runners (500 users over 3: 167, 167, 166). A ramp or a stream of bodies is not split."""
    if "STAGES" in load.env or (load.request is not None and load.request(run_env(load, Lane(WORKER), False)).bodies):
        raise LabError(f"{load.name}: a ramp or a stream of bodies is sent by one runner (--runners 1)")

    def part(env: dict) -> dict:
        out = dict(env)
        for key in SHARED:
            if key in env:
                total = int(env[key])
                out[key] = str(total // n + (1 if i < total % n else 0))
                if out[key] == "0":
                    raise LabError(f"{load.name}: {key} {total} cannot be split over {n} runners")
        return out

    return dataclasses.replace(load, env=part(load.env), warmup_env=part(load.warmup_env))


def rounds(load: Load, env: Mapping[str, str], results: Path, engine: Loadgen) -> int:
    """Every target's modes in interleaved rounds, then its answer; the worst exit of them."""
    script, n = env["SCRIPT"], int(env.get("ROUNDS", "1"))
    if env.get("MODES", "").split():
        load = load.in_lanes(Lane.parse(key) for key in env["MODES"].split())
    lanes = list(load.lanes)
    status = 0
    for target in env.get("TARGETS", "http://loom-lab-jvm:8080").split():
        name = target.split("://", 1)[-1].split(":", 1)[0].split("/", 1)[0]
        if code := bounds(target, env.get("EXPECT_POOLS", "")):
            return code
        stem = f"{script.removesuffix('.js')}-{name}"
        for w in range(1, int(env.get("WARMUPS", "1")) + 1):
            for lane in lanes:
                print(f"== warm-up {w}, {script} on {target}, mode {lane.key} (not counted)", flush=True)
                warm = results / f"warmup-{stem}-{lane.key}-{w}.summary.json"
                run(load, lane, target, warm, "warm-up", True, engine)
        for r in range(1, n + 1):
            for lane in stats.rotated(lanes, r - 1):
                print(f"== round {r}/{n}, {script} on {target}, mode {lane.key}", flush=True)
                label = f"round {r} {script} {lane.key} on {name}"
                got = run(load, lane, target, results / f"{stem}-{lane.key}-r{r}.summary.json", label, False, engine)
                (results / f"{stem}-{lane.key}-r{r}.json").write_text(json.dumps(got))
                status = max(status, got["exit"])
        _, text = answer_of(results, script, name, lanes, n, dict(env), pools_of(target), load)
        print(text, flush=True)
    return status


def printed(result: dict) -> str:
    return f"{BEGIN}\n{json.dumps(result)}\n{END}\n"


def read(log: str) -> dict | None:
    """The run a Job's log printed, or None."""
    if BEGIN not in log:
        return None
    block = log.split(BEGIN, 1)[1].split(END, 1)[0]
    line = next((ln for ln in block.splitlines() if ln.startswith("{")), None)
    return json.loads(line) if line else None


def main(argv: list[str], env: Mapping[str, str] = os.environ) -> int:
    if argv:
        print(__doc__)
        return 0 if argv[0] in ("-h", "--help") else 2
    load = load_of(env["SCRIPT"], env.get("LOAD", ""), env)
    results = Path(env.get("RESULTS", "/tmp/run"))
    results.mkdir(parents=True, exist_ok=True)
    loadgen = env.get("LOADGEN", "/usr/bin/loadgen")
    if "LANE" not in env:
        return rounds(load, env, results, Loadgen(loadgen))
    label = env.get("RUN_LABEL", env["SCRIPT"])
    target, warmup = env["TARGETS"].strip(), env.get("WARMUP") == "1"
    runners = int(env.get("SEGMENTS", "1") or 1)
    out, i = results / "run.json", int(env.get("JOB_COMPLETION_INDEX", "0"))
    if runners > 1:  # one runner of a split (an Indexed Job's pod): its share, its results kept
        load, out = share(load, i, runners), results / f"part{i}.json"
    engine = Loadgen(loadgen, results=runners > 1, samples=env.get("SAMPLES") == "1")
    together = (i, runners) if env.get("PAUSED") == "1" else None
    result = run(load, Lane.parse(env["LANE"]), target, out, label, warmup, engine, together)
    sys.stdout.write(printed(result))
    sys.stdout.flush()
    return int(result["exit"])


if __name__ == "__main__":
    command(main, sys.argv[1:])
