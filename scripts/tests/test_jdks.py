"""bench.jdks: --jdk's list, the JDK a java is, and the table of each mode on the newer JDK against
the older from the sections of one run (the same paired ratio and interval as a verdict)."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from loomlab import LabError, metrics
from loomlab.bench.planning.settings import jdks_named
from loomlab.bench.reporting import jdks
from loomlab.bench.running import runner


def runs(rates: list[float], pins: float = 0.0) -> list[dict]:
    return [
        {"throughput": r, "requests": r * 10, "p99": 100.0, "delta_pinned_events": pins, "cpu_s": r * 10 / 1000}
        for r in rates
    ]


def section(jdk: int, virtual: list[float], pins: float, sites: dict) -> dict:
    return {
        "workload": "pinning",
        "load": "50 VUs, synchronized",
        "environment": f"local JVM, JDK {jdk}",
        "jdk": jdk,
        "results": {
            "worker": {"runs": runs([500.0] * 5)},
            "virtual": {"runs": runs(virtual, pins), "pin_sites": sites},
        },
    }


class JdksTest(unittest.TestCase):
    def test_the_list_is_sorted_and_each_jdk_once(self):
        self.assertEqual(jdks_named("25,21,25"), [21, 25])
        for bad in ("", "twenty", ","):
            with self.assertRaises(LabError):
                jdks_named(bad)

    def test_the_feature_release_of_a_java(self):
        with tempfile.TemporaryDirectory() as tmp:
            java = Path(tmp) / "java"
            java.write_text("#!/bin/sh\necho '    java.specification.version = 21' >&2\n")
            java.chmod(0o755)
            self.assertEqual(runner.feature(str(java)), 21)
            java.write_text("#!/bin/sh\necho 'no settings' >&2\n")
            with self.assertRaises(LabError):
                runner.feature(str(java))

    def test_a_jdk_the_lab_neither_picked_nor_fetches_is_refused(self):
        with mock.patch.object(runner, "feature", return_value=25):
            self.assertEqual(runner.javas("/x/bin/java", [25]), {25: "/x/bin/java"})
            with self.assertRaises(LabError):
                runner.javas("/x/bin/java", [17])

    def test_each_mode_on_the_newer_jdk_against_the_older(self):
        sites = {"dev.loomlab.pinning.PinningService.sleep": 480.0}
        old = section(21, [40.0, 41, 39, 40, 40], 2.0, sites)
        new = section(25, [900.0, 910, 905, 890, 899], 0.0, {})
        text = "\n".join(jdks.comparison([old, new]))
        self.assertIn("### JDK 25 against JDK 21: pinning, 50 VUs, synchronized (local JVM)", text)
        virtual = next(line for line in text.splitlines() if line.startswith("| virtual"))
        self.assertIn("25 ahead", virtual)
        self.assertIn("PinningService.sleep 480", virtual)
        self.assertIn("| 5.0 |", virtual)  # 2 pins over 400 requests a run
        worker = next(line for line in text.splitlines() if line.startswith("| worker"))
        self.assertIn("1.00x (1.00-1.00), tie", worker)

    def test_sites_without_a_class_are_named_as_they_are(self):
        old = section(21, [40.0] * 5, 0.0, {"other": 2.0, "dev.loomlab.A.b": 1.0})
        new = section(25, [40.0] * 5, 0.0, {"unknown": 1.0})
        text = "\n".join(jdks.comparison([old, new]))
        self.assertIn("| other 2; A.b 1 | unknown 1 |", text)

    def test_a_run_on_one_jdk_has_no_comparison(self):
        self.assertEqual(jdks.comparison([section(25, [1.0] * 5, 0, {})]), [])
        self.assertEqual(jdks.comparison([{**section(25, [1.0] * 5, 0, {}), "jdk": None}]), [])

    def test_pin_sites_are_read_from_the_services_metrics(self):
        text = (
            "# TYPE loomlab_virtual_pinned_site_events_total counter\n"
            'loomlab_virtual_pinned_site_events_total{site="a.B.c"} 3.0\n'
            'loomlab_virtual_pinned_site_events_total{site="other"} 1.0\n'
        )
        self.assertEqual(metrics.pin_sites(text), {"a.B.c": 3.0, "other": 1.0})


if __name__ == "__main__":
    unittest.main()
