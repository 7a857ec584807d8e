"""scripts/requirements.lock is pyproject.toml's resolution: every direct pin (and the dev extra's)
at the same version, every package with hashes, the build backend included."""

import re
import tomllib
import unittest

from loomlab import ROOT

SCRIPTS = ROOT / "scripts"


def locked() -> dict[str, tuple[str, int]]:
    """name -> (version, how many hashes), from the lock."""
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for line in (SCRIPTS / "requirements.lock").read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9._-]+)==(\S+)", line):
            name = m.group(1).lower().replace("_", "-")
            found[name] = (m.group(2), 0)
        elif name and "--hash=sha256:" in line:
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


def pinned() -> dict[str, str]:
    project = tomllib.loads((SCRIPTS / "pyproject.toml").read_text())["project"]
    pins = project["dependencies"] + project["optional-dependencies"]["dev"]
    return {p.split("==")[0].lower().replace("_", "-"): p.split("==")[1] for p in pins}


class LockTest(unittest.TestCase):
    def test_every_direct_pin_is_locked_at_its_version(self):
        lock = locked()
        for name, version in pinned().items():
            with self.subTest(name=name):
                self.assertEqual(lock[name][0], version)

    def test_every_locked_package_has_a_hash(self):
        for name, (_, hashes) in locked().items():
            with self.subTest(name=name):
                self.assertGreater(hashes, 0)

    def test_the_build_backend_is_locked(self):
        self.assertIn("setuptools", locked())
