#!/usr/bin/env python3
"""`./lab startup`: JVM vs JVM with an AOT cache vs native, measured the same way.

For each available variant, LAUNCHES launches (default 5), interleaved: launch i of every variant
before launch i + 1 of any, in an order rotated every launch, so the machine's drift reaches every
variant alike. Per launch: time to first successful request, polled from process launch (not the
framework's own log line), and its phases (the JVM's creation, Quarkus' start-up steps, the rest);
classes loaded (from the AOT cache or not) and JIT work by then; RSS read from the OS at the first
request (and its anonymous and file-backed parts: an AOT cache is a mapped file), at idle and after
a fixed load; throughput of the sleep and product workloads at that load (loadgen). Medians with
min-max. Then one profiled launch per JVM variant, not counted: a flame graph of its start-up. The
schema is migrated once before the launches, as a step of its own (schema.py), and every launch
starts without Flyway, as a production service does. The AOT cache (JDK 25, JEP 483/514/515) is
written by a training run of the same jar and flags (-XX:AOTCacheOutput) driven through every
workload in every mode, and used by the measured runs (-XX:AOTCache). With --minimal, a minimal
Quarkus REST application (scripts/minimal: one endpoint, the service's Quarkus) runs beside them
with the same JDK, flags and launch, on the JVM and with a cache trained on its endpoint: the
service's start-up against a floor. Where ./lab aot built them, Quarkus' own recipe (the aot-jar,
its cache trained by the packaged-jar integration tests) of the service and of the minimal
application run beside them (jvm-aot-quarkus, minimal-aot-quarkus). Native is measured only
where a native executable was really built (target/*-runner); otherwise the report says it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

from loomlab import ROOT, command, schema, stats
from loomlab.bench import api
from loomlab.table import Table

from . import firstminute, tables
from . import phases as ph
from .cli import parse
from .flame import profile_start
from .launches import FIRST, Settings, Variant, measure
from .training import lab_loads, minimal_requests, train


def jvm_flags(args) -> list[str]:
    """The flags of every JVM launch and of the training run: the lab's, then the phase flags."""
    return [*args.jvm_flags.split(), *ph.JVM_FLAGS]


def variants(args, settings: Settings, out: Path) -> tuple[dict[str, Variant], list[str]]:
    """Every variant this machine has, as its command line with the phase flags (the AOT caches
    trained first, with the measured launches' flags); notes for those it has not."""
    jar = ROOT / "target/quarkus-app/quarkus-run.jar"
    flags = jvm_flags(args)

    def jvm(*more: str, app: Path = jar) -> list[str]:
        return [args.java, *flags, *more, "-jar", str(app)]

    found = {"jvm": Variant(jvm())}
    for name, more in args.variant:
        found[f"jvm+{name}"] = Variant(jvm(*more))
    notes = [f"jvm+{name}: the JVM with `{' '.join(more)}`" for name, more in args.variant]
    aot = train(args.java, flags, jar, settings, out, "jvm-aot", lab_loads)
    if aot.exists():
        found["jvm-aot"] = Variant(jvm(f"-XX:AOTCache={aot}"))
    else:
        notes.append("jvm-aot: the training run wrote no cache (see jvm-aot-training.log); not measured")
    found.update(quarkus_recipe("jvm-aot-quarkus", ROOT / "target/aot/project/target/quarkus-app", notes, jvm))
    found.update(minimal(args, settings, out, notes, jvm))
    runners = sorted((ROOT / "target").glob("*-runner"))
    if runners:
        found["native"] = Variant([str(runners[0]), *args.jvm_flags.split(), ph.PROPERTY])
    else:
        notes.append(
            "native: no native executable in target/ (this machine cannot build one: no GraalVM or "
            "Mandrel, no container runtime); not measured, and no figure is claimed"
        )
    return found, notes


def quarkus_recipe(name: str, app: Path, notes: list[str], jvm, loaded: bool = True) -> dict[str, Variant]:
    """Quarkus' own AOT recipe (./lab aot), where it was built: the aot-jar in `app`, its cache
    app.aot trained by the packaged application's integration tests (`loaded`: as Variant's)."""
    if not (app / "app.aot").exists():
        notes.append(f"{name}: no {app.relative_to(ROOT)}/app.aot (build it with ./lab aot); not measured")
        return {}
    notes.append(
        f"{name}: Quarkus' own recipe (./lab aot): the aot-jar packaging, its cache trained by the"
        f" packaged-jar integration tests ({app.relative_to(ROOT)})"
    )
    return {name: Variant(jvm(f"-XX:AOTCache={app / 'app.aot'}", app=app / "quarkus-run.jar"), loaded)}


