"""The capacity search (`./lab capacity`): per workload and mode, the highest open arrival rate held
within an SLA. Each step's rounds are judged here (held, failed, or the generator could not keep
its rate), and a Search walks the rates: a discovery ramp (x`factor`) from the start, then bisection
until the bracket [held, failed] is within `step`. A rate holds where every round of it held: an SLA
met in some rounds only is not met. A new rate is a probe: one round where it holds, the full rounds
where it fails; the held edge runs its full rounds before the search ends. What the
rounds run is running/capacity.py's; this file is standard library only and has no clock, so a
test drives it against a fake service."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from operator import attrgetter

from . import verdict

# A step's (and a round's) verdict.
HELD, FAILED, GENERATOR = "held", "failed", "generator"
# A search's outcome: a bracket within the step; the search's top held (the mode holds at least
# that); the generator ran out before the service did (its rate lagged: no service figure past it);
# a lower rate failed where a higher one held (the rounds of the edges disagree across rates);
# nothing held down to the search's floor.
BRACKETED, LOWER_BOUND, GENERATOR_LIMITED, INCONCLUSIVE, NONE_HELD = (
    "bracketed",
    "lower bound",
    "generator-limited",
    "inconclusive",
    "none held",
)


@dataclass(frozen=True)
class Capacity:
    """The search's options, printed in the report: the SLA (p99 at most `sla_p99_ms`; 0: twice the
    workload's own service time), no errors, no dropped arrivals; the ramp's factor, the bracket's
    step, and the search's bounds as multiples of the start (the suite's open load below its bound)
    or, where given, in req/s; a mode whose pool bounds it is searched to `factor` x that bound at
    most (Little's law: no rate past it holds); the fractions of the held rate whose cost is measured."""

    sla_p99_ms: float = 0.0
    factor: float = 1.25
    step: float = 0.05
    start: float = 0.0  # req/s; 0: the suite's open load below its bound
    top_x: float = 50.0  # the highest rate tried, x the start
    floor_x: float = 0.25  # the lowest, x the start
    costs: tuple[float, ...] = (0.5, 0.8)

    def sla_ms(self, service_ms: float) -> float:
        return self.sla_p99_ms or 2 * service_ms

    def first(self, rate: float) -> int:
        """The search's first rate: the options' own where given, else `rate` (the suite's open load)."""
        return max(1, round(self.start or rate))

    def top(self, start: float, bound: float = math.inf) -> int:
        """The highest rate a mode's search tries from `start`: x`top_x`, or `factor` x its pool's
        bound where that is lower (NaN or infinite: no pool)."""
        pool = self.factor * bound if math.isfinite(bound) and bound > 0 else math.inf
        return round(min(start * self.top_x, max(start, pool)))

    def runs_planned(self, rounds: int, start: float = 1.0, top: float | None = None) -> int:
        """Runs a mode takes where it ramps to its top: a probe each rate held on the way, the top failed
        in full `rounds`, every bisection of that last factor failed in full too, the held edge held
        again in full (a probe's round and `rounds` more), then the costs. Not a ceiling: a knee below
        the start walks down, and a held edge that fails when run again moves down and bisects anew."""
        rate, top, ramp = start, start * self.top_x if top is None else top, 0
        while rate < top:
            rate, ramp = up(rate, self.factor, top), ramp + 1
        bisections = math.ceil(math.log2((self.factor - 1) / self.step))
        return ramp + rounds * (1 + bisections) + rounds + rounds * len(self.costs)


def up(rate: float, factor: float, top: float) -> float:
    """The ramp's next rate: up by the factor, by one req/s at least (a factor of a small rate rounds
    to itself), the top at most."""
    return min(top, max(rate + 1, round(rate * factor)))


def judge(figures: dict, sla_ms: float) -> str:
    """One round at one rate: held, with no error, no arrival dropped and p99 within the SLA; the
    generator's, where it dropped arrivals while every answer it had came without error and p99 within
    the SLA (its in-flight bound is twice what the SLA lets the rate hold, at_rate: it could not send
    in time, so the rate was not offered, whether for want of its own CPU or of the cores it shares);
    failed otherwise."""
    p99 = figures.get("p99", math.nan)
    within = figures["error_rate"] == 0 and not math.isnan(p99) and p99 <= sla_ms
    if within and figures["dropped"] > 0:
        return GENERATOR
    return HELD if within else FAILED


def step_verdict(rounds: list[str]) -> tuple[str, bool]:
    """The step's verdict from its rounds' and whether the service's disagreed: the generator's where
    it lagged in most rounds; else held where none of the others failed (the search claims no rate
    that missed the SLA in a round), failed otherwise."""
    held, failed = rounds.count(HELD), rounds.count(FAILED)
    split = held > 0 and failed > 0
    if rounds.count(GENERATOR) * 2 > len(rounds):
        return GENERATOR, split
    return (HELD if held and not failed else FAILED), split


def settled(rounds: list[str]) -> bool:
    """Whether more rounds could change the step's verdict no more: unless the generator lagged in
    exactly half of them (one more decides whether the step is its or the service's)."""
    return rounds.count(GENERATOR) * 2 != len(rounds)


@dataclass(frozen=True)
class Step:
    rate: float
    verdict: str
    split: bool
    rounds: tuple[str, ...]


@dataclass
class Search:
    """One mode's search between `floor` and `top` (req/s), from `start`; `rounds` at a step that is
    no probe (a step's rounds again where they are booked at a rate tried before)."""

    start: float
    floor: float
    top: float
    factor: float = 1.25
    step: float = 0.05
    rounds: int = 2
    steps: list[Step] = field(default_factory=list)
    outcome: str = ""

    @classmethod
    def of(cls, capacity: Capacity, start: float, rounds: int = 2, bound: float = math.inf) -> Search:
        """A mode's search from `start` (the options' own where given), to its top (`bound`: its pool's)."""
        start = capacity.first(start)
        floor, top = max(1, round(start * capacity.floor_x)), capacity.top(start, bound)
        return cls(start, floor, top, capacity.factor, capacity.step, rounds)

    def probing(self, rate: float) -> bool:
        """Whether a step at `rate` is a probe: a rate not tried before."""
        return all(s.rate != rate for s in self.steps)

    @property
    def lagged(self) -> bool:
        """Whether the generator could not offer a rate the search tried (it goes no higher)."""
        return any(s.verdict == GENERATOR for s in self.steps)

    @property
    def held(self) -> Step | None:
        return max((s for s in self.steps if s.verdict == HELD), key=attrgetter("rate"), default=None)

    @property
    def failed(self) -> Step | None:
        return min((s for s in self.steps if s.verdict == FAILED), key=attrgetter("rate"), default=None)

    def next_rate(self) -> float | None:
        """The next rate to try (None: the search is over): up by the factor while nothing failed (the
        top: again, in full), down by it while nothing held, then the bracket's middle until it is
        narrow, then the held edge again, in full, where it was a probe."""
        if self.outcome:
            return None
        held, failed = self.held, self.failed
        if not self.steps:
            return self.start
        if held and self.lagged:  # the held edge's full rounds, then the end
            return held.rate
        if failed is None:
            return up(held.rate, self.factor, self.top) if held else None
        if held is None:
            return max(self.floor, min(failed.rate - 1, round(failed.rate / self.factor)))
        return held.rate if self.narrow(held, failed) else round((held.rate + failed.rate) / 2)

    def narrow(self, held: Step, failed: Step) -> bool:
        """Whether the bracket is within the step, has no whole rate inside, or is upside down."""
        middle = round((held.rate + failed.rate) / 2)
        return failed.rate <= held.rate * (1 + self.step) or middle in (held.rate, failed.rate)

    def book(self, rate: float, rounds: list[str]) -> Step:
        """A step's rounds booked (with those of a probe at the same rate), and the outcome once the
        search can say it."""
        before = [s for s in self.steps if s.rate == rate]
        rounds = [*(before[0].rounds if before else ()), *rounds]
        verdict, split = step_verdict(rounds)
        step = Step(rate, verdict, split, tuple(rounds))
        self.steps = [step if s.rate == rate else s for s in self.steps] if before else [*self.steps, step]
        held, failed = self.held, self.failed
        if held is not None and len(held.rounds) < self.rounds:
            pass  # the held edge, a probe, runs its full rounds first
        elif self.lagged:
            self.outcome = GENERATOR_LIMITED
        elif failed is None and held is not None and held.rate >= self.top:
            self.outcome = LOWER_BOUND
        elif held is None and failed is not None and failed.rate <= self.floor:
            self.outcome = NONE_HELD
        elif held is not None and failed is not None and self.narrow(held, failed):
            self.outcome = INCONCLUSIVE if failed.rate <= held.rate else BRACKETED
        return step

    def record(self) -> dict:
        """What results.json keeps of it: every step, the bracket and the outcome."""
        held, failed = self.held, self.failed
        return {
            "outcome": self.outcome,
            "held": held.rate if held else None,
            "failed": failed.rate if failed else None,
            "steps": [
                {"rate": s.rate, "verdict": s.verdict, "split": s.split, "rounds": list(s.rounds)} for s in self.steps
            ],
            "bounds": [self.floor, self.top],
            "full_rounds": self.rounds,
        }


def capacity_answer(section: dict, bounds: dict) -> tuple[str, str, str, str, str]:
    """A capacity section's row of the answer: each mode's held rate and outcome; the verdict, as the
    bench's: the ratio of two modes' capacities lies between the brackets' edges (the highest rate
    whose full rounds all held, the lowest whose rounds all failed, none where the search never failed),
    a mode wins where that interval lies above 1 + the tie margin against every other, modes tie
    where it lies within the margin, else 'cannot tell'; the steps' rounds; what binds each mode."""
    searches = {m: r["search"] for m, r in section["results"].items() if "search" in r}

    def said(m: str) -> str:
        s = searches[m]
        held = (
            f"{'>= ' if s['outcome'] in (LOWER_BOUND, GENERATOR_LIMITED) else ''}{s['held']:,.0f} " if s["held"] else ""
        )
        return f"{m} {held}({s['outcome']})"

    def edge(m: str, verdict: str, pick, empty: float) -> float:
        """A solid edge: a step whose every round agreed, and ran the full rounds (no probe)."""
        full, steps = searches[m].get("full_rounds", 0), searches[m]["steps"]
        solid = (
            s["rate"] for s in steps if s["verdict"] == verdict and not s["split"] and len(s.get("rounds", ())) >= full
        )
        return pick(solid, default=empty)

    low = {m: edge(m, HELD, max, 0.0) for m in searches}
    high = {m: edge(m, FAILED, min, math.inf) for m in searches}
    held = {m: searches[m]["held"] or 0.0 for m in searches}
    ranked = sorted(searches, key=lambda m: (held[m], low[m]), reverse=True)
    winner, how = "cannot tell", "-"
    if len(ranked) > 1 and low[ranked[0]]:
        best, others = ranked[0], ranked[1:]
        ratios = {m: (low[best] / high[m], high[best] / low[m] if low[m] else math.inf) for m in others}
        if all(lo >= 1 + verdict.TIE for lo, _ in ratios.values()):
            lo, hi = ratios[others[0]]
            winner = best
            how = f"x{lo:.2f} to " + (f"x{hi:.2f}" if math.isfinite(hi) else "more") + f" over {others[0]}"
        elif all(1 / (1 + verdict.TIE) <= lo and hi <= 1 + verdict.TIE for lo, hi in ratios.values()):
            winner = "tie: " + ", ".join(ranked)
        else:
            winner += " between " + ", ".join([best, *(m for m in others if ratios[m][0] < 1 + verdict.TIE)])
    rounds = section["capacity"].get("rounds", "-")
    return ", ".join(said(m) for m in ranked), winner, how, rounds, "; ".join(binds(section, held, bounds)) or "-"


def binds(section: dict, held: dict[str, float], bounds: dict) -> list[str]:
    """What binds each mode at its held rate: the generator, the search's top, its pool where it held
    85 % of its bound, else the CPU where the cores its rate takes (the server's, at the costs' largest
    fraction, and on this machine the generator's beside it) reach 85 % of the cores it has."""
    cpus, costs = section.get("pools", {}).get("cpus"), section["capacity"].get("costs") or [1]
    local = section.get("environment", "local JVM").startswith("local")
    out = []
    for m in held:
        r = section["results"][m]
        outcome = r["search"]["outcome"]
        runs = [x for x in r.get("runs", []) if x.get("step") == f"cost {max(costs):g}" and x.get("requests")]
        per_req = [
            x.get("cpu_ms_per_req", math.nan) + (x.get("gen_cpu_s", math.nan) * 1000 / x["requests"] if local else 0)
            for x in runs
        ]
        cores = statistics.median(per_req) * held[m] / 1000 if per_req else math.nan
        if outcome in (GENERATOR_LIMITED, LOWER_BOUND):
            out.append(f"{m}: " + ("the generator" if outcome == GENERATOR_LIMITED else "the search's top"))
        elif held[m] and held[m] >= 0.85 * bounds.get(m, math.inf):
            out.append(f"{m}: its pool ({bounds[m]:,.0f})")
        elif cpus and cores >= 0.85 * cpus:
            out.append(f"{m}: the CPU ({cores:.1f} of {cpus} cores" + (", the generator's with it)" if local else ")"))
    return out
