"""docs/architecture.md held against the tree: every path its tables name exists, every workload of
k6/lib/modes.json has a row, a workload without a Job says so, and every in-cluster command has a
row saying where it works."""

from __future__ import annotations

import ast
import json
import re
import unittest
from pathlib import Path

from loomlab import commands
from loomlab.incluster import cli
from loomlab.incluster.core import plan
from tests.markdown import block

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
# Entries of modes.json that are columns of other workloads, not workloads (the page says which).
COLUMNS = {"about", "copy", "virtual+rx"}


def table(name: str) -> list[list[str]]:
    """The rows of the table between <!-- name --> and <!-- /name -->, header and rule left out."""
    return block(PAGE.read_text(), name)


def paths(cell: str) -> list[str]:
    return re.findall(r"`((?:src|k6|scripts|deploy)/[^`]+)`", cell)


BENCH = ROOT / "scripts" / "loomlab" / "bench"
ROOMS = ("planning", "running", "measuring", "deciding", "reporting")


def room_bullets() -> dict[str, str]:
    """The bench's rooms as the page lists them: {room: its bullet's text}."""
    text = PAGE.read_text()
    return dict(re.findall(r"^  - `(\w+)`: (.*?)(?=^  - |^- )", text, re.M | re.S))


def definitions() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The harness's modules by path below the bench ("running/rounds", "pipeline"; outside it, from
    the package: "../kube"), each with its top-level names, and its classes, each with its own."""
    modules: dict[str, set[str]] = {}
    classes: dict[str, set[str]] = {}
    for path in (ROOT / "scripts" / "loomlab").rglob("*.py"):
        tree = ast.parse(path.read_text())
        named = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        where = path.with_suffix("").relative_to(BENCH) if BENCH in path.parents else Path("..", path.stem)
        modules.setdefault(where.as_posix(), set()).update(named)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, set()).update(n.name for n in node.body if isinstance(n, ast.FunctionDef))
    return modules, classes


class ArchitecturePageTest(unittest.TestCase):
    def test_every_name_the_pipeline_drawing_gives_is_defined(self):
        drawing = PAGE.read_text().split("## The pipeline", 1)[1].split("```text", 1)[1].split("```", 1)[0]
        modules, classes = definitions()
        # A module.name is looked for in the module of that name in the room its line is drawn in
        # (running's rounds.measure in running/rounds.py; the bench's top: pipeline.py).
        calls, room = [], ""
        for line in drawing.splitlines():
            first = line.split("  ", 1)[0].strip()
            room = first if first in ROOMS else "" if first == "bench (top)" else room
            found = re.findall(r"\b(\w+)\.(\w+)\b", line)
            calls += [(f"{room}/{a}".lstrip("/"), a, b) for a, b in found if b not in {"json", "md", "html", "svg"}]
        types = set(re.findall(r"\b[A-Z][a-z]\w*\b", drawing))
        self.assertGreaterEqual(len(calls), 8)
        self.assertGreaterEqual(len(types), 5)
        undefined = [f"{m}.{b}" for m, a, b in calls if b not in modules.get(m, set()) | classes.get(a, set())]
        undefined += [t for t in types if t not in classes]
        # A function named bare (figures_from: ..., section_of(...)) is some module's.
        functions = set().union(*modules.values())
        bare = set(re.findall(r"(?<![.\w])([a-z]+(?:_[a-z]+)+)\b", drawing))
        self.assertGreaterEqual(len(bare), 4)
        undefined += sorted(bare - functions)
        self.assertEqual(undefined, [])

    def test_each_bench_module_the_page_names_in_a_room_lives_in_that_room(self):
        bullets = room_bullets()
        self.assertEqual(set(bullets), {p.parent.name for p in BENCH.glob("*/__init__.py")} - {"workloads"})
        misplaced = []
        for room, text in bullets.items():
            for name in set(re.findall(r"`(\w+)`", text)):
                homes = {p.relative_to(BENCH).parts[0] for p in BENCH.rglob(f"{name}.py")}
                if homes and room not in homes:
                    misplaced.append(f"{name} named in {room}, lives in {sorted(homes)}")
        self.assertEqual(misplaced, [])

    def test_every_bench_path_the_page_names_exists(self):
        named = re.findall(r"`bench/([^` ]+)`", PAGE.read_text())
        self.assertTrue(named)
        # A module's attribute (`bench/__main__.columns`) names its module's file.
        missing = [n for n in named if not ((BENCH / n).exists() or (BENCH / f"{n.split('.')[0]}.py").exists())]
        self.assertEqual(missing, [])

    def test_every_path_the_page_names_exists(self):
        # Paths with a placeholder (`<package>`) stand for many and are left out.
        named = [p for p in re.findall(r"`((?:src|k6|scripts|deploy|docs)/[^` ]+)`", PAGE.read_text()) if "<" not in p]
        self.assertTrue(named)
        self.assertEqual([p for p in named if not (ROOT / p).exists()], [])

    def test_every_workload_has_a_row_with_its_four_files(self):
        workloads = set(json.loads((ROOT / "k6/lib/modes.json").read_text())) - COLUMNS
        rows = {row[0]: row for row in table("workloads")}
        self.assertEqual(set(rows), workloads)
        for name, row in rows.items():
            with self.subTest(workload=name):
                self.assertEqual(len(row), 5)
                for cell in row[1:4]:
                    self.assertEqual(len(paths(cell)), 1, cell)

    def test_the_job_column_matches_what_an_in_cluster_run_accepts(self):
        for name, *_, job in table("workloads"):
            with self.subTest(workload=name):
                if plan.has_job(name):
                    self.assertEqual(paths(job), [f"deploy/k8s/jobs/{name}"])
                else:
                    self.assertTrue(job.startswith("none"), job)

    def test_every_in_cluster_command_has_a_row_saying_where_it_works(self):
        rows = {row[0]: row for row in table("experiments")}
        self.assertEqual(set(commands.IN_CLUSTER) - set(rows), set())
        for name, module, where in rows.values():
            with self.subTest(command=name):
                self.assertEqual(len(paths(module)), 1)
                if name in commands.IN_CLUSTER:
                    self.assertEqual(paths(module)[0], str(cli.module_file(name).relative_to(ROOT)))
                self.assertRegex(where, r"^(any cluster|the lab's cluster only)")


if __name__ == "__main__":
    unittest.main()


# The edges where a lane's name is read back (docs/architecture.md, "A mode"): results.json, a Job's
# MODES and LANE, and the answer of a Job's rounds.
PARSED_AT = {"bench/workloads/__init__.py", "bench/jobrun.py", "bench/reporting/jobanswer.py"}


class LaneTest(unittest.TestCase):
    def test_a_lanes_name_is_read_back_only_at_the_edges_and_nowhere_taken_apart(self):
        harness = ROOT / "scripts" / "loomlab"
        parsed, taken_apart = set(), []
        for path in harness.rglob("*.py"):
            name = str(path.relative_to(harness))
            text = path.read_text()
            if "Lane.parse(" in text:
                parsed.add(name)
            # A column's name split at its setting or its clients, as the harness did before Lane.
            for pattern in (r'split\("\["', r'partition\("\["', r'"\[" (not )?in ', r'\.split\("\+"'):
                if name != "bench/planning/lane.py" and re.search(pattern, text):
                    taken_apart.append(f"{name}: {pattern}")
        self.assertEqual(parsed, PARSED_AT)
        self.assertEqual(taken_apart, [])
        self.assertIn("`Lane.parse`", PAGE.read_text())