def minimal(args, settings: Settings, out: Path, notes: list[str], jvm) -> dict[str, Variant]:
    """The minimal application on the JVM and with its own trained cache (measured to the first answer
    and at idle: it has none of the lab's loads), where --minimal names its jar."""
    app = Path(args.minimal)
    if not args.minimal or not app.is_file():
        notes.append("minimal: no minimal application (./lab startup builds scripts/minimal); not measured")
        return {}
    found = {"minimal": Variant(jvm(app=app), loaded=False)}
    aot = train(args.java, jvm_flags(args), app, settings, out, "minimal-aot", minimal_requests)
    if aot.exists():
        found["minimal-aot"] = Variant(jvm(f"-XX:AOTCache={aot}", app=app), loaded=False)
    else:
        notes.append("minimal-aot: the training run wrote no cache (see minimal-aot-training.log); not measured")
    recipe = ROOT / "target/aot/minimal/target/quarkus-app"
    found.update(quarkus_recipe("minimal-aot-quarkus", recipe, notes, jvm, loaded=False))
    notes.append(
        "minimal, minimal-aot: scripts/minimal (one endpoint, the service's Quarkus, JDK and flags), measured"
        " to its first answer and at idle; the lab's loads are the service's, so its load columns are empty"
    )
    return found


def report(args, runs: dict[str, list[dict]], flames: dict[str, dict], notes: list[str], minute: dict) -> str:
    """report.md's text: the variants side by side, then where their start-up goes."""
    results = {name: stats.aggregate(r) for name, r in runs.items()}
    floor = tables.minimal_table(runs)  # the service against the minimal application, where both ran
    parts = [
        "# loom-lab startup report",
        f"JVM vs JVM+AOT cache vs native: {args.launches} launches each, interleaved across the variants"
        " (launch i of each before launch i + 1 of any, the order rotated), medians (min-max). First request: "
        f"GET {FIRST} polled every 5 ms from process launch; RSS at it split into anonymous and file-backed"
        " (medians; an AOT cache is a mapped file). Load: loadgen, sleep (200 users x 20, 20 ms) and "
        "product (ramped to 100 users), virtual mode. Page cache: "
        + ("dropped before every launch (cold)" if args.cold else "as the previous launch left it (warm)")
        + ". Anchor: quarkusio/benchmarks, January 2026, 4 CPUs, "
        "Hibernate + PostgreSQL (a different app and machine, for scale only). JVM flags: "
        f"`{' '.join(jvm_flags(args))}` in every launch and in the training run.",
        tables.table(results).markdown(),
        *(
            ["## The service against a minimal Quarkus application (goal: at most 1.5x)", floor.markdown()]
            if floor
            else []
        ),
        "## Where the time to the first answer goes",
        (tables.phase_table(runs, flames) or Table(["no launch printed its phases"])).markdown(),
        "## Classes and the JIT by the first answer (jcmd PerfCounter.print)",
        tables.counter_table(runs).markdown(),
    ]
    cpu = tables.cpu_table(flames)
    if cpu:
        parts += ["## The start-up's CPU, one profiled launch per JVM variant (async-profiler, 1 ms)", cpu.markdown()]
    parts += firstminute.tables(minute, args.first_minute_load)
    return "\n\n".join(parts) + "\n\n" + "".join(f"- {n}\n" for n in notes)


def main():
    args = parse()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(args.loadgen, args.port, Path(args.java).parent / "jcmd", args.cold)
    # The schema first, as a step of its own: every launch (and the training runs) start without Flyway.
    took = schema.migrate(args.java, ROOT / "target/quarkus-app/quarkus-run.jar", out / "migration.log")
    print(f"== the schema's migration, a step of its own before the launches: {took:.1f} s", flush=True)
    found, notes = variants(args, settings, out)
    notes.append(
        f"the schema: migrated before the launches by the jar with Quarkus' init-and-exit ({took:.1f} s, of which"
        " Quarkus waits 5 s before it exits); every launch and training run starts with Flyway inactive"
        " (QUARKUS_FLYWAY_ACTIVE=false), and nothing opens a database connection before the first answer"
    )
    print(f"== {', '.join(found)}: {args.launches} launches each, interleaved", flush=True)
    runs = measure(found, args.launches, settings, out)
    kind = args.first_minute_load
    minute = firstminute.measure(found, args.first_minute, settings, out, kind) if args.first_minute else {}
    flames = {}
    if not args.no_flames:
        profiler = api.Profiler.fetch(args.java)
        for name, variant in found.items():
            if name != "native":
                print(f"== {name}: profiled launch (not counted)", flush=True)
                flames[name] = profile_start(name, variant.cmd, settings, profiler, out)
    record = {"runs": runs, "flames": flames, "notes": notes, "first_minute": minute, "first_minute_load": kind}
    (out / "results.json").write_text(json.dumps(record, indent=1))
    text = report(args, runs, flames, notes, minute)
    print("\n" + text)
    (out / "report.md").write_text(text)
    print(f"report: {out / 'report.md'}")


if __name__ == "__main__":
    command(main)
