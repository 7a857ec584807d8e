"""`./lab startup --first-minute`: the per-second curve read from loadgen's samples, steady req/s,
time to peak, the rounds' interleaving and the report's tables."""

import math
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from loomlab.startup import cli as startup_cli
from loomlab.startup import firstminute as fm
from loomlab.startup.launches import Settings, Variant
from tests.markdown import cells


def samples(path: Path, rows: list[tuple[int, int, int]]) -> Path:
    """A -samples CSV of (sent at us, latency us, status) rows."""
    path.write_text("timestamp_us,latency_us,status,error\n" + "".join(f"{t},{lat},{s},\n" for t, lat, s in rows))
    return path


class CurveTest(unittest.TestCase):
    def test_answers_count_in_the_second_they_complete_and_latencies_in_the_one_they_were_sent(self):
        t0 = 1_700_000_000_000_000
        rows = [
            (t0, 20_000, 200),  # sent and done in second 0
            (t0 + 990_000, 20_000, 200),  # sent in second 0, done in second 1
            (t0 + 1_500_000, 40_000, 200),  # second 1
            (t0 + 1_600_000, 10_000, 503),  # refused: neither counted nor timed
            (t0 + 2_100_000, 3_000_000, 200),  # done past the curve's end: timed, not counted
        ]
        with tempfile.TemporaryDirectory() as d:
            curve = fm.Curve.read(samples(Path(d) / "s.csv", rows), seconds=3)
        self.assertEqual(curve.rps, (1.0, 2.0, 0.0))
        self.assertEqual(curve.p99_ms, (20.0, 40.0, 3000.0))

    def test_no_success_is_a_flat_curve(self):
        with tempfile.TemporaryDirectory() as d:
            curve = fm.Curve.read(samples(Path(d) / "s.csv", [(1, 5, 503)]), seconds=2)
        self.assertEqual(curve.rps, (0.0, 0.0))
        self.assertTrue(all(math.isnan(p) for p in curve.p99_ms))

    def test_time_to_peak_is_the_first_second_of_three_at_ninety_percent_of_steady(self):
        # Steady: the median of the last third (1000); a lone second at 95 % early does not count.
        rps = (100, 950, 400, 850, 900, 920, 990, 1000, 1010, 1000, 990, 1000)
        curve = fm.Curve(tuple(map(float, rps)), (math.nan,) * len(rps))
        self.assertEqual(curve.steady(), 1000.0)
        self.assertEqual(curve.to_peak_s(), 5.0)  # seconds 5, 6, 7 are 900, 920, 990
        self.assertTrue(math.isnan(fm.Curve((1.0, 0.0, 0.0, 9.0, 0.0, 9.0), (math.nan,) * 6).to_peak_s()))

    def test_the_p99_settles_at_the_first_of_three_seconds_within_one_and_a_half_times_steady(self):
        # Steady p99: the median of the last third (20); 30 is the ceiling; a second without answers
        # (NaN) is not settled, nor a lone early second under it.
        p99 = (500.0, 25.0, 90.0, math.nan, 30.0, 28.0, 22.0, 20.0, 21.0, 20.0, 19.0, 20.0)
        curve = fm.Curve((1.0,) * len(p99), p99)
        self.assertEqual(curve.steady_p99(), 20.0)
        self.assertEqual(curve.p99_settled_s(), 5.0)
        self.assertTrue(math.isnan(fm.Curve((1.0,) * 4, (9.0, 1.0, 9.0, 1.0)).p99_settled_s()))


