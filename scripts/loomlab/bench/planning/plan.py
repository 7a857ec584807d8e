"""What a run will take, before it runs: the modes of a suite, the least rounds of a load and the
planned seconds of each mode (start-up, warm-up, runs). Standard library only: `--help` and `--plan`
print durations from here, and so does every progress line."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, replace

from loomlab import LabError

from .columns import columns
from .lane import MODE_COLUMNS, MODES, REFERENCE_LANE, Lane
from .loads import Load, Suite, mode_bound, with_reference
from .profiles import chosen_suites, suites
from .settings import RunSettings, jdks_named

SERVICE_START_S = 4  # JVM start-up to ready, plus stop


def modes_named(text: str) -> set[Lane]:
    """--mode's modes, comma-separated column names ("virtual,virtual+rx"; none: every mode)."""
    named = {m for m in text.split(",") if m}
    if unknown := named - set(MODE_COLUMNS):
        raise LabError(f"--mode {text}: no mode {', '.join(sorted(unknown))} (modes: {', '.join(MODE_COLUMNS)})")
    return {lane for lane in MODES if lane.key in named}


def suite_lanes(suite: Suite, modes: set[Lane]) -> list[Lane]:
    """The suite's lanes in report order: the modes `modes` keeps (all where it is empty), their knob
    columns, and the reference server where its loads have it (beside whichever modes run)."""
    knobs = list(dict.fromkeys(lane for ld in suite.loads for lane in ld.lanes if lane.setting))
    return [
        lane
        for lane in (*MODES, *knobs, REFERENCE_LANE)
        if any(lane in ld.lanes for ld in suite.loads)
        and (not modes or lane.default in modes or lane == REFERENCE_LANE)
    ]


def warmup_seconds(suite: Suite, settings: RunSettings) -> float:
    least = settings.warmup_seconds
    return least if suite.warmup_seconds is None else min(suite.warmup_seconds, least)


def repeats_of(load: Load, settings: RunSettings) -> int:
    """The least measured runs (rounds) of a load: --repeats, or fewer where the load says so."""
    return settings.repeats if load.repeats is None else min(load.repeats, settings.repeats)


def runs_of(load: Load, settings: RunSettings, lane: Lane | None = None) -> int:
    """A load's least runs a lane: its rounds, or a capacity search's most (Capacity.runs_planned) to
    the lane's top: its pool's, with the pools the service is configured with (none: the load's)."""
    rounds, c = repeats_of(load, settings), settings.capacity
    if c is None:
        return rounds
    start = c.first(load.rate or 1.0)
    return c.runs_planned(rounds, start, c.top(start, mode_bound(load, lane.key, {}) if lane else math.inf))


def planned_seconds(suite: Suite, lane: Lane, settings: RunSettings) -> dict:
    """What one lane of a suite should take: start-up and warm-up, then each load's least rounds
    (a capacity search's: at most, the ramp's every step to its top, then the costs)."""
    first = next(ld for ld in suite.loads if lane in ld.lanes)
    least_runs = min(2, settings.warmups, first.warmups or 2)

    def per_mode(v):
        return v.get(lane.key, 0.0) if isinstance(v, dict) else v

    warm = max(warmup_seconds(suite, settings), per_mode(first.warmup_est_s or first.est_s) * least_runs)
    runs = {id(ld): runs_of(ld, settings, lane) * per_mode(ld.est_s) for ld in suite.loads if lane in ld.lanes}
    return {"start": SERVICE_START_S + warm, "runs": runs}


@dataclass(frozen=True)
class Plan:
    """What a run measures, fixed before it starts: the suites (their loads and columns), how the
    rounds run, the modes kept (none: every mode), the JDKs asked for and those each lane runs on
    (None: the one JDK the run was given, or the one asked for)."""

    suites: tuple[Suite, ...]
    settings: RunSettings
    modes: frozenset[Lane] = frozenset()
    named: tuple[int, ...] = ()

    @property
    def jdks(self) -> tuple[int | None, ...]:
        return self.named if len(self.named) > 1 else (None,)

    @classmethod
    def of(cls, args: argparse.Namespace) -> Plan:
        """./lab bench's plan from its options: the profile's suites of the workloads and loads asked
        for, the columns asked for beside the modes, the modes kept, and the JDKs (several: in the
        same rounds, one lane per JDK and mode)."""
        settings = RunSettings.of(args, interleave=not args.blocks, dashboards=args.dashboards)
        chosen, modes = tuple(columns(args, chosen_suites(args))), frozenset(modes_named(args.mode))
        wanted = jdks_named(args.jdk) if args.jdk else []
        if len(wanted) > 1 and not settings.interleave:
            raise LabError("--jdk with several JDKs runs them in the same rounds: it cannot run with --blocks")
        if len(wanted) > 1 and settings.capacity:
            raise LabError("--jdk: a capacity search runs on one JDK (./lab capacity --jdk 21 searches on 21)")
        return cls(chosen, settings, modes, tuple(wanted))

    def lanes(self, suite: Suite) -> list[Lane]:
        """The suite's lanes (a capacity search's: each but the reference server's; a knob column, a
        CPU limit or JVM flags, is searched as its mode is)."""
        lanes = suite_lanes(suite, set(self.modes))
        return [ln for ln in lanes if ln != REFERENCE_LANE] if self.settings.capacity else lanes

    def lane_seconds(self) -> list[tuple[Suite, Lane, dict]]:
        """Each suite's lanes with what one should take (`planned_seconds`), in report order."""
        return [(s, m, planned_seconds(s, m, self.settings)) for s in self.suites for m in self.lanes(s)]

    def seconds(self, rounds: int | None = None) -> float:
        """The planned seconds of every lane on every JDK at `rounds` rounds per load (at least
        --repeats; default: --repeats; a capacity search's: its edges' and costs' rounds)."""
        repeats = self.settings.repeats
        if self.settings.capacity and rounds and rounds > repeats:
            return replace(self, settings=replace(self.settings, repeats=rounds)).seconds()
        scale = max(rounds or repeats, repeats) / max(repeats, 1)
        plans = [p for _, _, p in self.lane_seconds()]
        return sum(p["start"] + sum(p["runs"].values()) * scale for p in plans) * len(self.jdks)


def profile_seconds(profile: str) -> tuple[float, float]:
    """A profile's planned seconds with its own defaults: at its least rounds, and at its most."""
    unsaid = argparse.Namespace(
        profile=profile,
        warmups=None,
        warmup_seconds=None,
        warmup_tolerance=RunSettings.warmup_tolerance,
        repeats=None,
        max_rounds=None,
        runners=1,
        sample_period=RunSettings.sample_period,
    )
    settings = RunSettings.of(unsaid, interleave=True)
    plan = Plan(tuple(with_reference(suites(profile))), settings)
    return plan.seconds(), plan.seconds(settings.max_rounds)
