"""What a change to the harness must leave as it was: the plan every command prints (each bench profile,
the capacity search, the cluster's runs), held to tests/testdata/plans.txt, and the report of every
committed bench run, rebuilt from its results.json to the bytes of its report.md. A change that means
to move a plan writes the file again (`python -m tests.test_unchanged`, from scripts/) and shows the
difference in its commit."""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
import unittest
from pathlib import Path

from loomlab.bench import __main__ as bench
from loomlab.bench.measuring.records import read_results
from loomlab.bench.planning.profiles import PROFILES
from loomlab.bench.reporting import report
from loomlab.incluster import __main__ as incluster

from .test_report import DOCS

PLANS = Path(__file__).parent / "testdata" / "plans.txt"
# Each command line whose plan is held: ./lab bench's profiles, ./lab capacity, ./lab k8s run's.
COMMANDS = [
    *(("bench", "--profile", p) for p in PROFILES),
    ("bench", "--profile", "capacity", "--no-reference"),
    ("bench", "--workload", "sleep", "--jdk", "21,25"),
    ("incluster", "--variants", "jvm,jvm-aot,native"),
    ("incluster", "--profile", "smoke", "--variants", "jvm,jvm-aot"),
    ("incluster", "--profile", "capacity", "--cpu-limit", "1", "--variants", "jvm"),
    ("incluster", "--profile", "scale"),
]
# A cluster run's report.md ends with the pods' start-up, which its driver writes (not results.json).
CLUSTER_STARTUP = re.compile(r"\n## Start-up in the cluster\n.*\Z", re.S)


def plans() -> str:
    """Every held command's plan, under a line that names the command."""
    out = io.StringIO()
    for command, *args in COMMANDS:
        print(f"$ {command} {' '.join(args)}", file=out)
        with contextlib.redirect_stdout(out):
            (bench if command == "bench" else incluster).main([*args, "--plan"])
    return out.getvalue()


def bench_runs() -> list[Path]:
    """The committed runs whose results.json is a bench run's (start-up's are their own pages)."""
    return [p.parent for p in sorted(DOCS.glob("*/results.json")) if '"sections"' in p.read_text()]


class UnchangedTest(unittest.TestCase):
    def test_every_command_prints_the_plan_it_printed(self):
        self.assertEqual(plans(), PLANS.read_text(), "a plan moved: python -m tests.test_unchanged writes it again")

    def test_every_committed_run_rebuilds_to_its_report(self):
        runs = bench_runs()
        self.assertGreaterEqual(len(runs), 29)
        for run in runs:
            with self.subTest(run.name), tempfile.TemporaryDirectory() as tmp:
                with contextlib.redirect_stdout(io.StringIO()):
                    rebuilt = report.rebuild(run, Path(tmp)).read_text()
                committed = (run / "report.md").read_text()
                if "k6_where" in read_results(run)["meta"]:
                    committed = CLUSTER_STARTUP.sub("\n", committed)
                self.assertEqual(rebuilt, committed)


if __name__ == "__main__":
    PLANS.write_text(plans())
    print(f"wrote {PLANS}")
