"""`python -m loomlab.hostile --url URL`: input built to be expensive, sent from outside to a running
service (`./lab serve`, or a pod through `kubectl port-forward`), each answer checked and the
service's readiness after it. The gRPC bombs go through curl (HTTP/2 with prior knowledge, which the
standard library does not speak). Prints one line a case; exits 1 if any case was answered otherwise
than its contract says, or if the service stopped being ready."""

from __future__ import annotations

import argparse
import gzip
import json
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from loomlab import command

GRPC_PATH = "/loomlab.ingest.v1.Ingest/WriteRecruits"


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    seconds: float


def post(url: str, body: bytes, timeout: float = 120) -> Answer:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return Answer(r.status, r.read(2000).decode(errors="replace"), time.monotonic() - start)
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.read(2000).decode(errors="replace"), time.monotonic() - start)


def is_loom_lab(base: str) -> bool:
    """Whether `base` is loom-lab at all (its /api/info names its pools): a port held by something
    else would answer every bomb with nothing, and no case would mean anything."""
    try:
        with urllib.request.urlopen(base + "/api/info", timeout=10) as r:
            return "pools" in json.loads(r.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False


def ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/q/health/ready", timeout=10) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def embedding_bomb() -> bytes:
    """About 10 MB of JSON: one record whose embedding holds 1.7 million numbers."""
    return b'[{"id":1,"company":"c","title":"t","embedding":[' + b",".join([b"0.123"] * 1_700_000) + b"]}]"


def tiny_records_bomb() -> bytes:
    """200,000 records of one key each (2.6 MB)."""
    return b"[" + b",".join(b'{"id":%d}' % i for i in range(1, 200_001)) + b"]"


def grpc_status(base: str, frame: Path, encoding: str | None) -> tuple[str, float]:
    """The grpc-status curl saw (or its exit when the stream was reset), and the seconds it took."""
    headers = ["-H", "content-type: application/grpc", "-H", "te: trailers", "-H", "loomlab-mode: virtual"]
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


def gzip_frame(directory: Path, gib: int) -> Path:
    """One message of `gib` GiB of zeros, gzip-compressed, flagged compressed: a few MB on the wire."""
    packed = directory / "bomb.gz"
    with gzip.open(packed, "wb", compresslevel=9) as out:
        block = bytes(1 << 20)
        for _ in range(gib << 10):
            out.write(block)
    data = packed.read_bytes()
    frame = directory / "bomb.frame"
    frame.write_bytes(b"\x01" + struct.pack(">I", len(data)) + data)
    return frame


class Cases:
    """Each case's line, and which were answered otherwise than their contract says."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    def check(self, name: str, ok: bool, said: str) -> None:
        print(f"hostile: {name}: {said}{'' if ok else '  <- not as its contract says'}")
        if not ok:
            self.failed.append(name)


def grpc_bombs(base: str, gib: int, cases: Cases) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        frame = gzip_frame(Path(tmp), gib)
        size = frame.stat().st_size
        status, took = grpc_status(base, frame, "gzip")
        said = f"grpc-status {status} in {took:.2f} s"
        cases.check(f"gzip bomb ({size:,} bytes, {gib} GiB inflated)", status == "12", said)
        status, took = grpc_status(base, frame, None)
        cases.check("compressed flag, no encoding", status != "0", f"{status} in {took:.2f} s")


def body_bombs(base: str, at_once: int, cases: Cases) -> None:
    url = base + "/api/worker/recruits/batch"
    for name, body in (("embedding bomb", embedding_bomb()), ("tiny-records bomb", tiny_records_bomb())):
        with ThreadPoolExecutor(at_once) as pool:
            answers = list(pool.map(post, [url] * at_once, [body] * at_once))
        statuses = sorted({a.status for a in answers})
        slowest = max(a.seconds for a in answers)
        ok = all(a.status in (400, 503) for a in answers)
        cases.check(f"{name} ({len(body):,} bytes) x{at_once} at once", ok, f"{statuses} within {slowest:.2f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loomlab.hostile", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the service's root")
    parser.add_argument("--gib", type=int, default=1, help="GiB the gzip bomb inflates to (default 1)")
    parser.add_argument("--at-once", type=int, default=6, help="body bombs sent at once (default 6)")
    args = parser.parse_args(argv)
    base = args.url.rstrip("/")
    if not is_loom_lab(base):
        print(f"hostile: {base} is not a loom-lab service (no /api/info with its pools)", file=sys.stderr)
        return 2
    cases = Cases()
    grpc_bombs(base, args.gib, cases)
    body_bombs(base, args.at_once, cases)
    nul = json.dumps([{"id": 1, "company": "a\u0000b", "title": "t", "embedding": [0.5] * 384}]).encode()
    answer = post(base + "/api/virtual/recruits/batch?writes=parallel", nul)
    cases.check("U+0000 in a company", answer.status == 400, f"{answer.status} in {answer.seconds:.2f} s")
    up = ready(base)
    cases.check("ready after all of it", up, "ready" if up else "NOT ready")
    return 1 if cases.failed else 0


if __name__ == "__main__":
    command(main)
