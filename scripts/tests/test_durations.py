"""The durations the README and docs/commands.md give for the two commands: each dated and taken from
a committed record (CI's steps of 2026-12-05; the stock machine's of 2026-12-07, from empty caches;
the warm runs' clocks of the same day; the plan), and no other duration in the README."""

from __future__ import annotations

import json
import re
import unittest
from datetime import datetime

from loomlab import ROOT
from tests.markdown import clock

RESULTS = ROOT / "docs" / "results"
DURATION = re.compile(r"\d+ min \d+ s")


def minutes(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60} min {whole % 60} s"


def ci_steps() -> dict[str, str]:
    """CI's `ci: STEP took N min N s` lines of its 2026-12-05 record, by step."""
    text = (RESULTS / "2026-12-05-ci-steps.md").read_text()
    return dict(re.findall(r"^ci: (.+) took (\d+ min \d+ s)$", text, re.M))


def hostile_suite() -> str:
    """From Maven's end (the jar's ITs) to the pinning suites' start on JDK 21 (the second Maven run
    with a summary: the minimal application's, between them, is quiet), in the CI record: the hostile
    clients and the minimal application's tests."""
    text = (RESULTS / "2026-12-05-ci-steps.md").read_text()
    ends = [datetime.fromisoformat(x) for x in re.findall(r"^maven: Finished at: (\S+)Z$", text, re.M)]
    took = [float(x) for x in re.findall(r"^maven: Total time: +([\d.]+) s$", text, re.M)]
    return minutes((ends[1] - ends[0]).total_seconds() - took[0])


def stock(line: str) -> str:
    """A README command's time on the stock Debian 12 of 2026-12-07, every cache empty (stock.json)."""
    steps = json.loads((RESULTS / "2026-12-07-first-hour" / "stock.json").read_text())
    step = next(s for s in steps if s["line"] == line)
    assert step["status"] == 0, f"the record's {line} failed"
    return minutes(step["seconds"])


def stock_test() -> str:
    return stock("./lab test")


def warm(run: str) -> str:
    """The whole command on its 2026-12-07 clock, every cache warm (run: bench or test)."""
    return clock((RESULTS / f"2026-12-07-{run}.md").read_text())[f"the whole `./lab {run}`"][2]


def warm_test() -> str:
    return warm("test")


class DurationsTest(unittest.TestCase):
    def test_the_readme_times_the_test_command_from_the_stock_record(self):
        readme = " ".join((ROOT / "README.md").read_text().split())
        page = (RESULTS / "2026-12-07-first-hour.md").read_text()
        first = clock(page)["the whole first `./lab bench`"][2]
        setup = next(took for step, (_, _, took) in clock(page).items() if step.startswith("bench set-up"))
        self.assertEqual(first, stock("./lab bench"))  # the page's clock is the stock record's
        self.assertEqual(clock(page)["the whole `./lab test`, right after it"][2], stock_test())
        self.assertIn(f"the first `./lab bench` took {first}, {setup} of it the set-up", readme)
        self.assertIn(f"`./lab test` right after it {stock_test()}", readme)
        self.assertIn(f"every cache warm, {warm('bench')} and {warm_test()}", readme)
        self.assertIn("both on 2026-12-07", readme)  # the two records' day, and the two clocks' (2026-12-07-*)
        self.assertIn("([the clock](docs/results/2026-12-07-first-hour.md))", readme)
        # The first screen says what, the two commands, and how long each takes.
        first = "\n".join((ROOT / "README.md").read_text().splitlines()[:30])
        self.assertIn("./lab bench    #", first)
        self.assertIn("./lab test     #", first)
        from loomlab.bench.cli import planned

        span = planned("quick").removeprefix("plan: ").split(" of ")[0]
        for duration in (stock("./lab bench"), stock_test(), warm("bench"), warm_test(), span):
            self.assertIn(duration, " ".join(first.split()))

    def test_commands_md_times_are_the_records(self):
        page = " ".join((ROOT / "docs" / "commands.md").read_text().split())
        steps = ci_steps()
        self.assertIn(f"In all {steps['./lab test']} in CI's clean clone on 2026-12-05", page)
        self.assertIn(f"took {steps['under load, JDK 21']} on JDK 21 in the same CI run", page)
        self.assertIn(f"minimal application's tests after them took {hostile_suite()} in CI on 2026-12-05;", page)
        self.assertIn(f"{stock_test()} on a stock Debian 12 on 2026-12-07", page)

    def test_no_other_duration_in_the_readme(self):
        # The plan's span (test_report), the two benches' clocks (test_report) and the stock record.
        from loomlab.bench.cli import planned

        plan = planned("quick").removeprefix("plan: ").split(" of ")[0].split(" to ")
        clocks = [(RESULTS / f"2026-12-07-{run}.md").read_text() for run in ("first-hour", "bench", "test")]
        recorded = {*plan, stock_test(), warm_test(), *(d for clock in clocks for d in DURATION.findall(clock))}
        readme = " ".join((ROOT / "README.md").read_text().split())
        said = DURATION.findall(readme)
        self.assertTrue(said)
        self.assertNotRegex(readme, r"\d+ (minutes|hours)\b|about \d+ min")  # undated, unrecorded words
        for duration in said:
            self.assertIn(duration, recorded)

    def test_the_readme_fits_its_guide(self):
        self.assertLessEqual(len((ROOT / "README.md").read_text().splitlines()), 120)


if __name__ == "__main__":
    unittest.main()
