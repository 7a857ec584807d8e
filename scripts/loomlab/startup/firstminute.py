"""`./lab startup --first-minute ROUNDS [--first-minute-load closed|open]`: each mode's first
minute after its first answer.

Per round, every (JVM variant, mode) pair in an order rotated every round: a launch (the schema
migrated before, Flyway off, as every launch here), then at once the load for SECONDS, every request
kept (loadgen -samples): closed, LOAD_USERS users sending the mode's sleep of LOAD_SLEEP_MS (a bound
of 10,000 req/s, far above what a cold JVM serves on two cores, so the first seconds are held by the
CPU the JIT shares with the requests); or open, OPEN_RATE arrivals a second of the same sleep (about
half what a warm JVM serves here, more than a cold one serves in its first second under the closed
load: the curve is how soon the service keeps up, and the arrivals it could not take are dropped,
not queued without end). Per second after the load's start: the answers that completed in it
(req/s) and the p99 of the requests sent in it; steady req/s is the median second of the last
third; time to peak is the first second from which RUN seconds in a row reach PEAK of steady. The
JIT's compiler threads' seconds at the end (jcmd's java.ci.totalTime) stand beside them."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from loomlab import stats
from loomlab.bench import api as bench
from loomlab.table import Table, fmt, fmt_spread

from . import phases as ph
from .launches import Settings, Variant, generate, launched

SECONDS = 60
LOAD_USERS, LOAD_SLEEP_MS = 200, 20
# The open load: arrivals a second, and the most requests in flight before an arrival is dropped
# (a cold JVM's seconds of 300 ms p99 at OPEN_RATE need about 1,200).
OPEN_RATE, OPEN_MAX_VUS = 4000, 1500
MODES = (bench.Lane(bench.WORKER), bench.Lane(bench.VIRTUAL), bench.Lane(bench.REACTIVE))
PEAK, RUN = 0.9, 3
# The p99 has settled where RUN seconds in a row stay within SETTLED x the minute's steady p99.
SETTLED = 1.5
# The seconds the report prints the req/s of, after the load's start.
SHOWN = (1, 2, 3, 5, 10, 20, 30, 45, 60)


def load(kind: str = "closed") -> bench.Load:
    """The first minute's sleep load, held by time, not by a count of iterations: closed (users) or
    open (arrivals a second)."""
    opened = kind == "open"
    if opened:
        who, shape = f"open {OPEN_RATE} req/s", {"MODEL": "open", "RATE": str(OPEN_RATE), "MAX_VUS": str(OPEN_MAX_VUS)}
    else:
        who, shape = f"{LOAD_USERS} users", {"VUS": str(LOAD_USERS)}
    return bench.Load(
        f"{who}, {LOAD_SLEEP_MS} ms, {SECONDS} s",
        "k6/sleep.js",
        "sleep",
        {"DURATION": f"{SECONDS}s", "SLEEP_MS": str(LOAD_SLEEP_MS), **shape},
        request=bench.sleep.sleep_request,
        rate=OPEN_RATE if opened else None,
        open_s=SECONDS if opened else None,
        timeout_s=SECONDS + 120,
    )


def described(kind: str) -> str:
    """The load as the report's section states it."""
    if kind == "open":
        return (
            f"{OPEN_RATE:,} arrivals a second (open; at most {OPEN_MAX_VUS:,} in flight, the rest dropped) of"
            f" the mode's {LOAD_SLEEP_MS} ms sleep for {SECONDS} s (loadgen, every request kept): about half"
            " what a warm JVM serves here and more than a cold one serves in its first second under the closed"
            " load, so the curve is how soon the service keeps up"
        )
    return (
        f"{LOAD_USERS} users (closed) sending the mode's {LOAD_SLEEP_MS} ms sleep for {SECONDS} s (loadgen,"
        f" every request kept): a bound of {LOAD_USERS * 1000 // LOAD_SLEEP_MS:,} req/s, far above what a cold"
        " JVM serves, so the CPU the JIT shares with the requests holds the first seconds and the curve is"
        " the warm-up"
    )


