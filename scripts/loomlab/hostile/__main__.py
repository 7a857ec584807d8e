"""`python -m loomlab.hostile --url URL`: hostile clients against a running service (`./lab test`
starts the packaged jar at the pods' heap for it; CI also points it at the JVM pod through `kubectl
port-forward`). Each case is sent, its answer checked against its contract, with what it cost the
service (CPU, sampled heap peak, records written) read from its /q/metrics; then endpoints are
flooded while liveness is probed. Prints one line a case and, with --out, writes the rows as JSON
and a Markdown table beside them; exits 1 if any case was answered otherwise than its contract says,
or if the service stopped being ready."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from loomlab import command
from loomlab.hostile import bodies
from loomlab.hostile.cases import Row, bodies_to_send, grpc_rows, send_body
from loomlab.hostile.client import get, is_loom_lab
from loomlab.hostile.flood import LIVE_WITHIN_S, flood, floods


def table(rows: list[Row]) -> str:
    head = "| class | case | request | answer | slowest s | CPU s | heap peak MiB | records before -> after | holds |"
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        c = r.cost
        lines.append(
            f"| {r.kind} | {r.name} | {r.request} | {r.answer} | {r.seconds:.2f} | {c.cpu_s:.2f} | "
            f"{c.heap_peak_mib:.0f} | {c.records_before:.0f} -> {c.records_after:.0f} | {'yes' if r.ok else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loomlab.hostile", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the service's root")
    parser.add_argument("--gib", type=int, default=1, help="GiB the gzip bomb inflates to (default 1)")
    parser.add_argument("--at-once", type=int, default=6, help="large bodies sent at once (default 6)")
    parser.add_argument("--flood-seconds", type=float, default=10, help="each flood's length (default 10)")
    parser.add_argument("--no-floods", action="store_true", help="the cases only, no liveness under floods")
    parser.add_argument("--out", type=Path, help="write the rows here (JSON) and a Markdown table beside")
    args = parser.parse_args(argv)
    base = args.url.rstrip("/")
    if not is_loom_lab(base):
        print(f"hostile: {base} is not a loom-lab service (no /api/info with its pools)", file=sys.stderr)
        return 2
    rows: list[Row] = []

    def keep(row: Row) -> None:
        print(row.line(), flush=True)
        rows.append(row)

    for row in grpc_rows(base, args.gib):
        keep(row)
    for case in bodies_to_send(args.at_once):
        keep(send_body(base, case))
    if not args.no_floods:
        for f in floods(lambda: bodies.violation_per_element({})):
            keep(flood(base, f, args.flood_seconds))
    ready = get(base + "/q/health/ready").status == 200
    print(f"hostile: ready after all of it: {'yes' if ready else 'NO'}")
    failed = [r.name for r in rows if not r.ok]
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=1) + "\n")
        args.out.with_suffix(".md").write_text(table(rows))
    if failed:
        within = f"{LIVE_WITHIN_S * 1000:.0f} ms"
        said = f"{len(failed)} not as their contract says: {', '.join(failed)} (liveness: every probe within {within})"
        print(f"hostile: {said}", file=sys.stderr)
    return 1 if failed or not ready else 0


if __name__ == "__main__":
    command(main)
