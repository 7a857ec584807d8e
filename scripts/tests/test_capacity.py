"""The capacity search (bench/deciding/capacity.py, running/capacity.py) against fake services with a
known knee: the bracket lands within one step of it, a generator that falls behind is named instead
of the service, rounds that disagree at an edge leave the answer inconclusive, and the driver runs
the modes' steps in rotated rounds and costs each at fractions of its held rate."""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from loomlab.bench.deciding import capacity as cap
from loomlab.bench.planning.lane import Lane
from loomlab.bench.planning.loads import Load, Suite
from loomlab.bench.planning.settings import RunSettings
from loomlab.bench.reporting.capacity import capacity_section
from loomlab.bench.running.capacity import CapacityRun
from loomlab.bench.running.progress import Progress
from loomlab.bench.running.rounds import SuiteRun

SLA_MS = 200.0


def service(knee: float, generator: float = float("inf")):
    """A round's figures at a rate: p99 100 ms up to the knee, 900 ms past it; past `generator` the
    generator drops arrivals while what it sent is answered in time."""

    def figures(rate: float) -> dict:
        if rate > generator:
            return {"p99": 100.0, "error_rate": 0.0, "dropped": 7}
        return {"p99": 100.0 if rate <= knee else 900.0, "error_rate": 0.0, "dropped": 0}

    return figures


def search(figures, start: float = 400.0) -> cap.Search:
    """A search driven to its end with the default options: two rounds a step, one at a new rate
    that held."""
    s = cap.Search.of(cap.Capacity(), start)
    while (rate := s.next_rate()) is not None:
        verdict = cap.judge(figures(rate), SLA_MS)
        s.book(rate, [verdict] * (1 if s.probing(rate) and verdict == cap.HELD else 2))
    return s


