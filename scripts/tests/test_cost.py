"""The cost pages (docs/results/2026-11-28-cost.md, its second run 2026-11-30-cost-syscalls.md and
the socket wait 2026-11-30-cost-socket.md, `./lab bench --profile cost`): their tables are their
reports', each report is its record's, the goals tables quote the reference tables, and docs/findings.md
says what the latest pages say."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
import unittest
from pathlib import Path

from loomlab import ROOT, stats
from loomlab.bench.deciding.verdict import paired
from loomlab.bench.reporting import report
from loomlab.bench.workloads.mixed import SHORT_P99
from tests.markdown import block, cells

DOCS = ROOT / "docs" / "results"
EVEN, BURSTS = "(0.8x the worker bound) (local JVM)", "every 100 ms (local JVM)"
SOCKET_EVEN = "(0.8x the pool bound) (local JVM)"
# Each page: where its reference tables (evenly spaced, in bursts) and its knob tables stand, as the
# headings or lines that open and close them; where its goals table ends; and where its report's
# sections are (the sleep's, unless it says).
PAGES: dict[str, dict] = {
    "2026-11-28-cost": {
        "Against the reference server": (
            ("## Evenly spaced arrivals", "## The same rate"),
            ("## The same rate in bursts", "## What the pattern"),
        ),
        "goals end": "A3's best mode",
    },
    "2026-11-30-cost-syscalls": {
        "Against the reference server": (
            ("## Evenly spaced arrivals", "## The same rate"),
            ("## The same rate in bursts", "## What the system calls"),
        ),
        "Each knob against its mode's default": (("Evenly spaced:", "In bursts:"), ("In bursts:", "**No knob")),
        "goals end": "Beside the first run",
    },
    "2026-11-30-cost-socket": {
        "Against the reference server": (
            ("## Evenly spaced arrivals", "## The same rate"),
            ("## The same rate in bursts", "## What the socket"),
        ),
        "goals end": "Beside the timer's",
        "at": (SOCKET_EVEN, BURSTS),
    },
}
LATEST = "2026-11-30-cost-syscalls"
SOCKET = "2026-11-30-cost-socket"


def rows(text: str, start: str, end: str) -> list[list[str]]:
    part = text[text.index(start) :]
    part = part[: part.index(end)] if end in part else part
    return [cells(line) for line in part.splitlines() if line.startswith("| ")]


def table_after(text: str, opening: str) -> list[list[str]]:
    """The rows of the first table after the line that opens with `opening`."""
    part = text[text.index(opening) :]
    part = part[part.index("\n| ") + 1 :]
    return [cells(line) for line in part.split("\n\n", 1)[0].splitlines() if line.startswith("| ")]


def cpu_ratios(name: str) -> dict[str, dict[str, str]]:
    """Each mode's CPU per request over the reference's, per pattern, as the page's report gives it."""
    text = (DOCS / name / "report.md").read_text()
    ratio: dict[str, dict[str, str]] = {"virtual": {}, "worker": {}, "reactive": {}}
    for pattern, at in zip(("even", "bursts"), PAGES[name].get("at", (EVEN, BURSTS)), strict=True):
        for row in table_after(text[text.index(at) :], "Against the reference server"):
            if row[0] in ratio:
                ratio[row[0]][pattern] = row[4]
    return ratio


class CostPagesTest(unittest.TestCase):
    def test_each_page_quotes_its_report_and_the_report_its_record(self):
        for name, tables in PAGES.items():
            with self.subTest(name):
                run = DOCS / name
                page = (DOCS / f"{name}.md").read_text()
                text = (run / "report.md").read_text()
                with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(report.rebuild(run, Path(tmp, "again")).read_text(), text)
                for opening, where in tables.items():
                    if opening in ("at", "goals end"):
                        continue
                    for at, (start, end) in zip(tables.get("at", (EVEN, BURSTS)), where, strict=True):
                        in_report = table_after(text[text.index(at) :], opening)
                        self.assertEqual(rows(page, start, end), in_report, (opening, start))

    def test_each_goals_table_quotes_the_reference_tables(self):
        for name, tables in PAGES.items():
            with self.subTest(name):
                page = (DOCS / f"{name}.md").read_text()
                ratio = cpu_ratios(name)
                goals = rows(page, "## Against the issue's goals", str(tables["goals end"]))[1:]
                self.assertEqual(len(goals), 3)
                for goal in goals:
                    mode = goal[0].split()[0]
                    self.assertEqual(goal[1:3], [ratio[mode]["even"], ratio[mode]["bursts"]], mode)

    def test_the_findings_say_what_the_latest_pages_say(self):
        findings = (ROOT / "docs" / "findings.md").read_text().replace("\n", " ")
        said = findings[findings.index("## What a virtual thread costs a request") :]
        said = said[: said.index("## Virtual threads on the event loop")]  # the section
        for name in (LATEST, SOCKET):
            ratio = cpu_ratios(name)
            self.assertIn(f"(results/{name}.md)", said)
            for mode in ("virtual", "reactive"):
                for pattern in ("even", "bursts"):
                    self.assertIn(ratio[mode][pattern], said, f"docs/findings.md: {name}, {mode}, {pattern}")