@dataclass(frozen=True)
class Curve:
    """One launch's first minute: answers and p99 (ms) per second after the load's start."""

    rps: tuple[float, ...]
    p99_ms: tuple[float, ...]

    @classmethod
    def read(cls, samples: Path, seconds: int = SECONDS) -> Curve:
        """From loadgen's -samples: the successful answers by the second they completed in, the
        latencies by the second they were sent in."""
        ok = [(sent, ms) for sent, ms, status in bench.requests_of(samples.read_text()) if status == 200]
        if not ok:
            return cls((0.0,) * seconds, (math.nan,) * seconds)
        start = min(sent for sent, _ in ok)
        done = [0.0] * seconds
        sent_in: list[list[float]] = [[] for _ in range(seconds)]
        for sent, ms in ok:
            s = int(sent + ms / 1000 - start)
            if s < seconds:
                done[s] += 1
            s = int(sent - start)
            if s < seconds:
                sent_in[s].append(ms)
        return cls(tuple(done), tuple(stats.nearest_rank(lat, 99) for lat in sent_in))

    def steady(self) -> float:
        """The median second of the last third: the req/s the minute settles at."""
        return statistics.median(self.rps[len(self.rps) * 2 // 3 :])

    def to_peak_s(self) -> float:
        """The first second (1-based) from which RUN seconds in a row reach PEAK of steady; NaN if none."""
        floor = PEAK * self.steady()
        return first_run([r >= floor for r in self.rps])

    def steady_p99(self) -> float:
        """The median p99 of the last third's seconds: the latency the minute settles at."""
        return statistics.median(self.p99_ms[len(self.p99_ms) * 2 // 3 :])

    def p99_settled_s(self) -> float:
        """The first second (1-based) from which RUN seconds in a row have a p99 within SETTLED x the
        steady p99 (a second without an answer is not settled); NaN if none."""
        ceiling = SETTLED * self.steady_p99()
        return first_run([p <= ceiling for p in self.p99_ms])


def first_run(held: list[bool]) -> float:
    """The first second (1-based) from which RUN seconds in a row hold; NaN if none."""
    for s in range(len(held) - RUN + 1):
        if all(held[s : s + RUN]):
            return float(s + 1)
    return math.nan


def measure(variants: dict[str, Variant], rounds: int, settings: Settings, out: Path, kind: str = "closed") -> dict:
    """Every loaded JVM variant's first minute in each mode under the `kind` of load, `rounds` times,
    interleaved (rotated): {variant: {mode: [a dict per launch]}}."""
    folder = out / "first-minute"
    folder.mkdir(exist_ok=True)
    pairs = [(name, mode) for name, v in variants.items() if v.loaded and name != "native" for mode in MODES]
    runs: dict[str, dict[str, list[dict]]] = {name: {} for name, _ in pairs}
    for r in range(rounds):
        for name, mode in stats.rotated(pairs, r):
            runs[name].setdefault(mode.key, []).append(one(name, variants[name], mode, r, settings, folder, kind))
    return runs


def one(name: str, variant: Variant, lane: bench.Lane, r: int, settings: Settings, folder: Path, kind: str) -> dict:
    """One launch and its first minute in `lane` under the `kind` of load."""
    stem = folder / f"{name}-{lane.key}-{r + 1}"
    with launched(variant.cmd, settings.port, stem.with_suffix(".log")) as started:
        generate(settings, load(kind), lane, stem.with_suffix(".json"), stem.name, samples=True)
        jit = ph.counters(settings.jcmd, started.process.pid)["JIT (s, compiler threads)"]
    curve = Curve.read(stem.with_suffix(".samples.csv"))
    stem.with_suffix(".samples.csv").unlink()  # 10^5 rows a launch; the curve keeps what the report reads
    print(
        f"   {name} {lane.key} round {r + 1}: steady {curve.steady():.0f} req/s, at {PEAK:.0%} of it from second"
        f" {curve.to_peak_s():.0f}; JIT {jit:.1f} s",
        flush=True,
    )
    return {
        "ttfr_ms": started.ttfr_ms,
        "rps": list(curve.rps),
        "p99_ms": list(curve.p99_ms),
        "steady_rps": curve.steady(),
        "to_peak_s": curve.to_peak_s(),
        "jit_s": jit,
    }


def spread(values: list[float], digits: int = 0) -> str:
    """Median (min-max) of the rounds' values."""
    return fmt_spread(stats.Spread.of(values), digits)


def tables(runs: dict[str, dict[str, list[dict]]], kind: str = "closed") -> list[str]:
    """The report's section: time to peak per variant and mode, then req/s second by second, under
    the `kind` of load the record names (a record without one ran the closed load)."""
    if not runs:
        return []
    summary = Table(
        [
            "variant",
            "mode",
            "steady req/s",
            f"to {PEAK:.0%} of steady (s)",
            "p99 in second 1 (ms)",
            "p99 at steady (ms)",
            "JIT s by the minute's end",
        ]
    )
    seconds = Table(["variant", "mode", *(f"s{s}" for s in SHOWN)])
    latency = Table(["variant", "mode", *(f"s{s}" for s in SHOWN), f"within {SETTLED}x steady from (s)"])
    for name, modes in runs.items():
        for mode, launches in modes.items():
            curves = [Curve(tuple(x["rps"]), tuple(x["p99_ms"])) for x in launches]
            summary.add(
                name,
                mode,
                spread([x["steady_rps"] for x in launches]),
                spread([x["to_peak_s"] for x in launches]),
                spread([x["p99_ms"][0] for x in launches]),
                spread([c.steady_p99() for c in curves]),
                spread([x["jit_s"] for x in launches], 1),
            )
            medians = [statistics.median(x["rps"][s - 1] for x in launches) for s in SHOWN]
            seconds.add(name, mode, *(fmt(v, 0) for v in medians))
            p99 = [statistics.median(x["p99_ms"][s - 1] for x in launches) for s in SHOWN]
            latency.add(name, mode, *(fmt(v, 0) for v in p99), spread([c.p99_settled_s() for c in curves]))
    n = max(len(launches) for modes in runs.values() for launches in modes.values())
    return [
        f"## The first minute: each mode from its first answer to steady ({n} interleaved rounds)",
        f"A launch, then at once {described(kind)}. Steady: the median second of the last third. Time to"
        f" peak: the first second from which {RUN} in a row reach {PEAK:.0%} of steady. Medians (min-max)"
        " over the rounds.",
        summary.markdown(),
        "Successful answers per second after the load's start (medians over the rounds):",
        seconds.markdown(),
        "p99 (ms) of the requests sent in each second after the load's start (medians over the rounds), and the"
        f" first second from which {RUN} in a row stay within {SETTLED}x the minute's steady p99 (median (min-max)):",
        latency.markdown(),
    ]
