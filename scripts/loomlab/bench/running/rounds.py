"""Runs the plan: each mode of a suite in a service of its own, warmed up alike, then every load
measured in rounds. Locally the modes' JVMs stay up side by side and a round runs each mode once,
alone, in an order rotated every round, so drift on a shared machine (another process, the page
cache, a noisy neighbour) hits every mode alike; rounds go on past --repeats, up to --max-rounds,
while the verdict cannot tell (verdict.py). In the cluster each mode gets a Deployment of its own
and the rounds interleave the same way; the scale profile, which compares pod counts, runs blocks."""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from loomlab import metrics, stats
from loomlab.table import fmt

from ..deciding import verdict
from ..measuring import flames
from ..planning.lane import MODES, REFERENCE, Lane
from ..planning.loads import Load, Suite
from ..planning.plan import Plan, planned_seconds, repeats_of, suite_lanes, warmup_seconds
from ..planning.settings import LOCAL, RunSettings
from .progress import Progress
from .target import ServiceUnderTest, Where


def ready(service: ServiceUnderTest, lane: Lane) -> dict:
    service.wait_ready()
    info = service.info()
    what = ", ".join(str(info[k]) for k in ("jdk", "imageKind", "server", "go") if k in info)
    print(f"   {lane.key}: ready ({what})", flush=True)
    return info


def on_jdk(results: dict[Lane, dict], jdk: int | None) -> dict[str, dict]:
    """The lanes' results on one JDK by column key: what a verdict compares and a section reports
    (the same records: a run booked in one is in the other)."""
    return {lane.key: r for lane, r in results.items() if lane.jdk == jdk}


def default_columns(results: dict, among: set[str] | None = None) -> list[str]:
    """The modes' default columns among `results`' keys (and `among`, where given), in report order:
    what a verdict compares."""
    return [lane.key for lane in MODES if lane.key in results and (among is None or lane.key in among)]