class SearchTest(unittest.TestCase):
    def test_a_known_knee_is_bracketed_within_one_step(self):
        for knee in (413, 497, 1234, 3021):
            s = search(service(knee))
            assert s.held is not None and s.failed is not None
            self.assertEqual(s.outcome, cap.BRACKETED, knee)
            self.assertLessEqual(s.held.rate, knee)
            self.assertGreater(s.failed.rate, knee)
            self.assertLessEqual(s.failed.rate / s.held.rate, 1 + 2 * cap.Capacity.step, knee)

    def test_the_ramp_goes_up_by_its_factor_until_a_step_fails_then_bisects(self):
        rates = [step.rate for step in search(service(1000)).steps]
        self.assertEqual(rates[:5], [400, 500, 625, 781, 976])
        self.assertEqual(rates[5], 1220)  # the first failure
        self.assertEqual(rates[6], round((976 + 1220) / 2))

    def test_the_ramp_probes_in_one_round_and_the_bracket_s_edges_run_every_round(self):
        s = search(service(1000))
        rounds = {step.rate: len(step.rounds) for step in s.steps}
        assert s.held is not None and s.failed is not None
        self.assertEqual([rounds[r] for r in (400, 500, 625, 781)], [1, 1, 1, 1])
        self.assertGreaterEqual(rounds[s.held.rate], 2)
        self.assertGreaterEqual(rounds[s.failed.rate], 2)
        self.assertEqual(s.outcome, cap.BRACKETED)
        # A probe's rounds run again where it turns out to be the held edge, booked as one step.
        self.assertEqual(s.held.rate, 976)
        self.assertEqual(s.held.rounds, (cap.HELD,) * 3)
        # Only the last held edge runs again: one the bisection passed by stays a probe.
        s = search(service(1100))
        rounds = {step.rate: len(step.rounds) for step in s.steps}
        self.assertEqual((rounds[976], rounds[1098], s.outcome), (1, 3, cap.BRACKETED))

    def test_a_probe_that_fails_when_its_rounds_run_again_moves_the_held_edge_down(self):
        s = cap.Search.of(cap.Capacity(), 400)
        flaky = {976: [cap.FAILED, cap.FAILED]}  # held once as a probe, failed in full
        while (rate := s.next_rate()) is not None:
            again = any(x.rate == rate for x in s.steps)
            verdict = flaky[rate].pop() if again and flaky.get(rate) else cap.HELD if rate <= 1000 else cap.FAILED
            s.book(rate, [verdict] * (1 if s.probing(rate) and verdict == cap.HELD else 2))
        assert s.held is not None and s.failed is not None
        self.assertLess(s.held.rate, 976)
        self.assertLessEqual(s.failed.rate, 976)
        self.assertGreaterEqual(len(s.held.rounds), 2)

    def test_a_generator_that_falls_behind_is_named_and_no_winner_is_read_past_it(self):
        s = search(service(knee=5000, generator=1500))
        self.assertEqual(s.outcome, cap.GENERATOR_LIMITED)
        assert s.held is not None
        self.assertLess(s.held.rate, 1500)
        self.assertIsNone(s.failed)
        self.assertEqual([x.verdict for x in s.steps][-1], cap.GENERATOR)
        self.assertGreaterEqual(len(s.held.rounds), 2)  # the held edge below the lag, in full

    def test_holding_at_the_top_is_a_lower_bound_and_failing_at_the_floor_is_none_held(self):
        top = search(service(10**9))
        self.assertEqual(top.outcome, cap.LOWER_BOUND)
        self.assertEqual(top.steps[-1].rate, 400 * cap.Capacity.top_x)
        floor = search(service(1))
        self.assertEqual(floor.outcome, cap.NONE_HELD)
        self.assertEqual(floor.steps[-1].rate, 400 * cap.Capacity.floor_x)

    def test_a_rate_holds_where_every_round_held_so_rounds_that_disagree_fail_it(self):
        s = cap.Search.of(cap.Capacity(), 400)
        while (rate := s.next_rate()) is not None:
            verdict = cap.HELD if rate <= 1000 else cap.FAILED
            s.book(rate, [cap.HELD, cap.FAILED] if 900 < rate <= 1000 else [verdict] * (1 if s.probing(rate) else 2))
        assert s.held is not None and s.failed is not None
        self.assertEqual(s.outcome, cap.BRACKETED)
        self.assertTrue(s.held.rate <= 900 < s.failed.rate, (s.held, s.failed))
        self.assertTrue(s.failed.split)

    def test_a_lower_rate_failing_where_a_higher_held_is_inconclusive(self):
        s = cap.Search.of(cap.Capacity(), 400)
        s.book(1000, [cap.HELD, cap.HELD])
        self.assertEqual(s.outcome, "")
        s.book(900, [cap.FAILED, cap.FAILED])
        self.assertEqual(s.outcome, cap.INCONCLUSIVE)

    def test_a_pool_s_bound_caps_the_search_at_the_factor_past_it(self):
        s = cap.Search.of(cap.Capacity(), 400, bound=500)
        self.assertEqual(s.top, 625)
        while (rate := s.next_rate()) is not None:
            s.book(rate, [cap.HELD] * 2)
        self.assertEqual((s.outcome, [x.rate for x in s.steps]), (cap.LOWER_BOUND, [400, 500, 625]))
        # No pool (NaN, infinite): x50 the start.
        self.assertEqual({cap.Search.of(cap.Capacity(), 400, bound=b).top for b in (math.nan, math.inf)}, {20_000})

    def test_a_search_that_fails_from_its_start_ends_at_its_floor(self):
        rates = [step.rate for step in search(service(1), start=206).steps]
        self.assertEqual(rates, [206, 165, 132, 106, 85, 68, 54, 52])  # the floor, a quarter of 206, rounded
        self.assertEqual(len(rates), len(set(rates)))

    def test_a_small_rate_still_climbs_by_one_req_s_at_least(self):
        rates = [step.rate for step in search(service(5), start=1).steps]
        self.assertEqual(rates[:6], [1, 2, 3, 4, 5, 6])
        self.assertEqual(search(service(5), start=1).outcome, cap.BRACKETED)

    def test_a_tie_between_rounds_does_not_claim_the_rate(self):
        self.assertEqual(cap.step_verdict([cap.HELD, cap.FAILED]), (cap.FAILED, True))
        self.assertEqual(cap.step_verdict([cap.HELD, cap.HELD, cap.FAILED]), (cap.FAILED, True))
        # A round the generator lagged in is no round of the service's: the others decide.
        self.assertEqual(cap.step_verdict([cap.HELD, cap.GENERATOR]), (cap.HELD, False))
        self.assertEqual(cap.step_verdict([cap.GENERATOR, cap.GENERATOR, cap.HELD]), (cap.GENERATOR, False))
        # One failed round settles a step; a round more decides a generator that lagged in half.
        self.assertTrue(cap.settled([cap.HELD, cap.FAILED]))
        self.assertFalse(cap.settled([cap.GENERATOR, cap.FAILED]))
        self.assertTrue(cap.settled([cap.GENERATOR, cap.FAILED, cap.HELD]))

    def test_an_error_or_a_drop_past_the_sla_fails_a_round(self):
        self.assertEqual(cap.judge({"p99": 50.0, "error_rate": 0.001, "dropped": 0}, SLA_MS), cap.FAILED)
        self.assertEqual(cap.judge({"p99": 900.0, "error_rate": 0.0, "dropped": 3}, SLA_MS), cap.FAILED)
        self.assertEqual(cap.judge({"p99": float("nan"), "error_rate": 0.0, "dropped": 0}, SLA_MS), cap.FAILED)


