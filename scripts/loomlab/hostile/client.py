"""The requests the suite sends: HTTP through the standard library, the gRPC frames through curl
(HTTP/2 with prior knowledge, which the standard library does not speak)."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

GRPC_PATH = "/loomlab.ingest.v1.Ingest/WriteRecruits"


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    seconds: float


def post(url: str, body: bytes, timeout: float = 120) -> Answer:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    return _send(request, timeout)


def get(url: str, timeout: float = 10, most: int = 2000) -> Answer:
    return _send(urllib.request.Request(url), timeout, most)


def _send(request: urllib.request.Request, timeout: float, most: int = 2000) -> Answer:
    """The answer's status and its first `most` bytes."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return Answer(r.status, r.read(most).decode(errors="replace"), time.monotonic() - start)
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.read(most).decode(errors="replace"), time.monotonic() - start)
    except (urllib.error.URLError, OSError) as e:
        # No answer at all (a reset, a timeout): status 0, said as such in the case's line.
        return Answer(0, str(e), time.monotonic() - start)


def is_loom_lab(base: str) -> bool:
    """Whether `base` is loom-lab at all (its /api/info names its pools): a port held by something
    else would answer every case with nothing, and no case would mean anything."""
    answer = get(base + "/api/info", most=1 << 20)
    try:
        return answer.status == 200 and "pools" in json.loads(answer.body)
    except ValueError:
        return False


def grpc_status(base: str, frame: Path, encoding: str | None, mode: str) -> tuple[str, float]:
    """The grpc-status curl saw (or its exit when the stream was reset), and the seconds it took."""
    headers = ["-H", "content-type: application/grpc", "-H", "te: trailers", "-H", f"loomlab-mode: {mode}"]
    if encoding:
        headers += ["-H", f"grpc-encoding: {encoding}"]
    start = time.monotonic()
    p = subprocess.run(
        ["curl", "-s", "--max-time", "60", "--http2-prior-knowledge", *headers, "--data-binary", f"@{frame}",
         "-D", "-", "-o", "/dev/null", base + GRPC_PATH],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    took = time.monotonic() - start
    for line in p.stdout.splitlines():
        if line.lower().startswith("grpc-status:"):
            return line.split(":", 1)[1].strip(), took
    return f"curl exit {p.returncode}", took