@dataclass(frozen=True)
class SuiteRun:
    """What every run of one suite shares: where it writes, how it is run, how its services start."""

    suite: Suite
    settings: RunSettings
    out: Path
    progress: Progress
    where: Where
    tag: str
    plans: dict[Lane, dict]  # each lane's planned seconds (plan.planned_seconds), on no JDK
    jdks: Sequence[int | None] = (None,)  # the JDKs each lane runs on (None: the one `where` runs)

    def tag_on(self, jdk: int | None) -> str:
        return self.tag if jdk is None else f"{self.tag}-jdk{jdk}"

    def slug(self, load: Load, jdk: int | None) -> str:
        return f"{self.tag_on(jdk)}-{re.sub(r'[^A-Za-z0-9.]+', '_', load.name.split(' (')[0]).strip('_')}"

    def group(self, lanes: list[Lane], results: list[dict[Lane, dict]], info: dict) -> None:
        """`lanes`' services started and warmed, kept up; each load in rounds, the order of the
        lanes rotated, its runs booked in results[load][lane]; then the pin sites and flame graphs;
        the services stopped. info[JDK]: the /api/info of its default columns."""
        with self.started(lanes, info) as (services, warm):
            for i, load in enumerate(self.suite.loads):
                in_load = [lane for lane in lanes if lane.on(None) in load.lanes]
                if not in_load:  # in blocks, a load this group's one lane does not run
                    continue
                for lane in in_load:
                    results[i][lane] = {"runs": [], "warmup": warm[lane]}
                self.rounds(services, load, in_load, results[i], i)
                self.profiles(services, load, in_load, results[i])

    @contextlib.contextmanager
    def started(self, lanes: list[Lane], info: dict) -> Iterator[tuple[dict[Lane, ServiceUnderTest], dict]]:
        """`lanes`' services started side by side, each ready and warmed up (its last warm-up's
        figures), stopped when the block ends. info[JDK]: the /api/info of its default columns."""
        services: dict[Lane, ServiceUnderTest] = {}
        try:
            warm = {}
            for slot, lane in enumerate(lanes):
                tag = self.tag_on(lane.jdk)
                services[lane] = self.where.start(self.suite, lane, tag, self.settings, self.out, slot)
                answered = ready(services[lane], lane)  # a mode's default column's: its section's pools and bounds
                info[lane.jdk] = answered if lane.is_default else info.get(lane.jdk, {})
                warm[lane] = self.warm_up(services[lane], lane)
            yield services, warm
        finally:
            for service in services.values():
                service.stop()

    def warm_up(self, service: ServiceUnderTest, lane: Lane) -> dict:
        """Warm-up, not counted: the JIT compiles this lane's request path on the suite's first load
        it runs; later loads run on the warm JVM. Warm once two runs in a row agree and the JIT had
        --warmup-seconds of load (short runs agree with each other long before the JIT is done)."""
        settings = self.settings
        load = next(ld for ld in self.suite.loads if lane.on(None) in ld.lanes)
        warmups = settings.warmups if load.warmups is None else min(load.warmups, settings.warmups)
        least = warmup_seconds(self.suite, settings)
        previous, warm = math.nan, {}
        started = time.monotonic()
        for w in range(warmups):
            label = f"warm-up {w + 1}/{warmups} {self.suite.workload} {lane.key}"
            print(f"   {label} ...", end="", flush=True)
            out = self.out / "warmup" / f"{self.slug(load, lane.jdk)}-{lane.key}-{w + 1}.json"
            warm = service.run(load, lane, out, label, settings, warmup=True)
            print(f" {fmt(warm['throughput'])} req/s", flush=True)
            if (
                w + 1 >= 2
                and settled(previous, warm["throughput"], settings.warmup_tolerance)
                and time.monotonic() - started >= least
            ):
                break
            previous = warm["throughput"]
        print(f"   warm: {self.progress.tick(self.plans[lane.on(None)]['start'])}", flush=True)
        return warm

    def rounds(self, services: dict[Lane, ServiceUnderTest], load: Load, lanes: list[Lane], results: dict, i: int):
        """`load`'s rounds over `lanes`, each running every lane once in an order rotated every round:
        the least rounds, then more while a verdict among these lanes cannot tell, up to the cap."""
        least = repeats_of(load, self.settings)
        cap = max(least, self.settings.max_rounds)
        keys = {lane.key for lane in lanes}
        r = 0
        while True:
            for lane in stats.rotated(lanes, r):
                self.measured(services[lane], load, lane, r, results[lane], i, least)
            r += 1
            by_jdk = {j: on_jdk(results, j) for j in self.jdks}
            found = {j: verdict.decide(res, default_columns(res, keys)) for j, res in by_jdk.items()}
            if r >= cap or (r >= least and all(f is None or f.settled() for f in found.values())):
                return
            told = "; ".join(
                (f.text() if f else "no verdict")
                + (" (its interval ends near the margin)" if f and f.kind == "win" and not f.settled() else "")
                + ("" if j is None else f" (JDK {j})")
                for j, f in found.items()
            )
            print(f"   {load.name}: {told}, one more round (at most {cap})", flush=True)

    def measured(
        self, service: ServiceUnderTest, load: Load, lane: Lane, r: int, booked: dict, i: int, least: int
    ) -> None:
        """One measured run, booked in the lane's runs (`booked`) and the progress."""
        on = "" if lane.jdk is None else f" on JDK {lane.jdk}"
        label = f"round {r + 1} {self.suite.workload} {lane.key}{on} {load.name}"
        print(f"   {self.progress.label(i)} {label} ...", end="", flush=True)
        run_json = self.out / "runs" / f"{self.slug(load, lane.jdk)}-{lane.key}-{r + 1}.json"
        fig = service.run(load, lane, run_json, label, self.settings)
        eta = self.progress.tick(self.plans[lane.on(None)]["runs"][id(load)] / least)
        booked["runs"].append(fig)
        booked.setdefault("first_run", str(run_json.relative_to(self.out)))
        print(
            f" {fmt(fig['throughput'])} req/s, mean {fmt(fig['mean'])} ms, "
            f"errors {fmt(fig['error_rate'] * 100, 2)} %, dropped {fmt(fig['dropped'], 0)} ({eta})",
            flush=True,
        )

    def profiles(self, services: dict[Lane, ServiceUnderTest], load: Load, lanes: list[Lane], results: dict) -> None:
        """After a load's rounds: each lane's pinned sites where JDKs are compared, and the flame
        graphs of the modes on each JDK where the settings ask for them."""
        if len(self.jdks) > 1:
            for lane in lanes:
                results[lane]["pin_sites"] = metrics.pin_sites(services[lane].get("/q/metrics"))
        if not flames.wanted(self.settings, self.suite.workload, load):
            return
        for j in self.jdks:
            there = {lane: services[lane] for lane in lanes if lane.jdk == j and lane.mode != REFERENCE}
            if there:
                flames.profile_load(there, load, on_jdk(results, j), self.slug(load, j), self.settings, self.out)


