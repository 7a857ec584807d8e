"""A start in the cluster, phase by phase, as ClusterService.wait_ready times it from the pod first
seen: its container running, Quarkus' start-up line in its log, Ready, the first answer through the
Service."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from loomlab.bench import api as bench

# Quarkus' start-up line, as the pod log gives it with timestamps=true (RFC 3339, nanoseconds, UTC).
STARTED_IN = re.compile(r"^(\S+) .*started in (\d+\.\d+)s", re.M)
# The first answer a start waits for, through the Service.
FIRST = bench.sleep.FIRST_ANSWER


def started_line(log: str, created_at: float) -> dict[str, float]:
    """From a pod's log with timestamps: Quarkus' own start-up figure (JVM start to the application's
    start, `quarkus_started_s`) and when its line was written, from the pod first seen at `created_at`
    (Unix time; `up_s`). NaN each where the line is missing."""
    m = STARTED_IN.search(log)
    if not m:
        return {"quarkus_started_s": math.nan, "up_s": math.nan}
    stamp = m.group(1)
    whole, _, fraction = stamp.rstrip("Z").partition(".")
    at = datetime.fromisoformat(whole).replace(tzinfo=UTC).timestamp() + float(f"0.{fraction or 0}")
    return {"quarkus_started_s": float(m.group(2)), "up_s": at - created_at}
