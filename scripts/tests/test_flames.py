"""--flames: async-profiler attached to a real JVM through jcmd, its recording converted, and what the
report says of it: CPU per request by category, the frames that differ between modes."""

import os
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from loomlab.bench.measuring import flames, profiler
from loomlab.bench.planning.lane import THREADED
from loomlab.bench.planning.loads import Load
from loomlab.bench.planning.settings import RunSettings
from loomlab.bench.reporting import flames as flame_tables
from loomlab.bench.reporting.loadfigures import LoadFigures

# Collapsed stacks as the converter writes them (--classify: the category first; suffixes: _[j]
# compiled, _[i] inlined, _[k] kernel).
CPU = """\
[c2_comp]_[j];Thread.run_[j];VirtualThread.run_[j];Sleep.work_[j] 60
[c2_comp]_[j];Thread.run_[j];VirtualThread.run_[j];VirtualThread.unmount_[j] 20
[native];Thread.run_[j];VirtualThread.park_[j];futex_wait_[k] 10
[gc];GCTaskThread::run 10
"""
ALLOC = """\
Thread.run_[j];VirtualThread.run_[j];Sleep.work_[j];byte[]_[k] 1048576
Thread.run_[j];Sleep.work_[j];java.lang.String_[i] 524288
"""
LOAD = Load("A3", "k6/sleep.js", "sleep", {}, lanes=THREADED)


def written(folder: Path, text: str, name: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        folder = Path(self.tmp.name)
        self.files = {
            "cpu": written(folder, CPU, "r.cpu.collapsed"),
            "alloc": written(folder, ALLOC, "r.alloc.collapsed"),
        }

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_kernel_leaf_is_the_kernels_whatever_its_category(self):
        self.assertEqual(flames.category_of(["[native]", "Thread.run_[j]", "futex_wait_[k]"]), "kernel")
        self.assertEqual(flames.category_of(["[gc]", "GCTaskThread::run"]), "GC")
        self.assertEqual(flames.category_of(["[c1_comp]_[1]", "Thread.run_[j]"]), "Java")
        self.assertEqual(flames.category_of(["Thread.run_[j]"]), "Java")

    def test_figures_are_samples_times_interval_per_request(self):
        s = flames.summarise(self.files, requests=50)
        ms = profiler.CPU_INTERVAL_NS / 1e6
        self.assertAlmostEqual(s["cpu_ms"], 100 * ms / 50)
        self.assertAlmostEqual(s["categories"]["Java"], 80 * ms / 50)
        self.assertAlmostEqual(s["categories"]["kernel"], 10 * ms / 50)
        self.assertAlmostEqual(s["categories"]["GC"], 10 * ms / 50)
        self.assertAlmostEqual(s["alloc_kib"], 1536 / 50)
        # A frame counts everything it called, once per stack; no category frame is a frame.
        self.assertAlmostEqual(s["cpu_frames_us"]["VirtualThread.run"], 80 * ms * 1000 / 50)
        self.assertAlmostEqual(s["cpu_frames_us"]["Thread.run"], 90 * ms * 1000 / 50)
        self.assertNotIn("[gc]", s["cpu_frames_us"])
        self.assertNotIn("GCTaskThread::run", s["cpu_frames_us"])
        self.assertAlmostEqual(s["alloc_frames_kib"]["Sleep.work"], 1536 / 50)

    def test_frames_per_request_reads_a_report_folders_profiles(self):
        folder = Path(self.tmp.name)
        (folder / "profiles").mkdir()
        written(folder / "profiles", CPU, "sleep-A3-virtual.cpu.collapsed")
        written(folder / "profiles", '{"metrics": {"http_reqs": {"values": {"count": 50}}}}', "sleep-A3-virtual.json")
        text = flame_tables.frames_per_request(folder, ["futex", "VirtualThread\\.(run|park)"]).text()
        us = profiler.CPU_INTERVAL_NS / 1e3 / 50
        self.assertIn(f"{10 * us:.1f}", text)
        self.assertIn(f"{90 * us:,.1f}", text)

    def test_frames_that_differ_most_come_first_and_a_caller_on_the_same_path_once(self):
        results = {
            "worker": {"runs": [], "profiled": {"cpu_frames_us": {"Thread.run": 100.0, "Pool.take": 40.0}}},
            "virtual": {
                "runs": [],
                "profiled": {"cpu_frames_us": {"Thread.run": 160.0, "VirtualThread.run": 160.0, "Pool.take": 38.0}},
            },
        }
        t = flame_tables.frames_table(LoadFigures.of(LOAD, results, {}))
        assert t is not None
        text = t.text()
        # Thread.run and VirtualThread.run differ by 60 and 160: VirtualThread.run first; Pool.take last.
        self.assertLess(text.index("VirtualThread.run"), text.index("`Thread.run`"))
        self.assertLess(text.index("`Thread.run`"), text.index("Pool.take"))

    def test_only_the_loads_the_pattern_names_are_profiled(self):
        self.assertTrue(flames.wanted(RunSettings(flames="A3"), "sleep", LOAD))
        self.assertTrue(flames.wanted(RunSettings(flames="^sleep "), "sleep", LOAD))
        self.assertFalse(flames.wanted(RunSettings(flames="mixed"), "sleep", LOAD))
        self.assertFalse(flames.wanted(RunSettings(), "sleep", LOAD))

    def test_the_start_options_are_one_argument_to_jcmd(self):
        options = profiler.agent_options("start", Path("/tmp/x.jfr"))
        self.assertTrue(options.startswith('"start,event=cpu,') and options.endswith('file=/tmp/x.jfr"'))
        self.assertEqual(profiler.agent_options("stop"), "stop")


SPIN = """
public class Spin {
    static long work(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) x += Integer.toHexString(i).hashCode();
        return x;
    }
    public static void main(String[] a) throws Exception {
        long end = System.currentTimeMillis() + 30_000;
        System.out.println("ready");
        while (System.currentTimeMillis() < end) Thread.ofVirtual().start(() -> work(20_000)).join();
    }
}
"""


@unittest.skipUnless(os.environ.get("JAVA_HOME"), "needs the JDK ./lab picks (JAVA_HOME)")
class RealRecordingTest(unittest.TestCase):
    """The agent attached to a running JVM for a second, its recording converted and read back."""

    def test_a_recording_of_a_busy_virtual_thread_names_its_frames(self):
        java = str(Path(os.environ["JAVA_HOME"]) / "bin/java")
        tools = profiler.Profiler.fetch(java)
        with tempfile.TemporaryDirectory() as tmp:
            source = written(Path(tmp), SPIN, "Spin.java")
            jvm = subprocess.Popen([java, str(source)], stdout=subprocess.PIPE, text=True)
            try:
                assert jvm.stdout is not None
                self.assertEqual(jvm.stdout.readline().strip(), "ready")
                with tools.recording(jvm.pid, Path(tmp) / "spin.jfr") as jfr:
                    time.sleep(2)
            finally:
                jvm.kill()
                jvm.communicate()
            files = tools.convert(jfr)
            self.assertIn("<html", files["cpu_html"].read_text()[:2000].lower())
            summary = flames.summarise(files, requests=1)
            self.assertGreater(summary["cpu_ms"], 100)
            self.assertIn("Spin.work", summary["cpu_frames_us"])
            self.assertIn("VirtualThread.run", summary["cpu_frames_us"])
            self.assertGreater(summary["alloc_kib"], 0)


if __name__ == "__main__":
    unittest.main()
