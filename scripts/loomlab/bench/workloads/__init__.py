"""The workloads, one module each: its seed's figures, its Little's-law bounds, its loads, and
its suites at a Scale (the main suite first, then the seeds' variants of its configuration)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import chain

from ..planning.lane import Lane
from ..planning.loads import Load, Scale, Suite
from . import buffers, cores, cost, db, ingest, knobs, mixed, pinning, product, sleep, tasks

# In report order.
MODULES = (sleep, tasks, product, ingest, db, pinning, mixed, buffers, cores, knobs, cost)

# The k6 scripts whose workload module has another name.
MODULE_OF = {"recruits": "ingest", "candidates": "ingest", "ingest-grpc": "ingest"}
SCALES = ("quick", "smoke", "seeds")


def suites_of(script: str) -> Iterator[tuple[Suite, Load]]:
    """Every (suite, load) of k6/<script> at every scale, the quick scale's first: the workload's own
    module's, then those of the modules that run its loads in suites of their own (cores, knobs), then
    the recorded suites no profile runs any more (cost.recorded)."""
    workload = MODULE_OF.get(script.removesuffix(".js"), script.removesuffix(".js"))
    named = [m for m in MODULES if m.__name__.rsplit(".", 1)[1] == workload]
    ordered = named + [m for m in MODULES if m not in named]
    planned = (suite for m in ordered for scale in SCALES for suite in m.suites(Scale(scale)))
    for suite in chain(planned, cost.recorded()):
        yield from ((suite, load) for load in suite.loads if load.script == f"k6/{script}")


def find_load(script: str, env: Mapping[str, str]) -> Load:
    """The bench's load of this script whose parameters these are (its name, bound and seed); a load
    of these parameters, without a bound, when the bench has none."""
    for _, load in suites_of(script):
        if all(env.get(k) == v for k, v in load.env.items()):
            return load
    return Load(f"{script} with the Job's parameters", f"k6/{script}", "main", dict(env))


def of_section(section: Mapping) -> tuple[Suite | None, Load]:
    """The suite and load a section of results.json was measured with: its script, parameters and
    name; the load without a bound when the bench no longer has it."""
    script = section["script"].removeprefix("k6/")
    found = [
        (suite, load)
        for suite, load in suites_of(script)
        if load.env == section["env"] and suite.variant == section.get("variant", "")
    ]
    named = [(s, ld) for s, ld in found if ld.name == section["load"]]
    unknown = (None, Load(section["load"], section["script"], "main", section["env"]))
    suite, load = next(iter(named + found), unknown)
    # A column the run added (another build, an AOT cache: planning/columns.columns) has its name only.
    return suite, replace(load, name=section["load"]).in_lanes(Lane.parse(c) for c in section["results"])
