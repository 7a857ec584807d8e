"""The Maven licence gate (pom.xml's license-maven-plugin, bound to `./mvnw verify`) refuses what the
lab's policy refuses: run with the `licence-planted` profile, which adds a dependency under the
AGPL-3.0 and one naming no licence from a repository in the tree, it must fail and name both. The
gate's pass on the real dependencies is `./mvnw verify`'s own (./lab test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import unittest

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


if __name__ == "__main__":
    unittest.main()
