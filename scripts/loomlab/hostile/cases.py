"""Each case: a request (sent some times at once), the answers its contract allows, and what it cost
the service. A case holds when every answer is one it allows and the service wrote no record."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from loomlab.bench import api as bench
from loomlab.hostile import bodies
from loomlab.hostile.client import grpc_status, post
from loomlab.hostile.watch import Cost, Watch


@dataclass(frozen=True)
class Row:
    kind: str
    name: str
    request: str
    answer: str
    seconds: float
    cost: Cost
    ok: bool

    def line(self) -> str:
        c = self.cost
        return (
            f"hostile: {self.kind}: {self.name}: {self.request} -> {self.answer} in {self.seconds:.2f} s, "
            f"{c.cpu_s:.2f} s CPU, heap peak {c.heap_peak_mib:.0f} MiB, records {c.records_before:.0f} -> "
            f"{c.records_after:.0f}{'' if self.ok else '  <- not as its contract says'}"
        )


@dataclass(frozen=True)
class Body:
    kind: str
    name: str
    make: Callable[[], bytes]
    allowed: frozenset[int]
    mode: str = bench.WORKER  # the path segment of the mode it is sent to (/api/{mode}/...)
    at_once: int = 1


def bodies_to_send(at_once: int) -> list[Body]:
    refused = frozenset({400})
    busy = frozenset({400, 503})  # at once, a request may find no thread or permit: 503, nothing done
    return [
        Body("cost", "embedding of 1.7M numbers (10 MB)", bodies.embedding_bomb, busy, at_once=at_once),
        Body("cost", "200,000 one-key records (2.6 MB)", bodies.tiny_records, busy, at_once=at_once),
        Body("cost", "1,000 records x 50 empty skills", lambda: bodies.violation_per_element({}), busy,
             at_once=10),
        Body("cost", "same, reactive (checked on the event loop)", lambda: bodies.violation_per_element({}), busy,
             mode=bench.REACTIVE, at_once=10),
        Body("cost", "same, virtual-loop (read and checked on its event loop)",
             lambda: bodies.violation_per_element({}), busy, mode=bench.VIRTUAL_LOOP, at_once=10),
        Body("cost", "embedding of 1.7M numbers, virtual-loop", bodies.embedding_bomb, busy, mode=bench.VIRTUAL_LOOP,
             at_once=at_once),
        Body("cost", "1,000 records x 50 skills of two violations", lambda: bodies.violation_per_element(
            {"level": 0}), busy, at_once=10),
        Body("bounds", "100,000 levels of nesting", bodies.deep_nesting, refused),
        Body("bounds", "11 MB, over the body limit", bodies.over_the_limit, frozenset({413})),
        Body("one meaning", "a key given twice", bodies.key_twice, refused),
        Body("one meaning", "half a surrogate pair", bodies.lone_surrogate, refused),
        Body("one meaning", "a time as the number 1e64", bodies.time_as_number, refused),
        Body("one meaning", "U+0000 in a text", bodies.nul_in_text, refused, mode=bench.VIRTUAL),
        Body("one meaning", "a key given twice, virtual-loop", bodies.key_twice, refused, mode=bench.VIRTUAL_LOOP),
    ]  # fmt: skip


def send_body(base: str, case: Body) -> Row:
    body = case.make()
    url = f"{base}/api/{case.mode}/recruits/batch"
    with Watch(base) as watch, ThreadPoolExecutor(case.at_once) as pool:
        answers = list(pool.map(lambda _: post(url, body), range(case.at_once)))
    statuses = sorted({a.status for a in answers})
    cost = watch.cost
    ok = set(statuses) <= case.allowed and cost.records_after == cost.records_before
    request = f"{len(body):,} bytes x{case.at_once} to {case.mode}"
    return Row(case.kind, case.name, request, "/".join(map(str, statuses)), max(a.seconds for a in answers),
               cost, ok)  # fmt: skip


def grpc_rows(base: str, gib: int) -> list[Row]:
    """A gzip bomb over gRPC (its chunks on virtual threads, and on the loop's), and its frame again
    flagged compressed without an encoding."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        frame = bodies.gzip_frame(Path(tmp), gib)
        request = f"{frame.stat().st_size:,} bytes, {gib} GiB inflated"
        for name, mode, encoding, good in (
            ("gzip bomb", bench.VIRTUAL, "gzip", {"12"}),
            ("gzip bomb, virtual-loop", bench.VIRTUAL_LOOP, "gzip", {"12"}),
            ("compressed flag, no encoding", bench.VIRTUAL, None, None),
        ):
            with Watch(base) as watch:
                status, took = grpc_status(base, frame, encoding, mode)
            # The flag without an encoding: no status, the stream reset (Vert.x alone would end it OK).
            answered = status in good if good else status.startswith("reset")
            ok = answered and watch.cost.records_after == watch.cost.records_before
            answer = f"grpc-status {status}" if status.isdigit() else status
            rows.append(Row("grpc", name, request, answer, took, watch.cost, ok))
    return rows
