"""What a merge costs: `python3 -m loomlab.bench.measuring.merge_measure [REQUESTS] [RUNNERS]` (from
scripts/) writes RUNNERS gzipped CSVs in k6's layout holding REQUESTS requests in all (13 rows each, as k6 writes an
HTTP request and its iteration), then merges them in a child process and prints its wall time and
peak RSS. The figure the docs give: 1,000,000 requests over 4 runners."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from loomlab import LabError, command

from . import k6csv

WANTED = ["http_req_duration", "http_reqs", "http_req_failed", "dropped_iterations"]
CHILD = """
import json, sys
from pathlib import Path
from loomlab.bench.measuring import merge
files, summaries = [Path(p) for p in sys.argv[1].split(",")], json.loads(sys.argv[2])
result = merge.merge(files, summaries, set(sys.argv[3].split(",")))
print(json.dumps(result["metrics"]["http_req_duration{scenario:main}"]["values"]))
"""


def summary(duration_s: float) -> dict:
    trend = {
        "type": "trend",
        "values": {s: 0 for s in ("avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count")},
    }
    return {
        "metrics": {
            "http_req_duration{scenario:main}": trend,
            "http_reqs{scenario:main}": {"type": "counter", "values": {"count": 0, "rate": 0}},
            "http_req_failed{scenario:main}": {"type": "rate", "values": {"rate": 0}},
            "dropped_iterations": {"type": "counter", "values": {"count": 0, "rate": 0}},
        },
        "state": {"testRunDurationMs": duration_s * 1000},
    }


def main(argv):
    total = int(argv[0]) if argv else 1_000_000
    n = int(argv[1]) if len(argv) > 1 else 4
    rate = 2000.0
    with tempfile.TemporaryDirectory(prefix="merge-measure-") as tmp:
        files = [Path(tmp) / f"runner-{i}.csv.gz" for i in range(n)]
        started = time.monotonic()
        for i, path in enumerate(files):
            k6csv.write(path, k6csv.requests(total // n, seed=i, rate=rate / n, start=1_000_000 + i * 100))
        size = sum(p.stat().st_size for p in files)
        print(
            f"wrote {total:,} requests ({total * 13:,} rows, {size / 1e6:.0f} MB gzipped) over {n} runners"
            f" in {time.monotonic() - started:.0f} s",
            flush=True,
        )
        summaries = [summary(total / rate)] * n
        started = time.monotonic()
        child = subprocess.run(
            [sys.executable, "-c", CHILD, ",".join(map(str, files)), json.dumps(summaries), ",".join(WANTED)],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
        )
        took = time.monotonic() - started
        if child.returncode:
            raise LabError(child.stderr)
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        values = json.loads(child.stdout)
        print(
            f"merged in {took:.1f} s, peak RSS {rss_mb:.0f} MB: {values['count']:,} durations,"
            f" p50 {values['med']:.1f} ms, p99 {values['p(99)']:.1f} ms"
        )


if __name__ == "__main__":
    command(main, sys.argv[1:])
