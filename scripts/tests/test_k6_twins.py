"""A load is declared once, in loadgen's terms (its Request); k6/*.js, kept for users who bring k6, is
its twin. This holds every twin to its declaration: each script is run without k6 (Node, with
stand-ins for k6's modules: tests/k6twin) in the environment the bench gives it, for every load and
lane of every scale, and what it sends must be what the declaration sends: the same method, paths and
query (a product's id within the declared range: k6 draws its own), the same bodies byte for byte, the
same gRPC method, metadata and messages. Checks and figures are not compared: the stand-ins answer
nothing real. Nor is a stream's window: no load sets WINDOW, and the stand-in sends one message at a
time (a load that sets it fails the count of messages here, a sign to model it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unittest
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

from loomlab.bench.planning.arrivals import Request
from loomlab.bench.planning.lane import Lane
from loomlab.bench.planning.loads import Load
from loomlab.bench.running.engines.loadgen import run_env
from loomlab.bench.workloads import suites_of

ROOT = Path(__file__).resolve().parents[2]
TWIN = Path(__file__).resolve().parent / "k6twin"
# Requests a twin sends for a load of paths; bodies and messages compared, of a stream.
ITERATIONS, BODIES = 64, 3
NODE = shutil.which("node")
# k6/product.js draws its ids from k6's own generator: an id is compared as a number in range.
PRODUCT_ID = re.compile(r"/products/(\d+)")


def twins() -> Iterator[tuple[Load, Lane, dict, Request]]:
    """Every declared load of every script, in each of its lanes, once per environment."""
    seen = set()
    for script in sorted(p.name for p in (ROOT / "k6").glob("*.js") if p.name != "eslint.config.js"):
        for _, load in suites_of(script):
            for lane in load.lanes if load.request is not None else ():
                env = run_env(load, lane, warmup=False)
                key = (script, json.dumps(env, sort_keys=True))
                if key not in seen:
                    seen.add(key)
                    yield load, lane, env, load.request(env)  # type: ignore[misc]


def iterations(request: Request) -> int:
    """The iterations of a twin's run: a stream's one, a body each, or enough to take every path."""
    if request.bodies is None:
        return ITERATIONS
    return 1 if request.stream is not None else min(BODIES, request.bodies.count)


def sent(script: str, env: dict, iterations: int) -> dict:
    """What the script sends in `iterations` of its default function (driver.mjs's JSON)."""
    node = [str(NODE), "--no-warnings", "--experimental-loader", (TWIN / "loader.mjs").as_uri()]
    out = subprocess.run(
        [*node, str(TWIN / "driver.mjs"), str(ROOT / script), str(iterations)],
        env={"TWIN_ENV": json.dumps(env), "TWIN_MESSAGES": str(BODIES)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if out.returncode != 0:
        raise AssertionError(f"{script} with {env}: node exit {out.returncode}: {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@unittest.skipUnless(NODE, "no Node: ./lab test installs it (the k6 scripts' lint)")
class K6TwinTest(unittest.TestCase):
    def test_every_declared_load_is_what_its_k6_script_sends(self):
        every = list(twins())
        # One Node a twin (about 0.1 s each, some 280 of them), a few at once.
        with ThreadPoolExecutor(4) as pool:
            runs = pool.map(lambda t: sent(t[0].script, t[2], iterations(t[3])), every)
            for (load, lane, env, request), twin in zip(every, runs, strict=True):
                with self.subTest(script=load.script, load=load.name, lane=lane.key):
                    if request.stream is not None:
                        self.assert_stream(twin, request)
                    elif request.bodies is not None:
                        self.assert_bodies(twin, request)
                    else:
                        self.assert_paths(twin, env, request)
        self.assertGreater(len(every), 200)

    def assert_paths(self, twin: dict, env: dict, request: Request) -> None:
        self.assertEqual({r["method"] for r in twin["requests"]}, {"GET"})
        declared = {PRODUCT_ID.sub("/products/{id}", p) for p in request.paths}
        for r in twin["requests"]:
            path = path_of(r["url"])
            if m := PRODUCT_ID.search(path):
                self.assertTrue(1 <= int(m.group(1)) <= int(env.get("PRODUCTS", "10000")), path)
            self.assertIn(PRODUCT_ID.sub("/products/{id}", path), declared)
        # Every path the declaration takes in turn is one the script sends, where it draws none.
        if "LONG_SHARE" not in env:
            sent_paths = {PRODUCT_ID.sub("/products/{id}", path_of(r["url"])) for r in twin["requests"]}
            self.assertEqual(sent_paths, declared)

    def assert_bodies(self, twin: dict, request: Request) -> None:
        assert request.bodies is not None
        lines = request.bodies.lines()
        for r, line in zip(twin["requests"], lines, strict=False):
            self.assertEqual(("POST", path_of(r["url"])), ("POST", request.paths[0]))
            self.assertEqual(r["headers"].get("Content-Type"), request.bodies.content_type)
            self.assertEqual(r["body"], line)
        self.assertEqual(len(twin["requests"]), iterations(request))

    def assert_stream(self, twin: dict, request: Request) -> None:
        assert request.bodies is not None and request.stream is not None
        (call,) = twin["streams"]
        self.assertEqual(call["method"], request.stream.method)
        self.assertEqual(call["metadata"], dict(request.stream.metadata))
        count = min(BODIES, request.bodies.count)
        self.assertEqual(len(twin["messages"]), count)
        for message, line in zip(twin["messages"], request.bodies.lines(), strict=False):
            self.assertEqual(message, json.loads(line))


if __name__ == "__main__":
    unittest.main()
