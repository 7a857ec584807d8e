"""./lab's one command table (loomlab.commands): every command's help prints through ./lab, every
branch it names exists in ./lab's dispatch, every in-cluster parser is in it, and every `./lab ...`
the pages write is a command of it (`./lab k8s monitoring --help` died with a KeyError when ./lab
kept its own lists)."""

import contextlib
import importlib.util
import inspect
import io
import os
import re
import subprocess
import unittest
from pathlib import Path

from loomlab import LabError, commands
from loomlab.incluster import cli


class InClusterParsersTest(unittest.TestCase):
    def test_every_parser_is_in_the_table(self):
        parsers = {
            name
            for name, f in inspect.getmembers(cli, inspect.isfunction)
            if f.__module__ == cli.__name__
            and inspect.signature(f).return_annotation == "argparse.Namespace"
            and list(inspect.signature(f).parameters) == ["argv"]
        }
        self.assertEqual(parsers, set(commands.IN_CLUSTER))

    def test_every_help_prints_and_exits_0(self):
        for name in commands.IN_CLUSTER:
            parse = getattr(cli, name)
            with self.subTest(command=name):
                out = io.StringIO()
                with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as done:
                    parse(["--help"])
                self.assertEqual(done.exception.code, 0)
                self.assertIn("usage:", out.getvalue())


LAB = Path(__file__).resolve().parents[2] / "lab"


class ModuleTableTest(unittest.TestCase):
    def test_every_command_has_a_module_that_runs_it(self):
        for c in commands.COMMANDS:
            if not c.runs:
                continue
            full = "labmachine.experiments" if c.on_node else f"loomlab.{c.module}"
            with self.subTest(command=c.words):
                spec = importlib.util.find_spec(full)
                self.assertIsNotNone(spec)
                assert spec is not None and spec.origin is not None
                if spec.submodule_search_locations is not None:  # a package runs its __main__
                    self.assertIsNotNone(importlib.util.find_spec(f"{full}.__main__"))
                else:
                    self.assertIn('if __name__ == "__main__":', Path(spec.origin).read_text())
                self.assertTrue(cli.module_file(c.words.split()[1]).is_file())

    def test_what_acts_on_the_lab_s_node_runs_through_the_machinery_s_entry_for_it(self):
        # The entry hands the harness's experiment this machine's node, by the name ./lab gives it.
        from labmachine.experiments.__main__ import EXPERIMENTS

        on_node = [c for c in commands.COMMANDS if c.on_node]
        self.assertEqual({c.module for c in on_node}, {f"labmachine.experiments.{name}" for name in EXPERIMENTS})
        for c in on_node:
            with self.subTest(command=c.words):
                self.assertIs(
                    EXPERIMENTS[c.module.rsplit(".", 1)[1]], importlib.import_module(f"loomlab.{c.runs}").main
                )


class LabHelpTest(unittest.TestCase):
    """The way a user asks: through `./lab`. Help needs nothing installed (Debian's python3, the
    standard library) and does nothing else: `./lab k8s up --help` must not bring a cluster up."""

    def lab(self, *argv: str) -> subprocess.CompletedProcess:
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
        return subprocess.run([str(LAB), *argv], capture_output=True, text=True, env=env, timeout=120)

    def test_every_commands_help_prints_through_lab(self):
        for c in commands.COMMANDS:
            if c.own_help:  # k6's and maven's own --help
                continue
            for flag in ("--help", "-h"):
                with self.subTest(command=c.words, flag=flag):
                    done = self.lab(*c.words.split(), flag)
                    self.assertEqual(done.returncode, 0, done.stderr[-2000:])
                    self.assertIn("usage:" if c.options else f"./lab {c.words}", done.stdout)

    def test_the_usage_lists_every_command(self):
        done = self.lab("help")
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        for c in commands.COMMANDS:
            self.assertIn(f"./lab {c.words}", done.stdout)

    def test_an_unknown_command_is_refused_with_the_usage(self):
        for argv in (["nope"], ["k8s", "nope"], ["k8s"]):
            with self.subTest(argv=argv):
                done = self.lab(*argv)
                self.assertEqual(done.returncode, commands.UNKNOWN)
                self.assertIn("./lab", done.stderr)
                self.assertEqual(done.stdout, "")


