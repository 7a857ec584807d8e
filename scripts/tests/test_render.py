"""report.md and report.html from their templates: the figures the caller gives, in the places a
reader looks, and nothing in the HTML unescaped."""

import json
import re
import tempfile
import unittest
from pathlib import Path

from loomlab.bench.deciding.answer import answer_table
from loomlab.bench.reporting import html, report
from loomlab.table import Table
from tests import test_bench


def section(**extra):
    s = test_bench.AnswerTest.section(
        "sleep",
        {"worker": [(480, 1000), (490, 1100), (485, 1050)], "virtual": [(3900, 180), (3800, 190), (3950, 170)]},
        {"worker": 500, "virtual": 5000},
    )
    table = Table(["mode", "req/s"])
    table.add("worker <pool>", "480")
    s.update(
        description="sleep & wait",
        script="k6/sleep.js",
        env={"VUS": "350"},
        server_env={},
        pools={"worker.max-threads": 50},
        table=table,
        server=table,
        ratio="virtual/worker throughput: 8.00x",
    )
    s.update(extra)
    return s


META = {
    "title": "a <title>",
    "profile": "quick",
    "date": "2026-11-24",
    "command": "./lab bench",
    "machine": "2 CPUs",
    "info": {"jdk": "25", "quarkus": "3.33.2.1"},
    "k6": "v1.8.1",
    "warmup_seconds": 10,
    "warmup_tolerance": 0.05,
    "warmups": 3,
    "repeats": 3,
    "sample_period": 1.0,
    "max_rounds": 6,
}


class ReportMarkdownTest(unittest.TestCase):
    def render(self, meta=META, **extra) -> str:
        out = Path(self.enterContext(tempfile.TemporaryDirectory())) / "run"
        out.mkdir()
        report.write_report(out, meta, [section(**extra)], ["appendix line"], ["lead line"])
        return (out / "report.md").read_text()

    def test_the_answer_then_the_lead_then_each_section_then_the_appendix(self):
        md = self.render()
        order = [md.index(x) for x in ("## The answer", "lead line", "## sleep: closed (local JVM)", "appendix line")]
        self.assertEqual(order, sorted(order))
        self.assertIn("| worker <pool> | 480 |", md)
        self.assertIn("- k6: v1.8.1, on the same machine as the service\n- k6 web-dashboard exports", md)

    def test_runners_blocks_and_expectations_appear_only_when_given(self):
        plain = self.render()
        self.assertNotIn("k6 runners (execution segments", plain)
        self.assertNotIn("E[max]", plain)
        self.assertNotIn("drift between blocks", plain)
        full = self.render(
            dict(META, runners=3, interleave=False, setup=["- setup: given"]),
            runners=section()["table"],
            expected={"mean": 10.04, "p95": 12.0},
        )
        self.assertIn("; 3 runners per run (k6 execution segments", full)
        split = self.render(dict(META, engines="loadgen on vegeta v12.13.0", runners=2))
        self.assertIn(
            "- load generator: loadgen on vegeta v12.13.0, on the same machine as the service; 2 runners",
            split,
        )
        self.assertIn("(the arrivals split between them, merged from raw samples)", split)
        self.assertNotIn("k6", split.replace("`k6/sleep.js`", ""))  # the script that declares the load
        self.assertIn("- setup: given\n", full)
        self.assertIn("E[max] = 10.0 ms, p95 = 12.0 ms", full)
        self.assertIn("drift between blocks is not cancelled", full)


