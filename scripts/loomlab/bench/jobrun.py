"""One run of a workload's load on the lab's engine inside a Kubernetes Job (the loadgen image,
src/main/docker/local/Containerfile.loadgen): the load the bench has for these parameters, sent by
the same engine as on this machine (engines/loadgen.py: the request, bodies, thresholds), its
figures printed to the log between two markers for the driver (`./lab k8s run`) to read. Standard
library only.

Its environment, as incluster/core/jobs.make_job sets it:
  SCRIPT     the load's script (its name: sleep.js), with the load's parameters beside it
  LOAD       the load's name in the bench (several loads may share a script and parameters)
  TARGETS    the service's base URL                   LANE  the column (worker, virtual+rx, ...)
  RUN_LABEL  the run's name, for its messages         WARMUP  1: a warm-up run (its overrides)
  RESULTS    a folder for the run's files             LOADGEN  the generator (/usr/bin/loadgen)

Exit 0, or 99 when the load's thresholds were crossed (figures printed either way).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from loomlab import LabError, command

from .engines.loadgen import Loadgen
from .loads import Load
from .procstat import ChildrenCpu
from .settings import RunSettings
from .workloads import find_load, suites_of

BEGIN = "----- loom-lab loadgen run -----"
END = "----- end of loom-lab loadgen run -----"


def load_of(script: str, name: str, env: Mapping[str, str]) -> Load:
    """The bench's load of this script, name and parameters; refused when the bench has none (a
    run on loadgen needs the load's request, which only the bench's own loads declare)."""
    for _, load in suites_of(script):
        if load.name == name and all(env.get(k) == v for k, v in load.env.items()):
            return load
    load = find_load(script, env)
    if load.request is None:
        raise LabError(f"no load of {script} named {name!r} with these parameters declares its request")
    return load


def run(env: Mapping[str, str]) -> dict:
    """The run the environment describes: {"summary": loadgen's own, "figures", "exit", "gen_cpu_s"}."""
    load = load_of(env["SCRIPT"], env.get("LOAD", ""), env)
    results = Path(env.get("RESULTS", "/tmp"))
    results.mkdir(parents=True, exist_ok=True)
    out = results / "run.json"
    engine = Loadgen(env.get("LOADGEN", "/usr/bin/loadgen"))
    warmup = env.get("WARMUP") == "1"
    lane, label = env["LANE"], env.get("RUN_LABEL", env["SCRIPT"])
    engine.prepare(load, lane, warmup)
    cpu = ChildrenCpu()
    generated = engine.generate(load, lane, env["TARGETS"].strip(), out, label, RunSettings(), warmup)
    return {
        "summary": json.loads(out.read_text()),
        "figures": generated.figures,
        "exit": generated.exit,
        "gen_cpu_s": cpu.seconds(),
        "engine": engine.name,
        "version": engine.version(),
    }


def printed(result: dict) -> str:
    return f"{BEGIN}\n{json.dumps(result)}\n{END}\n"


def read(log: str) -> dict | None:
    """The run a Job's log printed, or None."""
    if BEGIN not in log:
        return None
    block = log.split(BEGIN, 1)[1].split(END, 1)[0]
    line = next((ln for ln in block.splitlines() if ln.startswith("{")), None)
    return json.loads(line) if line else None


def main(argv: list[str]) -> int:
    if argv:
        print(__doc__)
        return 0 if argv[0] in ("-h", "--help") else 2
    result = run(os.environ)
    sys.stdout.write(printed(result))
    sys.stdout.flush()
    return int(result["exit"])


if __name__ == "__main__":
    command(main, sys.argv[1:])
