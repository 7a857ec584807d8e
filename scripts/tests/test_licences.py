"""The licence gates refuse what the lab's policy refuses. Maven's (pom.xml's license-maven-plugin,
bound to `./mvnw verify`): run with the `licence-planted` profile, which adds a dependency under the
AGPL-3.0 and one naming no licence from a repository in the tree, it must fail and name both; its
pass on the real dependencies is `./mvnw verify`'s own (./lab test). PyPI's (scripts/licences/pypi.sh,
pip-licenses on the harness's venv): the venv passes; a package planted beside it under the AGPL, one
under the SSPL and one naming no licence each fail it. npm's (scripts/licences/npm.sh, on the
packages `./lab test`'s lint installs into k6/node_modules): they pass; a project holding an AGPL
package, or one naming no licence, fails it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from loomlab import ROOT

GATE = "org.codehaus.mojo:license-maven-plugin:2.7.1:add-third-party@licence-gate"


@unittest.skipUnless(shutil.which("java") or os.environ.get("JAVA_HOME"), "the gate runs on Maven, which needs a JDK")
class MavenGateTest(unittest.TestCase):
    def test_a_planted_agpl_dependency_and_an_unlicensed_one_fail_the_gate(self):
        done = subprocess.run(
            [str(ROOT / "mvnw"), "-B", "-Plicence-planted", GATE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        said = done.stdout + done.stderr
        self.assertNotEqual(done.returncode, 0, said[-3000:])
        self.assertIn("There are 2 forbidden licenses used", said)
        self.assertRegex(said, r"-agpl-lib \(dev\.loomlab\.planted:agpl-lib:1\.0")
        self.assertRegex(said, r"'Unknown license' used by 1 dependencies:\s+-unlicensed-lib")


class PypiGateTest(unittest.TestCase):
    def gate(self, planted: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """The gate on this venv, with a package planted on PYTHONPATH: name -> its metadata's lines."""
        env = dict(os.environ)
        with tempfile.TemporaryDirectory() as d:
            for name, lines in (planted or {}).items():
                info = Path(d) / f"{name}-1.0.dist-info"
                info.mkdir()
                (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\n{lines}")
            env["PYTHONPATH"] = d
            gate = ROOT / "scripts/licences/pypi.sh"
            return subprocess.run(["bash", str(gate), sys.executable], capture_output=True, text=True, env=env)

    def test_the_harness_s_packages_pass(self):
        done = self.gate()
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])

    def test_a_planted_agpl_sspl_or_unlicensed_package_fails_the_gate(self):
        for name, lines in (
            ("planted-agpl", "License-Expression: AGPL-3.0-only\n"),
            ("planted-sspl", "Classifier: License :: Other/Proprietary License\nLicense: SSPL-1.0\n"),
            ("planted-none", ""),
        ):
            with self.subTest(name):
                done = self.gate({name: lines})
                self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
                self.assertIn(f"for package {name}:1.0", done.stderr)


CHECKER = ROOT / "k6/node_modules/.bin/license-checker-rseidelsohn"


@unittest.skipUnless(CHECKER.exists(), "./lab test's lint installs k6/node_modules (npm ci) before these tests")
class NpmGateTest(unittest.TestCase):
    def gate(self, directory: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["bash", str(ROOT / "scripts/licences/npm.sh"), str(directory)], capture_output=True, text=True
        )

    def test_the_linter_s_packages_pass(self):
        done = self.gate(ROOT / "k6")
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])

    def test_a_planted_agpl_or_unlicensed_package_fails_the_gate(self):
        for name, licence in (("planted-agpl", ', "license": "AGPL-3.0-only"'), ("planted-none", "")):
            with self.subTest(name), tempfile.TemporaryDirectory() as d:
                project = {"name": "t", "version": "1.0.0", "private": True, "dependencies": {name: "1.0.0"}}
                (Path(d) / "package.json").write_text(json.dumps(project))
                (Path(d) / "node_modules" / name).mkdir(parents=True)
                (Path(d) / "node_modules" / name / "package.json").write_text(
                    f'{{"name": "{name}", "version": "1.0.0"{licence}}}'
                )
                done = self.gate(Path(d))
                self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
                self.assertIn(f'Package "{name}@1.0.0" is licensed under', done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main()
