"""`python -m loomlab.spike --out DIR [--rounds N]`: the load-generator spike (issue 54).

Builds what it runs (the reference server and loadgen with scripts/gotool.sh; vegeta's CLI and hey
with `go install` into the lab's cache), then runs every candidate on both loads in N rounds whose
order rotates, one warm-up trial each first. Writes DIR/results.json (every trial) and DIR/report.md
(per load and candidate: the median and range over the rounds of its own CPU per request, the
server's, req/s and p99)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import time
from pathlib import Path

from loomlab import ROOT, LabError, command, proc
from loomlab.doctor.probes import CACHE

from .generators import SLEEP_PATH, Generator, hey, loadgen, vegeta

PORT = 8097
# The candidates fetched by name from the Go module proxy, at the versions the spike measured.
MODULES = {"vegeta": "github.com/tsenart/vegeta/v12@v12.13.0", "hey": "github.com/rakyll/hey@v0.1.5"}


def built(name: str) -> str:
    """A Go program of the lab's (gotool.sh) or a candidate's binary, installed once into the cache."""
    if name in MODULES:
        bin_dir = CACHE / "spike-bin"
        if not (bin_dir / name).exists():
            subprocess.run(["go", "install", MODULES[name]], env={**os.environ, "GOBIN": str(bin_dir)}, check=True)
        return str(bin_dir / name)
    done = subprocess.run(["bash", str(ROOT / "scripts/gotool.sh"), name], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def trial(gen: Generator, load: str, url: str, server: int, stem: Path) -> dict:
    """One run of `gen` on `load`: its figures and both processes' CPU."""
    cmd = gen.command(load, url, stem)
    cpu0, server0, t0 = children_cpu(), process_cpu(server), time.monotonic()
    with Path(str(stem) + ".stdout").open("w") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, timeout=300)
    took, gen_cpu, server_cpu = time.monotonic() - t0, children_cpu() - cpu0, process_cpu(server) - server0
    if done.returncode != 0:
        raise LabError(f"{gen.name} on {load} failed ({done.returncode}): {done.stderr[-1000:]}")
    o = gen.read(load, stem)
    return {
        "generator": gen.name,
        "load": load,
        "requests": o.requests,
        "failed": o.failed,
        "req_per_s": o.requests / took,
        "p50_ms": o.p50_ms,
        "p99_ms": o.p99_ms,
        "gen_cpu_ms_per_req": gen_cpu * 1000 / o.requests,
        "server_cpu_ms_per_req": server_cpu * 1000 / o.requests,
        "wall_s": took,
    }


def spread(values: list[float], digits: int) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def report(trials: list[dict], rounds: int) -> str:
    lines = [
        "| load | generator | its own CPU ms/req | server CPU ms/req | req/s | p99 ms | failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for load in ("A3", "open"):
        for name in dict.fromkeys(t["generator"] for t in trials):
            mine = [t for t in trials if t["load"] == load and t["generator"] == name and t["round"] > 0]
            if mine:
                col = {k: [t[k] for t in mine] for k in mine[0]}
                lines.append(
                    f"| {load} | {name} | {spread(col['gen_cpu_ms_per_req'], 3)}"
                    f" | {spread(col['server_cpu_ms_per_req'], 3)} | {spread(col['req_per_s'], 0)}"
                    f" | {spread(col['p99_ms'], 1)} | {sum(col['failed'])} |"
                )
    return f"Median (min-max) over {rounds} rounds, one warm-up trial each not counted.\n\n" + "\n".join(lines) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m loomlab.spike", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=5, choices=range(1, 21), metavar="N (1-20)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gens = [loadgen(built("loadgen")), vegeta(built("vegeta")), hey(built("hey"))]
    server = subprocess.Popen([built("reference"), "-addr", f"127.0.0.1:{PORT}"], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{PORT}"
    trials = []
    try:
        if not proc.wait_http(url + "/q/health/ready", 30, alive=lambda: server.poll() is None):
            raise LabError("the reference server did not start")
        plan = [(g, load) for g in gens for load in g.loads]
        for r in range(args.rounds + 1):  # round 0: the warm-up, not counted
            for i in range(len(plan)):
                gen, load = plan[(i + r) % len(plan)]
                stem = out / f"r{r}-{gen.name.split()[0]}-{load}"
                trials.append({"round": r, **trial(gen, load, url + SLEEP_PATH, server.pid, stem)})
                print(json.dumps(trials[-1]), flush=True)
    finally:
        proc.stop(server)
    (out / "results.json").write_text(json.dumps(trials, indent=1))
    (out / "report.md").write_text(report(trials, args.rounds))
    print((out / "report.md").read_text())


if __name__ == "__main__":
    command(main)
