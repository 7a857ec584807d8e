"""proc.wait_until: what ends a wait, and what only means "not yet"."""

from __future__ import annotations

import contextlib
import io
import unittest

from loomlab import LabError, command, proc


class WaitUntilTest(unittest.TestCase):
    def test_returns_the_first_truthy_answer(self):
        answers = iter([None, 0, "ready", "later"])
        self.assertEqual(proc.wait_until(lambda: next(answers), 5, 0), "ready")

    def test_an_early_error_is_not_yet(self):
        polls = iter([ConnectionRefusedError("refused"), KeyError("conditions"), True])

        def check():
            answer = next(polls)
            if isinstance(answer, Exception):
                raise answer
            return answer

        self.assertTrue(proc.wait_until(check, 5, 0))

    def test_a_bug_in_the_check_ends_the_wait_at_once(self):
        calls = []

        def check():
            calls.append(1)
            return None + 1  # type: ignore[operator]

        with self.assertRaises(TypeError):
            proc.wait_until(check, 60, 0)
        self.assertEqual(len(calls), 1)

    def test_a_checks_own_verdict_ends_the_wait_at_once(self):
        calls = []

        def check():
            calls.append(1)
            raise LabError("Job k6-sleep: ImagePullBackOff")

        with self.assertRaises(LabError):
            proc.wait_until(check, 60, 0)
        self.assertEqual(len(calls), 1)

    def test_a_wait_that_runs_out_says_what_the_last_poll_raised(self):
        def check():
            raise ConnectionRefusedError("nobody listens")

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertIsNone(proc.wait_until(check, 0, 0))
        self.assertIn("ConnectionRefusedError: nobody listens", err.getvalue())

    def test_give_up_ends_the_wait_before_its_timeout(self):
        self.assertIsNone(proc.wait_until(lambda: False, 60, 0, give_up=lambda: True))


class CommandTest(unittest.TestCase):
    """A command's entry: a LabError is its user's message (exit 1, no traceback); a bug is not."""

    def test_a_lab_error_is_printed_and_exits_1(self):
        def main():
            raise LabError("nothing pushed to r:5000")

        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as done:
            command(main)
        self.assertEqual(done.exception.code, 1)
        self.assertEqual(
            err.getvalue(),
            "lab: nothing pushed to r:5000\nlab: common failures and their fixes: docs/troubleshooting.md\n",
        )

    def test_mains_status_is_the_exit_status_and_a_bug_keeps_its_traceback(self):
        with self.assertRaises(SystemExit) as done:
            command(lambda code: code, 3)
        self.assertEqual(done.exception.code, 3)
        with self.assertRaises(SystemExit) as done:
            command(lambda: None)
        self.assertEqual(done.exception.code, 0)
        with self.assertRaises(KeyError):
            command(lambda: {}["missing"])


if __name__ == "__main__":
    unittest.main()
