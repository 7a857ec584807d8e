"""A report rebuilt from results.json alone (python -m loomlab.bench.reporting.report) is the report the run
wrote, and the figures a results page quotes are its results.json's."""

from __future__ import annotations

import contextlib
import io
import json
import re
import statistics
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from loomlab.bench import pipeline
from loomlab.bench.measuring import records
from loomlab.bench.planning.lane import THREADED
from loomlab.bench.planning.loads import Load, Suite
from loomlab.bench.planning.plan import Plan
from loomlab.bench.reporting import report
from loomlab.bench.running.progress import Progress
from tests import markdown
from tests.markdown import cells

from .test_rounds import FakeService, settings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "results"
FINDINGS = DOCS.parent / "findings.md"  # the README's answer read, and what the other profiles found


class Service(FakeService):
    """A fake service whose runs carry every figure k6's summary gives a load's table."""

    def run(self, load, mode, out, label, settings, warmup=False) -> dict:
        figures = super().run(load, mode, out, label, settings, warmup)
        tput = figures["throughput"]
        server = {f"peak_{k}": 0.0 for k in ("live_threads", "in_flight", "rss_bytes", "heap_used_bytes")}
        server |= {f"peak_{k}": 0.0 for k in ("worker_active", "worker_queued", "db_active", "db_awaiting")}
        server |= {f"delta_{k}": 0.0 for k in ("gc_pause_s", "gc_pauses", "pinned", "submit_failed", "alloc_bytes")}
        return (
            figures
            | server
            | {
                "requests": tput * 10,
                "sd": 100 / tput,
                "min": 500 / tput,
                "p50": 900 / tput,
                "p90": 1500 / tput,
                "p95": 1800 / tput,
                "max": 2500 / tput,
                "duration_s": 10.0,
                "cpu_s": 1.0,
                "k6_exit": 0,
                "wall_s": 10.0,
            }
        )


WHOLE = "the whole `./lab bench`"


def clock(run: str, whole: str = WHOLE) -> dict[str, list[str]]:
    """A bench's clock on its page, its run's report written at the end of its row `whole`."""
    rows = markdown.clock((DOCS / f"{run}.md").read_text())
    report = (DOCS / run / "report.md").read_text()
    assert "- command: `./lab bench `" in report, run
    assert f"- date: {run[:10]} {rows[whole][1][:5]} UTC" in report, run
    return rows


class RebuildTest(unittest.TestCase):
    def test_a_rebuilt_report_is_the_one_the_run_wrote(self):
        load = Load("closed 10 users", "k6/sleep.js", "closed", {"VUS": "10"}, lanes=THREADED, est_s=1.0)
        suite = Suite("sleep", "fake", {}, [load], warmup_seconds=0)
        rates = {"worker": 50.0, "virtual": 200.0, "virtual-loop": 50.0}

        def start(suite_, lane, tag, settings_, out, slot=0):
            return Service(lane.key, lambda m, n: rates[m] * (1 + n / 100), [])

        where = SimpleNamespace(environment="fake", start=start)

        with (
            tempfile.TemporaryDirectory() as tmp,
            tempfile.TemporaryDirectory() as elsewhere,
            contextlib.redirect_stdout(io.StringIO()),
        ):
            # The report rebuilt in a folder with no `./lab startup` beside it keeps the run's.
            ran, again = Path(tmp, "run"), Path(elsewhere, "again")
            ran.mkdir()
            Path(tmp, "startup-20261126-120000").mkdir()
            Path(tmp, "startup-20261126-120000", "report.md").write_text("# Start-up\n\n| jvm | 2.1 s |\n")
            sections, info = pipeline.measure(Plan((suite,), settings(5, 5)), ran, Progress(1, 1.0), where)
            meta = records.read_results(DOCS / "2026-11-25-after-the-move")["meta"] | {"info": info}
            report.finish(ran, meta, sections)
            report.rebuild(ran, again)
            self.assertEqual((again / "report.md").read_text(), (ran / "report.md").read_text())
            self.assertIn("| jvm | 2.1 s |\n\n(from startup-20261126-120000)", (again / "report.md").read_text())
            answer = r"\| sleep \(fake\) \| closed 10 users \| .* \| virtual \| 4.00x req/s \(4.00-4.00\) vs worker"
            self.assertRegex((ran / "report.md").read_text(), answer)
            self.assertEqual((again / "chart.svg").read_text(), (ran / "chart.svg").read_text())

    def test_the_pages_answers_are_their_results_jsons(self):
        # 2026-11-25, after the move: four winners with their intervals, the other seven loads tie.
        page = (DOCS / "2026-11-25-after-the-move.md").read_text()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(DOCS / "2026-11-25-after-the-move", Path(tmp, "report")).read_text()
        answer = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
        wins = re.findall(r"\| (\d+\.\d+x) (?:req/s|lower p99) \((\d+\.\d+-\d+\.\d+)\) vs worker \|", answer)
        self.assertEqual(
            wins, [("7.54x", "7.41-8.11"), ("1.23x", "1.23-1.23"), ("3.24x", "3.19-3.25"), ("2.88x", "2.79-2.92")]
        )
        self.assertEqual(answer.count("| tie: "), 7)
        for ratio, interval in [("7.54x", "7.41-8.11"), ("3.24x", "3.19-3.25"), ("2.88x", "2.79-2.92")]:
            self.assertIn(f"{ratio} ({interval})", page)