class ReportHtmlTest(unittest.TestCase):
    def test_every_value_is_escaped_and_the_charts_are_json(self):
        out = Path(self.enterContext(tempfile.TemporaryDirectory()))
        s = section()
        html.write(out, META, [s], None, answer_table([s], "local JVM"))
        page = (out / "report.html").read_text()
        self.assertIn("<title>a &lt;title&gt;</title>", page)
        self.assertIn("<td>worker &lt;pool&gt;</td>", page)
        self.assertIn("sleep &amp; wait", page)
        self.assertNotIn("<pool>", page)
        charts = json.loads(re.search(r"const charts = (.*);\n", page).group(1))
        # No runs' samples in this folder: no chart of the server over time, and the page says why.
        self.assertEqual([c["id"] for c in charts], ["t0", "l0"])
        self.assertNotIn("id='s0'", page)
        self.assertIn("No chart of the server over time", page)
        self.assertIn("<h2>The answer</h2>", page)

    def test_the_server_over_time_is_drawn_from_the_first_runs_samples(self):
        out = Path(self.enterContext(tempfile.TemporaryDirectory()))
        s = section()
        (out / "runs").mkdir()
        for mode in s["results"]:
            s["results"][mode]["first_run"] = f"runs/{mode}-1.json"
            lines = [json.dumps({"t": 100.0 + i, "live_threads": 40 + i, "in_flight": i}) for i in range(3)]
            (out / "runs" / f"{mode}-1.metrics.jsonl").write_text("\n".join(lines) + "\n")
        html.write(out, META, [s], None, answer_table([s], "local JVM"))
        page = (out / "report.html").read_text()
        charts = json.loads(re.search(r"const charts = (.*);\n", page).group(1))
        (timeline,) = [c for c in charts if c["id"] == "s0"]
        self.assertEqual(
            timeline["datasets"][0]["data"], [{"x": 0.0, "y": 40}, {"x": 1.0, "y": 41}, {"x": 2.0, "y": 42}]
        )
        self.assertIn("id='s0'", page)


class CommittedReportsTest(unittest.TestCase):
    """Every chart of every report.html under docs/results has something to draw."""

    def test_no_committed_chart_is_empty(self):
        from loomlab import ROOT

        pages = sorted((ROOT / "docs" / "results").rglob("report.html"))
        self.assertTrue(pages)
        for page in pages:
            charts = json.loads(re.search(r"const charts = (.*);\n", page.read_text()).group(1))
            for chart in charts:
                points = [
                    v.get("y") if isinstance(v, dict) else v for d in chart["datasets"] for v in d.get("data", [])
                ]
                with self.subTest(page=str(page.relative_to(ROOT)), chart=chart["title"]):
                    self.assertTrue(any(v is not None for v in points), "a chart with nothing to draw")


if __name__ == "__main__":
    unittest.main()


class ClusterReportsTest(unittest.TestCase):
    """autoscale.md and failover.md: every name their templates use is given (StrictUndefined)."""

    FIGURES = {"throughput": 600.0, "error_rate": 0.3, "dropped": 12, "p50": 101.0, "p99": 900.0, "max": 1500.0}

    def test_autoscale_md(self):
        from loomlab.bench import api as bench
        from loomlab.incluster.experiments import autoscale

        out = Path(self.enterContext(tempfile.TemporaryDirectory()))
        report_ = {
            "on": "cpu",
            "mode": "worker",
            "load": "open 750 req/s",
            "fraction": 1.5,
            "seconds": 240,
            "sleep_ms": 100,
            "keep_alive": False,
            "autoscaler": "deploy/k8s/overlays/jvm-autoscaled: 1-4 pods",
            "figures": self.FIGURES,
            "looks": [],
            "phases": [],
            "verdict": "the CPU autoscaler never scaled",
            "events": [],
        }
        load = bench.sleep.open_sleep_load(1.5, 500.0, 240)
        autoscale.write_report(out, report_, load, {"requests": {"cpu": "100m"}})
        md = (out / "autoscale-cpu-worker.md").read_text()
        self.assertIn("**Answer:** the CPU autoscaler never scaled.", md)
        self.assertIn("worker pool 50: bound 500 req/s at 100 ms", md)
        self.assertIn("30.00 % of them an error", md)
        self.assertIn("- (none)", md)

    def test_failover_md(self):
        import argparse

        from loomlab.incluster.experiments import failover

        out = Path(self.enterContext(tempfile.TemporaryDirectory()))
        args = argparse.Namespace(rate=300, seconds=60, kill_at=20.0)
        result = {"load": "open 300 req/s for 60 s", "mode": "virtual", "victim": "pod-a", "serving_again_s": None}
        result["summary"] = "2 of 18,000 requests failed"
        failover.write_report(out, args, "loom-lab-jvm", result, self.FIGURES)
        md = (out / "failover.md").read_text()
        self.assertIn("`./lab k8s failover --rate 300 --seconds 60 --kill-at 20`", md)
        self.assertIn("served again (restarted, Ready) not within 120 s after the kill", md)
        self.assertIn("loadgen: 600.0 req/s", md)
