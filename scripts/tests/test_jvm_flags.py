"""The service's JVM flags are said once, in src/main/jvm/service.args: every JVM reads that file
(@file), and the only copies are where a native executable needs them, held equal here."""

import json
import re
import subprocess
import unittest

import yaml

from loomlab import ROOT

ARGS = ROOT / "src" / "main" / "jvm" / "service.args"


# The flags a native executable has no use for: it has no module system to open (the virtual-loop mode
# answers 501 there, LoopCarriers says why).
JVM_ONLY = {"--add-opens=java.base/java.lang=ALL-UNNAMED"}


def flags() -> list[str]:
    return [line.strip() for line in ARGS.read_text().splitlines() if line.strip() and not line.startswith("#")]


class JvmFlagsTest(unittest.TestCase):
    def test_the_file_has_the_flags_the_meters_need(self):
        self.assertIn("-Djboss.threads.eqe.statistics=true", flags())

    def test_the_file_opens_java_lang_for_the_loop_carried_virtual_threads(self):
        self.assertTrue(JVM_ONLY <= set(flags()))

    def test_no_other_file_repeats_a_flag_but_the_native_copies(self):
        native = {
            "src/main/docker/Dockerfile.native",
            "src/main/docker/Dockerfile.native-multistage",
            "deploy/k8s/overlays/native/kustomization.yaml",
            "pom.xml",
        }
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
        found = []
        for name in tracked.stdout.split():
            path = ROOT / name
            if name in native or path == ARGS or name.startswith(("docs/", "scripts/tests/")) or not path.is_file():
                continue
            if path.suffix in (".md", ".png", ".svg", ".jar") or name.endswith(".java"):
                continue  # prose may name a flag; a Java comment explains what it feeds
            text = path.read_text(errors="replace")
            found += [f"{name}: {f}" for f in flags() if f in text]
        self.assertEqual(found, [])

    def test_the_native_copies_are_the_files_flags(self):
        want = set(flags()) - JVM_ONLY
        for name in ("src/main/docker/Dockerfile.native", "src/main/docker/Dockerfile.native-multistage"):
            cmd = re.search(r"^CMD (\[.*\])$", (ROOT / name).read_text(), re.M)
            self.assertEqual(set(json.loads(cmd.group(1))), want, name)
        overlay = yaml.safe_load((ROOT / "deploy/k8s/overlays/native/kustomization.yaml").read_text())
        patch = yaml.safe_load(overlay["patches"][0]["patch"])
        args = next(op["value"] for op in patch if op["path"].endswith("/args"))
        self.assertEqual({a for a in args if not a.startswith("-Xmx")}, want)
        pom = (ROOT / "pom.xml").read_text()
        native_profile = pom[pom.index("<id>native</id>") :]
        copy = re.search(r"<loomlab.jvm.flags>(.*)</loomlab.jvm.flags>", native_profile).group(1)
        self.assertEqual(set(copy.split()), want)


if __name__ == "__main__":
    unittest.main()
