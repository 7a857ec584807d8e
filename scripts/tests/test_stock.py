"""./lab stock: the steps are the README's own lines (a README without them is refused, not guessed),
and each step's namespace mounts what stands in for the user read-only and hands the step a user's
environment, none of the caller's."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from labmachine.stock import machine, plan
from loomlab import ROOT, LabError


class ReadmeStepsTest(unittest.TestCase):
    def test_the_readmes_line_its_doctor_and_its_two_commands(self):
        found = plan.readme_steps((ROOT / "README.md").read_text())
        lines = [s.line for s in found]
        # The package lists first (a stock machine's are empty), then the install, as written.
        self.assertEqual(lines[0], "apt-get update")
        self.assertTrue(lines[1].startswith("apt-get install -y "), lines[1])
        for package in ("git", "unzip", "python3-venv", "postgresql-15"):
            self.assertIn(f" {package}", lines[1])
        self.assertEqual(lines[2:], ["./lab doctor", "./lab bench", "./lab test"])
        # The doctor may name what only the cluster needs (kubectl): the README's line goes on.
        self.assertEqual(found[2].accept, (0, plan.DOCTOR_MISSING))
        self.assertEqual(found[3].accept, (0,))

    def test_nothing_runs_that_the_readme_does_not_say(self):
        readme = "```bash\napt-get install -y git && ./lab doctor\n./lab bench\n./lab test\n```\n"
        self.assertEqual(
            [s.line for s in plan.readme_steps(readme)],
            ["apt-get install -y git", "./lab doctor", "./lab bench", "./lab test"],
        )

    def test_then_replaces_the_two_commands_only(self):
        found = plan.steps((ROOT / "README.md").read_text(), ["bench --profile smoke --strict"])
        self.assertEqual([s.line for s in found][2:], ["./lab doctor", "./lab bench --profile smoke --strict"])
        # CI's: the test command as written, then the smoke bench, in that order.
        found = plan.steps((ROOT / "README.md").read_text(), ["test", "bench --profile smoke --strict"])
        self.assertEqual(
            [s.line for s in found][2:], ["./lab doctor", "./lab test", "./lab bench --profile smoke --strict"]
        )
        ci = (ROOT / ".ci" / "run").read_text()
        self.assertIn('./lab stock --then test --then "bench --profile smoke --strict"', ci)

    def test_a_readme_without_its_line_is_refused(self):
        with self.assertRaisesRegex(LabError, "install"):
            plan.readme_steps("# x\n\n```bash\n./lab bench\n./lab test\n```\n")
        with self.assertRaisesRegex(LabError, "two commands"):
            plan.readme_steps("```bash\napt-get install -y git && ./lab doctor\n./lab bench\n```\n")

    def test_the_summary_has_a_row_per_step(self):
        done = [plan.Done("./lab doctor", "./lab doctor", 3, 4.2), plan.Done("./lab bench", "./lab bench", 0, 901)]
        rows = plan.summary(done).splitlines()
        self.assertEqual(rows[2], "| ./lab doctor | `./lab doctor` | 3 | 4 |")
        self.assertEqual(rows[3], "| ./lab bench | `./lab bench` | 0 | 901 |")


class NamespaceTest(unittest.TestCase):
    def script(self, caches=()):
        step = plan.Step("./lab bench", "./lab bench --profile smoke")
        return machine.namespace_script(Path("/r/x/rootfs"), Path("/r/x"), step, list(caches))

    def test_stand_ins_are_read_only(self):
        s = self.script()
        for host in (machine.JDK, machine.GO):
            self.assertIn(f"mount --bind {host} /r/x/rootfs{host}\nmount -o remount,bind,ro /r/x/rootfs{host}", s)

    def test_warm_caches_are_lower_layers_written_in_the_run(self):
        s = self.script([(Path("/root/.m2/repository"), "/root/.m2/repository")])
        self.assertIn(
            "mount -t overlay overlay -o lowerdir=/root/.m2/repository,upperdir=/r/x/caches/0/upper,"
            "workdir=/r/x/caches/0/work /r/x/rootfs/root/.m2/repository",
            s,
        )

    def test_the_step_gets_a_users_environment_and_none_of_the_callers(self):
        with mock.patch.dict("os.environ", {"QUARKUS_DATASOURCE_PASSWORD": "secret", "GOFLAGS": "-x"}):
            last = self.script().splitlines()[-1]
        self.assertTrue(last.startswith("exec chroot /r/x/rootfs /usr/bin/env -i HOME=/root PATH="), last)
        self.assertNotIn("secret", last)
        self.assertNotIn("GOFLAGS", last)
        self.assertTrue(last.endswith("/bin/bash -c 'cd /root/loom-lab && ./lab bench --profile smoke'"), last)

    def test_a_run_directory_still_mounted_is_seen(self):
        self.assertIn("/proc", machine.mounted_under(Path("/proc")))
        self.assertEqual(machine.mounted_under(Path("/nonexistent/loom-lab")), [])


class TrustStoreTest(unittest.TestCase):
    """The mounted JDK's trust store reaches the root filesystem where its link points."""

    def test_a_cacerts_link_out_of_the_jdk_is_followed_into_the_rootfs(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            jdk, rootfs, store = base / "jdk", base / "rootfs", base / "etc" / "java" / "cacerts"
            (jdk / "lib" / "security").mkdir(parents=True)
            store.parent.mkdir(parents=True)
            store.write_bytes(b"keystore")
            (jdk / "lib" / "security" / "cacerts").symlink_to(store)
            with mock.patch.object(machine, "JDK", jdk):
                machine.jdk_trust_store(rootfs)
            self.assertEqual((rootfs / str(store).lstrip("/")).read_bytes(), b"keystore")

    def test_a_jdk_with_its_own_cacerts_needs_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            jdk, rootfs = Path(tmp) / "jdk", Path(tmp) / "rootfs"
            (jdk / "lib" / "security").mkdir(parents=True)
            (jdk / "lib" / "security" / "cacerts").write_bytes(b"keystore")
            with mock.patch.object(machine, "JDK", jdk):
                machine.jdk_trust_store(rootfs)
            self.assertFalse(rootfs.exists())
