"""bench/running/skeleton.py, the run skeleton every driver shares: the server scraped before, during and
after a run, its scrapes written beside the run's files, also when the run fails."""

from __future__ import annotations

import json
import tempfile
import threading
import unittest
from pathlib import Path

from loomlab.bench.running.skeleton import sampled


class Scraped:
    """A service whose scrapes count themselves; the first one fails, as a scrape may."""

    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def sample(self) -> dict:
        with self.lock:
            self.n += 1
            if self.n == 1:
                raise OSError("connection refused")
            return {"scrape": self.n}


class SampledTest(unittest.TestCase):
    def test_a_run_is_scraped_before_and_after_and_a_failed_scrape_is_left_out(self):
        service = Scraped()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp, "run.json")
            run = sampled(service, 3600, out, lambda: "done")  # type: ignore[arg-type]
            kept = [json.loads(line) for line in out.with_suffix(".metrics.jsonl").read_text().splitlines()]
        self.assertEqual(run.result, "done")
        self.assertEqual([s["scrape"] for s in run.samples], [2])
        self.assertEqual(kept, run.samples)
        self.assertTrue(all("t" in s for s in kept))
        self.assertGreaterEqual(run.took, 0.0)

    def test_a_failed_run_still_stops_the_sampler_and_keeps_its_scrapes(self):
        service = Scraped()

        def fails() -> None:
            raise RuntimeError("the generator died")

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp, "run.json")
            with self.assertRaisesRegex(RuntimeError, "died"):
                sampled(service, 3600, out, fails)  # type: ignore[arg-type]
            self.assertFalse(out.with_suffix(".metrics.jsonl").exists())
        self.assertEqual(service.n, 2, "scraped before, and once after: the sampler stopped")
        self.assertEqual([t.name for t in threading.enumerate() if t.daemon and "Sampler" in type(t).__name__], [])


if __name__ == "__main__":
    unittest.main()
