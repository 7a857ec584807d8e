"""The AOT cache's training run on the lab's own loads (JDK 25: JEP 483 classes loaded and linked,
JEP 515 method profiles): the JVM that writes the cache as it exits is driven through every
workload in every mode it runs in, by the bench's own loads at the smoke scale (on loadgen), as the Quarkus
AOT guide recommends over a run that only starts the application. The minimal application's cache
is trained the same way on its one endpoint."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from loomlab import LabError
from loomlab.bench import api

from .launches import FIRST, Settings, get, launched

# The minimal application's training: its one endpoint asked this many times, one after another.
MINIMAL_REQUESTS = 2000

# The load parameters that choose another path through the service (the chunk writer, the lock of
# the pinning demo, the buffer cache, the gRPC stream's domain): a load per value is trained.
SELECTS = ("WRITES", "LOCK", "CACHE", "DOMAIN")


def training_runs() -> Iterator[tuple[api.Load, api.Lane]]:
    """(load, lane) for the first smoke-scale load of each script and path (SELECTS) of the core
    suites, in each of the load's modes: every workload in every mode, each once."""
    seen = set()
    for module in api.MODULES:
        for suite in module.suites(api.Scale("smoke")):
            for load in suite.loads if suite.core else ():
                for mode in load.lanes:
                    key = (load.script, mode, tuple(load.env.get(k) for k in SELECTS))
                    if key not in seen:
                        seen.add(key)
                        yield load, mode


# A training: what drives the JVM (settings, the folder for its files) while it records the cache.
Drive = Callable[[Settings, Path], None]


def train(java: str, flags: list[str], jar: Path, settings: Settings, out: Path, name: str, drive: Drive) -> Path:
    """The jar run once on `java` with `flags` (those of the measured launches) and -XX:AOTCacheOutput
    while `drive` runs against it; the cache it writes as it exits: out/NAME.aot, for the variant NAME
    (its log out/NAME-training.log, the drive's files in out/NAME-training/)."""
    aot = out / f"{name}.aot"
    folder = out / f"{name}-training"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"== {name}: training run", flush=True)
    cmd = [java, *flags, f"-XX:AOTCacheOutput={aot}", "-jar", str(jar)]
    with launched(cmd, settings.port, out / f"{name}-training.log"):  # the cache is written as the JVM exits
        drive(settings, folder)
    return aot


def minimal_requests(settings: Settings, folder: Path) -> None:
    """The minimal application's training: its one endpoint, MINIMAL_REQUESTS times, one after another
    (each request bounded by get's timeout)."""
    print(f"   {MINIMAL_REQUESTS} requests to its one endpoint", flush=True)
    url = f"http://127.0.0.1:{settings.port}{FIRST}"
    answered = sum(get(url) == 200 for _ in range(MINIMAL_REQUESTS))
    (folder / "runs.txt").write_text(f"GET {FIRST}: {answered} of {MINIMAL_REQUESTS} answered 200\n")


def lab_loads(settings: Settings, folder: Path) -> None:
    """The service's training: every workload in each of its modes, one loadgen run each (training_runs)."""
    runs = list(training_runs())
    print(f"   {len(runs)} runs: every workload in each of its modes", flush=True)
    engine = api.Loadgen(settings.loadgen)
    base = f"http://127.0.0.1:{settings.port}"
    failed = []
    for i, (load, mode) in enumerate(runs):
        out = folder / f"{i:02d}-{Path(load.script).stem}-{mode.key}.json"
        engine.prepare(load, mode, False)
        try:
            done = engine.generate(load, mode, base, out, out.stem, api.RunSettings(), False)
        except LabError as e:  # a run that failed still trained what it reached; the report names it
            failed.append(f"{load.name} ({mode.key}): {str(e).splitlines()[0]}")
            continue
        if done.exit != 0:  # a threshold crossed still trains
            failed.append(f"{load.name} ({mode.key}): a threshold crossed")
    (folder / "runs.txt").write_text(
        "".join(f"{load.script} {mode.key} {load.name}\n" for load, mode in runs)
        + "".join(f"not clean: {f}\n" for f in failed)
    )
