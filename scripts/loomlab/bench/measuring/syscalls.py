"""The system calls a local server makes during a run, counted by the kernel's own tracepoints
through perf (`perf stat -e raw_syscalls:sys_enter -p PID`, every thread of the process, those
started later too): all of them, and among them the futex calls (a thread parked or woken: the
JVM's and Go's way to wait for each other) and the epoll waits (an event loop's or Go's netpoller's
wait for sockets and timers). Where a load asks for them (Load.syscalls), in every column alike.
perf starts with its counters off and turns them on and off on command (`--control`, answered on
an ack fifo), so the count spans the generator's run and nothing of perf's own start.
Counting costs each call its tracepoints' hits: measured on our machine, a getppid loop took 128 ns
a call alone and 276 counted (0.15 us more a call); at the cost profile's 4-16 calls a request that
is at most 1.3 % of any column's CPU per request (2026-11-30-cost-syscalls.md). Without perf, or
where the kernel refuses it (not root and kernel.perf_event_paranoid above -1), the run has no such
figures and says so once."""

from __future__ import annotations

import math
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

# What a figure counts: the tracepoints whose hits it sums (those the kernel has).
GROUPS = {
    "syscalls": ("raw_syscalls:sys_enter",),
    "futex": tuple(f"syscalls:sys_enter_{c}" for c in ("futex", "futex_wait", "futex_wake", "futex_waitv")),
    "epoll": tuple(f"syscalls:sys_enter_{c}" for c in ("epoll_wait", "epoll_pwait", "epoll_pwait2")),
}
TRACING = (Path("/sys/kernel/tracing/events"), Path("/sys/kernel/debug/tracing/events"))
# perf's answer to a command, and its exit after SIGINT: seconds, each far above what it takes.
ACK_S = 10.0
_refused: list[str] = []  # why counting was refused, said once a bench


def events(roots: tuple[Path, ...] = TRACING, perf: str | None = None) -> dict[str, str]:
    """Each tracepoint the kernel has, to the figure it counts for; {} without tracefs. A machine that
    has not mounted tracefs yet gets it from perf, which mounts it when first asked for a tracepoint
    (seen on a fresh machine: the first cost run had no figures, a second one after `perf stat` had)."""
    root = next((r for r in roots if (r / "raw_syscalls").is_dir()), None)
    if root is None and perf:
        subprocess.run(
            [perf, "stat", "-e", "raw_syscalls:sys_enter", "true"], capture_output=True, timeout=ACK_S, check=False
        )
        root = next((r for r in roots if (r / "raw_syscalls").is_dir()), None)
    if root is None:
        return {}
    return {e: g for g, names in GROUPS.items() for e in names if (root / Path(*e.split(":"))).is_dir()}


def parse(text: str, named: dict[str, str]) -> dict[str, float]:
    """perf stat's CSV (-x,): each figure's sum over its tracepoints; NaN where one was not counted."""
    totals = dict.fromkeys(GROUPS, 0.0)
    seen: set[str] = set()
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) < 3 or fields[2] not in named:
            continue
        group = named[fields[2]]
        seen.add(fields[2])
        totals[group] += float(fields[0]) if fields[0].replace(".", "", 1).isdigit() else math.nan
    return {f"delta_{g}": (v if any(named[e] == g for e in seen) else math.nan) for g, v in totals.items()}


def per_request(counts: dict[str, float], requests: float) -> dict[str, float]:
    """`<figure>_per_req` of each count over the requests answered (NaN without either)."""
    return {
        f"{key.removeprefix('delta_')}_per_req": (v / requests if requests else math.nan) for key, v in counts.items()
    }


class Counter:
    """perf counting one process' system calls between `start()` and `stop()`."""

    def __init__(self, pid: int, out: Path, perf: str, named: dict[str, str]):
        self.out, self.named = out, named
        self.dir = Path(tempfile.mkdtemp(prefix="loomlab-perf-"))
        self.ctl, self.ack = self.dir / "ctl", self.dir / "ack"
        os.mkfifo(self.ctl)
        os.mkfifo(self.ack)
        cmd = [perf, "stat", "-x,", "-o", str(out), "-D", "-1", "--control", f"fifo:{self.ctl},{self.ack}"]
        cmd += ["-e", ",".join(named), "-p", str(pid)]
        self.log = out.with_suffix(".log").open("w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log)
        # Read end first, without blocking (perf opens it for writing), then the write end once
        # perf reads: both open or perf has gone, within ACK_S.
        self.ack_fd = os.open(self.ack, os.O_RDONLY | os.O_NONBLOCK)
        self.ctl_fd = self._open_ctl()

    def _open_ctl(self) -> int | None:
        deadline = time.monotonic() + ACK_S
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                return os.open(self.ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: perf has not opened it for reading yet
                time.sleep(0.01)
        return None

    def command(self, what: str) -> bool:
        """Sends perf `what` (enable, disable) and waits for its ack: True once answered."""
        if self.ctl_fd is None or self.proc.poll() is not None:
            return False
        os.write(self.ctl_fd, f"{what}\n".encode())
        ready, _, _ = select.select([self.ack_fd], [], [], ACK_S)
        return bool(ready) and os.read(self.ack_fd, 64).startswith(b"ack")

    def stop(self) -> dict[str, float]:
        """The counts since `enable` (NaN each where perf did not count), perf ended and its fifos gone."""
        counted = self.command("disable")
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=ACK_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            counted = False
        for fd in (self.ctl_fd, self.ack_fd):
            if fd is not None:
                os.close(fd)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        text = self.out.read_text() if counted and self.out.is_file() else ""
        return parse(text, self.named) if text else {f"delta_{g}": math.nan for g in GROUPS}


def start(pid: int, out: Path) -> Counter | None:
    """A Counter of `pid`'s system calls, counting from now (perf's `enable` answered), into `out`;
    None where perf or the kernel's tracepoints are missing or perf was refused (said once)."""
    perf = shutil.which("perf")
    named = events(perf=perf)
    if not perf or not named:
        _refuse("no perf (Debian: linux-perf) or no tracefs: no system calls per request")
        return None
    counter = Counter(pid, out, perf, named)
    if counter.command("enable"):
        return counter
    counter.stop()
    _refuse(f"perf could not count the server's system calls (root, or see {out.with_suffix('.log')})")
    return None


def _refuse(why: str) -> None:
    """Says `why` the first time it is the reason."""
    if why not in _refused:
        _refused.append(why)
        print(f"  {why}", flush=True)
