"""What a run will take, before it runs: the modes of a suite, the least rounds of a load and the
planned seconds of each mode (start-up, warm-up, runs). Standard library only: `--help` and `--plan`
print durations from here, and so does every progress line."""

from __future__ import annotations

import argparse

from .loads import MODES, Load, Suite
from .profiles import profile_defaults, suites

SERVICE_START_S = 4  # JVM start-up to ready, plus stop


def suite_modes(suite: Suite, modes: set) -> list[str]:
    return [m for m in MODES if any(m in ld.modes for ld in suite.loads) and (not modes or m in modes)]


def warmup_seconds(suite: Suite, args) -> float:
    return args.warmup_seconds if suite.warmup_seconds is None else min(suite.warmup_seconds, args.warmup_seconds)


def repeats_of(load: Load, args) -> int:
    """The least measured runs (rounds) of a load: --repeats, or fewer where the load says so."""
    return args.repeats if load.repeats is None else min(load.repeats, args.repeats)


def planned_seconds(suite: Suite, mode: str, args) -> dict:
    """What one mode of a suite should take: start-up and warm-up, then each load's least rounds."""
    first = next(ld for ld in suite.loads if mode in ld.modes)
    least_runs = min(2, args.warmups, first.warmups or 2)

    def per_mode(v):
        return v.get(mode, 0.0) if isinstance(v, dict) else v

    warm = max(warmup_seconds(suite, args), per_mode(first.warmup_est_s or first.est_s) * least_runs)
    runs = {id(ld): repeats_of(ld, args) * per_mode(ld.est_s) for ld in suite.loads if mode in ld.modes}
    return {"start": SERVICE_START_S + warm, "runs": runs}


def total_seconds(chosen: list[Suite], modes: set, args, rounds: int | None = None) -> float:
    """The planned seconds of the suites in every mode they have, at `rounds` rounds per load (at
    least --repeats; default: --repeats)."""
    scale = max(rounds or args.repeats, args.repeats) / max(args.repeats, 1)
    plans = [planned_seconds(s, m, args) for s in chosen for m in suite_modes(s, modes)]
    return sum(p["start"] + sum(p["runs"].values()) * scale for p in plans)


def profile_seconds(profile: str) -> tuple[float, float]:
    """A profile's planned seconds with its own defaults: at its least rounds, and at its most."""
    args = argparse.Namespace(profile=profile, warmups=None, warmup_seconds=None, repeats=None, max_rounds=None)
    profile_defaults(args)
    chosen = suites(profile)
    return total_seconds(chosen, set(), args), total_seconds(chosen, set(), args, args.max_rounds)
