"""Processes and polling, shared by the lab's Python scripts (bench, startup, the Kubernetes ones)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path


def stop(proc: subprocess.Popen, timeout: float = 20) -> int | None:
    """SIGTERM, wait up to `timeout` s, then SIGKILL; returns the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purposes.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def stop_pid(pid: int, timeout: float = 20) -> bool:
    """stop() for a process this one did not start (a daemon from an earlier command). True if it
    was running."""
    if not pid_alive(pid):
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    if not wait_until(lambda: not pid_alive(pid), timeout, 0.1):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_until(lambda: not pid_alive(pid), 10, 0.1)
    return True


def wait_until(
    check: Callable[[], object], timeout: float, period: float = 0.2, give_up: Callable[[], bool] | None = None
):
    """Calls `check` until it returns something truthy (returned) or `timeout` s pass (None); also
    None at once when `give_up` says there is no point (the process behind it died). Exceptions
    count as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
            if value:
                return value
        except Exception:  # noqa: BLE001 - anything a poll can raise means "not yet"
            pass
        if time.monotonic() >= deadline or (give_up is not None and give_up()):
            return None
        time.sleep(period)


def http_ok(url: str, timeout: float = 2, context=None, headers: dict | None = None) -> bool:
    """True when `url` answers 2xx."""
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
        return 200 <= r.status < 300


def wait_http(url: str, timeout: float, alive: Callable[[], bool] | None = None) -> bool:
    """Polls `url` until it answers 2xx (True), `timeout` s pass or `alive` says the process behind
    it died (False)."""
    give_up = None if alive is None else (lambda: not alive())
    return bool(wait_until(lambda: http_ok(url), timeout, 0.2, give_up))