def run_suite(
    suite: Suite,
    settings: RunSettings,
    out: Path,
    modes: set[Lane],
    progress: Progress,
    where: Where,
    tag: str,
    jdks: Sequence[int | None] = (None,),
) -> list[LoadRun]:
    """Every lane of the suite (a column on a JDK) measured: interleaved, all lanes' services up
    side by side and each round running every lane once; in blocks (settings.interleave off: the
    cluster's scale profile), one lane after another, each alone for its least rounds. A LoadRun per
    load and JDK, in that order; each load's verdict decided once, from all its runs (in blocks the
    rounds are the i-th run of each lane)."""
    order = suite_lanes(suite, modes)
    plans = {lane: planned_seconds(suite, lane, settings) for lane in order}
    run = SuiteRun(suite, settings, out, progress, where, tag, plans, tuple(jdks))
    lanes = [lane.on(j) for lane in order for j in jdks]
    results: list[dict[Lane, dict]] = [{} for _ in suite.loads]
    info: dict[int | None, dict] = {}
    for group in [lanes] if settings.interleave else [[lane] for lane in lanes]:
        run.group(group, results, info)
    ran = []
    for load, by_lane in zip(suite.loads, results, strict=True):
        kept = replace(load, lanes=tuple(ln for ln in load.lanes if any(ln.key == lane.key for lane in by_lane)))
        for j in jdks:
            res = on_jdk(by_lane, j)
            ran.append(LoadRun(kept, j, res, verdict.decide(res, default_columns(res)), info.get(j, {})))
    return ran


@dataclass(frozen=True)
class LoadRun:
    """One load as it ran on one JDK (None: the one `where` runs), with the lanes that ran it: their
    results by column key (what results.json keeps), the verdict among them, and the /api/info its
    section's pools come from."""

    load: Load
    jdk: int | None
    results: dict[str, dict]
    verdict: verdict.Verdict | None
    info: dict


@dataclass(frozen=True)
class Measured:
    """One suite as it ran: a LoadRun per load and JDK, and where it ran."""

    suite: Suite
    runs: list[LoadRun]
    environment: str


def measure(plan: Plan, out: Path, progress: Progress, where: Where, prefix: str = "") -> Iterator[Measured]:
    """Runs the plan's suites where `where` starts their services, interleaved where its settings
    say so, yielding each suite's results as it ends (on each of its JDKs, None: the JDK `where`
    runs). The suites are left as they were planned. `prefix` names the environment in the run files
    (in-cluster variants)."""
    settings, modes = plan.settings, set(plan.modes)
    scaled = " (smoke: scaled down to seconds)" if settings.profile == "smoke" else ""
    for planned in plan.suites:
        suite = replace(planned, description=planned.description + scaled)
        at = f" [{where.environment}]" if where.environment != LOCAL else ""
        variant = f" / {suite.variant}" if suite.variant else ""
        print(f"\n== {suite.workload}{variant}{at}: {suite.description}", flush=True)
        named = f"{suite.workload}-{suite.variant}" if suite.variant else suite.workload
        tag = (prefix + named).replace(" ", "_").replace(",", "")
        runs = run_suite(suite, settings, out, modes, progress, where, tag, plan.jdks)
        progress.loads_done += len(suite.loads)
        yield Measured(suite, runs, where.environment)


def settled(previous: float, current: float, tolerance: float) -> bool:
    """True when two successive warm-up figures differ by less than `tolerance` (a fraction)."""
    if math.isnan(previous) or math.isnan(current) or not previous:
        return False
    return abs(current - previous) / previous < tolerance