class RoundsTest(unittest.TestCase):
    def test_every_loaded_jvm_variant_runs_every_mode_once_a_round_in_a_rotated_order(self):
        variants = {
            "jvm": Variant(["java"]),
            "jvm-aot": Variant(["java", "-XX:AOTCache=x"]),
            "minimal": Variant(["java"], loaded=False),
            "native": Variant(["runner"]),
        }
        order = []

        def one(name, variant, mode, r, settings, folder, kind):
            order.append((r, name, mode))
            self.assertEqual(kind, "open")
            return {"steady_rps": 1.0}

        with tempfile.TemporaryDirectory() as d, mock.patch.object(fm, "one", side_effect=one):
            runs = fm.measure(variants, 2, Settings("loadgen", 8095, Path("jcmd")), Path(d), "open")
        self.assertEqual(set(runs), {"jvm", "jvm-aot"})
        pairs = [(n, m) for n in ("jvm", "jvm-aot") for m in fm.MODES]
        self.assertEqual([(n, m) for r, n, m in order if r == 0], pairs)
        self.assertEqual([(n, m) for r, n, m in order if r == 1], pairs[1:] + pairs[:1])
        self.assertTrue(all(len(launches) == 2 for modes in runs.values() for launches in modes.values()))

    def test_the_option_is_bounded(self):
        base = ["--java", "j", "--loadgen", "l", "--out", "o"]
        self.assertEqual(startup_cli.parse(base).first_minute, 0)
        self.assertEqual(startup_cli.parse([*base, "--first-minute", "3"]).first_minute, 3)
        for bad in ("-1", "21"):
            with self.assertRaisesRegex(Exception, "--first-minute"):
                startup_cli.parse([*base, "--first-minute", bad])
        self.assertEqual(startup_cli.parse(base).first_minute_load, "closed")
        self.assertEqual(startup_cli.parse([*base, "--first-minute-load", "open"]).first_minute_load, "open")


class LoadTest(unittest.TestCase):
    def test_closed_is_users_for_the_minute_and_open_is_arrivals_a_second_with_a_bound_in_flight(self):
        closed, opened = fm.load("closed"), fm.load("open")
        self.assertEqual(closed.env, {"DURATION": "60s", "SLEEP_MS": "20", "VUS": "200"})
        self.assertEqual(
            opened.env, {"DURATION": "60s", "SLEEP_MS": "20", "MODEL": "open", "RATE": "4000", "MAX_VUS": "1500"}
        )
        self.assertEqual((opened.rate, opened.open_s), (4000, 60))
        # Each load is sent to its end whatever the cold JVM does: the generator's bound is past it.
        self.assertTrue(all(x.timeout_s > fm.SECONDS for x in (closed, opened)))


class TablesTest(unittest.TestCase):
    def test_the_report_gives_each_variant_and_mode_its_spread_and_seconds(self):
        def launch(scale: float, peak: float) -> dict:
            rps = [scale * min(1.0, (s + 1) / 10) for s in range(fm.SECONDS)]
            return {
                "rps": rps,
                "p99_ms": [50.0] + [10.0] * (fm.SECONDS - 1),
                "steady_rps": scale,
                "to_peak_s": peak,
                "jit_s": 4.0,
            }

        runs = {"jvm": {"virtual": [launch(2000, 9), launch(2200, 10), launch(2100, 11)]}}
        text = "\n".join(fm.tables(runs))
        row = cells(next(x for x in text.splitlines() if x.startswith("| jvm | virtual | 2,100")))
        self.assertEqual(row[2:], ["2,100 (2,000-2,200)", "10 (9-11)", "50", "10", "4.0"])
        per_second = cells(next(x for x in text.splitlines() if x.startswith("| jvm | virtual | 210")))
        self.assertEqual(per_second[2:4], ["210", "420"])  # second 1 and 2: a tenth, two tenths of 2,100
        latency = cells(next(x for x in text.splitlines() if x.startswith("| jvm | virtual | 50 |")))
        self.assertEqual(latency[2:4], ["50", "10"])
        self.assertEqual(latency[-1], "2")  # in every launch from second 2 every p99 is 10, the steady p99
        self.assertIn("3 interleaved rounds", text)
        self.assertIn("200 users (closed)", text)
        self.assertIn("4,000 arrivals a second (open", "\n".join(fm.tables(runs, "open")))
        self.assertEqual(fm.tables({}), [])


if __name__ == "__main__":
    unittest.main()
