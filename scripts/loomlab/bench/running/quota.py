"""A cgroup for a local JVM, as a pod gives its container: a cgroup of the bench's own, with the CFS
bandwidth (cgroup v1's cpu.cfs_quota_us, v2's cpu.max) set to N CPUs as a pod's CPU limit, or no
quota (N = 0), which the JVM joins before it starts (`./lab bench --quota-column NAME=CPUS`). It
tells the cgroup's and the quota's cost (the scheduler's work on every wake-up and sleep) from the
pod network's in the cluster's share.
Writing a cgroup needs root; the groups are removed when the bench ends."""

from __future__ import annotations

import re
from pathlib import Path

from loomlab import LabError

CGROUP = Path("/sys/fs/cgroup")
PARENT = "loomlab-bench"
PERIOD_US = 100_000  # the kernel's default period, the kubelet's too


def group(column: str, cpus: float, root: Path = CGROUP) -> Path:
    """The cgroup of `column` with a quota of `cpus`, none for 0 (created, or set again): its procs file."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", column).strip("-")
    quota = int(cpus * PERIOD_US) or -1
    try:
        if (root / "cpu" / "cpu.cfs_quota_us").is_file():
            d = root / "cpu" / PARENT / name
            d.mkdir(parents=True, exist_ok=True)
            (d / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (d / "cpu.cfs_quota_us").write_text(str(quota))
        elif (root / "cgroup.controllers").is_file():
            (root / "cgroup.subtree_control").write_text("+cpu")
            d = root / PARENT / name
            d.mkdir(parents=True, exist_ok=True)
            (root / PARENT / "cgroup.subtree_control").write_text("+cpu")
            (d / "cpu.max").write_text(f"{quota if quota > 0 else 'max'} {PERIOD_US}")
        else:
            raise LabError(f"--quota-column: no cgroup CPU controller under {root}")
    except PermissionError as e:
        raise LabError(f"--quota-column writes a cgroup under {root}: it needs root ({e})") from e
    return d / "cgroup.procs"


def wrap(cmd: list[str], procs: Path) -> list[str]:
    """`cmd` run in the cgroup of `procs`: a shell joins it, then execs the command in place (the same
    process, so its pid is the JVM's)."""
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs), *cmd]


def remove(root: Path = CGROUP) -> list[Path]:
    """Removes the bench's cgroups (each empty once its JVM has stopped); those it could not remove."""
    left = []
    for parent in (root / "cpu" / PARENT, root / PARENT):
        for d in [*(c for c in parent.iterdir() if c.is_dir()), parent] if parent.is_dir() else []:
            try:
                d.rmdir()
            except OSError:
                left.append(d)
    return left
