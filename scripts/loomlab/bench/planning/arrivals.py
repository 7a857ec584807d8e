"""What one arrival of a load sends, for the engines that do not run its k6 script (loadgen): the
request (paths, checks, the answers' figures the load reports) and, for a stream, its bodies."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Bodies:
    """The bodies of a load that posts a stream (seed D's chunks): `count` of them, each sent once in
    order; `lines` makes them, one a line; `key` names what they hold, so that runs of the same
    stream in every column share one file."""

    key: str
    count: int
    lines: Callable[[], Iterable[str]]
    content_type: str = "application/json"


@dataclass(frozen=True)
class Stream:
    """A gRPC stream in both directions instead of HTTP requests (seed D's transport): `method`
    ("package.Service/Method") of the service's .proto at `proto`, each body one message (proto3
    JSON), at most `window` awaiting their acknowledgement; `metadata` sent with the stream."""

    method: str
    proto: str
    metadata: tuple[tuple[str, str], ...] = ()
    window: int = 1


@dataclass(frozen=True)
class Request:
    """What the arrivals of a load send, for the engines that do not run its k6 script (loadgen): GETs
    of `paths` below the service's URL, taken in turn (POSTs of `bodies`, where given, one user
    sending each once); every answer's body holds each of `expect`, and no answer comes sooner than
    `floor_ms` (a guard against measuring the wrong endpoint), as the script checks. `counts` names
    the load's counters by what they count: the answers of a status, or the sum of a numeric field of
    the answers (k6's Counter); `fields` and `latency_of` give the load's custom trends (k6's Trend):
    a numeric field of each answer's JSON body (a dotted path), or the latency of the answers whose
    path holds a text; with `stream`, the bodies are the messages of one gRPC stream and each
    acknowledgement an answer. `limits` are the script's own thresholds on latency figures (ms), `max_errors`
    on the error rate (k6/lib/lab.js: 0.01, or the load's MAX_ERRORS)."""

    paths: tuple[str, ...]
    expect: tuple[str, ...] = ()
    floor_ms: float = 0.0
    counts: tuple[tuple[str, int | str], ...] = ()
    limits: tuple[tuple[str, float], ...] = ()
    max_errors: float | None = None
    fields: tuple[tuple[str, str], ...] = ()
    latency_of: tuple[tuple[str, str], ...] = ()
    bodies: Bodies | None = None
    stream: Stream | None = None  # the bodies go on one gRPC stream; `paths` are then unused
