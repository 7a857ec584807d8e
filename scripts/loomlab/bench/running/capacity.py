"""Runs the capacity search (deciding/capacity.py) of a suite: each mode in a fresh JVM of its own,
warmed up on the suite's open load, then step after step every mode still searching runs its next
rate in rounds whose order rotates, so drift hits the modes alike: one round where the rate is new
and holds, --repeats otherwise, one more where the generator lagged in half of them, up to
--max-rounds. Then each mode's cost at fractions of its held rate, in the same rounds."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from loomlab import LabError, stats
from loomlab.table import fmt

from ..deciding.capacity import HELD, Capacity, Search, judge, settled
from ..planning.lane import Lane
from ..planning.loads import Load, Suite, mode_bound, service_pools
from ..planning.plan import Plan, planned_seconds
from .progress import Progress
from .rounds import SuiteRun
from .target import ServiceUnderTest, Where


def service_ms(load: Load, pools: dict) -> float:
    """The workload's own service time: E[max] of the product's four calls, else the sleep's or the
    query's milliseconds."""
    expected = load.expect(pools).get("mean", math.nan) if load.expect else math.nan
    return expected if not math.isnan(expected) else float(load.env.get("SLEEP_MS", load.env.get("DB_MS", "nan")))


def at_rate(load: Load, rate: float, sla_ms: float) -> Load:
    """The open load at `rate` req/s, its name kept (a Job finds the bench's load by it, then takes
    its parameters from the Job's environment); its in-flight bound twice what the SLA lets the rate
    hold, so an arrival is dropped only past the SLA, never by the generator's own cap."""
    in_flight = max(int(load.env["MAX_VUS"]), math.ceil(rate * sla_ms / 1000 * 2))
    return replace(load, rate=rate, env={**load.env, "RATE": str(int(rate)), "MAX_VUS": str(in_flight)})


class CapacityRun:
    """One suite's search across its lanes, its runs booked per lane: results[lane.key]."""

    def __init__(self, run: SuiteRun, capacity: Capacity):
        self.run, self.capacity = run, capacity
        self.load = run.suite.loads[0]
        self.results: dict[str, dict] = {}
        self.sla_ms = math.nan

    def measure(self, lanes: list[Lane]) -> tuple[dict, dict]:
        """The lanes' services started and warmed, searched and costed, stopped; their results and
        the /api/info of the default columns."""
        info: dict = {}
        with self.run.started(lanes, info) as (services, warm):
            self.results = {lane.key: {"runs": [], "warmup": warm[lane]} for lane in lanes}
            self.sla_ms = self.capacity.sla_ms(service_ms(self.load, info[None].get("pools", {})))
            if math.isnan(self.sla_ms):
                raise LabError(f"{self.run.suite.workload}: no service time to set the SLA from (--sla-p99-ms MS)")
            pools, start = service_pools(info[None].get("pools", {})), self.load.rate or 1.0
            searches = {
                lane: Search.of(self.capacity, start, self.run.settings.repeats, mode_bound(self.load, lane.key, pools))
                for lane in lanes
            }
            step = 0
            while rates := {ln: r for ln, s in searches.items() if (r := s.next_rate()) is not None}:
                step += 1
                probes = {ln for ln, r in rates.items() if searches[ln].probing(r)}
                verdicts = self.rounds(services, rates, f"step {step}", probes, step)
                for lane, rounds in verdicts.items():
                    booked = searches[lane].book(rates[lane], rounds)
                    print(f"   step {step} {lane.key} at {rates[lane]:g} req/s: {booked.verdict}", flush=True)
            for lane, search in searches.items():
                self.results[lane.key]["search"] = search.record()
                print(f"   {lane.key}: {search.outcome}, held {search.record()['held']} req/s", flush=True)
            for fraction in self.capacity.costs:
                held = {ln: s.held.rate * fraction for ln, s in searches.items() if s.held}
                self.rounds(services, {ln: round(r) for ln, r in held.items() if r >= 1}, f"cost {fraction:g}")
        return self.results, info[None]

    def rounds(
        self, services: dict[Lane, ServiceUnderTest], rates: dict[Lane, float], what: str, probes=frozenset(), step=0
    ) -> dict:
        """Every lane at its rate in --repeats rounds (a probe that holds: one), the order rotated
        every round and every step; lanes whose step is not settled (the generator lagged in half its
        rounds) in more, up to --max-rounds. Each lane's round verdicts."""
        settings, lanes = self.run.settings, list(rates)
        verdicts: dict[Lane, list[str]] = {lane: [] for lane in lanes}
        r = 0
        while lanes and r < settings.max_rounds:
            for lane in stats.rotated(lanes, r + step):
                fig = self.one(services[lane], lane, rates[lane], r, what)
                verdicts[lane].append(judge(fig, self.sla_ms))
            r += 1
            held = {ln for ln in lanes if ln in probes and verdicts[ln] == [HELD]}
            lanes = [ln for ln in lanes if ln not in held and (r < settings.repeats or not settled(verdicts[ln]))]
        return verdicts

    def one(self, service: ServiceUnderTest, lane: Lane, rate: float, r: int, what: str) -> dict:
        """One run of a lane at `rate`, booked with what it was (a step of the search, or a cost)."""
        load = at_rate(self.load, rate, self.sla_ms)
        label = f"{what} round {r + 1} {self.run.suite.workload} {lane.key} at {rate:g} req/s"
        print(f"   {label} ...", end="", flush=True)
        out = self.run.out / "runs" / f"{self.run.slug(load, None)}-{lane.key}-{what.replace(' ', '')}-{r + 1}.json"
        fig = service.run(load, lane, out, label, self.run.settings)
        fig.update(offered=rate, step=what)
        self.results[lane.key]["runs"].append(fig)
        eta = self.run.progress.tick(float(self.load.est_s) if not isinstance(self.load.est_s, dict) else 5.0)
        print(f" p99 {fmt(fig['p99'])} ms, errors {fmt(fig['error_rate'] * 100, 2)} %, ({eta})", flush=True)
        return fig


def searched(
    plan: Plan, out: Path, progress: Progress, where: Where, prefix: str = ""
) -> Iterator[tuple[Suite, dict, dict, float]]:
    """Each suite of a capacity plan searched where `where` starts its services: the suite, its
    lanes' results, the /api/info of its default columns and the SLA it was searched against.
    `prefix` names the environment in the run files (in-cluster variants)."""
    capacity = plan.settings.capacity
    assert capacity is not None
    for suite in plan.suites:
        print(f"\n== {suite.workload} [{where.environment}]: capacity of {suite.loads[0].name}", flush=True)
        lanes = plan.lanes(suite)
        plans = {lane: planned_seconds(suite, lane, plan.settings) for lane in lanes}
        run = SuiteRun(suite, plan.settings, out, progress, where, f"{prefix}capacity-{suite.workload}", plans)
        search = CapacityRun(run, capacity)
        results, info = search.measure(lanes)
        progress.loads_done += 1
        yield suite, results, info, search.sla_ms
