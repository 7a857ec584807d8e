"""loadgen as an engine (scripts/loadgen: a driver over vegeta's library): the load's environment
read as k6's scripts read it (MODEL, VUS, ITERATIONS, DURATION, STAGES, RATE, MAX_VUS, MAX_DROPPED,
MAX_ERRORS), its Request's paths as the targets, the driver's JSON summary as the
run's figures, and the thresholds k6's scripts hold (scenarioThresholds in k6/lib/lab.js) checked
here on them."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from loomlab import LabError

from ..loads import Load, Request, k6_mode, on_cpus
from ..settings import RunSettings
from . import THRESHOLDS_CROSSED, Generated

# k6/lib/lab.js: http_req_failed rate < 0.01 unless a script tolerates more (MAX_ERRORS).
MAX_ERROR_RATE = 0.01


def run_env(load: Load, mode: str, warmup: bool) -> dict:
    """The environment that shapes a run, as k6 would see it: the load's, a warm-up's overrides, the
    column's MODE (and CLIENTS or OFFLOAD)."""
    return {**load.env, **(load.warmup_env if warmup else {}), **k6_mode(mode)}


def shape_flags(env: dict) -> list[str]:
    """loadgen's flags for the shape k6's byModel, closedIterations, steadyUsers and closedStages read
    from `env` (an open run's duration is OPEN_DURATION where DURATION is a ramp's, k6/product.js)."""
    if env.get("MODEL", "closed") == "open":
        duration = env.get("OPEN_DURATION", env.get("DURATION"))
        return ["-model", "open", "-rate", env["RATE"], "-duration", duration, "-max-workers", env["MAX_VUS"]]
    if env.get("MODEL", "closed") != "closed":
        raise LabError(f"MODEL must be closed or open, got {env['MODEL']!r}")
    if "STAGES" in env:
        return ["-model", "closed", "-stages", env["STAGES"]]
    flags = ["-model", "closed", "-users", env["VUS"]]
    if "ITERATIONS" in env:
        return [*flags, "-iterations", env["ITERATIONS"]]
    return [*flags, "-duration", env["DURATION"]]


def crossed(env: dict, request: Request, s: dict) -> list[str]:
    """The thresholds a run crossed, as k6's scripts state them, on loadgen's summary `s`."""
    most_errors = request.max_errors if request.max_errors is not None else float(env.get("MAX_ERRORS", MAX_ERROR_RATE))
    floor_ms, answered = request.floor_ms, s["requests"] > 0
    limits = [
        (answered, "no request was answered"),
        (s["error_rate"] < most_errors, f"error rate {s['error_rate']:.4f}"),
        (s["checks_failed"] == 0, f"{s['checks_failed']} answers failed their check"),
        (s["overflow"] == 0, f"{s['overflow']} answers past the samples a run keeps (stopped at its bound)"),
        (not answered or s["latency_ms"]["min"] >= floor_ms, f"an answer sooner than {floor_ms:g} ms"),
        *((not answered or s["latency_ms"][f] < most, f"{f} {most:g} ms or more") for f, most in request.limits),
    ]
    if env.get("MODEL") == "open":
        limits.append((s["dropped"] <= int(env.get("MAX_DROPPED", 0)), f"{s['dropped']} arrivals dropped"))
    return [what for ok, what in limits if not ok]


def figures(s: dict) -> dict:
    """The driver's summary under labreport.k6_figures' keys (the rate over the run from the first
    request sent to the last answer; no setup: the bench waits for readiness before a run)."""
    lat = s["latency_ms"]
    nan = float("nan")
    return {
        "requests": s["requests"],
        "throughput": s["requests"] / s["duration_s"] if s["duration_s"] > 0 else 0.0,
        "setup_s": 0.0,
        "setup_probes": 0,
        "mean": lat.get("mean", nan),
        "sd": lat.get("sd", nan),
        "min": lat.get("min", nan),
        "p50": lat.get("p50", nan),
        "p90": lat.get("p90", nan),
        "p95": lat.get("p95", nan),
        "p99": lat.get("p99", nan),
        "max": lat.get("max", nan),
        "error_rate": s["error_rate"],
        "dropped": s["dropped"],
        "duration_s": s["duration_s"],
    }


def counted(counters: tuple, request: Request, s: dict) -> dict:
    """The load's counters (k6's `<name>_count` and `_rate` figures) from the answers' status codes."""
    status = dict(request.counts)
    missing = [c for c in counters if c not in status]
    if missing:
        raise LabError(f"loadgen: the request counts no status for the load's counters {missing}")
    out = {}
    for name in counters:
        count = s["status_codes"].get(str(status[name]), 0)
        out[f"{name}_count"] = count
        out[f"{name}_rate"] = count / s["duration_s"] if s["duration_s"] > 0 else 0.0
    return out


@dataclass(frozen=True)
class Loadgen:
    path: str
    name: str = "loadgen"

    def version(self) -> str:
        return "loadgen (scripts/loadgen) on vegeta v12.13.0"

    def generate(
        self, load: Load, mode: str, base_url: str, out: Path, label: str, settings: RunSettings, warmup: bool
    ) -> Generated:
        if load.request is None:
            raise LabError(f"{load.script}: loadgen cannot send this load (it declares no request)")
        if settings.runners > 1:
            raise LabError("--runners: split runs are k6's so far (--engine k6)")
        env = run_env(load, mode, warmup)
        request = load.request(env)
        targets = out.with_suffix(".targets.jsonl")
        targets.write_text("".join(json.dumps({"method": "GET", "url": base_url + p}) + "\n" for p in request.paths))
        cmd = [self.path, "-targets", str(targets), *shape_flags(env), "-summary", str(out)]
        cmd += [flag for text in request.expect for flag in ("-expect", text)]
        try:
            run = subprocess.run(
                on_cpus(cmd, load.k6_cpus), capture_output=True, text=True, timeout=load.timeout_s, check=False
            )
        except subprocess.TimeoutExpired as e:
            raise LabError(f"loadgen run '{label}' exceeded {load.timeout_s} s and was stopped") from e
        if run.returncode != 0 or not out.exists():
            raise LabError(f"loadgen run '{label}' failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        summary = json.loads(out.read_text())
        failed = crossed(env, request, summary)
        out.with_suffix(".log").write_text(
            run.stdout + run.stderr + "".join(f"threshold crossed: {f}\n" for f in failed)
        )
        return Generated(
            {**figures(summary), **counted(load.counters, request, summary)}, THRESHOLDS_CROSSED if failed else 0
        )
