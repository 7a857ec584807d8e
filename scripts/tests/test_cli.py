"""Every in-cluster command's parser is in the table `./lab k8s <command> --help` dispatches through,
and its help prints (`./lab k8s monitoring --help` died with a KeyError)."""

import contextlib
import inspect
import io
import unittest

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


class WorkloadWithoutJobTest(unittest.TestCase):
    def test_a_workload_without_a_job_is_refused_by_name(self):
        from loomlab.incluster import plan

        args = cli.run(["--workload", "buffers", "--profile", "smoke", "--out", "/nonexistent"])
        with self.assertRaises(SystemExit) as refused:
            plan.suites_on_variants(args, ["jvm"])
        self.assertIn("no in-cluster Job for buffers", str(refused.exception.code))
