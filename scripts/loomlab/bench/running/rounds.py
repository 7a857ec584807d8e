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

from ..deciding import verdict
from ..measuring import flames
from ..planning.lane import MODES, REFERENCE, Lane
from ..planning.loads import Load, Suite
from ..planning.plan import planned_seconds, repeats_of, suite_lanes, warmup_seconds
from ..planning.settings import RunSettings
from ..reporting import jdks as jdks_mod
from ..reporting.sections import print_section, section_of
from ..reporting.summaries import SUMMARIES
from .progress import Progress
from .runner import Service
from .target import ServiceUnderTest


def slug_of(tag: str, load: Load) -> str:
    return f"{tag}-{re.sub(r'[^A-Za-z0-9.]+', '_', load.name.split(' (')[0]).strip('_')}"


def ready(service: ServiceUnderTest, lane: Lane) -> dict:
    service.wait_ready()
    info = service.info()
    what = ", ".join(str(info[k]) for k in ("jdk", "imageKind", "server", "go") if k in info)
    print(f"   {lane.key}: ready ({what})", flush=True)
    return info


def info_of(lane: Lane, answered: dict, kept: dict) -> dict:
    """The /api/info a section's pools and bounds come from: a mode's default column's (`answered`
    where `lane` is one), never a knob column's nor the reference server's (`kept` then)."""
    return answered if lane.is_default else kept


def default_columns(results: dict) -> list[str]:
    """The modes' default columns among `results`' keys, in report order: what a verdict compares."""
    return [lane.key for lane in MODES if lane.key in results]


