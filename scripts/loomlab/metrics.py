"""The service's /q/metrics (Prometheus' text format) read with prometheus_client's own parser:
one parse per scrape, then the figures a scrape keeps (samples.SAMPLED_GAUGES and
SAMPLED_COUNTERS) picked by metric name and by label names and values."""

from __future__ import annotations

import math

from prometheus_client.parser import text_string_to_metric_families

from loomlab.samples import SAMPLED_COUNTERS, SAMPLED_GAUGES
from loomlab.stats import nansum

Sample = tuple[str, dict[str, str], float]


def parse(text: str) -> list[Sample]:
    """Every sample of the text: (its name, its labels, its value)."""
    return [(s.name, s.labels, s.value) for family in text_string_to_metric_families(text) for s in family.samples]


def value(samples: list[Sample], metric: str, labels: dict | None = None) -> float:
    """Sum of the samples of `metric` that carry every one of `labels` (name and value); NaN
    where there is none, or none that is a number."""
    wanted = (labels or {}).items()
    return nansum(*(v for name, have, v in samples if name == metric and all(have.get(k) == w for k, w in wanted)))


def scrape_sample(text: str) -> dict:
    """What one scrape keeps: each gauge and counter of loomlab.samples' lists by its key."""
    samples = parse(text)
    return {key: value(samples, name, labels) for key, name, labels in SAMPLED_GAUGES + SAMPLED_COUNTERS}


def api_requests(text: str) -> float:
    """Requests the service answered on its /api endpoints (the load; not the scrapes of /q/)."""
    return sum(
        v
        for name, labels, v in parse(text)
        if name == "http_server_requests_seconds_count" and labels.get("uri", "").startswith("/api/")
    )


def pin_sites(text: str) -> dict[str, float]:
    """Pins since the JVM started, by the first frame outside the JDK (the service's JFR meter)."""
    sites = "loomlab_virtual_pinned_site_events_total"
    return {labels.get("site", "?"): v for name, labels, v in parse(text) if name == sites and not math.isnan(v)}
