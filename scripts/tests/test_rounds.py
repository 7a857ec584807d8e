"""bench.rounds, the heart of the verdict, driven by a fake ServiceUnderTest: the modes interleave in
rounds whose order rotates, rounds are added while the verdict cannot tell, up to --max-rounds, and a
load whose rounds cannot order the modes ends as "cannot tell"."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import tempfile
import unittest
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from loomlab.bench.deciding import answer, verdict
from loomlab.bench.planning.lane import Lane
from loomlab.bench.planning.loads import Load, Suite
from loomlab.bench.planning.settings import RunSettings
from loomlab.bench.running import rounds
from loomlab.bench.running.progress import Progress

MODES = ("worker", "virtual", "reactive")
LANES = tuple(Lane(m) for m in MODES)


class FakeService:
    """One mode's service: each measured run answers the throughput `rate(mode, n)` gives for its
    n-th run, and books the call, so a test reads the order the rounds ran in."""

    environment = "fake"
    url = "http://fake"

    def __init__(self, mode: str, rate: Callable[[str, int], float], calls: list[tuple[str, bool]]):
        self.mode, self.rate, self.calls = mode, rate, calls
        self.measured = 0
        self.stopped = False

    def wait_ready(self, timeout_s: float = 0) -> None:
        pass

    def info(self) -> dict:
        return {"jdk": "fake", "imageKind": "jvm", "pools": {}}

    def sample(self) -> dict:
        return {}

    def get(self, path: str, timeout: float = 10) -> str:
        return 'loomlab_virtual_pinned_site_events_total{site="a.B.c"} 3.0\n'

    def run(self, load, mode, out, label, settings, warmup=False) -> dict:
        self.calls.append((self.mode, warmup))  # its lane: the mode, and its JDK where there are several
        if warmup:
            return {"throughput": 100.0}
        self.measured += 1
        tput = self.rate(self.mode, self.measured)
        return {"throughput": tput, "mean": 1000 / tput, "p99": 2000 / tput, "error_rate": 0.0, "dropped": 0}

    def stop(self) -> None:
        self.stopped = True


def settings(repeats: int, max_rounds: int) -> RunSettings:
    return RunSettings(warmups=3, warmup_tolerance=0.05, warmup_seconds=0, repeats=repeats, max_rounds=max_rounds)


def drive_lanes(
    rate: Callable[[str, int], float],
    repeats: int,
    max_rounds: int,
    jdks,
    interleave=True,
    starts=None,
    also=(),
    printed: io.StringIO | None = None,
):
    """rounds.run_suite over one load of the three modes (then the loads `also`) on each of `jdks`:
    (its first load's results and verdicts per JDK, the calls, the services by lane); each start
    booked in `starts` with how many services were up then; what it printed in `printed`."""
    load = Load("closed 10 users", "k6/sleep.js", "closed", {}, lanes=LANES, est_s=1.0)
    suite = Suite("sleep", "fake", {}, [load, *also], warmup_seconds=0)
    calls: list[tuple[str, bool]] = []
    services: dict = {}

    def start(suite_, lane, tag, settings_, out, slot=0):
        if starts is not None:
            starts.append((lane.key, sum(not s.stopped for s in services.values())))
        name = lane.key if lane.jdk is None else f"{lane.key}@{lane.jdk}"
        services[name] = FakeService(name, rate, calls)
        return services[name]

    printed = printed or io.StringIO()
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(printed):
        ran = rounds.run_suite(
            suite,
            dataclasses.replace(settings(repeats, max_rounds), interleave=interleave),
            Path(out),
            set(),
            Progress(1, 1.0),
            SimpleNamespace(environment="fake", start=start),
            "t",
            jdks,
        )
    ran = [r for r in ran if r.load.name == load.name]
    return {r.jdk: r.results for r in ran}, {r.jdk: r.verdict for r in ran}, calls, services


def drive(rate: Callable[[str, int], float], repeats: int, max_rounds: int):
    """rounds.run_suite over one load of the three modes: (its results, the calls, the services, the
    verdict the rounds carry out)."""
    results, verdicts, calls, services = drive_lanes(rate, repeats, max_rounds, (None,))
    return results[None], calls, services, verdicts[None]


class RoundsTest(unittest.TestCase):
    def test_every_round_runs_each_mode_once_in_an_order_rotated_every_round(self):
        _, calls, _, _ = drive(lambda mode, n: {"worker": 50.0, "virtual": 200.0, "reactive": 100.0}[mode], 4, 4)
        measured = [mode for mode, warmup in calls if not warmup]
        self.assertEqual(
            measured,
            ["worker", "virtual", "reactive", "virtual", "reactive", "worker"]
            + ["reactive", "worker", "virtual", "worker", "virtual", "reactive"],
        )

    def test_each_mode_warms_up_before_any_round_and_every_service_stops(self):
        _, calls, services, _ = drive(lambda mode, n: 100.0, 4, 4)
        first_measured = next(i for i, (_, warmup) in enumerate(calls) if not warmup)
        self.assertEqual({m for m, w in calls[:first_measured] if w}, set(MODES))
        self.assertFalse(any(w for _, w in calls[first_measured:]))
        self.assertTrue(all(s.stopped for s in services.values()))

    def test_rounds_are_added_until_the_verdict_can_name_a_winner(self):
        # Two rounds give no interval at 80 %: a clear winner still needs verdict.min_rounds().
        results, _, _, found = drive(lambda mode, n: {"worker": 50.0, "virtual": 200.0, "reactive": 100.0}[mode], 2, 10)
        self.assertEqual(len(results["virtual"]["runs"]), verdict.min_rounds())
        assert found is not None
        self.assertEqual((found.kind, found.winners), ("win", ["virtual"]))
        self.assertEqual(found, verdict.decide(results, list(MODES)))  # carried: the last round's

    def test_a_clear_winner_stops_at_the_least_rounds(self):
        results, _, _, _ = drive(lambda mode, n: {"worker": 50.0, "virtual": 200.0, "reactive": 100.0}[mode], 5, 10)
        self.assertEqual(len(results["worker"]["runs"]), 5)

    def test_a_win_whose_interval_ends_near_the_margin_runs_to_the_cap(self):
        # virtual 6 % ahead of reactive every round: a win (above 5 %), but within 2 % of the margin.
        near, _, _, found = drive(lambda mode, n: {"worker": 50.0, "virtual": 106.0, "reactive": 100.0}[mode], 4, 7)
        self.assertEqual(len(near["virtual"]["runs"]), 7)
        assert found is not None
        self.assertEqual((found.kind, found.winners), ("win", ["virtual"]))
        clear, _, _, _ = drive(lambda mode, n: {"worker": 50.0, "virtual": 110.0, "reactive": 100.0}[mode], 4, 7)
        self.assertEqual(len(clear["virtual"]["runs"]), 4)

    def test_rounds_that_cannot_order_the_modes_stop_at_the_cap_and_say_so(self):
        # virtual and reactive trade the lead every round, by 30 %: no interval excludes a tie.
        def rate(mode, n):
            if mode == "worker":
                return 50.0
            return 130.0 if (mode == "virtual") == (n % 2 == 0) else 100.0

        results, _, _, found = drive(rate, 4, 7)
        self.assertEqual([len(results[m]["runs"]) for m in MODES], [7, 7, 7])
        assert found is not None
        self.assertNotEqual(found.kind, "win")
        self.assertIn("cannot tell", found.text())


class BlocksTest(unittest.TestCase):
    """Without interleaving (the cluster's scale profile): one lane after another, each alone."""

    def test_each_lane_runs_its_least_rounds_alone_and_the_verdict_is_decided_from_all(self):
        # virtual and reactive trade the lead: interleaved, this runs to the cap (the test above).
        def rate(mode, n):
            return 50.0 if mode == "worker" else 130.0 if (mode == "virtual") == (n % 2 == 0) else 100.0

        starts: list[tuple[str, int]] = []
        results, verdicts, calls, services = drive_lanes(rate, 4, 7, (None,), interleave=False, starts=starts)
        self.assertEqual(starts, [("worker", 0), ("virtual", 0), ("reactive", 0)])
        measured = [m for m, warmup in calls if not warmup]
        self.assertEqual(measured, ["worker"] * 4 + ["virtual"] * 4 + ["reactive"] * 4)
        self.assertEqual(verdicts[None], verdict.decide(results[None], list(MODES)))
        self.assertTrue(all(s.stopped for s in services.values()))

    def test_a_load_the_lane_does_not_run_is_skipped_in_its_block(self):
        # The second load runs virtual and reactive only: the worker's block does not enter its
        # rounds (it printed "no verdict, one more round" there up to the least rounds, with no run).
        other = Load("closed 20 users", "k6/sleep.js", "closed", {}, lanes=LANES[1:], est_s=1.0)
        printed = io.StringIO()
        _, _, calls, _ = drive_lanes(lambda mode, n: 100.0, 4, 7, (None,), False, also=[other], printed=printed)
        measured = [m for m, warmup in calls if not warmup]
        self.assertEqual(measured, ["worker"] * 4 + ["virtual"] * 8 + ["reactive"] * 8)
        worker_block = printed.getvalue().split("virtual: ready")[0]
        self.assertIn("closed 10 users", worker_block)
        self.assertNotIn("closed 20 users", worker_block)


class JdkLanesTest(unittest.TestCase):
    """--jdk 21,25: every mode on each JDK in the same rounds, a verdict per JDK."""

    @staticmethod
    def rate(lane: str, n: int) -> float:
        mode, jdk = lane.split("@")
        return {"worker": 50.0, "virtual": 200.0, "reactive": 100.0}[mode] * (2 if jdk == "25" else 1)

    def test_a_round_runs_every_mode_on_every_jdk_once(self):
        results, _, calls, services = drive_lanes(self.rate, 5, 5, (21, 25))
        measured = [lane for lane, warmup in calls if not warmup]
        self.assertEqual(len(measured), 6 * 5)
        for r in range(5):
            self.assertEqual(sorted(measured[6 * r : 6 * r + 6]), sorted(services))
        self.assertEqual(set(results), {21, 25})
        self.assertEqual(results[25]["virtual"]["runs"][0]["throughput"], 400.0)
        self.assertEqual(results[21]["virtual"]["pin_sites"], {"a.B.c": 3.0})

    def test_each_jdk_has_its_own_verdict(self):
        _, verdicts, _, _ = drive_lanes(self.rate, 5, 5, (21, 25))
        self.assertEqual({j: v.winners for j, v in verdicts.items()}, {21: ["virtual"], 25: ["virtual"]})


class CarriedVerdictTest(unittest.TestCase):
    """The verdict is decided once, where the rounds ran, and carried: the report and --compare read
    the section's, through results.json too; a section without one is decided from its runs."""

    def section(self):
        results, _, _, found = drive(lambda mode, n: {"worker": 50.0, "virtual": 200.0, "reactive": 100.0}[mode], 5, 5)
        assert found is not None
        return {"workload": "sleep", "load": "closed 10 users", "results": results, "verdict": found.record()}

    def test_the_report_reads_the_carried_verdict_through_json(self):
        carried = json.loads(json.dumps(self.section()))
        self.assertEqual(answer.verdict_of(carried)[0], "virtual")
        # The section's verdict, not its runs', is the one printed: a record saying otherwise wins.
        carried["verdict"]["winners"] = ["reactive"]
        self.assertEqual(answer.verdict_of(carried)[0], "reactive")

    def test_a_section_without_a_verdict_is_decided_from_its_runs(self):
        bare = self.section()
        del bare["verdict"]
        self.assertEqual(answer.verdict_of(bare)[0], "virtual")


if __name__ == "__main__":
    unittest.main()