class PlanTest(unittest.TestCase):
    def test_the_profile_searches_sleep_product_and_db_in_their_modes_from_their_open_loads(self):
        from loomlab.bench.cli import parse
        from loomlab.bench.planning.plan import Plan, runs_of

        plan = Plan.of(parse(["--profile", "capacity", "--plan", "--reference", "ref"]))
        self.assertEqual([s.workload for s in plan.suites], ["sleep", "product", "db"])
        self.assertEqual([ld.rate for s in plan.suites for ld in s.loads], [400, 206, 80])
        for suite in plan.suites:  # the reference server's column is a bench's, not a search's
            self.assertEqual(
                [lane.key for lane in plan.lanes(suite)], ["worker", "virtual", "virtual-loop", "reactive"]
            )
        assert plan.settings.capacity is not None
        self.assertEqual((plan.settings.repeats, plan.settings.max_rounds), (2, 3))
        # At most: the ramp from the start to x50 its start (18 steps up, a round each where they
        # held), the top and the bisection of its last x1.25 to 5 % (3) failed in two rounds each, the
        # held edge again in two and the two costs in two.
        sleep, lanes = plan.suites[0], {lane.key: lane for lane in plan.lanes(plan.suites[0])}
        self.assertEqual(runs_of(sleep.loads[0], plan.settings, lanes["virtual"]), 18 + 2 * 4 + 2 + 2 * 2)
        # The worker's 50 threads bind it at 500 req/s: its search climbs to x1.25 that, two steps.
        self.assertEqual(runs_of(sleep.loads[0], plan.settings, lanes["worker"]), 2 + 2 * 4 + 2 + 2 * 2)
        self.assertLessEqual(plan.seconds(), 25 * 60)  # the budget, said before it starts

    def test_a_search_that_climbs_to_its_top_runs_at_most_what_the_plan_counts(self):
        c = cap.Capacity()
        for start, bound in ((400, math.inf), (400, 500), (206, 258.06), (80, 100)):
            top = cap.Search.of(c, start, 2, bound).top
            for knee, flaky in ((top - 1, False), (top - 1, True), (top, False)):
                s, runs = cap.Search.of(c, start, 2, bound), 0
                while (rate := s.next_rate()) is not None:
                    # Past the knee it fails; `flaky`: every bisection fails too, the worst for the plan.
                    held = rate <= knee and not (flaky and s.failed is not None and s.probing(rate))
                    rounds = [cap.HELD] if held and s.probing(rate) else [cap.HELD if held else cap.FAILED] * 2
                    runs += len(rounds)
                    s.book(rate, rounds)
                runs += 2 * len(c.costs) if s.held else 0
                self.assertEqual(max(x.rate for x in s.steps), top)
                self.assertLessEqual(runs, c.runs_planned(2, start, top), (start, bound, knee, flaky))
        self.assertEqual(runs, 3 + 2 + 2 * 2)  # held at its top: 80, 100, 125 probed, 125 again in two, costs
        # A held edge that fails when run again is what the count leaves out: its bracket starts anew.
        s, runs = cap.Search.of(c, 400, 2, 500), 0
        while (rate := s.next_rate()) is not None:
            again = not s.probing(rate)
            held = rate <= 510 and not (again and rate == 500)  # the worker's bound, once short of it
            rounds = [cap.HELD] if held and not again else [cap.HELD if held else cap.FAILED] * 2
            runs += len(rounds)
            s.book(rate, rounds)
        self.assertEqual((s.outcome, runs + 2 * len(c.costs), c.runs_planned(2, 400, 625)), (cap.BRACKETED, 21, 16))

    def test_its_options_reach_the_search(self):
        from loomlab.bench.cli import parse
        from loomlab.bench.planning.plan import Plan

        argv = ["--profile", "capacity", "--plan", "--sla-p99-ms", "150", "--step", "0.1", "--search-top-x", "8"]
        found = Plan.of(parse(argv)).settings.capacity
        self.assertEqual(found, cap.Capacity(sla_p99_ms=150, step=0.1, top_x=8))
        self.assertEqual(found.sla_ms(100), 150)
        self.assertEqual(cap.Capacity().sla_ms(100), 200)


