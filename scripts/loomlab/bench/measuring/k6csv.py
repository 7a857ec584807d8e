"""k6's CSV output as k6 v1.8.1 writes it (`--out csv`, K6_CSV_TIME_FORMAT=unix_micro), written
from given requests: the merge's tests and its measurement (`python3 -m loomlab.bench.measuring.merge_measure`)
feed merge.py files of the same layout and volume as a real runner's."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

HEADER = (
    "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,"
    "proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"
)
URL = "http://loom-lab-jvm:8080/api/virtual/sleep?ms=100"
# What k6 writes for one HTTP request besides its duration and count.
TIMINGS = (
    "http_req_blocked",
    "http_req_connecting",
    "http_req_tls_handshaking",
    "http_req_sending",
    "http_req_waiting",
    "http_req_receiving",
)


def row(metric: str, micros: int, value: float, scenario: str = "main", extra: str = "") -> str:
    return f"{metric},{micros},{value:.6f},,,,true,,GET,{URL},HTTP/1.1,{scenario},,200,,,{URL},{extra},\n"


def request_rows(micros: int, ms: float, failed: bool = False, scenario: str = "main") -> list[str]:
    """The 13 rows of one request and its iteration."""
    out = [row("http_reqs", micros, 1, scenario), row("http_req_duration", micros, ms, scenario)]
    out += [row(m, micros, 0.01, scenario) for m in TIMINGS]
    out += [
        row("http_req_failed", micros, 1 if failed else 0, scenario),
        row("data_sent", micros, 120, scenario),
        row("data_received", micros, 512, scenario),
        row("iteration_duration", micros, ms + 0.2, scenario),
        row("iterations", micros, 1, scenario),
    ]
    return out


def write(path: Path, requests, dropped: int = 0, extra=()):
    """A runner's gzipped CSV: a vus sample, the requests (micros, ms, failed), `extra` rows, then
    `dropped` dropped iterations."""
    with gzip.open(path, "wt", compresslevel=1) as f:
        f.write(HEADER + "\n")
        f.write(row("vus", 1_000_000, 10))
        for micros, ms, failed in requests:
            f.writelines(request_rows(micros, ms, failed))
        f.writelines(extra)
        for i in range(dropped):
            f.write(row("dropped_iterations", 1_000_000 + i, 1))


def requests(n: int, seed: int, start: int = 1_000_000, rate: float = 200.0, slow=None):
    """n requests arriving at `rate` per second from `start` (micros), lognormal latencies (about
    100 ms) unless `slow(rnd)` gives them, 2 % failed."""
    rnd = random.Random(seed)
    for i in range(n):
        ms = slow(rnd) if slow else rnd.lognormvariate(4.6, 0.3)
        yield start + int(i * 1e6 / rate) + int(ms * 1000), ms, rnd.random() < 0.02
