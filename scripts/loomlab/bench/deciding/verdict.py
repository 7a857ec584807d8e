"""A verdict between modes from paired rounds: in each round every mode ran once (interleaved,
the order rotated), so the ratio of two modes in a round has the round's drift cancelled. The
verdict is on the median of those ratios, with a distribution-free interval from order statistics
(the sign test's: [x(k), x(n-k+1)] covers the median with probability 1 - 2 P(Binomial(n, 1/2) < k)).

A mode wins where the interval of its ratio to every other lies above 1 + the tie margin; modes
tie where the interval lies inside the margin; leaders the rounds cannot order win together where
each is ahead of every other mode ("between them: cannot tell"); anything else is "cannot tell at N
rounds". The bench runs more rounds while a load's leaders are not settled, up to its cap. When
every mode ties on req/s, p99 decides the same way."""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import asdict, dataclass

from loomlab import stats
from loomlab.table import fmt

# Two modes whose req/s ratio stays within 5 % (p99: 20 %, latency is noisier) tie.
TIE = 0.05
TIE_P99 = 0.20
# The interval's coverage a verdict needs; the fewest rounds whose widest interval reaches it.
CONFIDENCE = 0.80
# A win whose interval's lower end lies within 2 % of the margin is fragile: the bench runs more
# rounds, up to its cap, before it names the winner (a round more could take it back).
NEAR_MARGIN = 0.02


def coverage(n: int, k: int) -> float:
    """P(the median lies in [x(k), x(n-k+1)]) for n paired ratios, k >= 1."""
    below = sum(math.comb(n, i) for i in range(k)) / 2**n
    return 1 - 2 * below


def min_rounds(confidence: float = CONFIDENCE) -> int:
    return next(n for n in itertools.count(1) if coverage(n, 1) >= confidence)


def interval(ratios: list[float], confidence: float = CONFIDENCE) -> tuple[float, float, float] | None:
    """(low, high, coverage) of the median ratio: the narrowest order-statistic interval that still
    reaches `confidence`; None when n rounds are too few for any."""
    xs = sorted(ratios)
    n = len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        c = coverage(n, k)
        if c >= confidence:
            best = (xs[k - 1], xs[n - k], c)
    return best


@dataclass
class Pair:
    """`a` against `b` on one figure: the median of the per-round ratios (> 1: a is better)."""

    a: str
    b: str
    median: float
    low: float
    high: float
    coverage: float
    state: str  # "ahead", "behind", "tie" or "unclear"

    def text(self) -> str:
        """The median ratio and its interval as the tables print them: "1.23x (1.10-1.40)"."""
        return f"{self.median:.2f}x ({self.low:.2f}-{self.high:.2f})"


def compare(
    a: str,
    b: str,
    runs_a: list[dict],
    runs_b: list[dict],
    key: str,
    higher: bool,
    tie: float,
    confidence: float = CONFIDENCE,
) -> Pair | None:
    """Round by round (the i-th run of each), a's figure over b's, or b's over a's where lower is
    better; None when too few rounds for an interval."""
    ratios = []
    for x, y in zip(runs_a, runs_b, strict=False):
        va, vb = x.get(key, math.nan), y.get(key, math.nan)
        if math.isnan(va) or math.isnan(vb) or va <= 0 or vb <= 0:
            continue
        ratios.append(va / vb if higher else vb / va)
    found = interval(ratios, confidence)
    if found is None:
        return None
    low, high, cov = found
    median = statistics.median(ratios)
    if low > 1 + tie:
        state = "ahead"
    elif high < 1 / (1 + tie):
        state = "behind"
    elif low >= 1 / (1 + tie) and high <= 1 + tie:
        state = "tie"
    else:
        state = "unclear"
    return Pair(a, b, median, low, high, cov, state)