class CommandTableTest(unittest.TestCase):
    def test_every_branch_the_table_names_is_in_labs_dispatch(self):
        body = LAB.read_text().split("\nmain() {", 1)[1]
        cases = re.findall(r"^  ([a-z][a-z0-9 |-]*)\)(.*)$", body, re.M)
        branches = {b.strip() for words, _ in cases for b in words.split("|")}
        self.assertEqual({c.how for c in commands.COMMANDS}, branches)
        # A branch that is a step has its script, and every script there is a step or one the steps run.
        steps = {b.strip() for words, line in cases if 'step "$how"' in line for b in words.split("|")}
        steps |= set(re.findall(r"^[^#\n]*\bstep ([a-z]+)", body, re.M))
        folder = LAB.parent / "scripts" / "lab"
        run = {
            m for f in folder.glob("*.sh") for m in re.findall(r"^[^#\n]*scripts/lab/([a-z]+)\.sh", f.read_text(), re.M)
        }
        self.assertEqual(steps | run | {"lib"}, {f.stem for f in folder.glob("*.sh")})

    def test_the_in_cluster_commands_are_the_tables(self):
        table = {c.words.split()[1] for c in commands.COMMANDS if c.options.startswith("incluster.cli:")}
        self.assertEqual(table, set(commands.IN_CLUSTER))
        for c in commands.COMMANDS:
            if c.how in ("deploy", "python"):
                self.assertEqual(c.runs, commands.IN_CLUSTER[c.words.split()[1]])

    def test_which_names_the_branch_and_the_words_it_took(self):
        self.assertEqual(
            commands.which(["k8s", "autoscale", "--on", "queue"]), "deploy 2 labmachine.experiments.autoscale 1"
        )
        self.assertEqual(commands.which(["k8s", "run"]), "deploy 2 incluster 1")
        self.assertEqual(commands.which(["bench", "--profile", "smoke"]), "bench 1 - 1")
        self.assertEqual(commands.which(["k8s", "up"]), "cluster 2 - 1")
        self.assertEqual(commands.which(["k8s", "down"]), "cluster 2 - 0")
        self.assertEqual(commands.which(["report", "x"]), "report 1 - 0")

    def test_a_registry_is_read_as_the_parser_declares_it(self):
        self.assertEqual(cli.registry_of(["--profile", "smoke", "--registry", "r:5000/p", "--strict"]), "r:5000/p")
        self.assertEqual(cli.registry_of(["--registry=r:5000"]), "r:5000")
        self.assertEqual(cli.registry_of(["--strict"]), "")

    def test_every_lab_command_the_pages_write_is_in_the_table(self):
        root = LAB.parent
        pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
        for page in pages:
            for words in re.findall(r"\./lab((?: [a-z][a-z0-9-]*){1,2})", page.read_text()):
                argv = words.split()
                with self.subTest(page=page.name, command=words):
                    group_or_usage = argv in (["k8s"], [commands.USAGE])
                    self.assertTrue(group_or_usage or commands.find(argv) is not None, f"{page.name}: ./lab{words}")


class WorkloadWithoutJobTest(unittest.TestCase):
    def test_a_workload_without_a_job_is_refused_by_name(self):
        from loomlab.incluster.core import plan

        args = cli.run(["--workload", "buffers", "--profile", "smoke", "--out", "/nonexistent"])
        with self.assertRaises(LabError) as refused:
            plan.suites_on_variants(args, ["jvm"])
        self.assertIn("no in-cluster Job for buffers", str(refused.exception))
