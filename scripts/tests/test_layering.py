"""The package's shape, held by a test: the in-cluster runner (and every other package) builds on
the bench's public interface only, files stay small, and a long function says why it is long."""

import ast
import re
import subprocess
import sys
import unittest
from pathlib import Path

from loomlab.bench import api

PACKAGE = Path(__file__).resolve().parents[1] / "loomlab"
# The lab's own machinery, beside the harness: held to the same shape, never imported by it.
MACHINERY = PACKAGE.parent / "labmachine"
MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 50
# A function longer than MAX_FUNCTION_LINES states its reason in its docstring with this phrase.
REASON = "Long because"


def modules():
    for path in sorted([*PACKAGE.rglob("*.py"), *MACHINERY.rglob("*.py")]):
        yield path, ast.parse(path.read_text(), str(path))


def bench_imports(path: Path, tree: ast.Module):
    """(line, what) of every import of loomlab.bench in a module outside the bench."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            absolute = node.module if node.level == 0 else None
            if absolute and absolute.startswith("loomlab.bench"):
                yield node.lineno, absolute, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("loomlab.bench"):
                    yield node.lineno, alias.name, []


# The bench's rooms, top down: a module imports its own room and those below it, never one above.
# planning and workloads are the floor and may import each other. Reporting reads what the runs
# measured and decided; running reports nothing (the drivers at the bench's top join the two).
ROOMS = ("reporting", "running", "deciding", "measuring", "planning", "workloads")
FLOOR = {"planning", "workloads"}
# The one import upward: the plan's least rounds are those the verdict's confidence needs.
UPWARD = {("planning/settings.py", "deciding")}


def room_of(dotted: str) -> str | None:
    """The room of a module of the bench (loomlab.bench.<room>...), None for its top or outside it."""
    parts = dotted.split(".")
    return parts[2] if parts[:2] == ["loomlab", "bench"] and len(parts) > 2 and parts[2] in ROOMS else None


def imported(path: Path, tree: ast.Module) -> set[str]:
    """Every module (or name of a package) that `path` imports, absolute."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.update(f"{module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


# What a command line may import of the bench besides its api.
COMMAND_LINE = ("loomlab.bench.planning.settings", "loomlab.bench.planning.columns", "loomlab.bench.planning.lane")


class LayeringTest(unittest.TestCase):
    def test_other_packages_import_the_bench_through_its_api_only(self):
        found = []
        for path, tree in modules():
            if PACKAGE / "bench" in path.parents:
                continue
            for line, module, names in bench_imports(path, tree):
                # The command lines declare the shared options through bench.settings, read the
                # columns they take through bench.columns and name the modes through bench.lane
                # (standard library only: their --help runs without the venv, where bench.api
                # cannot be imported).
                if (module, names) != ("loomlab.bench", ["api"]) and module not in COMMAND_LINE:
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module} {names}")
        self.assertEqual(found, [])

    def test_a_bench_room_imports_no_room_above_it(self):
        upward = []
        for path, tree in modules():
            here = room_of(".".join(path.relative_to(PACKAGE.parent).parts))
            if here is None:
                continue
            for module in imported(path, tree):
                there = room_of(module)
                if there is None or there == here or {here, there} <= FLOOR:
                    continue
                where = str(path.relative_to(PACKAGE / "bench"))
                if ROOMS.index(there) < ROOMS.index(here) and (where, there) not in UPWARD:
                    upward.append(f"{where} ({here}) imports {module}")
        self.assertEqual(upward, [])

    def test_running_and_measuring_make_no_table(self):
        # A table is what reporting makes of a run; below it a module prints a figure on its progress
        # line (table.fmt) and nothing more of loomlab.table.
        found = []
        for path, tree in modules():
            here = room_of(".".join(path.relative_to(PACKAGE.parent).parts))
            if here in {"running", "measuring"}:
                found += [
                    f"{path.relative_to(PACKAGE.parent)}: {m}"
                    for m in imported(path, tree)
                    if m.startswith("loomlab.table")
                ]
        self.assertTrue(found, "the progress lines print figures")
        self.assertEqual({f for f in found if not f.endswith("loomlab.table.fmt")}, set())

    def test_a_mode_is_named_by_the_lane_alone(self):
        # Outside the lane and the workloads' declarations a mode's name is the lane's constant (or
        # key), never a string of its own: a renamed mode then moves everywhere at once.
        names = set(api.MODE_COLUMNS)
        declared = {PACKAGE / "bench/planning/lane.py", *(PACKAGE / "bench/workloads").rglob("*.py")}
        found = [
            f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}"
            for path, tree in modules()
            if path not in declared
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in names
        ]
        self.assertEqual(found, [])

    def test_every_room_of_the_bench_is_a_folder_of_its_own_and_nothing_else_sits_beside_them(self):
        bench = PACKAGE / "bench"
        self.assertEqual({r for r in ROOMS if (bench / r / "__init__.py").is_file()}, set(ROOMS))
        top = {p.name for p in bench.glob("*.py")}
        # The drivers: ./lab bench, its options, the suites run and reported, a Job's run; the API.
        self.assertEqual(top, {"__init__.py", "__main__.py", "api.py", "cli.py", "pipeline.py", "jobrun.py"})

    def test_what_they_use_of_the_api_is_in_its_all(self):
        used = set()
        for path, tree in modules():
            if PACKAGE / "bench" in path.parents:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "bench":
                    used.add(node.attr)
        self.assertTrue(used, "the in-cluster runner uses the bench")
        self.assertEqual(sorted(used - set(api.__all__)), [])

    def test_no_file_is_longer_than_its_limit(self):
        long = [
            f"{p.relative_to(PACKAGE.parent)}: {n} lines"
            for p, _ in modules()
            if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES
        ]
        self.assertEqual(long, [])

    def test_a_long_function_says_why(self):
        unexplained = []
        for path, tree in modules():
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES and REASON not in " ".join((ast.get_docstring(node) or "").split()):
                        unexplained.append(
                            f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({lines} lines)"
                        )
        self.assertEqual(unexplained, [])

    def test_what_runs_without_the_venv_needs_the_standard_library_only(self):
        # The loadgen image runs loomlab.bench.jobrun (and the k6 image jobanswer) with Debian's python3
        # and no package installed; ./lab prints every command's --help before it creates the venv.
        for module in (
            "loomlab.bench.jobrun",
            "loomlab.bench.reporting.jobanswer",
            "loomlab.bench.cli",
            "loomlab.incluster.cli",
        ):
            code = f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); import {module}"
            run = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, f"{module}: {run.stderr[-2000:]}")

    def test_no_module_runs_on_import(self):
        # A command runs under `if __name__ == "__main__":`; importing it (a test, the help) runs nothing.
        running = []
        for path, tree in modules():
            for node in tree.body:
                call = node.value if isinstance(node, ast.Expr) else None
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "main":
                    running.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
        self.assertEqual(running, [])

    def test_the_harness_imports_nothing_of_the_lab_s_machinery(self):
        harness, machinery = [], []
        for path, tree in modules():
            into = harness if PACKAGE in path.parents else machinery
            into += [
                f"{path.relative_to(PACKAGE.parent)}: {m}" for m in imported(path, tree) if m.startswith("labmachine")
            ]
        self.assertTrue(machinery, "the machinery's modules import each other")
        self.assertEqual(harness, [])
        # By name only in the command table, which says what ./lab runs (and imports the parser a
        # machinery command's --help prints): nowhere else in the harness.
        named = {
            path.relative_to(PACKAGE.parent).as_posix()
            for path, tree in modules()
            if PACKAGE in path.parents
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and re.fullmatch(r"labmachine\.[\w.:]*", str(node.value))
        }
        self.assertEqual(named, {"loomlab/commands.py"})

    def test_the_in_cluster_core_imports_no_experiment(self):
        found = []
        for path, tree in modules():
            if PACKAGE / "incluster" / "core" not in path.parents:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("loomlab.incluster.experiments"):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} imports {node.module}")
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
