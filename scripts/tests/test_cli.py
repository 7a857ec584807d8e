"""Every in-cluster command's parser is in the table `./lab k8s <command> --help` dispatches through,
and its help prints (`./lab k8s monitoring --help` died with a KeyError)."""

import contextlib
import importlib.util
import inspect
import io
import os
import re
import subprocess
import unittest
from pathlib import Path

from loomlab.incluster import cli


class CommandTableTest(unittest.TestCase):
    def test_every_parser_is_in_the_table(self):
        parsers = {
            name
            for name, f in inspect.getmembers(cli, inspect.isfunction)
            if f.__module__ == cli.__name__ and list(inspect.signature(f).parameters) == ["argv"]
        }
        self.assertEqual(parsers, set(cli.COMMANDS))

    def test_every_help_prints_and_exits_0(self):
        for name, parse in cli.COMMANDS.items():
            with self.subTest(command=name):
                out = io.StringIO()
                with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as done:
                    parse(["--help"])
                self.assertEqual(done.exception.code, 0)
                self.assertIn("usage:", out.getvalue())


LAB = Path(__file__).resolve().parents[2] / "lab"


class ModuleTableTest(unittest.TestCase):
    def test_every_command_has_a_module_that_runs_it(self):
        self.assertEqual(set(cli.MODULES), set(cli.COMMANDS))
        for name, module in cli.MODULES.items():
            with self.subTest(command=name):
                spec = importlib.util.find_spec(f"loomlab.{module}")
                self.assertIsNotNone(spec)
                assert spec is not None
                if spec.submodule_search_locations is not None:  # a package runs its __main__
                    self.assertIsNotNone(importlib.util.find_spec(f"loomlab.{module}.__main__"))
                self.assertTrue(cli.module_file(name).is_file())


class LabHelpTest(unittest.TestCase):
    """The same, the way a user asks: through `./lab`, whose bash dispatch keeps its own lists of
    commands. Help needs nothing installed (Debian's python3, the standard library)."""

    def lab(self, *argv: str) -> subprocess.CompletedProcess:
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
        return subprocess.run([str(LAB), *argv], capture_output=True, text=True, env=env, timeout=120)

    def test_every_in_cluster_command_is_in_the_usage_and_its_help_prints(self):
        # The usage `./lab k8s` prints for a command it does not know: the longest of its usages.
        usage = max(re.findall(r'die "usage: ./lab k8s ([a-z|-]+)', LAB.read_text()), key=len)
        for name in cli.COMMANDS:
            with self.subTest(command=name):
                self.assertIn(name, usage.split("|"))
                for flag in ("--help", "-h"):
                    done = self.lab("k8s", name, flag)
                    self.assertEqual(done.returncode, 0, done.stderr[-2000:])
                    self.assertIn("usage:", done.stdout)

    def test_the_benchs_help_prints(self):
        done = self.lab("bench", "--help")
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        self.assertIn("usage:", done.stdout)


class WorkloadWithoutJobTest(unittest.TestCase):
    def test_a_workload_without_a_job_is_refused_by_name(self):
        from loomlab.incluster.core import plan

        args = cli.run(["--workload", "buffers", "--profile", "smoke", "--out", "/nonexistent"])
        with self.assertRaises(SystemExit) as refused:
            plan.suites_on_variants(args, ["jvm"])
        self.assertIn("no in-cluster Job for buffers", str(refused.exception.code))
