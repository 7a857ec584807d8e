"""The requests the suite sends: HTTP through the standard library, the gRPC calls over h2's HTTP/2
(with prior knowledge, which the standard library does not speak)."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import h2.config
import h2.connection
import h2.events
import h2.exceptions

GRPC_PATH = "/loomlab.ingest.v1.Ingest/WriteRecruits"
# A call's deadline: far past any answer the service gives, short of a run's patience.
GRPC_DEADLINE_S = 60


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
    """One gRPC call that sends `frame` as its request: the grpc-status it ended with, or how it ended
    without one ("reset N", "http N without a grpc-status", "connection closed", the socket's error,
    "no answer" at the deadline), and the seconds it took. Sent as gRPC clients send it: as far as the
    stream's window allows, and no further once the call has its end."""
    url = urllib.parse.urlsplit(base)
    headers = [(":method", "POST"), (":scheme", "http"), (":authority", url.netloc), (":path", GRPC_PATH),
               ("content-type", "application/grpc"), ("te", "trailers"), ("loomlab-mode", mode)]  # fmt: skip
    if encoding:
        headers.append(("grpc-encoding", encoding))
    start = time.monotonic()
    try:
        status = _call(url, headers, frame.read_bytes(), start + GRPC_DEADLINE_S)
    except TimeoutError:
        status = "no answer"
    except (OSError, h2.exceptions.H2Error) as e:
        status = f"{type(e).__name__}: {e}"
    return status, time.monotonic() - start


def _call(url: urllib.parse.SplitResult, headers: list, body: bytes, deadline: float) -> str:
    """The call on a connection of its own, every wait (connect, send, receive) within `deadline`."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    answer: dict[bytes, bytes] = {}
    status, sent = "", 0
    with socket.create_connection((url.hostname, url.port or 80), timeout=GRPC_DEADLINE_S) as sock:
        conn.initiate_connection()
        conn.send_headers(1, headers, end_stream=not body)
        while not status:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            window = min(conn.local_flow_control_window(1), conn.max_outbound_frame_size, len(body) - sent)
            if window > 0:
                conn.send_data(1, body[sent : sent + window], end_stream=sent + window == len(body))
                sent += window
            sock.sendall(conn.data_to_send())
            if window > 0 and sent < len(body):
                continue
            data = sock.recv(1 << 16)
            if not data:
                return "connection closed"
            for event in conn.receive_data(data):
                status = status or _end_of(event, answer)
    return status


def _end_of(event: h2.events.Event, answer: dict[bytes, bytes]) -> str:
    """How `event` ends the call, if it does: its grpc-status (in the trailers, or in headers alone), the
    end of an answer that gave none, a reset, the connection's end; `answer` keeps the headers seen."""
    if isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
        answer.update(event.headers or [])
        return answer.get(b"grpc-status", b"").decode()
    if isinstance(event, h2.events.StreamEnded):
        return f"http {answer.get(b':status', b'-').decode()} without a grpc-status"
    if isinstance(event, h2.events.StreamReset):
        return f"reset {event.error_code}"
    if isinstance(event, h2.events.ConnectionTerminated) and (event.error_code or not event.last_stream_id):
        return f"connection closed ({event.error_code})"
    return ""
