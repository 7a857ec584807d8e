"""./lab doctor: every check runs here and answers found or missing, a missing one that a command
needs stops it with the line that installs it (exit MISSING, distinct from a crash), and every
command ./lab gates has its parts named."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from loomlab import branches, commands, doctor, labcluster
from loomlab.doctor import disk, probes

LAB = Path(__file__).resolve().parents[2] / "lab"


class DoctorTest(unittest.TestCase):
    def test_every_check_answers_on_this_machine(self):
        for c in doctor.CHECKS:
            with self.subTest(check=c.what):
                found = c.probe()
                self.assertIsInstance(found, probes.Finding)
                self.assertTrue(found.found)
                self.assertIn(c.kind, ("needed", "provided", "advice"))
                self.assertTrue(c.fix)

    def test_every_gated_branch_and_every_tables_branch_has_its_parts(self):
        gated = {c.how for c in commands.COMMANDS if c.gated}
        self.assertTrue(gated <= set(branches.BRANCHES), gated - set(branches.BRANCHES))
        parts = {g for c in doctor.CHECKS for g in c.groups}
        for how, branch in branches.BRANCHES.items():
            self.assertIn(how, {c.how for c in commands.COMMANDS})
            self.assertTrue(set(branch.needs) <= parts, f"{how}: {set(branch.needs) - parts}")

    def test_a_missing_need_stops_with_its_install_line(self):
        missing = doctor.Check(
            "a thing", "needed", ("db",), lambda: probes.Finding(False, "none"), "apt-get install thing"
        )
        advice = doctor.Check("a hint", "advice", ("db",), lambda: probes.Finding(False, "no"), "see the docs")
        with mock.patch.object(doctor, "CHECKS", (missing, advice)):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(doctor.main(["--gate", "db"]), doctor.MISSING)
            self.assertIn("-> apt-get install thing", err.getvalue())
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(doctor.main(["db"]), doctor.MISSING)
            self.assertIn("1 missing", out.getvalue())
        with mock.patch.object(doctor, "CHECKS", (advice,)), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(doctor.main(["--gate", "db"]), 0)

    def test_no_kubectl_is_built_by_the_lab_with_go(self):
        kubectl = next(c for c in doctor.CHECKS if c.what == "kubectl")
        go = next(c for c in doctor.CHECKS if c.what == "Go for kubectl")
        self.assertEqual((kubectl.kind, go.kind), ("provided", "needed"))
        # test: the harness's own tests render the manifests with `kubectl kustomize`.
        for gated in ("deploy", "verify", "python", "rerun", "test"):
            self.assertIn(kubectl, doctor.checks_for(gated))
            self.assertIn(go, doctor.checks_for(gated))
        real = shutil.which
        with tempfile.TemporaryDirectory() as cache, mock.patch.object(probes, "CACHE", Path(cache)):
            with mock.patch.object(probes.shutil, "which", lambda c: None if c == "kubectl" else real(c)):
                self.assertEqual(kubectl.probe(), probes.Finding(False, "none on PATH"))
                self.assertTrue(go.probe().found.startswith("go "), go.probe())
                Path(cache, "k8s-tools", "v1.32.5").mkdir(parents=True)
                Path(cache, "k8s-tools", "v1.32.5", "kubectl").touch()  # another module's: not it
                self.assertFalse(kubectl.probe().ok)
                probes.k8s_bin().mkdir(parents=True)
                (probes.k8s_bin() / "kubectl").touch()
                self.assertTrue(kubectl.probe().ok)
                self.assertIn("the lab's kubectl", go.probe().found)

    def test_lab_doctor_runs_without_a_traceback(self):
        done = subprocess.run([str(LAB), "doctor"], capture_output=True, text=True, timeout=120)
        self.assertIn(done.returncode, (0, doctor.MISSING), done.stderr[-2000:])
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn("missing", done.stdout)


class DiskTest(unittest.TestCase):
    def test_a_command_asks_for_what_it_has_still_to_make_and_a_run(self):
        made = {part: (gib, lambda: True) for part, (gib, _) in disk.FIRST_TIME.items()}
        with mock.patch.dict(disk.FIRST_TIME, made):
            self.assertEqual(disk.need(disk.parts_of("deploy")), (disk.RUN_GIB, []))
        made["cluster"] = (disk.FIRST_TIME["cluster"][0], lambda: False)
        with mock.patch.dict(disk.FIRST_TIME, made):
            gib, missing = disk.need(disk.parts_of("deploy"))
            self.assertEqual((gib, missing), (disk.RUN_GIB + disk.FIRST_TIME["cluster"][0], ["cluster"]))
            self.assertEqual(disk.need(disk.parts_of("bench")), (disk.RUN_GIB, []))  # no cluster in a bench

    def test_the_database_and_the_node_are_looked_for_where_the_lab_keeps_them(self):
        with tempfile.TemporaryDirectory() as pg, tempfile.TemporaryDirectory() as k8s:
            with (
                mock.patch.dict(os.environ, {"LOOMLAB_PG_DIR": pg}),
                mock.patch.object(labcluster, "CONTAINERD_ROOT", Path(k8s, "run", "containerd", "root")),
            ):
                self.assertEqual((disk.database_made(), disk.node_made()), (False, False))
                Path(pg, "data").mkdir()
                Path(pg, "data", "PG_VERSION").write_text("15\n")
                Path(k8s, "run", "containerd", "root").mkdir(parents=True)
                self.assertEqual((disk.database_made(), disk.node_made()), (True, True))

    def test_every_part_a_branch_makes_has_a_figure(self):
        self.assertEqual(disk.parts_of(*branches.BRANCHES), set(disk.FIRST_TIME))

    def test_too_little_free_space_stops_the_command_with_what_it_needs(self):
        room = doctor.checks_for("deploy")[-1]
        self.assertTrue(room.what.startswith("disk"))
        made = {part: (gib, lambda: True) for part, (gib, _) in disk.FIRST_TIME.items()}
        usage = shutil.disk_usage("/")
        with mock.patch.dict(disk.FIRST_TIME, made):
            with mock.patch.object(disk.shutil, "disk_usage", lambda _: usage._replace(free=int(1.5 * 2**30))):
                self.assertEqual(room.probe().ok, False)
                self.assertIn("1.5 GiB free", room.probe().found)
                self.assertTrue(doctor.stops(room, room.probe()))
            with mock.patch.object(disk.shutil, "disk_usage", lambda _: usage._replace(free=int(9.6 * 2**30))):
                self.assertTrue(room.probe().ok, room.probe())  # CI's later steps, refused once by a flat 10


if __name__ == "__main__":
    unittest.main()