@dataclass
class Verdict:
    kind: str  # "win", "ahead" (leaders that win together, in no order the rounds can tell), "tie" or "cannot tell"
    winners: list[str]
    metric: str  # "req/s" or "p99": what decided
    rounds: int
    against: Pair | None = None  # the winner against its closest contender

    def text(self) -> str:
        if self.kind == "cannot tell":
            return f"cannot tell at {self.rounds} rounds"
        if self.kind == "tie":
            return "tie: " + ", ".join(self.winners)
        if self.kind == "ahead":
            return f"{', '.join(self.winners)} (between them: cannot tell at {self.rounds} rounds)"
        return ", ".join(self.winners)

    def settled(self) -> bool:
        """Whether the rounds may stop here: not while they cannot tell, nor while leaders are not
        ordered, nor while a win's interval ends within NEAR_MARGIN of the margin."""
        if self.kind in ("cannot tell", "ahead"):
            return False
        if self.kind == "win" and self.against is not None:
            return self.against.low >= (1 + (TIE if self.metric == "req/s" else TIE_P99)) * (1 + NEAR_MARGIN)
        return True

    def record(self) -> dict:
        """What a section carries into results.json: decided once, where the rounds ran."""
        return asdict(self)

    @classmethod
    def of_record(cls, r: dict) -> Verdict:
        against = Pair(**r["against"]) if r.get("against") else None
        return cls(r["kind"], list(r["winners"]), r["metric"], r["rounds"], against)


def decide(results: dict, modes: list[str], confidence: float = CONFIDENCE) -> Verdict | None:
    """The verdict of one load from its runs per mode (results[mode]["runs"], in rounds)."""
    modes = [m for m in modes if m in results and results[m]["runs"]]
    if len(modes) < 2:
        return None
    rounds = min(len(results[m]["runs"]) for m in modes)
    runs = {m: results[m]["runs"][:rounds] for m in modes}

    def together(top: str, pairs: list[Pair], key: str, higher: bool, tie: float, metric: str) -> Verdict:
        """Where the rounds cannot order the leaders but can tell them from the rest: the leaders (the
        top mode and every mode it neither beats nor loses to) win together when each of them is ahead
        of each other mode; which leader is first stays unsaid. Else the rounds cannot tell."""
        leaders = [top] + [p.b for p in pairs if p.state in ("tie", "unclear")]
        rest = [m for m in modes if m not in leaders]
        cross = [compare(a, b, runs[a], runs[b], key, higher, tie, confidence) for a in leaders for b in rest]
        ahead = [c for c in cross if c is not None and c.state == "ahead"]
        if not rest or len(ahead) < len(cross):
            return Verdict("cannot tell", [], metric, rounds)
        return Verdict("ahead", [m for m in modes if m in leaders], metric, rounds, min(ahead, key=lambda p: p.median))

    for key, higher, tie, metric in (("throughput", True, TIE, "req/s"), ("p99", False, TIE_P99, "p99")):
        med = {m: stats.Spread.of([r.get(key, math.nan) for r in runs[m]]).median for m in modes}
        top = (max if higher else min)(modes, key=lambda m: med[m])
        compared = [compare(top, m, runs[top], runs[m], key, higher, tie, confidence) for m in modes if m != top]
        pairs = [p for p in compared if p is not None]
        if len(pairs) < len(compared) or any(p.state == "behind" for p in pairs):
            return Verdict("cannot tell", [], metric, rounds)
        if any(p.state == "unclear" for p in pairs):
            return together(top, pairs, key, higher, tie, metric)
        winners = [top] + [p.b for p in pairs if p.state == "tie"]
        if len(winners) < len(modes):
            ahead = [p for p in pairs if p.state == "ahead"]
            closest = min(ahead, key=lambda p: p.median)
            return Verdict("win", [m for m in modes if m in winners], metric, rounds, closest)
    return Verdict("tie", modes, "p99", rounds)


def paired(runs_a: list[dict], runs_b: list[dict], key: str) -> str:
    """a's `key` over b's as a table prints it: the median of the rounds' ratios with its interval,
    or the ratio of the medians where the rounds are too few for an interval."""
    pair = compare("a", "b", runs_a, runs_b, key, True, TIE)
    if pair is not None:
        return f"{fmt(pair.median, 2)}x ({fmt(pair.low, 2)}-{fmt(pair.high, 2)})"
    mine, theirs = stats.aggregate(runs_a).get(key), stats.aggregate(runs_b).get(key)
    if mine is None or theirs is None:
        return "-"
    return f"{fmt(stats.ratio(mine.median, theirs.median), 2)}x (medians)"
