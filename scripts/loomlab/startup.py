#!/usr/bin/env python3
"""`./lab startup`: JVM vs JVM with an AOT cache vs native, measured the same way.

For each available variant, LAUNCHES launches (default 5), interleaved: launch i of every variant
before launch i + 1 of any, in an order rotated every launch, so the machine's drift reaches every
variant alike. Per launch: time to first successful request, polled from process launch (not the
framework's own log line); RSS read from the OS at the first request (and its anonymous and
file-backed parts: an AOT cache is a mapped file), at idle and after a fixed load; throughput of
the sleep and product workloads at that load (k6). Medians with min-max. The AOT cache (JDK 25,
JEP 483/514/515) is written by a training run of the same jar (-XX:AOTCacheOutput) and used by the
measured runs (-XX:AOTCache). Native is measured only where a native executable was really built
(target/*-runner); otherwise the report says it is absent.
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


# /proc/<pid>/status fields: the resident set, its anonymous part (heap, metaspace, code cache,
# thread stacks) and its file-backed part (the JVM's libraries, mapped jars, an AOT cache).
MEMORY = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file"}


def memory_mb(pid: int) -> dict[str, float]:
    """The process's resident memory in MB as the OS counts it, whole and split (MEMORY)."""
    found = dict.fromkeys(MEMORY.values(), float("nan"))
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in MEMORY:
                found[MEMORY[key]] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return found


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


def rotated(names: list[str], i: int) -> list[str]:
    """The variants' order for launch i: shifted by one every launch."""
    k = i % len(names) if names else 0
    return names[k:] + names[:k]


def measure(variants: dict[str, list[str]], args, out: Path) -> dict:
    """Each variant's launches, interleaved (rotated), aggregated per variant."""
    runs: dict[str, list[dict]] = {name: [] for name in variants}
    for i in range(args.launches):
        for name in rotated(list(variants), i):
            runs[name].append(measure_launch(name, variants[name], i, args, out))
    return {name: lr.aggregate(r) for name, r in runs.items()}


def measure_launch(name: str, cmd: list[str], i: int, args, out: Path) -> dict:
    """One launch of one variant: its first request, memory and throughput at a fixed load."""
    service, ttfr = launch(cmd, args.port, {}, out / f"{name}-{i + 1}.log")
    try:
        base = f"http://127.0.0.1:{args.port}"
        first = memory_mb(service.pid)
        time.sleep(2)
        rss_idle = memory_mb(service.pid)["rss"]
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
        rss_load = memory_mb(service.pid)["rss"]
    finally:
        stop(service)
    print(
        f"   {name} launch {i + 1}: first request after {ttfr:.0f} ms, RSS {first['rss']:.0f} MB "
        f"({first['anon']:.0f} anonymous, {first['file']:.0f} file-backed; idle {rss_idle:.0f}, after load"
        f" {rss_load:.0f}), sleep {sleep_rps:.0f} req/s, product {product_rps:.0f} req/s",
        flush=True,
    )
    return {
        "ttfr_ms": ttfr,
        "rss_first_mb": first["rss"],
        "anon_first_mb": first["anon"],
        "file_first_mb": first["file"],
        "rss_idle_mb": rss_idle,
        "rss_load_mb": rss_load,
        "sleep_rps": sleep_rps,
        "product_rps": product_rps,
    }


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


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--java", required=True)
    p.add_argument("--k6", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--launches", type=int, default=5, help="per variant, interleaved across the variants (default 5)")
    p.add_argument("--port", type=int, default=8095)
    p.add_argument("--jvm-flags", default=os.environ.get("LOOMLAB_JVM_FLAGS", ""))
    args = p.parse_args(argv)
    if args.launches < 1:  # no launch gives no figure: refused before the training run, not a traceback after it
        raise LabError("--launches must be 1 or more")
    return args


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
    """Every variant this machine has (the AOT cache trained first), measured in interleaved
    launches; notes for those it has not."""
    jar = ROOT / "target/quarkus-app/quarkus-run.jar"
    flags = args.jvm_flags.split()
    variants: dict[str, list[str]] = {"jvm": [args.java, *flags, "-jar", str(jar)]}
    notes = []
    aot = train_aot_cache(args, flags, jar, out)
    if aot.exists():
        variants["jvm-aot"] = [args.java, *flags, f"-XX:AOTCache={aot}", "-jar", str(jar)]
    else:
        notes.append("jvm-aot: the training run wrote no cache (see aot-training.log); not measured")
    quarkus_aot = ROOT / "target/quarkus-app/app.aot"
    if quarkus_aot.exists():
        # Quarkus' own AOT packaging (./lab aot): aot-jar layout, cache trained by the IT suite.
        variants["jvm-aot-quarkus"] = [args.java, *flags, f"-XX:AOTCache={quarkus_aot}", "-jar", str(jar)]
    else:
        notes.append("jvm-aot-quarkus: no target/quarkus-app/app.aot (build it with ./lab aot)")
    runners = sorted((ROOT / "target").glob("*-runner"))
    if runners:
        variants["native"] = [str(runners[0]), *flags]
    else:
        notes.append(
            "native: no native executable in target/ (this machine cannot build one: no GraalVM or "
            "Mandrel, no container runtime); not measured, and no figure is claimed"
        )
    print(f"== {', '.join(variants)}: {args.launches} launches each, interleaved", flush=True)
    return measure(variants, args, out), notes


def table(results: dict) -> lr.Table:
    t = lr.Table(
        [
            "variant",
            "first request ms",
            "RSS first MB",
            "anonymous / file-backed MB",
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
            f"{lr.fmt(agg['anon_first_mb'].median, 0)} / {lr.fmt(agg['file_first_mb'].median, 0)}",
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
        f"JVM vs JVM+AOT cache vs native: {args.launches} launches each, interleaved across the variants"
        " (launch i of each before launch i + 1 of any, the order rotated), medians (min-max). First request: "
        f"GET {FIRST} polled every 5 ms from process launch; RSS at it split into anonymous and file-backed"
        " (medians; an AOT cache is a mapped file). Load: k6 sleep.js (200 VUs x 20, 20 ms) and "
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
