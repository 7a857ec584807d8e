"""Processes and polling, shared by the lab's Python scripts (bench, startup, the Kubernetes ones)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from loomlab import LabError


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


def listening(port: int) -> bool:
    """Whether something answers a TCP connection on 127.0.0.1:`port`."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


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


# Raised by a check that is wrong, not by one that is early: they end the wait at once. Everything
# else a poll raises (a refused connection, an API error, a field the object does not have yet)
# means "not yet", and the last such error is printed if the wait runs out.
CHECK_BUGS = (TypeError, AttributeError, NameError, AssertionError, ArithmeticError, ImportError)


def wait_until(
    check: Callable[[], object], timeout: float, period: float = 0.2, give_up: Callable[[], bool] | None = None
):
    """Calls `check` until it returns something truthy (returned) or `timeout` s pass (None); also
    None at once when `give_up` says there is no point (the process behind it died). An exception
    counts as not yet, unless it is one of CHECK_BUGS (raised: a bug in a check is not a timeout) or
    a LabError (raised: the check's own verdict, such as a pod that cannot pull its image)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = check()
            if value:
                return value
            last = None
        except (*CHECK_BUGS, LabError):  # a bug, or a check's own verdict that waiting cannot change
            raise
        except Exception as e:  # noqa: BLE001 - anything else a poll raises means "not yet"
            last = e
        if time.monotonic() >= deadline or (give_up is not None and give_up()):
            if last is not None:
                print(f"   (the last poll of that wait failed: {type(last).__name__}: {last})", file=sys.stderr)
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