class ReadmeTest(unittest.TestCase):
    def test_the_readmes_answer_table_is_its_results_jsons(self):
        readme = (DOCS.parents[1] / "README.md").read_text()
        found = re.search(r"<!-- answer: (\S+) -->\n(.*?)\n<!-- /answer -->", readme, re.S)
        assert found is not None, "README.md has no answer table between its markers"
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(DOCS.parents[1] / found.group(1), Path(tmp, "report")).read_text()
        answer = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
        self.assertEqual(found.group(2).splitlines(), [line for line in answer.splitlines() if line.startswith("|")])

    def test_the_readmes_cpu_per_request_is_its_answer_runs(self):
        readme = " ".join((DOCS.parents[1] / "README.md").read_text().split())
        run = re.search(r"<!-- answer: (\S+) -->", readme)
        said = re.search(r"\(A3: ([\d.]+) ms, `virtual-loop` ([\d.]+), `virtual` ([\d.]+):", readme)
        assert run is not None and said is not None, "README.md names no answer run or no A3 CPU per request"
        text = (DOCS.parents[1] / run.group(1) / "report.md").read_text()
        a3 = text.split("## sleep: closed 500 VUs x 10 (A3)", 1)[1].split("\n## ", 1)[0]
        server = a3.split("| mode | CPU s | CPU ms/req |", 1)[1].split("\n\n", 1)[0]
        cpu = {cells(row)[0]: cells(row)[2] for row in server.splitlines()[2:]}
        self.assertEqual(said.groups(), (cpu["reactive"], cpu["virtual-loop"], cpu["virtual"]))

    def test_the_readmes_capacity_is_its_results_jsons(self):
        readme = (DOCS.parents[1] / "README.md").read_text()
        found = re.search(r"<!-- capacity: (\S+) -->(.*?)<!-- /capacity -->", readme, re.S)
        assert found is not None, "README.md has no capacity line between its markers"
        said = dict(part.split(": ", 1) for part in " ".join(found.group(2).split()).split("; "))
        sections = json.loads((DOCS.parents[1] / found.group(1) / "results.json").read_text())["sections"]
        self.assertEqual(list(said), [s["workload"] for s in sections])
        for s in sections:
            held = ", ".join(f"{mode} {r['search']['held']:,.0f}" for mode, r in s["results"].items())
            self.assertTrue(said[s["workload"]].startswith(held), (said[s["workload"]], held))

    def test_the_readmes_bench_time_is_the_plans(self):
        from loomlab.bench.cli import planned

        readme = " ".join((DOCS.parents[1] / "README.md").read_text().split())
        span = planned("quick").removeprefix("plan: ").split(" of ")[0]
        self.assertIn(f"`./lab bench` plans {span} of start-up, warm-up and rounds", readme)

    def test_the_readmes_bench_times_are_the_pages_clocks(self):
        # From empty caches and warm, the same day: the two clocks (test_durations holds the rest).
        readme = " ".join((DOCS.parents[1] / "README.md").read_text().split())
        whole = "the whole first `./lab bench`"
        first = clock("2026-12-07-first-hour", whole)[whole][2]
        self.assertIn(f"the first `./lab bench` took {first},", readme)
        warm = clock("2026-12-07-bench")
        self.assertIn(f"every cache warm, {warm[WHOLE][2]} and", readme)
        self.assertIn("([bench](docs/results/2026-12-07-bench.md), [test](docs/results/2026-12-07-test.md))", readme)

    def test_the_findings_ratio_to_the_reference_server_is_the_reports(self):
        findings = " ".join(FINDINGS.read_text().split())
        text = (DOCS / "2026-11-28-loadgen" / "report.md").read_text()
        table = text.split("Against the reference server", 1)[1].split("\n\n", 2)[1]
        ratio = {row.split(" | ")[0].strip("| "): row.split(" | ")[2].split()[0] for row in table.splitlines()[2:]}
        said = f"answered {ratio['virtual']} and {ratio['reactive']} the requests of a minimal Go server"
        self.assertIn(said, findings)

    def test_the_findings_start_up_is_the_pages(self):
        findings = " ".join(FINDINGS.read_text().split())
        page = (DOCS / "2026-11-27-start-up-floor.md").read_text()

        def row(title: str) -> list[str]:
            line = next(x for x in page.splitlines() if x.startswith(f"| {title} |"))
            return cells(line)

        jvm, aot = row("JVM, first answer (ms)"), row("JVM + AOT cache, first answer (ms)")
        seconds = [f"{int(r[1].split()[0].replace(',', '')) / 1000:.1f} s" for r in (jvm, aot)]
        # The findings lead with the newest run (test_startup_recipes_page) and dates this one.
        self.assertIn(f"the first answers after {seconds[0]} and {seconds[1]} with the lab's cache", findings)
        starts = (DOCS / "2026-11-30-aot-jar-image" / "starts.md").read_text()
        paired = next(cells(x) for x in starts.splitlines() if x.startswith("| in-cluster JVM+AOT | ") and "x (" in x)
        self.assertIn(f"the AOT pod answers through the Service at {paired[4].split()[0]} the JVM pod's time", findings)

    def test_the_findings_cgroup_cost_is_the_pages(self):
        findings = " ".join(FINDINGS.read_text().split())
        page = (DOCS / "2026-11-27-cluster-share.md").read_text()
        line = next(x for x in page.splitlines() if x.startswith("| a cgroup without a quota |"))
        virtual, reactive = (c.split()[0] for c in cells(line)[1:3])
        self.assertIn(f"spent {virtual} the CPU per request (the event loop {reactive})", findings)
        # At the cost profile's open load the knobs table could not tell; the findings give its figure.
        cost = (DOCS / "2026-11-30-cost-syscalls.md").read_text()
        row = next(x for x in cost.splitlines() if x.startswith("| virtual[cgroup=2cpus] |") and "cannot tell" in x)
        ratio, interval = cells(row)[3].split()
        self.assertIn(f"could not tell ({ratio}, {interval.strip('()')}", findings)

    def test_the_findings_cpu_per_request_is_the_reports(self):
        findings = FINDINGS.read_text()
        text = (DOCS / "2026-11-28-loadgen" / "report.md").read_text()
        a3 = text.split("## sleep: closed 500 VUs x 10 (A3)", 1)[1].split("\n## ", 1)[0]
        server = a3.split("| mode | CPU s | CPU ms/req |", 1)[1]
        cpu = {row.split(" | ")[0].strip("| "): row.split(" | ")[2] for row in server.splitlines()[2:5]}
        said = f"A3: {cpu['reactive']} ms against virtual's {cpu['virtual']} and worker's {cpu['worker']}"
        self.assertIn(said, " ".join(findings.split()))

    def test_the_jdk_21_figures_are_the_pinning_runs(self):
        # docs/findings.md and the results page quote seed E on both JDKs: the committed run's figures.
        run = DOCS / "2026-11-26-jdk21-against-jdk25" / "pinning"
        data = records.read_results(run)
        sync = {s["jdk"]: s for s in data["sections"] if s["load"].endswith("synchronized")}
        virtual = {j: statistics.median(r["throughput"] for r in sync[j]["results"]["virtual"]["runs"]) for j in sync}
        said = f"`synchronized` served {virtual[21]:.0f} req/s against {virtual[25]:.0f} on JDK 25"
        self.assertIn(said, " ".join(FINDINGS.read_text().split()))
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(run, Path(tmp, "report")).read_text()
        self.assertEqual((run / "report.md").read_text(), text)
        virtual_row = next(
            line for line in text.split("synchronized (local JVM)", 1)[1].splitlines() if "| virtual" in line
        )
        ratio = re.search(r"(\d+\.\d+x \(\d+\.\d+-\d+\.\d+\))", virtual_row)
        assert ratio is not None
        self.assertIn(ratio.group(1), (DOCS / "2026-11-26-jdk21-against-jdk25.md").read_text())

    def test_no_mode_is_ahead_on_either_jdk_beyond_the_pinning_demo(self):
        # docs/findings.md: "elsewhere no mode was ahead on either JDK by the 5 % a win needs": every row of
        # every JDK-against-JDK table of the committed runs but the pinning demo's says tie or
        # cannot tell; and the open loads' verdicts between modes are the same on both JDKs.
        runs = DOCS / "2026-11-26-jdk21-against-jdk25"
        rows = 0
        for run in ("quick", "open", "ingest"):
            text = (runs / run / "report.md").read_text()
            for table in text.split("### JDK 25 against JDK 21")[1:]:
                for line in table.split("\n\n", 2)[1].splitlines()[2:]:
                    rows += 1
                    self.assertRegex(line.split(" | ")[3], r"\((tie|cannot tell)\)$|, (tie|cannot tell)$", (run, line))
        self.assertGreater(rows, 50)
        sections = records.read_results(runs / "open")["sections"]
        by_load: dict[str, dict] = {}
        for s in sections:
            by_load.setdefault(s["load"], {})[s["jdk"]] = s["verdict"]
        for load, verdicts in by_load.items():
            self.assertEqual(verdicts[21]["winners"], verdicts[25]["winners"], load)
            self.assertEqual(verdicts[21]["kind"], verdicts[25]["kind"], load)
        findings = " ".join(FINDINGS.read_text().split())
        self.assertIn("no mode was ahead on either JDK by the 5 % a win needs", findings)

    def test_nothing_pinned_on_jdk_21_in_the_ingest_runs(self):
        # The results page says no pin happened on 21 in the chunked upserts (Agroal, pgjdbc, Netty,
        # Vert.x on the request path): no pinned event in any round and no pin site in any JVM.
        run = DOCS / "2026-11-26-jdk21-against-jdk25" / "ingest"
        sections = [s for s in records.read_results(run)["sections"] if s["jdk"] == 21]
        self.assertEqual(len(sections), 6)
        for s in sections:
            for mode, r in s["results"].items():
                self.assertEqual(r["pin_sites"], {}, (s["load"], mode))
                self.assertEqual(sum(x["delta_pinned_events"] for x in r["runs"]), 0, (s["load"], mode))
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(run, Path(tmp, "report")).read_text()
        self.assertEqual((run / "report.md").read_text(), text)
        self.assertIn(
            "Nothing pinned on 21 in the lab's ingest stack", (DOCS / "2026-11-26-jdk21-against-jdk25.md").read_text()
        )

    def test_the_committed_example_report_is_its_results_jsons(self):
        run = DOCS / "2026-11-25-after-the-move"
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            text = report.rebuild(run, Path(tmp, "report")).read_text()
        self.assertEqual((run / "report.md").read_text(), text)