def warm_up(
    service: ServiceUnderTest, suite: Suite, load: Load, lane: Lane, slug: str, settings: RunSettings, out: Path
) -> dict:
    """Warm-up, not counted: the JIT compiles this mode's request path on the suite's first load;
    later loads run on the warm JVM. Warm once two runs in a row agree and the JIT had
    --warmup-seconds of load (short runs agree with each other long before the JIT is done)."""
    warmups = settings.warmups if load.warmups is None else min(load.warmups, settings.warmups)
    least = warmup_seconds(suite, settings)
    previous, warm = math.nan, {}
    started = time.monotonic()
    for w in range(warmups):
        label = f"warm-up {w + 1}/{warmups} {suite.workload} {lane.key}"
        print(f"   {label} ...", end="", flush=True)
        warm = service.run(load, lane, out / "warmup" / f"{slug}-{lane.key}-{w + 1}.json", label, settings, warmup=True)
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
    lane: Lane,
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
    """One measured run, booked in results[lane.key]["runs"] and the progress."""
    print(f"   {progress.label(i)} {label} ...", end="", flush=True)
    run_json = out / "runs" / f"{slug}-{lane.key}-{r + 1}.json"
    fig = service.run(load, lane, run_json, label, settings)
    eta = progress.tick(plan_s)
    results[lane.key]["runs"].append(fig)
    results[lane.key].setdefault("first_run", str(run_json.relative_to(out)))
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
    modes: set[Lane],
    progress: Progress,
    start,
    tag: str,
    jdks: Sequence[int | None] = (None,),
):
    """Every lane's service (a column on a JDK) started and warmed, kept up; each load in rounds, the
    order of the lanes rotated. Results, verdicts and /api/info come back per JDK (None: the one).
    Long because the rounds' loop is one piece: start and warm every lane, run the rounds while a
    verdict cannot tell, then the pin sites and the flame graphs of each lane."""
    order = suite_lanes(suite, modes)
    lanes = [lane.on(j) for lane in order for j in jdks]
    results: list[dict] = [{j: {} for j in jdks} for _ in suite.loads]
    verdicts: list[dict] = [{j: None for j in jdks} for _ in suite.loads]
    services: dict[Lane, ServiceUnderTest] = {}
    plans = {lane: planned_seconds(suite, lane, settings) for lane in order}
    warm: dict[Lane, dict] = {}
    info: dict[int | None, dict] = {}
    try:
        for slot, lane in enumerate(lanes):
            services[lane] = start(suite, lane, lane_tag(tag, lane.jdk), settings, out, slot)
            info[lane.jdk] = info_of(lane, ready(services[lane], lane), info.get(lane.jdk, {}))
            first = next(ld for ld in suite.loads if lane.on(None) in ld.lanes)
            warm[lane] = warm_up(
                services[lane], suite, first, lane, slug_of(lane_tag(tag, lane.jdk), first), settings, out
            )
            print(f"   warm: {progress.tick(plans[lane.on(None)]['start'])}", flush=True)
        for i, load in enumerate(suite.loads):
            in_load = [lane for lane in lanes if lane.on(None) in load.lanes]
            least = repeats_of(load, settings)
            cap = max(least, settings.max_rounds)
            results[i] = {
                j: {lane.key: {"runs": [], "warmup": warm.get(lane, {})} for lane in in_load if lane.jdk == j}
                for j in jdks
            }
            r = 0
            while True:
                for lane in lr.rotated(in_load, r):
                    on = "" if lane.jdk is None else f" on JDK {lane.jdk}"
                    measured(
                        services[lane],
                        load,
                        lane,
                        r,
                        f"round {r + 1} {suite.workload} {lane.key}{on} {load.name}",
                        slug_of(lane_tag(tag, lane.jdk), load),
                        settings,
                        out,
                        progress,
                        plans[lane.on(None)]["runs"][id(load)] / least,
                        results[i][lane.jdk],
                        i,
                    )
                r += 1
                found = verdicts[i] = {j: verdict.decide(results[i][j], default_columns(results[i][j])) for j in jdks}
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
                for lane in in_load:
                    results[i][lane.jdk][lane.key]["pin_sites"] = jdks_mod.pin_sites(services[lane].get("/q/metrics"))
            for j in jdks:
                if flames.wanted(settings, suite.workload, load):
                    on_jdk = {lane.key: services[lane] for lane in in_load if lane.jdk == j and lane.mode != REFERENCE}
                    flames.profile_load(
                        on_jdk, load, list(on_jdk), results[i][j], slug_of(lane_tag(tag, j), load), settings, out
                    )
    finally:
        for service in services.values():
            service.stop()
    return results, verdicts, info


def blocks(suite: Suite, settings: RunSettings, out: Path, modes: set[Lane], progress: Progress, start, tag: str):
    """One lane after another, each its least rounds: start, warm up, run every load, stop."""
    results: list[dict] = [dict() for _ in suite.loads]
    info: dict = {}
    for lane in suite_lanes(suite, modes):
        plan = planned_seconds(suite, lane, settings)
        service = start(suite, lane, tag, settings, out)
        try:
            info = info_of(lane, ready(service, lane), info)
            first = next(ld for ld in suite.loads if lane in ld.lanes)
            warm = warm_up(service, suite, first, lane, slug_of(tag, first), settings, out)
            print(f"   warm: {progress.tick(plan['start'])}", flush=True)
            for i, load in enumerate(suite.loads):
                if lane not in load.lanes:
                    continue
                least = repeats_of(load, settings)
                results[i][lane.key] = {"runs": [], "warmup": warm}
                for r in range(least):
                    measured(
                        service,
                        load,
                        lane,
                        r,
                        f"run {r + 1}/{least} {suite.workload} {lane.key} {load.name}",
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
    # Decided once, after the last lane's runs: the rounds are the i-th run of each lane.
    verdicts = [verdict.decide(r, default_columns(r)) for r in results]
    return results, verdicts, info


def measure(
    chosen: list[Suite],
    settings: RunSettings,
    out: Path,
    modes: set[Lane],
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
            load.lanes = tuple(ln for ln in load.lanes if any(ln.key in by_jdk for by_jdk in results[i].values()))
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