class NativeTransportPageTest(unittest.TestCase):
    """docs/results/2026-11-30-native-transport.md: its knob table is its report's knob and
    reference tables (CPU per request of each knob over its default; system and futex calls of the
    default and the knob), and its report is its record's."""

    NAME = "2026-11-30-native-transport"

    def test_the_knob_table_is_the_reports(self):
        run = DOCS / self.NAME
        text = (run / "report.md").read_text()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(report.rebuild(run, Path(tmp, "again")).read_text(), text)
        even, bursts = (text[text.index(at) :] for at in (EVEN, BURSTS))
        knob = {p: {r[0]: r for r in table_after(t, "Each knob against")} for p, t in (("e", even), ("b", bursts))}
        calls = {r[0]: r for r in table_after(even, "Against the reference server")}
        page = table_after((DOCS / f"{self.NAME}.md").read_text(), "Each knob over its mode's default")[1:]
        self.assertEqual([r[0] for r in page], ["worker[epoll]", "virtual[epoll]", "reactive[epoll]"])
        for column, cpu_even, cpu_bursts, syscalls, futex in page:
            mode = column.removesuffix("[epoll]")
            self.assertEqual([cpu_even, cpu_bursts], [knob["e"][column][3], knob["b"][column][3]], column)
            self.assertEqual(syscalls, f"{calls[mode][7]} -> {calls[column][7]}", column)
            self.assertEqual(futex, f"{calls[mode][9]} -> {calls[column][9]}", column)


