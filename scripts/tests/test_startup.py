"""Unit tests of `./lab startup`'s pure parts (loomlab.startup): the launches' interleaving and the
memory split it reads from the OS."""

import os
import unittest

from loomlab import LabError, startup


class Interleaving(unittest.TestCase):
    def test_every_variant_leads_in_turn_and_each_launch_runs_every_variant_once(self):
        names = ["jvm", "jvm-aot", "jvm-aot-quarkus"]
        orders = [startup.rotated(names, i) for i in range(5)]
        self.assertEqual([o[0] for o in orders], ["jvm", "jvm-aot", "jvm-aot-quarkus", "jvm", "jvm-aot"])
        for o in orders:
            self.assertEqual(sorted(o), sorted(names))
        self.assertEqual(startup.rotated([], 3), [])


class Arguments(unittest.TestCase):
    def test_no_launch_is_refused(self):
        base = ["--java", "java", "--k6", "k6", "--out", "out"]
        self.assertEqual(startup.parse(base).launches, 5)
        for n in ("0", "-3"):
            with self.assertRaisesRegex(LabError, "--launches must be 1 or more"):
                startup.parse([*base, "--launches", n])


class Memory(unittest.TestCase):
    def test_the_resident_set_and_its_anonymous_and_file_backed_parts(self):
        m = startup.memory_mb(os.getpid())
        self.assertGreater(m["anon"], 0)
        self.assertGreater(m["file"], 0)
        # VmRSS = RssAnon + RssFile + RssShmem (the kernel's own sum, rounded per field)
        self.assertLessEqual(m["anon"] + m["file"], m["rss"] + 0.01)

    def test_a_process_that_is_gone_gives_no_figure(self):
        m = startup.memory_mb(2**22 + 1)  # above the kernel's pid_max ceiling: never a process
        self.assertTrue(all(v != v for v in m.values()), m)  # NaN
