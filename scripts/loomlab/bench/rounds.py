"""Runs the plan: each mode of a suite in a service of its own, warmed up alike, then every load
measured in rounds. Locally the modes' JVMs stay up side by side and a round runs each mode once,
alone, in an order rotated every round, so drift on a shared machine (another process, the page
cache, a noisy neighbour) hits every mode alike; rounds go on past --repeats, up to --max-rounds,
while the verdict cannot tell (verdict.py). In the cluster each mode gets a Deployment of its own
and the rounds interleave the same way; the scale profile, which compares pod counts, runs blocks."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from loomlab import labreport as lr

from . import flames, verdict
from . import jdks as jdks_mod
from .loads import MODES, REFERENCE, Load, Suite
from .plan import planned_seconds, repeats_of, suite_modes, warmup_seconds
from .progress import Progress
from .runner import Service
from .sections import print_section, section_of
from .settings import RunSettings
from .summaries import SUMMARIES
from .target import ServiceUnderTest


def slug_of(tag: str, load: Load) -> str:
    return f"{tag}-{re.sub(r'[^A-Za-z0-9.]+', '_', load.name.split(' (')[0]).strip('_')}"


def ready(service: ServiceUnderTest, mode: str) -> dict:
    service.wait_ready()
    info = service.info()
    what = ", ".join(str(info[k]) for k in ("jdk", "imageKind", "server", "go") if k in info)
    print(f"   {mode}: ready ({what})", flush=True)
    return info


def info_of(mode: str, answered: dict, kept: dict) -> dict:
    """The /api/info a section's pools and bounds come from: a mode's default column's (`answered`
    where `mode` is one), never a knob column's nor the reference server's (`kept` then)."""
    return answered if mode in MODES else kept


def warm_up(
    service: ServiceUnderTest, suite: Suite, load: Load, mode: str, slug: str, settings: RunSettings, out: Path
) -> dict:
    """Warm-up, not counted: the JIT compiles this mode's request path on the suite's first load;
    later loads run on the warm JVM. Warm once two runs in a row agree and the JIT had
    --warmup-seconds of load (short runs agree with each other long before the JIT is done)."""
    warmups = settings.warmups if load.warmups is None else min(load.warmups, settings.warmups)
    least = warmup_seconds(suite, settings)
    previous, warm = math.nan, {}
    started = time.monotonic()
    for w in range(warmups):
        label = f"warm-up {w + 1}/{warmups} {suite.workload} {mode}"
        print(f"   {label} ...", end="", flush=True)
        warm = service.run(load, mode, out / "warmup" / f"{slug}-{mode}-{w + 1}.json", label, settings, warmup=True)
        print(f" {lr.fmt(warm['throughput'])} req/s", flush=True)
        if (
            w + 1 >= 2
            and lr.settled(previous, warm["throughput"], settings.warmup_tolerance)
            and time.monotonic() - started >= least
        ):
            break
        previous = warm["throughput"]
    return warm


def measured(
    service: ServiceUnderTest,
    load: Load,
    mode: str,
    r: int,
    label: str,
    slug: str,
    settings: RunSettings,
    out: Path,
    progress: Progress,
    plan_s: float,
    results: dict,
    i: int,
) -> None:
    """One measured run, booked in results[mode]["runs"] and the progress."""
    print(f"   {progress.label(i)} {label} ...", end="", flush=True)
    run_json = out / "runs" / f"{slug}-{mode}-{r + 1}.json"
    fig = service.run(load, mode, run_json, label, settings)
    eta = progress.tick(plan_s)
    results[mode]["runs"].append(fig)
    results[mode].setdefault("first_run", str(run_json.relative_to(out)))
    print(
        f" {lr.fmt(fig['throughput'])} req/s, mean {lr.fmt(fig['mean'])} ms, "
        f"errors {lr.fmt(fig['error_rate'] * 100, 2)} %, dropped {lr.fmt(fig['dropped'], 0)} ({eta})",
        flush=True,
    )


def lane_tag(tag: str, jdk: int | None) -> str:
    return tag if jdk is None else f"{tag}-jdk{jdk}"


def interleaved(
    suite: Suite,
    settings: RunSettings,
    out: Path,
    modes: set,
    progress: Progress,
    start,
    tag: str,
    jdks: Sequence[int | None] = (None,),
):
    """Every lane's service (a mode on a JDK) started and warmed, kept up; each load in rounds, the
    order of the lanes rotated. Results, verdicts and /api/info come back per JDK (None: the one).
    Long because the rounds' loop is one piece: start and warm every lane, run the rounds while a
    verdict cannot tell, then the pin sites and the flame graphs of each lane."""
    order = suite_modes(suite, modes)
    lanes = [(j, m) for m in order for j in jdks]
    results: list[dict] = [{j: {} for j in jdks} for _ in suite.loads]
    verdicts: list[dict] = [{j: None for j in jdks} for _ in suite.loads]
    services: dict[tuple, ServiceUnderTest] = {}
    plans: dict = {}
    warm: dict = {}
    info: dict[int | None, dict] = {}
    try:
        for slot, (j, mode) in enumerate(lanes):
            plans[mode] = planned_seconds(suite, mode, settings)
            where = {} if j is None else {"jdk": j}
            services[(j, mode)] = start(suite, mode, lane_tag(tag, j), settings, out, slot, **where)
            info[j] = info_of(mode, ready(services[(j, mode)], mode), info.get(j, {}))
            first = next(ld for ld in suite.loads if mode in ld.modes)
            slug = slug_of(lane_tag(tag, j), first)
            warm[(j, mode)] = warm_up(services[(j, mode)], suite, first, mode, slug, settings, out)
            print(f"   warm: {progress.tick(plans[mode]['start'])}", flush=True)
        for i, load in enumerate(suite.loads):
            in_load = [(j, m) for j, m in lanes if m in load.modes]
            in_report_order = [m for m in MODES if m in load.modes and m in order]
            least = repeats_of(load, settings)
            cap = max(least, settings.max_rounds)
            results[i] = {
                j: {m: {"runs": [], "warmup": warm.get((j, m), {})} for jj, m in in_load if jj == j} for j in jdks
            }
            r = 0
            while True:
                for j, mode in lr.rotated(in_load, r):
                    on = "" if j is None else f" on JDK {j}"
                    measured(
                        services[(j, mode)],
                        load,
                        mode,
                        r,
                        f"round {r + 1} {suite.workload} {mode}{on} {load.name}",
                        slug_of(lane_tag(tag, j), load),
                        settings,
                        out,
                        progress,
                        plans[mode]["runs"][id(load)] / least,
                        results[i][j],
                        i,
                    )
                r += 1
                found = verdicts[i] = {j: verdict.decide(results[i][j], in_report_order) for j in jdks}
                if r >= cap or (r >= least and all(f is None or f.settled() for f in found.values())):
                    break
                told = "; ".join(
                    (f.text() if f else "no verdict")
                    + (" (its interval ends near the margin)" if f and f.kind == "win" and not f.settled() else "")
                    + ("" if j is None else f" (JDK {j})")
                    for j, f in found.items()
                )
                print(f"   {load.name}: {told}, one more round (at most {cap})", flush=True)
            if len(jdks) > 1:
                for j, mode in in_load:
                    results[i][j][mode]["pin_sites"] = jdks_mod.pin_sites(services[(j, mode)].get("/q/metrics"))
            for j in jdks:
                if flames.wanted(settings, suite.workload, load):
                    on_jdk = {m: services[(jj, m)] for jj, m in in_load if jj == j and m != REFERENCE}
                    flames.profile_load(
                        on_jdk, load, list(on_jdk), results[i][j], slug_of(lane_tag(tag, j), load), settings, out
                    )
    finally:
        for service in services.values():
            service.stop()
    return results, verdicts, info


def blocks(suite: Suite, settings: RunSettings, out: Path, modes: set, progress: Progress, start, tag: str):
    """One mode after another, each its least rounds: start, warm up, run every load, stop."""
    results: list[dict] = [dict() for _ in suite.loads]
    info: dict = {}
    for mode in suite_modes(suite, modes):
        plan = planned_seconds(suite, mode, settings)
        service = start(suite, mode, tag, settings, out)
        try:
            info = info_of(mode, ready(service, mode), info)
            first = next(ld for ld in suite.loads if mode in ld.modes)
            warm = warm_up(service, suite, first, mode, slug_of(tag, first), settings, out)
            print(f"   warm: {progress.tick(plan['start'])}", flush=True)
            for i, load in enumerate(suite.loads):
                if mode not in load.modes:
                    continue
                least = repeats_of(load, settings)
                results[i][mode] = {"runs": [], "warmup": warm}
                for r in range(least):
                    measured(
                        service,
                        load,
                        mode,
                        r,
                        f"run {r + 1}/{least} {suite.workload} {mode} {load.name}",
                        slug_of(tag, load),
                        settings,
                        out,
                        progress,
                        plan["runs"][id(load)] / least,
                        results[i],
                        i,
                    )
        finally:
            service.stop()
    # Decided once, after the last mode's runs: the rounds are the i-th run of each mode.
    verdicts = [verdict.decide(r, [m for m in MODES if m in r]) for r in results]
    return results, verdicts, info


def measure(
    chosen: list[Suite],
    settings: RunSettings,
    out: Path,
    modes: set,
    progress: Progress,
    start: Callable[..., ServiceUnderTest],
    environment: str = Service.environment,
    prefix: str = "",
    jdks: Sequence[int | None] = (None,),
) -> tuple[list[dict], dict]:
    """Runs the suites, interleaved where settings.interleave says so, and turns each load's results
    into a report section (one per JDK of `jdks`, None: the JDK of `start`). `prefix` names the
    environment in the run files (in-cluster variants).
    Long because it turns each load's results into a report section: one key per table or figure the
    report reads."""
    sections, info = [], {}
    for n, suite in enumerate(chosen):
        scaled = " (smoke: scaled down to seconds)" if settings.profile == "smoke" else ""
        if not suite.description.endswith(scaled):
            suite.description += scaled
        where = f" [{environment}]" if environment != Service.environment else ""
        print(
            f"\n== {suite.workload}{' / ' + suite.variant if suite.variant else ''}{where}: {suite.description}",
            flush=True,
        )
        tag = (
            (prefix + suite.workload + (f"-{suite.variant}" if suite.variant else ""))
            .replace(" ", "_")
            .replace(",", "")
        )
        if settings.interleave:
            results, verdicts, infos = interleaved(suite, settings, out, modes, progress, start, tag, jdks)
        else:
            one, decided, info = blocks(suite, settings, out, modes, progress, start, tag)
            results, verdicts, infos = [{None: r} for r in one], [{None: v} for v in decided], {None: info}
        progress.loads_done += len(suite.loads)
        for i, load in enumerate(suite.loads):
            load.modes = tuple(m for m in load.modes if any(m in by_jdk for by_jdk in results[i].values()))
            for jdk in results[i]:
                sections.append(
                    section_of(suite, load, results[i][jdk], verdicts[i][jdk], infos[jdk], settings, environment, jdk)
                )
                print_section(sections[-1])
        # A summary covers every section so far: it is made once, after the last suite that names it.
        if suite.summary and all(s.summary != suite.summary for s in chosen[n + 1 :]):
            table = SUMMARIES[suite.summary](sections)
            sections[-1]["summary"] = table
            print(f"{suite.workload} summary:\n{table.text()}\n", flush=True)
        info = dict(infos[jdks[-1]])
        if len(jdks) > 1:  # the report's setup line names every JDK
            info["jdk"] = ", ".join(str(infos[j].get("jdk")) for j in jdks)
    return sections, info