class VirtualLoopPageTest(unittest.TestCase):
    """docs/results/2026-12-05-virtual-loop-cost.md: its two cost tables are their records', each CPU
    figure the column's median and each ratio the rounds' paired ratio with its interval, as the
    verdict computes them."""

    NAME = "2026-12-05-virtual-loop-cost"

    def test_the_cost_tables_are_the_records(self):
        for table, record in (
            ("virtual-loop cost", self.NAME),
            ("virtual-loop socket", "2026-12-05-virtual-loop-socket"),
            ("virtual-loop socket paced", "2026-12-05-virtual-loop-socket-paced"),
            ("virtual-loop socket 1500", "2026-12-05-virtual-loop-socket-1500"),
        ):
            self.assert_table_is_record(table, record)

    def assert_table_is_record(self, table: str, record: str):
        sections = json.loads((DOCS / record / "results.json").read_text())["sections"]
        page = block((DOCS / f"{self.NAME}.md").read_text(), table)
        self.assertEqual(len(page), len(sections))
        for row, section in zip(page, sections, strict=True):
            runs = {m: r["runs"] for m, r in section["results"].items()}
            medians = [stats.aggregate(runs[m])["cpu_ms_per_req"].median for m in ("virtual", "virtual-loop")]
            medians += [stats.aggregate(runs[m])["cpu_ms_per_req"].median for m in ("reactive", "reference")]
            self.assertEqual(row[1:5], [f"{v:.3f} ms" for v in medians], row[0])
            ratios = [paired(runs["virtual-loop"], runs[m], "cpu_ms_per_req") for m in ("virtual", "reactive")]
            ratios.append(paired(runs["virtual-loop"], runs["reference"], "cpu_ms_per_req"))
            self.assertEqual(row[5:], ratios, row[0])

    def test_the_patterns_table_is_its_record(self):
        self.assert_table_is_record("virtual-loop patterns", "2026-12-05-virtual-loop-patterns")

    def test_the_knobs_table_is_its_record(self):
        # Each event-loop column's CPU per request against its mode at the default (2 loops here).
        sections = json.loads((DOCS / "2026-12-05-virtual-loop-knobs" / "results.json").read_text())["sections"]
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop knobs")
        self.assertEqual(len(page), len(sections))
        for row, section in zip(page, sections, strict=True):
            runs = {m: r["runs"] for m, r in section["results"].items()}
            columns = [(m, f"{m}[{knob}]") for m in ("virtual-loop", "reactive") for knob in ("loops=1", "loops4")]
            medians = [
                f"{stats.aggregate(runs[m])['cpu_ms_per_req'].median:.3f} ms" for m in ("virtual-loop", "reactive")
            ]
            self.assertEqual(row[1:], medians + [paired(runs[k], runs[m], "cpu_ms_per_req") for m, k in columns])

    def test_the_poller_table_is_its_record(self):
        sections = json.loads((DOCS / "2026-12-05-virtual-loop-socket-1500" / "results.json").read_text())["sections"]
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop poller")
        self.assertEqual(len(page), len(sections))
        for row, section in zip(page, sections, strict=True):
            runs = {m: r["runs"] for m, r in section["results"].items()}
            ratios = [paired(runs[f"{m}[poller1]"], runs[m], "cpu_ms_per_req") for m in ("virtual", "virtual-loop")]
            self.assertEqual(row[1:], ratios, row[0])

    def test_the_calls_table_is_its_record(self):
        sections = json.loads((DOCS / "2026-12-05-virtual-loop-patterns" / "results.json").read_text())["sections"]
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop calls")
        servers = {"virtual-loop": "virtual-loop", "reactive": "reactive", "Go server": "reference"}
        self.assertEqual(len(page), len(servers) * len(sections))
        for i, row in enumerate(page):
            agg = stats.aggregate(sections[i // len(servers)]["results"][servers[row[1]]]["runs"])
            cpu, kernel = agg["cpu_ms_per_req"].median, agg["kernel_ms_per_req"].median
            figures = [f"{v:.3f}" for v in (cpu, cpu - kernel, kernel)]
            calls = ("switches_per_req", "syscalls_per_req", "futex_per_req", "epoll_per_req")
            figures += [f"{agg[k].median:.2f}" for k in calls]
            self.assertEqual(row[2:], figures, row[:2])

    def test_the_pinning_table_is_its_record(self):
        sections = json.loads((DOCS / "2026-12-05-virtual-loop-pinning" / "results.json").read_text())["sections"]
        native, below, above = ({m: stats.aggregate(r["runs"]) for m, r in s["results"].items()} for s in sections[2:5])
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop pinning")
        modes = ("worker", "virtual", "virtual-loop")
        self.assertEqual(
            page[0][1:],
            [f"{native[m]['throughput'].median:,.0f} ({native[m]['p99'].median:,.0f} ms)" for m in modes],
        )
        for row, agg in ((page[1], below), (page[2], above)):
            self.assertEqual(row[1:], [f"{agg[m]['p99'].median:,.0f} ms" for m in modes], row[0])

    def test_the_jdk21_pinning_table_is_its_record(self):
        record = DOCS / "2026-12-05-virtual-loop-pinning-jdk21" / "results.json"
        sections = json.loads(record.read_text())["sections"]
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop pinning jdk21")
        self.assertEqual([row[0] for row in page], ["`synchronized`", "`ReentrantLock`"])
        for row, section in zip(page, sections, strict=True):
            self.assertEqual(section["pools"]["jdk.feature"], 21)
            agg = {m: stats.aggregate(section["results"][m]["runs"]) for m in ("worker", "virtual", "virtual-loop")}
            self.assertEqual(
                row[1:], [f"{a['throughput'].median:,.0f} ({a['p99'].median:,.0f} ms)" for a in agg.values()]
            )

    def test_the_liveness_table_is_its_record(self):
        record = json.loads((DOCS / "2026-12-05-virtual-loop-pinning" / "liveness.json").read_text())
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop liveness")
        self.assertEqual(len(page), len(record))
        for row, case in zip(page, record, strict=True):
            probes, median = re.search(r"live (\d+) probes 200, median (\d+) ms", case["answer"]).groups()  # type: ignore[union-attr]
            answered = re.search(r"\((\d+) x 200\)", case["request"]).group(1)  # type: ignore[union-attr]
            self.assertEqual(row[1:], [answered, probes, f"{median} ms", f"{case['slowest_ms']:.0f} ms"], row[0])

    def test_the_mixed_table_is_its_record(self):
        sections = json.loads((DOCS / "2026-12-05-virtual-loop-mixed" / "results.json").read_text())["sections"]
        tail = next(s for s in sections if s["variant"] == "tail")
        short = {m: r["runs"] for m, r in tail["results"].items()}
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop mixed")
        modes = ("virtual", "virtual-loop", "reactive")
        medians = [stats.aggregate(short[m])[SHORT_P99].median for m in modes]
        self.assertEqual(page[0][1:], [f"{v:.0f} ms" for v in medians])
        self.assertEqual(page[1][2:], [paired(short[m], short["virtual"], SHORT_P99) for m in modes[1:]])

    def test_the_a3_runs_are_their_records(self):
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop a3 runs")
        self.assertEqual(len(page), 3)
        for name, rate, of_rate, of_cpu in page:
            results = json.loads((DOCS / name / "results.json").read_text())["sections"][0]["results"]
            mine, go = results["virtual-loop"]["runs"], results["reference"]["runs"]
            self.assertEqual(rate, f"{stats.aggregate(mine)['throughput'].median:,.0f}", name)
            self.assertEqual(of_rate, paired(mine, go, "throughput"), name)
            self.assertEqual(of_cpu, paired(mine, go, "cpu_ms_per_req"), name)

    def test_the_a3_table_is_its_record(self):
        results = json.loads((DOCS / "2026-12-05-virtual-loop-a3" / "results.json").read_text())["sections"][0]
        runs = {m: r["runs"] for m, r in results["results"].items()}
        page = block((DOCS / f"{self.NAME}.md").read_text(), "virtual-loop a3")
        self.assertEqual([row[0] for row in page], ["virtual", "virtual-loop", "reactive"])
        for mode, rate, of_rate, of_cpu in page:
            self.assertEqual(rate, f"{stats.aggregate(runs[mode])['throughput'].median:,.0f}", mode)
            self.assertEqual(of_rate, paired(runs[mode], runs["reference"], "throughput"), mode)
            self.assertEqual(of_cpu, paired(runs[mode], runs["reference"], "cpu_ms_per_req"), mode)
