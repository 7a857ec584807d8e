"""Seed D: chunked upserts of two domains (recruits, candidates) into a parent and three child
tables, sequential, parallel or through COPY, over HTTP/JSON or the seed's gRPC stream."""

from __future__ import annotations

from loomlab import ROOT

from ..planning.arrivals import Bodies, Request, Stream
from ..planning.lane import VIRTUAL, Lane
from ..planning.loads import Load, Scale, Suite, modes_of
from .chunks import chunk_count, chunk_lines, chunk_messages

# Seed D: 87,488 records in 875 chunks; sequential 113.0 rec/s, parallel 168.8 rec/s.
SEED_D = {"sequential": {"worker": {"records_per_s": 113.0}}, "parallel": {"worker": {"records_per_s": 168.8}}}

# The server's milliseconds per table of each chunk, by the table's role (k6/lib/ingest.js).
INGEST_TRENDS = (
    ("loomlab_table_parent_ms", "parent ms", "med"),
    ("loomlab_table_skill_ms", "skill ms", "med"),
    ("loomlab_table_text_ms", "text ms", "med"),
    ("loomlab_table_embedding_ms", "embedding ms", "med"),
)

SWEEP_CHUNKS = (100, 200, 300, 500, 1000)
# What else every mode shares (answer.py); one chunk in flight has no pool bound.
BOUND_NAMES: dict = {}
USES = "CPU and the database, shared with k6"
ROUND_TRIP = ("simulated round trip 20 ms per statement", {"LOOMLAB_INGEST_SIMULATED_ROUND_TRIP": "20ms"})

# domain -> (its tables, what a record is): seed D's two domains, one k6 stream (lib/ingest.js).
INGEST_DOMAINS = {
    "recruits": ("recruit, recruit_skill, recruit_description and recruit_skill_embedding", "job postings"),
    "candidates": ("candidate, candidate_skill, candidate_description and candidate_skills_embedding", "people"),
}


def table_fields(domain: str) -> tuple:
    """Each per-table trend's field of a chunk's answer (dev.loomlab.ingest.BatchResult.tableMs, by
    table name), in the roles' order of INGEST_TRENDS."""
    tables = INGEST_DOMAINS[domain][0].replace(" and ", ", ").split(", ")
    return tuple((metric, f"tableMs.{table}") for (metric, _, _), table in zip(INGEST_TRENDS, tables, strict=True))


# The acknowledgement's time per table, by the table's role (ChunkAck.tables, TableWrite.Role).
ACK_FIELDS = tuple(
    (metric, f"tables.role={role}.ms")
    for (metric, _, _), role in zip(INGEST_TRENDS, ("PARENT", "SKILL", "TEXT", "EMBEDDING"), strict=True)
)
PROTO = ROOT / "src/main/proto/ingest.proto"


def chunk_request(domain: str, grpc: bool = False):
    """One user sending the stream's chunks in order, as k6/lib/ingest.js's postChunk does over HTTP
    (POST /api/{MODE}/{domain}/batch?writes=W, each answered 200 with its records and per-table times)
    or k6/ingest-grpc.js over the seed's gRPC stream (one stream, a chunk a message, one awaiting its
    acknowledgement at a time, the mode and strategy in its metadata)."""

    def request(env: dict) -> Request:
        shape = {k: env.get(k, "") for k in ("RECORDS", "CHUNK", "ID_BASE", "SEED", "DIM")}
        counts = (("loomlab_records", "records"),)
        if not grpc:
            bodies = Bodies(f"{domain} {shape}", chunk_count(env), lambda: chunk_lines(env, domain))
            path = f"/api/{env['MODE']}/{domain}/batch?writes={env['WRITES']}"
            return Request((path,), counts=counts, fields=table_fields(domain), bodies=bodies)
        messages = Bodies(f"{domain} gRPC {shape}", chunk_count(env), lambda: chunk_messages(env, domain))
        stream = Stream(
            f"loomlab.ingest.v1.Ingest/Write{domain.capitalize()}",
            str(PROTO),
            (("loomlab-mode", env["MODE"]), ("loomlab-writes", env["WRITES"])),
            window=int(env.get("WINDOW", 1)),
        )
        return Request((), counts=counts, fields=ACK_FIELDS, bodies=messages, stream=stream)

    return request


