"""Seed D's chunk bodies as loadgen sends them: the records k6/lib/ingest.js, k6/recruits.js and
k6/candidates.js make, byte for byte (the same PRNG, mulberry32, seeded per record id; the same
64 embeddings; the same JSON text), one chunk's JSON array a line. A test holds a few records to the
text k6 printed for them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

SKILLS = (
    "java kotlin sql postgresql kubernetes quarkus spring go python kafka redis aws react typescript terraform"
).split()
CITIES = ("Seoul", "Busan", "Incheon", "Daegu", "Daejeon", "Gwangju", "remote")
ROLES = ("Backend", "Platform", "Data", "Frontend", "Site reliability")
FIRST = ("Minjun", "Seoyeon", "Jiho", "Haeun", "Doyun", "Jiwoo", "Ara", "Taeyang")
LAST = ("Kim", "Lee", "Park", "Choi", "Jung", "Kang")
EMBEDDINGS = 64
MASK = 0xFFFFFFFF


def imul(a: int, b: int) -> int:
    """JavaScript's Math.imul, as an unsigned 32-bit result."""
    return (a * b) & MASK


def prng(seed: int) -> Callable[[], float]:
    """mulberry32, as k6/lib/ingest.js's prng: floats in [0, 1)."""
    state = seed & MASK

    def next_float() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = imul(state ^ (state >> 15), state | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    return next_float


def js_number(v: float) -> str:
    """A number as JSON.stringify writes it (integers without a fraction, -0 as 0)."""
    return str(int(v)) if v == int(v) else repr(v)


def embeddings(seed: int, dim: int) -> list[str]:
    """The 64 embeddings every record takes one of (by id), each as JSON text."""
    r = prng(seed)
    # Math.round rounds halves up, toward +infinity.
    return [
        "[" + ",".join(js_number(math.floor((r() * 2 - 1) * 1e4 + 0.5) / 1e4) for _ in range(dim)) + "]"
        for _ in range(EMBEDDINGS)
    ]


def skills_of(r: Callable[[], float]) -> list[dict]:
    """1-5 distinct skills with levels 1-5."""
    n = 1 + math.floor(r() * 5)
    start = math.floor(r() * len(SKILLS))
    return [{"name": SKILLS[(start + k) % len(SKILLS)], "level": 1 + math.floor(r() * 5)} for k in range(n)]


def pick(r: Callable[[], float], items):
    return items[math.floor(r() * len(items))]


def recruit(r: Callable[[], float], id_: int) -> dict:
    skills = skills_of(r)
    low = 30000 + math.floor(r() * 50) * 1000
    company = f"Company {math.floor(r() * 5000)}"
    title = f"{pick(r, ROLES)} engineer"
    location = pick(r, CITIES)
    high = low + math.floor(r() * 60) * 1000
    posted = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=math.floor(r() * 300))
    what = pick(r, ("payments", "search", "logistics", "games"))
    return {
        "id": id_,
        "company": company,
        "title": title,
        "location": location,
        "salaryMin": low,
        "salaryMax": high,
        "postedAt": posted.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "skills": skills,
        "description": f"Recruit {id_}: we build {what} with {', '.join(s['name'] for s in skills)}.",
    }


def candidate(r: Callable[[], float], id_: int) -> dict:
    skills = skills_of(r)
    years = math.floor(r() * 25)
    name = f"{pick(r, FIRST)} {pick(r, LAST)}"
    headline = f"{pick(r, ROLES)} engineer"
    location = pick(r, CITIES)
    salary = 30000 + years * 3000 + math.floor(r() * 20) * 1000
    return {
        "id": id_,
        "name": name,
        "headline": headline,
        "location": location,
        "yearsOfExperience": years,
        "desiredSalary": salary,
        "skills": skills,
        "profile": f"Candidate {id_}: {years} years with {', '.join(s['name'] for s in skills)}.",
    }


DOMAINS = {"recruits": recruit, "candidates": candidate}


def record_json(domain: str, id_: int, seed: int, pool: list[str]) -> str:
    """One record as k6's withEmbedding writes it: its fields' JSON with the embedding appended."""
    fields = DOMAINS[domain](prng(seed * 1000003 + id_), id_)
    return json.dumps(fields, separators=(",", ":"))[:-1] + ',"embedding":' + pool[id_ % len(pool)] + "}"


def chunk_lines(env: dict, domain: str) -> Iterator[str]:
    """The load's chunks, one JSON array a line: RECORDS records from ID_BASE in chunks of CHUNK."""
    records, chunk = int(env["RECORDS"]), int(env["CHUNK"])
    base, seed = int(env.get("ID_BASE", 1)), int(env.get("SEED", 42))
    pool = embeddings(seed, int(env.get("DIM", 384)))
    for first in range(base, base + records, chunk):
        last = min(base + records, first + chunk)
        yield "[" + ",".join(record_json(domain, i, seed, pool) for i in range(first, last)) + "]"


def chunk_messages(env: dict, domain: str) -> Iterator[str]:
    """The same chunks as the gRPC stream's messages (k6/ingest-grpc.js's chunkMessage), proto3 JSON
    a line: {"sequence": i, "<domain>": [records]}."""
    for i, line in enumerate(chunk_lines(env, domain)):
        yield f'{{"sequence":{i},"{domain}":{line}}}'


def chunk_count(env: dict) -> int:
    """k6/lib/ingest.js's CHUNKS: the requests of one stream."""
    return math.ceil(int(env["RECORDS"]) / int(env["CHUNK"]))
