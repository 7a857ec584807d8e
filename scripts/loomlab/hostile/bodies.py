"""The bodies the suite sends, each built to cost the service or to mean two things. Every one is a
recruits batch of at most the service's body limit (10 MB) unless its name says it is over it."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

EMBEDDING = [0.5] * 384


def record(i: int, **fields: object) -> dict:
    """A valid recruit with id `i`, its fields replaced or added by `fields`."""
    return {"id": i, "company": "c", "title": "t", "embedding": EMBEDDING, **fields}


def batch(records: list[dict]) -> bytes:
    return json.dumps(records, separators=(",", ":")).encode()


def embedding_bomb() -> bytes:
    """About 10 MB of JSON: one record whose embedding holds 1.7 million numbers."""
    return b'[{"id":1,"company":"c","title":"t","embedding":[' + b",".join([b"0.123"] * 1_700_000) + b"]}]"


def tiny_records() -> bytes:
    """200,000 records of one key each (2.6 MB)."""
    return b"[" + b",".join(b'{"id":%d}' % i for i in range(1, 200_001)) + b"]"


def violation_per_element(skill: dict) -> bytes:
    """1,000 records of 50 skills each `skill` (a violation or two per skill: 50,000 or more)."""
    return batch([record(900_000 + i, skills=[skill] * 50) for i in range(1_000)])


def deep_nesting() -> bytes:
    """100,000 levels of arrays in one record's field."""
    return b'[{"id":1,"company":"c","title":"t","skills":' + b"[" * 100_000 + b"]" * 100_000 + b"}]"


def over_the_limit() -> bytes:
    """11 MB: over the body limit, to be refused before it is read."""
    return b"[" + b" " * (11 << 20) + b"]"


def key_twice() -> bytes:
    """A record whose skills are given twice: the last would win and delete the stored skills."""
    one = batch([record(910_001, skills=[{"name": "java", "level": 3}])])
    return one[:-2] + b',"skills":[]}]'


def lone_surrogate() -> bytes:
    """Half a UTF-16 surrogate pair in a company (stored as '?' if accepted)."""
    return batch([record(910_002)]).replace(b'"company":"c"', b'"company":"a\\ud800b"')


def time_as_number() -> bytes:
    """A time given as a number (1e64, read as 1970-01-01 if accepted)."""
    return batch([record(910_003)])[:-2] + b',"postedAt":1e64}]'


def nul_in_text() -> bytes:
    """U+0000 in a company: PostgreSQL refuses it in text."""
    return batch([record(910_004, company="a\u0000b")])


def gzip_frame(directory: Path, gib: int) -> Path:
    """One gRPC message of `gib` GiB of zeros, gzip-compressed, flagged compressed: a few MB on the
    wire."""
    packed = directory / "bomb.gz"
    with gzip.open(packed, "wb", compresslevel=9) as out:
        block = bytes(1 << 20)
        for _ in range(gib << 10):
            out.write(block)
    data = packed.read_bytes()
    frame = directory / "bomb.frame"
    frame.write_bytes(b"\x01" + struct.pack(">I", len(data)) + data)
    return frame
