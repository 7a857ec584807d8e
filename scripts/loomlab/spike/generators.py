"""The candidates of the spike and how each sends the two loads: its command line and how its own
output reads as requests, failures and latency (ms)."""

from __future__ import annotations

import csv
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loomlab import LabError
from loomlab.labreport import nearest_rank

# The two loads: A3 (closed) and an open rate, in the units each generator takes.
USERS, ITERATIONS = 500, 10
RATE, SECONDS = 1500, 10
# hey's open form: workers each holding a rate of their own (150 x 10 req/s), its only way to pace.
HEY_WORKERS = 150
SLEEP_PATH = "/api/reference/sleep?ms=100"


@dataclass(frozen=True)
class Outcome:
    requests: int
    failed: int
    p50_ms: float
    p99_ms: float


@dataclass(frozen=True)
class Generator:
    name: str
    # load ("A3" | "open") -> the command for a target URL writing its output under a path stem
    command: Callable[[str, str, Path], list[str]]
    # (the load, the output's path stem) -> what the run measured, from the generator's own output
    read: Callable[[str, Path], Outcome]
    loads: tuple[str, ...] = ("A3", "open")


def loadgen(binary: str) -> Generator:
    def command(load: str, url: str, stem: Path) -> list[str]:
        stem.with_suffix(".targets.jsonl").write_text(json.dumps({"method": "GET", "url": url}) + "\n")
        shape = (
            ["-model", "closed", "-users", str(USERS), "-iterations", str(ITERATIONS)]
            if load == "A3"
            else ["-model", "open", "-rate", str(RATE), "-duration", f"{SECONDS}s", "-max-workers", "2000"]
        )
        return [binary, "-targets", str(stem.with_suffix(".targets.jsonl")), *shape, "-summary", str(stem) + ".json"]

    def read(load: str, stem: Path) -> Outcome:
        s = json.loads(Path(str(stem) + ".json").read_text())
        return Outcome(s["requests"], s["failed"], s["latency_ms"]["p50"], s["latency_ms"]["p99"])

    return Generator("loadgen (vegeta's library)", command, read)


def vegeta(binary: str) -> Generator:
    """vegeta's own CLI: open only (its closed form, -rate=0, runs for a duration, not a count)."""

    def command(load: str, url: str, stem: Path) -> list[str]:
        target = stem.with_suffix(".targets")
        target.write_text(f"GET {url}\n")
        rate = ["-rate", f"{RATE}/s", "-duration", f"{SECONDS}s", "-max-workers", "2000"]
        return [binary, "attack", "-targets", str(target), *rate, "-output", str(stem) + ".bin"]

    def read(load: str, stem: Path) -> Outcome:
        done = subprocess.run(
            [binary, "report", "-type", "json", str(stem) + ".bin"], capture_output=True, text=True, check=True
        )
        r = json.loads(done.stdout)
        ok = sum(n for code, n in r["status_codes"].items() if code.startswith("2"))
        lat = r["latencies"]
        return Outcome(r["requests"], r["requests"] - ok, lat["50th"] / 1e6, lat["99th"] / 1e6)

    return Generator("vegeta CLI", command, read, loads=("open",))


def hey(binary: str) -> Generator:
    """hey: A3 as -n 5000 -c 500; the open rate as 150 workers at 10 req/s each (bursty)."""

    def command(load: str, url: str, stem: Path) -> list[str]:
        shape = (
            ["-n", str(USERS * ITERATIONS), "-c", str(USERS)]
            if load == "A3"
            else ["-z", f"{SECONDS}s", "-c", str(HEY_WORKERS), "-q", str(RATE // HEY_WORKERS)]
        )
        return [binary, *shape, "-o", "csv", url]

    def read(load: str, stem: Path) -> Outcome:
        rows = list(csv.DictReader(Path(str(stem) + ".stdout").read_text().splitlines()))
        if not rows:
            raise LabError(f"hey wrote no results ({stem}.stdout)")
        ms = [float(r["response-time"]) * 1000 for r in rows]
        failed = sum(1 for r in rows if r["status-code"] != "200")
        return Outcome(len(rows), failed, nearest_rank(ms, 50), nearest_rank(ms, 99))

    return Generator("hey", command, read)
