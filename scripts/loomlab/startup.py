#!/usr/bin/env python3
"""`./lab startup`: JVM vs JVM with an AOT cache vs native, measured the same way.

For each available variant, LAUNCHES launches (default 3): time to first successful request,
polled from process launch (not the framework's own log line); RSS read from the OS at idle and
after a fixed load; throughput of the sleep and product workloads at that load (k6). Medians with
min-max. The AOT cache (JDK 25, JEP 483/514/515) is written by a training run of the same jar
(-XX:AOTCacheOutput) and used by the measured runs (-XX:AOTCache). Native is measured only where
a native executable was really built (target/*-runner); otherwise the report says it is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

from loomlab import ROOT, LabError, command, proc
from loomlab import labreport as lr

FIRST = "/api/virtual/sleep?ms=0"

# quarkusio/benchmarks, January 2026, 4 CPUs, Hibernate + PostgreSQL (a published anchor, not ours).
ANCHOR = {
    "jvm": {"ttfr_ms": 2853, "rss_first_mb": 273, "rss_load_mb": 718, "tps": 19_300},
    "native": {"ttfr_ms": 69, "rss_first_mb": 76, "rss_load_mb": 147, "tps": 10_200},
}


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def get(url: str, timeout=2.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            return r.status
    except OSError:
        return 0


def launch(cmd: list[str], port: int, env: dict, log: Path) -> tuple[subprocess.Popen, float]:
    full = dict(os.environ, **env, QUARKUS_HTTP_PORT=str(port))
    t0 = time.monotonic()
    service = subprocess.Popen(cmd, env=full, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}{FIRST}"
    deadline = t0 + 60
    while time.monotonic() < deadline:
        if get(url, timeout=1) == 200:
            return service, (time.monotonic() - t0) * 1000
        if service.poll() is not None:
            raise LabError(f"{cmd[0]} exited with {service.returncode}; see {log}")
        time.sleep(0.005)
    stop(service)
    raise LabError(f"no successful request within 60 s; see {log}")


def stop(service: subprocess.Popen):
    proc.stop(service, 30)


def k6_rate(k6: str, script: str, env: dict, out: Path) -> float:
    full = dict(os.environ, **env, SUMMARY_JSON=str(out))
    subprocess.run(
        [k6, "run", "--quiet", "--no-color", str(ROOT / script)],
        env=full,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    data = json.loads(out.read_text())
    return lr.k6_figures(data, Path(script).stem)["throughput"]


def measure(name: str, cmd: list[str], args, out: Path) -> dict:
    runs = []
    for i in range(args.launches):
        service, ttfr = launch(cmd, args.port, {}, out / f"{name}-{i + 1}.log")
        try:
            base = f"http://127.0.0.1:{args.port}"
            rss_first = rss_mb(service.pid)
            time.sleep(2)
            rss_idle = rss_mb(service.pid)
            sleep_rps = k6_rate(
                args.k6,
                "k6/sleep.js",
                {"MODE": "virtual", "BASE_URL": base, "VUS": "200", "ITERATIONS": "20", "SLEEP_MS": "20"},
                out / f"{name}-{i + 1}-sleep.json",
            )
            product_rps = k6_rate(
                args.k6,
                "k6/product.js",
                {"MODE": "virtual", "BASE_URL": base, "STAGES": "3s:100,6s:100,1s:0"},
                out / f"{name}-{i + 1}-product.json",
            )
            rss_load = rss_mb(service.pid)
        finally:
            stop(service)
        runs.append(
            {
                "ttfr_ms": ttfr,
                "rss_first_mb": rss_first,
                "rss_idle_mb": rss_idle,
                "rss_load_mb": rss_load,
                "sleep_rps": sleep_rps,
                "product_rps": product_rps,
            }
        )
        print(
            f"   {name} launch {i + 1}: first request after {ttfr:.0f} ms, RSS {rss_first:.0f} MB "
            f"(idle {rss_idle:.0f}, after load {rss_load:.0f}), sleep {sleep_rps:.0f} req/s, "
            f"product {product_rps:.0f} req/s",
            flush=True,
        )
    return lr.aggregate(runs)


# What the AOT training run calls (20 times each): the paths a measured start-up takes first.
TRAINING = (
    "/api/virtual/sleep?ms=1",
    "/api/worker/sleep?ms=1",
    "/api/virtual/products/1",
    "/api/worker/products/2",
    "/q/health/ready",
    "/q/metrics",
    "/api/info",
)


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--java", required=True)
    p.add_argument("--k6", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--launches", type=int, default=3)
    p.add_argument("--port", type=int, default=8095)
    p.add_argument("--jvm-flags", default=os.environ.get("LOOMLAB_JVM_FLAGS", ""))
    return p.parse_args()


def train_aot_cache(args, flags: list[str], jar: Path, out: Path) -> Path:
    """A training run of the JVM that writes an AOT cache as it exits (JDK 25, JEP 514/515)."""
    aot = out / "app.aot"
    print("== jvm-aot: training run writes the AOT cache", flush=True)
    service, _ = launch(
        [args.java, *flags, f"-XX:AOTCacheOutput={aot}", "-jar", str(jar)], args.port, {}, out / "aot-training.log"
    )
    base = f"http://127.0.0.1:{args.port}"
    for path in TRAINING:
        for _ in range(20):
            get(base + path, timeout=5)
    stop(service)  # the cache is written as the JVM exits
    return aot


def measure_all(args, out: Path) -> tuple[dict, list[str]]:
    """Every variant this machine has, measured; notes for those it has not."""
    jar = ROOT / "target/quarkus-app/quarkus-run.jar"
    flags = args.jvm_flags.split()
    results, notes = {}, []
    print("== jvm", flush=True)
    results["jvm"] = measure("jvm", [args.java, *flags, "-jar", str(jar)], args, out)
    aot = train_aot_cache(args, flags, jar, out)
    if aot.exists():
        results["jvm-aot"] = measure("jvm-aot", [args.java, *flags, f"-XX:AOTCache={aot}", "-jar", str(jar)], args, out)
    else:
        notes.append("jvm-aot: the training run wrote no cache (see aot-training.log); not measured")
    quarkus_aot = ROOT / "target/quarkus-app/app.aot"
    if quarkus_aot.exists():
        # Quarkus' own AOT packaging (./lab aot): aot-jar layout, cache trained by the IT suite.
        print("== jvm-aot-quarkus: the cache Quarkus built from the integration tests", flush=True)
        results["jvm-aot-quarkus"] = measure(
            "jvm-aot-quarkus", [args.java, *flags, f"-XX:AOTCache={quarkus_aot}", "-jar", str(jar)], args, out
        )
    else:
        notes.append("jvm-aot-quarkus: no target/quarkus-app/app.aot (build it with ./lab aot)")
    runners = sorted((ROOT / "target").glob("*-runner"))
    if runners:
        print("== native", flush=True)
        results["native"] = measure("native", [str(runners[0]), *flags], args, out)
    else:
        notes.append(
            "native: no native executable in target/ (this machine cannot build one: no GraalVM or "
            "Mandrel, no container runtime); not measured, and no figure is claimed"
        )
    return results, notes


def table(results: dict) -> lr.Table:
    t = lr.Table(
        [
            "variant",
            "first request ms",
            "RSS first MB",
            "RSS idle MB",
            "RSS after load MB",
            "sleep req/s",
            "product req/s",
            "anchor: TTFR ms",
            "anchor: RSS first/load MB",
            "anchor: tps",
        ]
    )
    for name, agg in results.items():
        a = ANCHOR.get(name if name in ("jvm", "native") else "", {})
        t.add(
            name,
            lr.fmt_spread(agg["ttfr_ms"], 0),
            lr.fmt_spread(agg["rss_first_mb"], 0),
            lr.fmt_spread(agg["rss_idle_mb"], 0),
            lr.fmt_spread(agg["rss_load_mb"], 0),
            lr.fmt_spread(agg["sleep_rps"], 0),
            lr.fmt_spread(agg["product_rps"], 0),
            lr.fmt(a.get("ttfr_ms"), 0),
            f"{a['rss_first_mb']} / {a['rss_load_mb']}" if a else "-",
            lr.fmt(a.get("tps"), 0),
        )
    return t


def main():
    args = parse()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results, notes = measure_all(args, out)
    t = table(results)
    text = (
        f"JVM vs JVM+AOT cache vs native: {args.launches} launches each, medians (min-max). First request: "
        f"GET {FIRST} polled every 5 ms from process launch. Load: k6 sleep.js (200 VUs x 20, 20 ms) and "
        f"product.js (100 VUs), virtual mode. Anchor: quarkusio/benchmarks, January 2026, 4 CPUs, "
        "Hibernate + PostgreSQL (a different app and machine, for scale only)."
    )
    print("\n" + t.text())
    for n in notes:
        print(n)
    (out / "report.md").write_text(
        "# loom-lab startup report\n\n" + text + "\n\n" + t.markdown() + "\n\n" + "".join(f"- {n}\n" for n in notes)
    )
    print(f"report: {out / 'report.md'}")


if __name__ == "__main__":
    command(main)