class RunnersTableTest(unittest.TestCase):
    """A load run by several runners: each mode's merged row (medians over the rounds, the runners'
    start skew) and a row of each runner's own figures."""

    def test_a_merged_row_then_each_runner_s(self):
        from loomlab.bench.planning.loads import Load
        from loomlab.bench.reporting.loadfigures import LoadFigures
        from loomlab.bench.reporting.tables import runners_table

        def fig(requests, rps):
            return {"requests": requests, "throughput": rps, "p50": 100.0, "p99": 150.0, "max": 200.0}

        runs = [
            {**fig(100 * r, 50.0 * r), "error_rate": 0.0, "dropped": 0, "start_skew_s": 0.01 * r,
             "runner_figures": [{**fig(60 * r, 30.0 * r), "error_rate": 0.0, "dropped": 0},
                                {**fig(40 * r, 20.0 * r), "error_rate": 0.01, "dropped": 1}]}
            for r in (1, 2, 3)
        ]  # fmt: skip
        load = Load("closed", "k6/sleep.js", "sleep", {})
        t = runners_table(LoadFigures.of(load, {"virtual": {"runs": runs}}, {}))
        assert t is not None
        self.assertEqual([row[:4] for row in t.rows], [
            ["virtual", "merged (2)", "200", "100.0 (50.0-150.0)"],
            ["virtual", "0", "120", "60.0 (30.0-90.0)"],
            ["virtual", "1", "80", "40.0 (20.0-60.0)"],
        ])  # fmt: skip
        self.assertEqual(
            [row[7:] for row in t.rows], [["0.00", "0", "20 (10-30)"], ["0.00", "0", ""], ["1.00", "1", ""]]
        )
        self.assertIsNone(runners_table(LoadFigures.of(load, {"worker": {"runs": [fig(1, 1.0)]}}, {})))


if __name__ == "__main__":
    unittest.main()
