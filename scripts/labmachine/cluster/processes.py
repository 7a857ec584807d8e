"""The components as processes: started in a session of their own with their log and PID in the
run directory, found again by PID (never a recycled one), stopped; the binaries built once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from loomlab import proc

from .settings import COMPONENTS, ROOT, RUN, fail

# What a component inherits of the caller's environment: where binaries are, the home and locale.
# Nothing else (a database password, a cloud token, a proxy meant for the caller's own tools).
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR")


def component_env(env: dict | None = None) -> dict:
    """The environment a component starts with: INHERITED from the caller, then `env`."""
    return {k: v for k, v in os.environ.items() if k in INHERITED} | (env or {})


def start(name: str, cmd: list, env: dict | None = None):
    (RUN / "logs").mkdir(parents=True, exist_ok=True)
    (RUN / "pids").mkdir(parents=True, exist_ok=True)
    log = (RUN / "logs" / f"{name}.log").open("ab")
    p = subprocess.Popen(
        [str(c) for c in cmd],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=component_env(env),
        start_new_session=True,
    )
    (RUN / "pids" / f"{name}.pid").write_text(f"{p.pid}\n{cmd[0]}\n")
    return p


def running(name: str) -> int | None:
    f = RUN / "pids" / f"{name}.pid"
    if not f.exists():
        return None
    text, exe = f.read_text().split("\n")[:2]
    pid = int(text)
    try:
        # Never signal a recycled PID: it must still run the binary we started.
        if proc.pid_alive(pid) and Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode() == exe:
            return pid
    except OSError:
        pass
    return None


def stop(name: str, timeout: float = 20):
    pid = running(name)
    if pid:
        proc.stop_pid(pid, timeout)
    (RUN / "pids" / f"{name}.pid").unlink(missing_ok=True)


def tools() -> dict:
    """The components' binaries (scripts/k8s/tools.sh builds them once): name -> path."""
    p = subprocess.run(["bash", str(ROOT / "scripts" / "k8s" / "tools.sh")], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("building the Kubernetes components failed (see above)")
    return dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)


def rss_kib(pid: int) -> int:
    """A process's resident memory, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


def components_rss_mb() -> float:
    return sum(rss_kib(pid) for name in COMPONENTS if (pid := running(name))) / 1024
