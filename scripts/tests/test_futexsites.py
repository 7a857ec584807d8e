"""Where futex calls are made (bench.futexsites): perf script's samples read per thread, wait or
wake, site and caller, the JVM's threads named by a thread dump, and the table's shares; the page
(docs/results/2026-11-30-futex-sites.md, and the native transport's) holds what its commands print
from its record."""

from __future__ import annotations

import io
import json
import re
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from loomlab import ROOT
from loomlab.bench.measuring import futexsites

# Each page that draws futex tables, and how many.
PAGES = {
    ROOT / "docs" / "results" / f"{name}.md": n
    for name, n in (
        ("2026-11-30-futex-sites", 6),
        ("2026-11-30-native-transport", 2),
        ("2026-12-05-virtual-loop-cost", 3),
    )
}
COMMAND = re.compile(r"`python -m loomlab\.bench\.measuring\.futexsites ([^`]+)`:\n\n((?:\|.*\n)+)")

# Four samples as `perf script -F comm,tid,ip,sym` prints them (a header may end in a space): a
# carrier parking, the timer thread unparking (its Java caller past the JVM's glue), a carrier's
# contended monitor exit, Go's M parking.
SCRIPT = """ForkJoinPool-1- 101\x20
\t           85f16 __futex_abstimed_wait_common64
\t           86100 __pthread_cond_wait
\t          e75b16 Parker::park
\t          e75c00 Unsafe_Park
\t    7f00aa000000 void jdk.internal.misc.Unsafe.park(boolean, long)

ForkJoinPool-1- 102
\t           86193 futex_wake (inlined)
\t           86194 __pthread_cond_signal
\t          e76000 Unsafe_Unpark
\t    7f00aa000100 void jdk.internal.misc.Unsafe.unpark(java.lang.Object)
\t    7f00aa000200 void java.util.concurrent.locks.LockSupport.unpark(java.lang.Thread)

ForkJoinPool-1- 101\x20
\t           86193 __GI___lll_lock_wake
\t          e77000 SharedRuntime::complete_monitor_unlocking_C
\t    7f00aa000300 java.nio.channels.Selector sun.nio.ch.EPollSelectorImpl.wakeup()

reference 7
\t           944a3 runtime.futex.abi0
\t           24400 runtime.notesleep
\t           5b800 runtime.stopm
\t           5b900 runtime.findRunnable
"""
DUMP = (
    '"ForkJoinPool-1-worker-1" #40 [101] daemon prio=5 os_prio=0 cpu=1.00ms elapsed=1.00s tid=0x1 nid=101 waiting\n'
    '"ForkJoinPool-1-delayScheduler" #41 daemon prio=5 os_prio=0 tid=0x2 nid=0x66 waiting on condition\n'
)


class FutexSitesTest(unittest.TestCase):
    def test_thread_names_by_id_in_decimal_and_hex(self):
        self.assertEqual(
            {101: "ForkJoinPool-1-worker-1", 102: "ForkJoinPool-1-delayScheduler"}, futexsites.thread_names(DUMP)
        )

    def test_each_call_by_thread_wait_or_wake_site_and_caller(self):
        counted = futexsites.sites(SCRIPT, futexsites.thread_names(DUMP))
        self.assertEqual(
            {
                ("ForkJoinPool-N-worker-N", "wait", "Parker::park", ""): 1,
                (
                    "ForkJoinPool-N-delayScheduler",
                    "wake",
                    "Unsafe_Unpark",
                    "void java.util.concurrent.locks.LockSupport.unpark(java.lang.Thread)",
                ): 1,
                (
                    "ForkJoinPool-N-worker-N",
                    "wake",
                    "SharedRuntime::complete_monitor_unlocking_C",
                    "java.nio.channels.Selector sun.nio.ch.EPollSelectorImpl.wakeup()",
                ): 1,
                ("reference", "wait", "runtime.stopm", "runtime.findRunnable"): 1,
            },
            dict(counted),
        )

    def test_a_thread_no_dump_names_keeps_perfs_name(self):
        self.assertEqual({"ForkJoinPool-N-", "reference"}, {site[0] for site in futexsites.sites(SCRIPT, {})})

    def test_the_table_per_request_and_share(self):
        with tempfile.TemporaryDirectory() as tmp:
            script, dump = Path(tmp, "script.txt"), Path(tmp, "threads.txt")
            script.write_text(SCRIPT)
            dump.write_text(DUMP)
            out = io.StringIO()
            with redirect_stdout(out):
                futexsites.main([str(script), "--requests", "2", "--threads", str(dump), "--top", "2"])
        lines = out.getvalue().splitlines()
        self.assertEqual(5, len(lines))  # header, rule, two sites, all
        self.assertTrue(lines[2].endswith("| 0.500 | 25.0% |"), lines[2])
        self.assertEqual("| all | | | | 2.000 | 100% |", lines[-1])

    def test_a_count_below_one_is_refused_in_words(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp, "script.txt")
            script.write_text(SCRIPT)
            for bad in (["--requests", "0"], ["--requests", "2", "--top", "-1"]):
                with self.subTest(bad=bad), redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
                    futexsites.main([str(script), *bad])
                self.assertIn("at least 1", err.getvalue())


class FutexSitesPageTest(unittest.TestCase):
    """Each table of the page is what the command above it prints (run from scripts/, as it says),
    over as many requests as its run answered."""

    def test_each_table_is_its_commands_output(self):
        found = []
        for page, tables in PAGES.items():
            found += COMMAND.findall(page.read_text())
            self.assertEqual(tables, len(COMMAND.findall(page.read_text())), page.name)
        for command, printed in found:
            with self.subTest(command=command):
                argv = [str((ROOT / "scripts" / a).resolve()) if a.startswith("../") else a for a in command.split()]
                out = io.StringIO()
                with redirect_stdout(out):
                    futexsites.main(argv)
                self.assertEqual(printed.rstrip("\n"), out.getvalue().rstrip("\n"))
                run = Path(argv[0].replace("script-", "run-").removesuffix(".txt.gz") + ".json")
                self.assertEqual(json.loads(run.read_text())["requests"], int(argv[argv.index("--requests") + 1]))


if __name__ == "__main__":
    unittest.main()