class FakeService:
    """A mode's service whose p99 turns past its knee; it books each measured run's mode and rate."""

    environment = "fake"
    url = "http://fake"

    def __init__(self, knee: float, calls: list):
        self.knee, self.calls, self.stopped = knee, calls, False

    def wait_ready(self, timeout_s: float = 0) -> None:
        pass

    def info(self) -> dict:
        return {"jdk": "fake", "imageKind": "jvm", "pools": {}}

    def run(self, load, lane, out, label, settings, warmup=False) -> dict:
        if warmup:
            return {"throughput": load.rate}
        self.calls.append((lane.key, load.rate))
        figures = service(self.knee)(load.rate)
        return {**figures, "requests": load.rate * 4, "cpu_ms_per_req": 0.5, "peak_rss_bytes": 2**27, "gen_cpu_s": 1}

    def stop(self) -> None:
        self.stopped = True


class DriverTest(unittest.TestCase):
    def drive(self) -> tuple[dict, list, dict]:
        load = Load("open 400 req/s", "k6/sleep.js", "open", {"SLEEP_MS": "100", "MAX_VUS": "100"}, rate=400)
        load = Load(**{**load.__dict__, "lanes": (Lane("worker"), Lane("reactive")), "open_s": 4, "est_s": 5})
        suite = Suite("sleep", "fake", {}, [load], warmup_seconds=0)
        knees, calls, services = {"worker": 497, "reactive": 2100}, [], {}

        def start(suite_, lane, tag, settings_, out, slot=0):
            services[lane.key] = FakeService(knees[lane.key], calls)
            return services[lane.key]

        settings = RunSettings(warmups=2, warmup_seconds=0, repeats=2, max_rounds=3, capacity=cap.Capacity())
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
            where = SimpleNamespace(environment="fake", start=start)
            plans = {lane: {"start": 1, "runs": {}} for lane in load.lanes}
            run = SuiteRun(suite, settings, Path(out), Progress(1, 100.0), where, "t", plans)
            searched = CapacityRun(run, settings.capacity)
            results, info = searched.measure(list(load.lanes))
        section = capacity_section(suite, load, results, info, settings, "fake", searched.sla_ms)
        return results, calls, {**section, "services": services}

    def test_each_mode_is_bracketed_at_its_own_knee_and_every_service_stops(self):
        results, _, section = self.drive()
        for mode, knee in (("worker", 497), ("reactive", 2100)):
            found = results[mode]["search"]
            self.assertEqual(found["outcome"], cap.BRACKETED)
            self.assertTrue(found["held"] <= knee < found["failed"], found)
        self.assertEqual(section["capacity"]["sla_ms"], 200.0)  # twice the 100 ms sleep
        self.assertTrue(all(s.stopped for s in section["services"].values()))

    def test_a_step_runs_every_mode_still_searching_in_rounds_whose_order_rotates(self):
        _, calls, _ = self.drive()
        # The ramp's first probes: one round each step, the order rotated step after step.
        self.assertEqual(calls[:4], [("reactive", 400), ("worker", 400), ("worker", 500), ("reactive", 500)])
        # The costs' rounds (the last eight runs: two fractions, two rounds, two modes): every mode a
        # round, the order turned the next.
        costs = [m for m, _ in calls[-8:]]
        self.assertEqual(costs[0:2], costs[2:4][::-1])
        self.assertEqual(set(costs[0:2]), {"worker", "reactive"})

    def test_the_cost_runs_at_half_and_four_fifths_of_each_held_rate(self):
        results, _, section = self.drive()
        for r in results.values():
            held = r["search"]["held"]
            costs = sorted({x["offered"] for x in r["runs"] if x["step"].startswith("cost")})
            self.assertEqual(costs, [round(held * 0.5), round(held * 0.8)])
        self.assertIn("cores per 1,000 req/s", section["server"].markdown())
        self.assertIn(cap.BRACKETED, section["table"].markdown())

    def test_a_pods_held_rate_says_how_many_pods_ten_thousand_req_s_need(self):
        results, _, section = self.drive()  # the fake environment stands for a cluster's
        table = section["table"]
        self.assertEqual(table.headers[-1], "pods for 10,000 req/s")
        worker = next(row for row in table.rows if row[0] == "worker")
        self.assertEqual(worker[-1], str(math.ceil(10_000 / results["worker"]["search"]["held"])))

    def test_the_answer_names_a_winner_only_where_the_brackets_lie_apart(self):
        _, _, section = self.drive()
        held, winner, how, _, _ = cap.capacity_answer(section, {"worker": 500.0})
        self.assertTrue(held.startswith("reactive "), held)
        self.assertEqual(winner, "reactive")
        r, w = section["results"]["reactive"]["search"], section["results"]["worker"]["search"]
        self.assertEqual(how, f"x{r['held'] / w['failed']:.2f} to x{r['failed'] / w['held']:.2f} over worker")

        def with_worker(*steps: tuple[float, str, bool]) -> dict:
            search = {"held": 2000, "failed": None, "outcome": cap.BRACKETED}
            search["steps"] = [{"rate": r, "verdict": v, "split": split} for r, v, split in steps]
            return {**section, "results": {**section["results"], "worker": {"search": search}}}

        # Brackets that overlap: neither mode is the other's by the margin.
        overlapping = with_worker((2000, cap.HELD, False), (2150, cap.FAILED, False))
        self.assertEqual(cap.capacity_answer(overlapping, {})[1], "cannot tell between reactive, worker")
        # A failure whose rounds disagreed is no edge: the worker's capacity may lie above it.
        unsure = with_worker((1500, cap.HELD, False), (1600, cap.FAILED, True))
        self.assertEqual(cap.capacity_answer(unsure, {})[1], "cannot tell between reactive, worker")
        # Both brackets within the margin of each other both ways: a tie.
        r = section["results"]["reactive"]["search"]
        close = with_worker((r["held"], cap.HELD, False), (r["failed"], cap.FAILED, False))
        self.assertEqual(cap.capacity_answer(close, {})[1], "tie: reactive, worker")
        # The same tie where the worker's held edge was a probe of one round, and the search ran two at
        # its edges: no edge, its solid one is 0.8x lower, and the answer cannot tell.
        low = round(r["held"] * 0.8)
        probe = with_worker((low, cap.HELD, False), (r["held"], cap.HELD, False), (r["failed"], cap.FAILED, False))
        for step, n in zip(probe["results"]["worker"]["search"]["steps"], (2, 1, 2), strict=True):
            step["rounds"] = [step["verdict"]] * n
        self.assertEqual(cap.capacity_answer(probe, {})[1], "tie: reactive, worker")
        probe["results"]["worker"]["search"]["full_rounds"] = 2
        self.assertEqual(cap.capacity_answer(probe, {})[1], "cannot tell between reactive, worker")

    def test_what_binds_a_mode_is_its_pool_or_the_cpu_its_held_rate_takes(self):
        _, _, section = self.drive()
        # The fake's costs: 0.5 ms of server CPU and 1 s of the generator's over rate x 4 requests a run.
        section = {**section, "pools": {"cpus": 2}, "environment": "in-cluster JVM"}
        binds = cap.binds(section, {"worker": 497.0, "reactive": 4000.0}, {"worker": 500.0})
        self.assertEqual(binds, ["worker: its pool (500)", "reactive: the CPU (2.0 of 2 cores)"])
        # On this machine the generator's CPU counts beside the server's.
        local = {**section, "pools": {"cpus": 1}, "environment": "local JVM"}
        self.assertEqual(
            cap.binds(local, {"reactive": 1800.0}, {}), ["reactive: the CPU (1.2 of 1 cores, the generator's with it)"]
        )


class CpuLimitTest(unittest.TestCase):
    """The pods a capacity search sizes in the cluster: `./lab k8s run --cpu-limit 1`."""

    def test_a_cpu_limit_below_the_request_lowers_the_request_to_it(self):
        from loomlab.incluster.core import lanes, services

        one = [
            d
            for d in services.with_cpu_limit(services.render("deploy/k8s/overlays/jvm", {}), 1)
            if d["kind"] == "Deployment"
        ]
        self.assertTrue(one)
        for d in one:
            resources = d["spec"]["template"]["spec"]["containers"][0]["resources"]
            self.assertEqual(resources["limits"]["cpu"], "1")
            self.assertLessEqual(lanes.cpu_of(resources["requests"]["cpu"]), 1)


if __name__ == "__main__":
    unittest.main()