def modes_for(domain: str, writes: str, grpc: bool) -> tuple[Lane, ...]:
    """COPY, the anchor, once; the gRPC stream and COPY have the modes the matrix gives them."""
    if writes == "copy":
        return (Lane(VIRTUAL),)
    return modes_of("ingest-grpc") if grpc else modes_of(domain)


def ingest_suite(
    domain: str,
    records: int,
    variant: str,
    server_env: dict,
    id_base: int,
    chunks: tuple = (100,),
    strategies: tuple = ("sequential", "parallel", "copy"),
    transport: str = "http",
) -> Suite:
    """Seed D's chunk stream of one domain, over HTTP/JSON (k6/<domain>.js, a POST per chunk) or over
    the seed's own transport, a gRPC stream of protobuf chunks (k6/ingest-grpc.js): the same records,
    one chunk in flight, the same rows in the summary. Long because it declares the suite's loads
    with their k6 settings and bounds."""
    seed_size = records == 87_488 and domain == "recruits"
    grpc = transport == "grpc"
    loads = []
    for chunk, writes in ((c, w) for w in strategies for c in chunks):
        env = {"RECORDS": str(records), "CHUNK": str(chunk), "WRITES": writes, "ID_BASE": str(id_base)}
        if grpc:
            env["DOMAIN"] = domain
        loads.append(
            Load(
                f"{records:,} records in chunks of {chunk}, {writes}"
                + (" (D)" if seed_size else "")
                + (", gRPC stream" if grpc else ""),
                "k6/ingest-grpc.js" if grpc else f"k6/{domain}.js",
                f"{domain}_grpc" if grpc else domain,
                env,
                seed=SEED_D.get(writes, {}) if seed_size and not variant and not grpc else {},
                lanes=modes_for(domain, writes, grpc),
                timeout_s=1800,
                counters=("loomlab_records",),
                extra_report=INGEST_TRENDS,
                est_s=records / (700 if variant and not grpc else 3000 if grpc else 3500) + 1,
                warmup_est_s=min(records, 1000) / (700 if variant and not grpc else 3500) + 1,
                warmup_env={"RECORDS": str(min(records, 1000))},
                request=chunk_request(domain, grpc),
            )
        )
    tables, what = INGEST_DOMAINS[domain]
    setup = "gRPC stream" if grpc else ""
    return Suite(
        workload=domain,
        variant=", ".join(v for v in (setup, variant) if v),
        description=f"Seed D: {domain} ({what}) streamed in chunks of {'/'.join(map(str, chunks))}"
        f" and upserted into {tables} "
        "(pgvector 384): sequential (one transaction) vs parallel (parent, then the three children at once on the "
        "request's model"
        + (")" if grpc else "; reactive: concurrent Unis on the reactive pool)")
        + (", with COPY as the anchor" if "copy" in strategies else "")
        + (
            "; over the seed's transport, one gRPC stream of protobuf chunks each acknowledged after its commit "
            "(k6/ingest-grpc.js, the same records as the HTTP/JSON rows)"
            if grpc
            else ""
        )
        + (f"; {variant}" if variant else ""),
        server_env=server_env,
        loads=loads,
        # A variant (a simulated round trip) changes the seed's setup; the gRPC transport does not.
        core=not variant,
        summary="ingest",
    )


def suites(scale: Scale) -> list[Suite]:
    records = scale.records
    smaller = records if not scale.seeds else 10_000
    return [
        ingest_suite("recruits", records, "", {}, 1),
        # The seed's next step: its second domain through the same engine and stream.
        ingest_suite("candidates", smaller, "", {}, 1),
        # Seed D's own transport: the same recruits as one gRPC stream of protobuf chunks.
        ingest_suite("recruits", smaller, "", {}, 1, strategies=("sequential", "parallel"), transport="grpc"),
        # Behind a network: the round trips the parallel children overlap.
        ingest_suite("recruits", smaller, *ROUND_TRIP, 1),
    ]


def sweep_suites() -> list[Suite]:
    """Seed D's next step, chunks of 200-300 and beyond: every size for both domains, every mode,
    sequential and parallel, here and behind a simulated 20 ms round trip per statement."""
    return [
        ingest_suite(domain, 3_000, variant, env, 1, SWEEP_CHUNKS, ("sequential", "parallel"), transport)
        for variant, env in (("", {}), ROUND_TRIP)
        for transport in ("http", "grpc")
        for domain in INGEST_DOMAINS
    ]
