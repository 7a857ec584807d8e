"""A server's system calls per request (bench.syscalls): perf's CSV summed per figure, only the
tracepoints the kernel has asked for, a real count of a child's calls where perf may count, and the
reference table's columns only where the runs have them."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from loomlab.bench.measuring import syscalls
from loomlab.bench.planning.lane import REFERENCE, REFERENCE_LANE, Lane
from loomlab.bench.planning.loads import Load
from loomlab.bench.reporting.loadfigures import LoadFigures
from loomlab.bench.reporting.reference import reference_table

CSV = """# started on Mon Nov 30 00:53:54 2026

4095,,raw_syscalls:sys_enter,8439111,100.00,,
24,,syscalls:sys_enter_futex,8439111,100.00,,
6,,syscalls:sys_enter_futex_wake,8439111,100.00,,
<not counted>,,syscalls:sys_enter_epoll_wait,0,0.00,,
"""
NAMED = {
    "raw_syscalls:sys_enter": "syscalls",
    "syscalls:sys_enter_futex": "futex",
    "syscalls:sys_enter_futex_wake": "futex",
    "syscalls:sys_enter_epoll_wait": "epoll",
}


class ParseTest(unittest.TestCase):
    def test_each_figure_sums_its_tracepoints_and_an_uncounted_one_is_no_figure(self):
        counts = syscalls.parse(CSV, NAMED)
        self.assertEqual(counts["delta_syscalls"], 4095.0)
        self.assertEqual(counts["delta_futex"], 30.0)
        self.assertTrue(math.isnan(counts["delta_epoll"]))

    def test_a_figure_whose_tracepoints_were_not_asked_for_is_no_figure(self):
        counts = syscalls.parse(CSV, {"raw_syscalls:sys_enter": "syscalls"})
        self.assertEqual(counts["delta_syscalls"], 4095.0)
        self.assertTrue(math.isnan(counts["delta_futex"]))

    def test_per_request(self):
        per = syscalls.per_request({"delta_syscalls": 300.0, "delta_futex": math.nan}, 100)
        self.assertEqual(per["syscalls_per_req"], 3.0)
        self.assertTrue(math.isnan(per["futex_per_req"]))
        self.assertTrue(math.isnan(syscalls.per_request({"delta_syscalls": 3.0}, 0)["syscalls_per_req"]))

    def test_only_the_tracepoints_the_kernel_has_are_asked_for(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            self.assertEqual(syscalls.events((root,)), {})
            for name in ("raw_syscalls/sys_enter", "syscalls/sys_enter_futex", "syscalls/sys_enter_epoll_pwait"):
                (root / name).mkdir(parents=True)
            self.assertEqual(
                syscalls.events((root,)),
                {
                    "raw_syscalls:sys_enter": "syscalls",
                    "syscalls:sys_enter_futex": "futex",
                    "syscalls:sys_enter_epoll_pwait": "epoll",
                },
            )


# A child that says it is up, makes 1,000 getppid calls when told to on stdin, says so, and waits to
# be let go.
CHILD = "\n".join(
    (
        "import os, sys",
        "print('up', flush=True)",
        "sys.stdin.readline()",
        "for _ in range(1000): os.getppid()",
        "print('done', flush=True)",
        "sys.stdin.readline()",
    )
)


def perf_counts() -> str:
    """Why perf cannot count here ('' where it can)."""
    if not shutil.which("perf") or not syscalls.events():
        return "no perf or no tracefs"
    if os.geteuid() != 0 and Path("/proc/sys/kernel/perf_event_paranoid").read_text().strip() != "-1":
        return "not root and kernel.perf_event_paranoid above -1"
    return ""


@unittest.skipIf(perf_counts(), perf_counts())
class CountTest(unittest.TestCase):
    def test_a_childs_calls_between_start_and_stop_are_counted(self):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert child.stdin is not None and child.stdout is not None
        try:
            self.assertEqual(child.stdout.readline(), "up\n")  # its start's calls are not this test's
            with tempfile.TemporaryDirectory() as tmp:
                counter = syscalls.start(child.pid, Path(tmp, "run.syscalls.csv"))
                assert counter is not None
                child.stdin.write("go\n")
                child.stdin.flush()
                self.assertEqual(child.stdout.readline(), "done\n")
                counts = counter.stop()
                self.assertEqual(sorted(os.listdir(tmp)), ["run.syscalls.csv", "run.syscalls.log"])
        finally:
            child.stdin.close()
            child.stdout.close()
            child.wait()
        # The 1,000 calls, its read of the line and its write of "done", and little else.
        self.assertGreaterEqual(counts["delta_syscalls"], 1002)
        self.assertLess(counts["delta_syscalls"], 1100)
        self.assertFalse(math.isnan(counts["delta_futex"]))


def runs(rate: float, figures: dict[str, float], n: int = 5) -> dict:
    return {"runs": [{"throughput": rate, "requests": rate * 10, "cpu_ms_per_req": 0.1, **figures} for _ in range(n)]}


class ReferenceColumnsTest(unittest.TestCase):
    def test_the_counts_are_columns_only_where_the_reference_has_them(self):
        load = Load("open", "k6/sleep.js", "open", {}, lanes=(Lane("virtual"), REFERENCE_LANE))
        counted = {
            "virtual": runs(100.0, {"syscalls_per_req": 12.0}),
            REFERENCE: runs(100.0, {"syscalls_per_req": 8.0}),
        }
        table = reference_table(LoadFigures.of(load, counted, {}))
        assert table is not None
        self.assertIn("of the reference's syscalls/req", table.headers)
        self.assertNotIn("futex/req", table.headers)
        self.assertEqual(table.rows[0][table.headers.index("of the reference's syscalls/req")], "1.50x (1.50-1.50)")
        plain = reference_table(LoadFigures.of(load, {"virtual": runs(100.0, {}), REFERENCE: runs(100.0, {})}, {}))
        assert plain is not None
        self.assertNotIn("syscalls/req", plain.headers)


if __name__ == "__main__":
    unittest.main()
